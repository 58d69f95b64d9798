"""Cast: round-half-even between floats, truncation and saturation to integers, wrap between integers, bools."""

import ml_dtypes
import numpy as np
import pytest

from aclcts.core.constants import DataType
from aclcts.sim.kernels import KernelError

F16, F32, I32 = np.float16, np.float32, np.int32
BF16 = ml_dtypes.bfloat16


def cast(run, x, dst_np, dst_acl, **attrs):
    (y,) = run("Cast", [x], [(dst_np, x.shape)], {"dst_type": int(dst_acl), **attrs})
    assert y.dtype == np.dtype(dst_np)
    return y


def test_float32_to_float16_ties_round_to_even(run):
    # fp16 spacing is 2 in [2048, 4096): 2049 and 2051 are ties; 2049.5 is not.
    x = np.array([2049.0, 2051.0, 2049.5, -2051.0], F32)
    assert cast(run, x, F16, DataType.ACL_FLOAT16).tolist() == [2048.0, 2052.0, 2050.0, -2052.0]


def test_float32_to_bfloat16_ties_round_to_even(run):
    # bf16 has 7 fraction bits: 1 + 2^-8 is halfway between 1 and 1 + 2^-7 (-> 1, even);
    # 1 + 3 * 2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6 (-> 1 + 2^-6, even).
    x = np.array([1 + 2**-8, 1 + 3 * 2**-8], F32)
    y = cast(run, x, BF16, DataType.ACL_BF16)
    assert [float(v) for v in y] == [1.0, 1 + 2**-6]


def test_float32_to_float16_overflow_gives_infinity(run):
    x = np.array([70000.0, -70000.0, 65504.0], F32)
    assert cast(run, x, F16, DataType.ACL_FLOAT16).tolist() == [np.inf, -np.inf, 65504.0]


def test_float_to_int_truncates_saturates_and_maps_nan_to_zero(run):
    x = np.array([2.7, -2.7, np.nan, np.inf, -np.inf, 3e9, -3e9], F32)
    assert cast(run, x, I32, DataType.ACL_INT32).tolist() == [2, -2, 0, 2**31 - 1, -(2**31), 2**31 - 1, -(2**31)]


def test_float16_to_int16_saturates_infinity(run):
    x = np.array([np.inf, -np.inf, 300.5], F16)
    assert cast(run, x, np.int16, DataType.ACL_INT16).tolist() == [32767, -32768, 300]


def test_float_to_uint8_saturates_at_zero(run):
    x = np.array([-5.0, 255.9, 1000.0], F32)
    assert cast(run, x, np.uint8, DataType.ACL_UINT8).tolist() == [0, 255, 255]


def test_bfloat16_to_int32_truncates(run):
    x = np.array([-3.5, 2.75], BF16)
    assert cast(run, x, I32, DataType.ACL_INT32).tolist() == [-3, 2]


def test_int_to_narrower_int_wraps(run):
    x = np.array([300, -129, 127], I32)
    assert cast(run, x, np.int8, DataType.ACL_INT8).tolist() == [44, 127, 127]


def test_int_to_float16_rounds_to_even(run):
    x = np.array([2049, 2051, 4097], I32)
    assert cast(run, x, F16, DataType.ACL_FLOAT16).tolist() == [2048.0, 2052.0, 4096.0]


def test_to_bool_is_nonzero_and_from_bool_is_zero_or_one(run):
    x = np.array([0.0, 0.5, np.nan, -0.0], F32)
    assert cast(run, x, np.bool_, DataType.ACL_BOOL).tolist() == [False, True, True, False]
    b = np.array([True, False])
    assert cast(run, b, F16, DataType.ACL_FLOAT16).tolist() == [1.0, 0.0]
    assert cast(run, b, I32, DataType.ACL_INT32).tolist() == [1, 0]


def test_truncate_attribute_is_accepted_and_has_no_effect(run):
    x = np.array([2049.0], F32)
    assert cast(run, x, F16, DataType.ACL_FLOAT16, truncate=True).tolist() == [2048.0]


def test_dst_type_must_agree_with_the_output_dtype(run):
    with pytest.raises(KernelError, match=r"Cast: attr 'dst_type' is int32, but output 'y' has dtype float16"):
        run("Cast", [np.zeros(2, F32)], [(F16, (2,))], {"dst_type": int(DataType.ACL_INT32)})


def test_dst_type_is_required(run):
    with pytest.raises(KernelError, match=r"Cast: required attr 'dst_type' was not given"):
        run("Cast", [np.zeros(2, F32)], [(F16, (2,))])


def test_truncate_must_be_bool(run):
    with pytest.raises(KernelError, match=r"Cast: attr 'truncate' must be a bool, got 1"):
        run("Cast", [np.zeros(2, F32)], [(F16, (2,))], {"dst_type": 1, "truncate": 1})


def test_unsupported_dst_type_is_rejected(run):
    with pytest.raises(KernelError, match=r"Cast: attr 'dst_type' is ACL_STRING, which the simulator's Cast does not support"):
        run("Cast", [np.zeros(2, F32)], [(F16, (2,))], {"dst_type": int(DataType.ACL_STRING)})


def test_cast_infer_shape_uses_dst_type(infer):
    (out,) = infer("Cast", [(F32, (3, -1))], attrs={"dst_type": int(DataType.ACL_FLOAT16)})
    assert (out.dtype, out.shape, out.shape_range) == (1, (3, -1), ((3, 3), (0, -1)))
