"""Cast reference: rounding, saturation, NaN, bool, bfloat16, and dst_type against the output dtype."""

import ml_dtypes
import numpy as np
import pytest

from aclcts.core.constants import DataType
from aclcts.reference import reference

F16, F32, I32 = np.float16, np.float32, np.int32

def run(op, inputs, outs, attrs=None):
    """Run a reference op and return its outputs."""
    return reference(op).compute([None if x is None else np.asarray(x) for x in inputs], attrs or {}, outs)


@pytest.mark.parametrize("src, dst_type, values, expected", [
    (F32, DataType.ACL_FLOAT16, [2049.0, 70000.0], [2048.0, np.inf]),
    (F32, DataType.ACL_INT32, [1.9, -1.9, np.nan, 3e9], [1, -1, 0, 2**31 - 1]),
    (F16, DataType.ACL_INT8, [200.0, -0.5], [127, 0]),
    (I32, DataType.ACL_INT8, [200, -129], [-56, 127]),
    (I32, DataType.ACL_FLOAT16, [2049], [2048.0]),
    (F32, DataType.ACL_BOOL, [0.0, -0.0, 0.1], [False, False, True]),
    (np.bool_, DataType.ACL_FLOAT, [True, False], [1.0, 0.0]),
])
def test_cast(src, dst_type, values, expected):
    from aclcts.core.dtypes import numpy_dtype
    out = numpy_dtype(dst_type)
    (y,) = run("Cast", [np.array(values, src)], [out], {"dst_type": int(dst_type), "truncate": False})
    assert y.dtype == out and y.tolist() == expected


def test_cast_to_bfloat16_rounds_once():
    (y,) = run("Cast", [np.array([1 + 2**-8 + 2**-20], F32)], [ml_dtypes.bfloat16],
               {"dst_type": int(DataType.ACL_BF16)})
    assert float(y[0]) == 1 + 2**-7


def test_cast_dst_type_must_match_the_output_dtype():
    with pytest.raises(ValueError, match="Cast: dst_type=1 .* disagrees with the output dtype int32"):
        run("Cast", [np.ones(2, F32)], [I32], {"dst_type": 1})
    with pytest.raises(ValueError, match="Cast: required attribute"):
        run("Cast", [np.ones(2, F32)], [I32])
