"""Case-file policy spellings, their errors, and the per-dtype defaults of docs/precision-policy.md."""

import ml_dtypes
import numpy as np
import pytest

from aclcts.judge.policies import (AllClose, DualThousandth, Exact, Mare, Ratio, Ulp, V2, default_policy,
                                   policy_from_spec)
from aclcts.core.constants import DataType


@pytest.mark.parametrize("spec, expected", [
    ("exact", Exact()),
    ("ulp:2", Ulp(2)),
    ("ulp:n=3", Ulp(3)),
    ("allclose:rtol=1e-3,atol=1e-5", AllClose(1e-3, 1e-5)),
    ("allclose:1e-3,1e-5", AllClose(1e-3, 1e-5)),
    ("ratio:0.01,0.05", Ratio(0.01, 0.05)),
    ("ratio", Ratio(0.01, 0.05)),
    ("ratio:t=0.001", Ratio(0.001, 0.05)),
    ("dual_thousandth", DualThousandth()),
    ("dual_thousandth:rtol=0.01,atol=0.02,max_atol=0.2", DualThousandth(0.01, 0.02, 0.2)),
    ("mare", Mare()),
    ("mare:threshold=0.001", Mare(0.001)),
    ("v2", V2()),
    ("V2 : rtol=0.1, atol=0.2, limit=1", V2(0.1, 0.2, 1.0)),
    ({"name": "allclose", "rtol": 1e-3, "atol": 0}, AllClose(1e-3, 0.0)),
    ({"name": "exact"}, Exact()),
])
def test_valid_spellings(spec, expected):
    assert policy_from_spec(spec) == expected


@pytest.mark.parametrize("policy", [Exact(), Ulp(2), AllClose(1e-3, 1e-5), Ratio(0.02, 0.1), V2(0.1, 0.2, 1.0),
                                    DualThousandth(), Mare(0.5)])
def test_spec_round_trips(policy):
    assert policy_from_spec(policy.spec()) == policy


@pytest.mark.parametrize("spec, why", [
    ("", "non-empty"),
    ("fuzzy", "unknown policy 'fuzzy'"),
    ("ulp", "needs parameter"),
    ("ulp:", "nothing after"),
    ("ulp:x", "could not convert"),
    ("ulp:-1", "non-negative"),
    ("ulp:1.5", "non-negative integer"),
    ("allclose:rtol=1e-3", "atol"),
    ("allclose:rtol=1e-3,btol=1", "no parameter 'btol'"),
    ("allclose:rtol=-1,atol=0", "outside"),
    ("ratio:2,0.05", "outside"),
    ("ratio:0,0.05", "t must be > 0"),
    ("ratio:t=0.1,0.2", "after a keyword"),
    ("ratio:0.1,,0.2", "empty parameter"),
    ("ratio:0.1,t=0.2", "given twice"),
    ("exact:1", "at most 0"),
    ({"rtol": 1}, "needs a string 'name'"),
    (3, "non-empty string or a dict"),
])
def test_bad_spec_names_the_spec_the_reason_and_the_valid_forms(spec, why):
    with pytest.raises(ValueError) as info:
        policy_from_spec(spec)
    message = str(info.value)
    assert repr(spec) in message and why in message and "valid forms" in message and "allclose:rtol=" in message


@pytest.mark.parametrize("dtype, family, expected", [
    (np.float16, "elementwise", V2(2.0**-9, 2.0**-9, 0.1)),
    (ml_dtypes.bfloat16, "matmul", V2(2.0**-6, 2.0**-6, 1.0)),
    (np.float32, "reduction", V2(2.0**-10, 2.0**-16, 1e-2)),
    (ml_dtypes.float8_e4m3fn, "nn", V2(2.0**-2, 2.0**-4, 1.0)),
    (ml_dtypes.float8_e5m2, "conv", V2(2.0**-1, 2.0**-3, 0.1)),
    (np.float64, "elementwise", AllClose(1e-7, 1e-7)),
    (np.complex64, "elementwise", V2(2.0**-10, 2.0**-16, 1e-2)),
    (np.int32, "elementwise", Exact()),
    (np.bool_, "compare", Exact()),
    (np.float16, "shape", Exact()),
    (np.float32, "cast", Exact()),
    (np.float32, "index", Exact()),
    (int(DataType.ACL_FLOAT16), "elementwise", V2(2.0**-9, 2.0**-9, 0.1)),
])
def test_default_policy(dtype, family, expected):
    assert default_policy(dtype, family) == expected


def test_default_policy_rejects_an_unknown_family():
    with pytest.raises(ValueError, match="unknown op family 'math'.*elementwise"):
        default_policy(np.float32, "math")
