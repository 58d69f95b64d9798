"""Movement and shape references (issue 23) against hand-worked values from the operators' documentation."""

from __future__ import annotations

import numpy as np
import pytest

from aclcts.reference import reference

I32, I64, F32 = np.int32, np.int64, np.float32
X = np.array([[1, 2, 3], [4, 5, 6]], F32)
MASKS = {"begin_mask": 0, "end_mask": 0, "ellipsis_mask": 0, "new_axis_mask": 0, "shrink_axis_mask": 0}


def run(op, inputs, outs, attrs=None):
    return reference(op).compute([None if x is None else np.asarray(x) for x in inputs], attrs or {}, outs)


def test_pad_writes_zeros_around_x():
    (y,) = run("Pad", [np.array([[7, 8]], I32), np.array([[1, 0], [0, 2]], I32)], [I32])
    assert y.tolist() == [[0, 0, 0, 0], [7, 8, 0, 0]]


def test_pad_v3_constant_value_and_non_contiguous_paddings():
    # paddings_contiguous false: [begin0, begin1, end0, end1] = [0, 1, 1, 0].
    (y,) = run("PadV3", [np.array([[1, 2]], F32), np.array([0, 1, 1, 0], I32), np.array(9, F32)], [F32],
               {"paddings_contiguous": False})
    assert y.tolist() == [[9, 1, 2], [9, 9, 9]]


@pytest.mark.parametrize("mode, expected", [
    ("reflect", [3, 2, 1, 2, 3, 2]),
    ("edge", [1, 1, 1, 2, 3, 3]),
])
def test_pad_v3_reflect_and_edge(mode, expected):
    (y,) = run("PadV3", [np.array([1, 2, 3], F32), np.array([2, 1], I32)], [F32], {"mode": mode})
    assert y.tolist() == expected


@pytest.mark.parametrize("mode, expected", [
    ("REFLECT", [[6, 5, 4, 5, 6, 5], [3, 2, 1, 2, 3, 2], [6, 5, 4, 5, 6, 5], [3, 2, 1, 2, 3, 2]]),
    ("SYMMETRIC", [[2, 1, 1, 2, 3, 3], [2, 1, 1, 2, 3, 3], [5, 4, 4, 5, 6, 6], [5, 4, 4, 5, 6, 6]]),
])
def test_mirror_pad_modes_from_the_tensorflow_documentation(mode, expected):
    # TensorFlow's MirrorPad example on [[1, 2, 3], [4, 5, 6]], paddings [[1, 1], [2, 1]] instead of [[1, 1], [2, 2]].
    (y,) = run("MirrorPad", [X, np.array([[1, 1], [2, 1]], I32)], [F32], {"mode": mode})
    assert y.tolist() == expected


def test_mirror_pad_refuses_a_reflect_padding_as_large_as_the_dim():
    with pytest.raises(ValueError, match="too large"):
        run("MirrorPad", [X, np.array([[2, 0], [0, 0]], I32)], [F32], {"mode": "REFLECT"})
    (y,) = run("MirrorPad", [X, np.array([[2, 0], [0, 0]], I32)], [F32], {"mode": "SYMMETRIC"})
    assert y.tolist() == [[4, 5, 6], [1, 2, 3], [1, 2, 3], [4, 5, 6]]


def test_dims_ops_give_the_documented_shapes():
    assert run("ExpandDims", [X, np.array(-1, I32)], [F32])[0].shape == (2, 3, 1)
    assert run("ExpandDims", [np.array(5, F32), np.array(0, I64)], [F32])[0].tolist() == [5]
    assert run("Squeeze", [np.zeros((1, 2, 1), F32)], [F32])[0].shape == (2,)
    assert run("Squeeze", [np.zeros((1, 2, 1), F32)], [F32], {"axis": [-1]})[0].shape == (1, 2)
    assert run("Unsqueeze", [X], [F32], {"axes": [0, 3]})[0].shape == (1, 2, 3, 1)
    assert run("Flatten", [np.zeros((2, 3, 4), F32)], [F32])[0].shape == (2, 12)
    assert run("Flatten", [np.zeros((2, 3, 4), F32)], [F32], {"axis": 0})[0].shape == (1, 24)
    assert run("Flatten", [np.zeros((2, 3, 4), F32)], [F32], {"axis": -1})[0].shape == (6, 4)
    flags = np.array([[[True, False]], [[False, True]]])
    assert run("Flatten", [flags], [np.bool_])[0].tolist() == [[True, False], [False, True]]
    with pytest.raises(ValueError, match="must be 1"):
        run("Squeeze", [X], [F32], {"axis": [0]})


