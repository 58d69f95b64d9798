"""Movement and shape kernels (issue 23): bits copied unchanged, padding limits, StridedSlice against the reference,
argument checks and shape inference."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from aclcts.reference import reference
from aclcts.sim.kernels import KernelError

F16, F32, I32, I64 = np.float16, np.float32, np.int32, np.int64
BF16 = ml_dtypes.bfloat16
#: float16 NaN with a payload, -0, the smallest subnormal, -inf.
BITS = np.array([0x7E01, 0x8000, 0x0001, 0xFC00], np.uint16)
MASK_NAMES = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def test_pad_and_roll_copy_nan_payloads_negative_zero_and_subnormals(run):
    x = BITS.view(F16).reshape(2, 2)
    (y,) = run("Pad", [x, np.array([1, 0, 0, 1], I32)], [(F16, (3, 3))])
    assert y.view(np.uint16).tolist() == [[0, 0, 0], [0x7E01, 0x8000, 0], [0x0001, 0xFC00, 0]]
    (y,) = run("Roll", [x], [(F16, (2, 2))], {"shifts": [1]})
    assert y.view(np.uint16).reshape(-1).tolist() == [0xFC00, 0x7E01, 0x8000, 0x0001]


def test_pad_v3_fills_with_constant_values_bit_for_bit_in_bfloat16(run):
    x = np.array([1.5, -0.0], BF16)
    fill = np.array(np.nan, BF16)
    (y,) = run("PadV3", [x, np.array([1, 1], I64), fill], [(BF16, (4,))])
    assert np.isnan(y[0]) and np.isnan(y[3]) and y[1] == 1.5 and np.signbit(y[2])


def test_pad_v3_refuses_bfloat16_outside_constant_mode_and_an_unknown_mode(run):
    x = np.zeros(3, BF16)
    with pytest.raises(KernelError, match="constant mode only"):
        run("PadV3", [x, np.array([1, 1], I32)], [(BF16, (5,))], {"mode": "reflect"})
    with pytest.raises(KernelError, match="constant, reflect, edge"):
        run("PadV3", [np.zeros(3, F32), np.array([1, 1], I32)], [(F32, (5,))], {"mode": "wrap"})


@pytest.mark.parametrize("mode, pad, ok", [("REFLECT", 2, True), ("REFLECT", 3, False), ("SYMMETRIC", 3, True),
                                           ("SYMMETRIC", 4, False)])
def test_mirror_pad_limits(run, mode, pad, ok):
    x = np.arange(3, dtype=I32)
    if ok:
        (y,) = run("MirrorPad", [x, np.array([pad, 0], I32)], [(I32, (3 + pad,))], {"mode": mode})
        assert y.tolist()[-3:] == [0, 1, 2]
    else:
        with pytest.raises(KernelError, match="exceeds"):
            run("MirrorPad", [x, np.array([pad, 0], I32)], [(I32, (3 + pad,))], {"mode": mode})


def test_mirror_pad_requires_mode(run):
    with pytest.raises(KernelError, match="required attr .mode. was not given"):
        run("MirrorPad", [np.zeros(3, F32), np.array([1, 1], I32)], [(F32, (5,))])


def _random_strided_slice(rng):
    rank = int(rng.integers(1, 4))
    shape = tuple(int(d) for d in rng.integers(0, 5, rank))
    n = int(rng.integers(1, rank + 2))
    begin, end = rng.integers(-6, 7, n), rng.integers(-6, 7, n)
    strides = rng.choice([-3, -2, -1, 1, 2, 3], n)
    masks = {m: int(rng.integers(0, 1 << n)) for m in MASK_NAMES}
    masks["ellipsis_mask"] &= 1 << int(rng.integers(0, n))  # at most one ellipsis
    masks["shrink_axis_mask"] &= ~masks["new_axis_mask"]
    return np.arange(int(np.prod(shape)), dtype=I32).reshape(shape), begin, end, strides, masks


def test_strided_slice_agrees_with_the_reference_on_random_masks(run):
    rng = np.random.default_rng(7)
    agreed = 0
    for _ in range(300):
        x, begin, end, strides, masks = _random_strided_slice(rng)
        inputs = [x, begin.astype(I32), end.astype(I32), strides.astype(I32)]
        try:
            (want,) = reference("StridedSlice").compute(inputs, masks, [np.dtype(I32)])
        except ValueError:
            continue
        (got,) = run("StridedSlice", inputs, [(I32, want.shape)], masks)
        assert got.shape == want.shape and got.tolist() == want.tolist(), (x.shape, begin, end, strides, masks)
        agreed += 1
    assert agreed > 150


def test_strided_slice_refuses_a_zero_stride_and_an_out_of_range_shrink(run):
    x = np.zeros((3, 4), F32)
    with pytest.raises(KernelError, match="has a 0"):
        run("StridedSlice", [x, np.array([0], I32), np.array([2], I32), np.array([0], I32)], [(F32, (2, 4))])
    with pytest.raises(KernelError, match="do not fit"):
        run("StridedSlice", [x, np.array([5], I32), np.array([6], I32), np.array([1], I32)], [(F32, (4,))],
            {"shrink_axis_mask": 1})


def test_concat_v2_and_pack_write_into_the_output_and_check_n(run):
    a, b = np.array([[1, 2]], I64), np.array([[3]], I64)
    (y,) = run("ConcatV2", [a, b, np.array(1, I32)], [(I64, (1, 3))], {"N": 2})
    assert y.tolist() == [[1, 2, 3]]
    with pytest.raises(KernelError, match="attr 'N'"):
        run("ConcatV2", [a, b, np.array(1, I32)], [(I64, (1, 3))], {"N": 3})
    (y,) = run("Pack", [np.array(np.nan, F32), np.array(-0.0, F32)], [(F32, (2,))], {"N": 2})
    assert np.isnan(y[0]) and np.signbit(y[1])


def test_unpack_and_split_v_check_their_counts(run):
    with pytest.raises(KernelError, match="attr 'num'"):
        run("Unpack", [np.zeros((2, 3), F32)], [(F32, (3,))] * 3, {"num": 3})
    with pytest.raises(KernelError, match="size_splits"):
        run("SplitV", [np.zeros(5, F32), np.array([1, 1], I32), np.array(0, I32)], [(F32, (1,))] * 2,
            {"num_split": 2})


def test_depth_to_space_refuses_a_depth_not_divisible_by_the_block_area(run):
    with pytest.raises(KernelError, match="block_size"):
        run("DepthToSpace", [np.zeros((1, 2, 2, 6), F32)], [(F32, (1, 4, 4, 1))], {"block_size": 2})


def test_permute_takes_float_only_and_a_full_order(run):
    with pytest.raises(KernelError, match="float16, float32"):
        run("Permute", [np.zeros((2, 3), I32)], [(I32, (3, 2))], {"order": [1, 0]})
    with pytest.raises(KernelError, match="not a permutation"):
        run("Permute", [np.zeros((2, 3), F32)], [(F32, (3, 2))])


def test_tril_keeps_nan_and_zeroes_with_positive_zero(run):
    x = np.array([[np.nan, -0.0], [-1.0, np.nan]], F32)
    (y,) = run("Tril", [x], [(F32, (2, 2))])
    assert np.isnan(y[0, 0]) and y[1, 0] == -1 and np.isnan(y[1, 1]) and not np.signbit(y[0, 1])


def test_output_dtype_must_be_the_input_dtype(run):
    with pytest.raises(KernelError, match="same as input 'x'"):
        run("Identity", [np.zeros(2, F32)], [(F16, (2,))])


def test_infer_shape_with_and_without_the_index_values(infer):
    (pad,) = infer("Pad", [(F32, (2, 3)), (I32, (4,))], [None, np.array([1, 0, 2, 2], I32)])
    assert pad.shape == (3, 7)
    (unknown,) = infer("Pad", [(F32, (2, 3)), (I32, (4,))])
    assert unknown.shape == (-2,)
    (rev,) = infer("ReverseV2", [(F32, (-1, 4)), (I32, (1,))], [None, np.array([0], I32)])
    assert rev.shape == (-1, 4)
    (mirror,) = infer("MirrorPad", [(F32, (-1, 4)), (I32, (4,))], [None, np.array([1, 1, 0, 2], I32)],
                      {"mode": "REFLECT"})
    assert mirror.shape == (-1, 6)
    (diag,) = infer("Diag", [(I32, (3,))])
    assert diag.shape == (3, 3)
    parts = infer("SplitV", [(F32, (2, 6)), (I32, (2,)), (I32, ())], [None, np.array([-1, 4], I32), np.array(1, I32)],
                  {"num_split": 2})
    assert [p.shape for p in parts] == [(2, 2), (2, 4)]


def test_a_dtype_outside_the_record_is_refused_with_the_records_list(run):
    x = np.zeros(3, np.uint32)
    with pytest.raises(KernelError, match=r"MirrorPad: input 'x' has dtype uint32, expected one of: int8, uint8"):
        run("MirrorPad", [x, np.array([1, 1], I32)], [(np.uint32, (5,))], {"mode": "REFLECT"})


def test_flatten_moves_bool_as_canns_op_info_allows(run):
    flags = np.array([[[True, False]], [[False, True]]])
    (y,) = run("Flatten", [flags], [(np.bool_, (2, 2))])
    assert y.dtype == np.bool_ and y.tolist() == [[True, False], [False, True]]