def test_broadcast_to_repeats_size_one_dims():
    (y,) = run("BroadcastTo", [np.array([[1], [2]], I32), np.array([2, 2, 3], I32)], [I32])
    assert y.tolist() == [[[1, 1, 1], [2, 2, 2]]] * 2
    with pytest.raises(ValueError, match="cannot be broadcast"):
        run("BroadcastTo", [np.array([1, 2], I32), np.array([3], I32)], [I32])


def test_reverse_v2_along_listed_axes():
    assert run("ReverseV2", [X, np.array([1], I32)], [F32])[0].tolist() == [[3, 2, 1], [6, 5, 4]]
    assert run("ReverseV2", [X, np.array([0, -1], I32)], [F32])[0].tolist() == [[6, 5, 4], [3, 2, 1]]


def strided(x, begin, end, strides, **masks):
    return run("StridedSlice", [x, np.array(begin, I32), np.array(end, I32), np.array(strides, I32)],
               [np.asarray(x).dtype], {**MASKS, **masks})[0]


def test_strided_slice_from_the_tensorflow_documentation():
    t = np.array([[[1, 1, 1], [2, 2, 2]], [[3, 3, 3], [4, 4, 4]], [[5, 5, 5], [6, 6, 6]]], I32)
    assert strided(t, [1, 0, 0], [2, 1, 3], [1, 1, 1]).tolist() == [[[3, 3, 3]]]
    assert strided(t, [1, 0, 0], [2, 2, 3], [1, 1, 1]).tolist() == [[[3, 3, 3], [4, 4, 4]]]
    assert strided(t, [1, -1, 0], [2, -3, 3], [1, -1, 1]).tolist() == [[[4, 4, 4], [3, 3, 3]]]


def test_strided_slice_masks():
    v = np.arange(6, dtype=I32)
    assert strided(v, [4], [1], [-1], begin_mask=1).tolist() == [5, 4, 3, 2]
    assert strided(v, [4], [1], [-1], end_mask=1).tolist() == [4, 3, 2, 1, 0]
    assert strided(v, [-10], [10], [2]).tolist() == [0, 2, 4]
    assert strided(X, [1, 0], [2, 3], [1, 1], shrink_axis_mask=1).tolist() == [4, 5, 6]
    assert strided(X, [0, 1], [0, 2], [1, 1], new_axis_mask=1).shape == (1, 1, 3)
    assert strided(X, [0, 1], [0, 3], [1, 1], ellipsis_mask=1).tolist() == [[2, 3], [5, 6]]


def test_concat_v2_pack_unpack_split_v():
    (y,) = run("ConcatV2", [X, np.array([[7], [8]], F32), np.array(-1, I32)], [F32], {"N": 2})
    assert y.tolist() == [[1, 2, 3, 7], [4, 5, 6, 8]]
    (y,) = run("Pack", [np.array([1, 2], I32), np.array([3, 4], I32)], [I32], {"axis": 1})
    assert y.tolist() == [[1, 3], [2, 4]]
    parts = run("Unpack", [X], [F32] * 3, {"num": 3, "axis": 1})
    assert [p.tolist() for p in parts] == [[1, 4], [2, 5], [3, 6]]
    parts = run("SplitV", [np.arange(7, dtype=I32), np.array([2, -1, 1], I32), np.array(0, I32)], [I32] * 3,
                {"num_split": 3})
    assert [p.tolist() for p in parts] == [[0, 1], [2, 3, 4, 5], [6]]


def test_depth_to_space_dcr_and_crd_and_space_to_depth_inverts_dcr():
    x = np.arange(8, dtype=I32).reshape(1, 1, 1, 8)  # depth 8 = block 2 x block 2 x 2 channels
    (dcr,) = run("DepthToSpace", [x], [I32], {"block_size": 2})
    assert dcr[0, :, :, 0].tolist() == [[0, 2], [4, 6]] and dcr[0, :, :, 1].tolist() == [[1, 3], [5, 7]]
    (crd,) = run("DepthToSpace", [x], [I32], {"block_size": 2, "mode": "CRD"})
    assert crd[0, :, :, 0].tolist() == [[0, 1], [2, 3]] and crd[0, :, :, 1].tolist() == [[4, 5], [6, 7]]
    assert run("SpaceToDepth", [dcr], [I32], {"block_size": 2})[0].tolist() == x.tolist()
    nchw = np.transpose(x, (0, 3, 1, 2))
    (y,) = run("DepthToSpace", [nchw], [I32], {"block_size": 2, "data_format": "NCHW"})
    assert y.shape == (1, 2, 2, 2) and y[0, 0].tolist() == [[0, 2], [4, 6]]


def test_permute_identity_tril_triu():
    assert run("Permute", [X], [F32], {"order": [1, 0]})[0].tolist() == [[1, 4], [2, 5], [3, 6]]
    assert run("Identity", [X], [F32])[0].tolist() == X.tolist()
    assert run("Tril", [X], [F32])[0].tolist() == [[1, 0, 0], [4, 5, 0]]
    assert run("Tril", [X], [F32], {"diagonal": -1})[0].tolist() == [[0, 0, 0], [4, 0, 0]]
    assert run("Triu", [X], [F32], {"diagonal": 1})[0].tolist() == [[0, 2, 3], [0, 0, 6]]
    assert run("Triu", [X], [F32], {"diagonal": 5})[0].tolist() == [[0, 0, 0], [0, 0, 0]]
    assert run("Tril", [X], [F32], {"diagonal": -5})[0].tolist() == [[0, 0, 0], [0, 0, 0]]


def test_roll_flattened_and_per_dim_with_shifts_beyond_the_size():
    assert run("Roll", [X], [F32], {"shifts": [1]})[0].tolist() == [[6, 1, 2], [3, 4, 5]]
    assert run("Roll", [X], [F32], {"shifts": [7]})[0].tolist() == [[6, 1, 2], [3, 4, 5]]
    assert run("Roll", [X], [F32], {"shifts": [-4], "dims": [1]})[0].tolist() == [[2, 3, 1], [5, 6, 4]]
    assert run("Roll", [X], [F32], {"shifts": [1, 1], "dims": [0, 1]})[0].tolist() == [[6, 4, 5], [3, 1, 2]]


def test_diag_of_a_vector_and_of_a_matrix():
    assert run("Diag", [np.array([1, 2], I32)], [I32])[0].tolist() == [[1, 0], [0, 2]]
    (y,) = run("Diag", [np.array([[1, 2]], I32)], [I32])
    assert y.shape == (1, 2, 1, 2) and y[0, 1, 0, 1] == 2 and y[0, 0, 0, 1] == 0


def test_values_are_copied_bit_for_bit():
    payload = np.array([0x7E01, 0x8000, 0x0001], np.uint16).view(np.float16)  # NaN with payload, -0, subnormal
    (y,) = run("ReverseV2", [payload, np.array([0], I32)], [np.float16])
    assert y.view(np.uint16).tolist() == [0x0001, 0x8000, 0x7E01]
    (y,) = run("MirrorPad", [payload, np.array([1, 1], I32)], [np.float16], {"mode": "SYMMETRIC"})
    assert y.view(np.uint16).tolist() == [0x7E01, 0x7E01, 0x8000, 0x0001, 0x0001]
