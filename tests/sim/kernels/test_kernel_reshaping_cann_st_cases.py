"""infer_shape with unknown input dims (issue 34: `output y: dims None` on CANN's Diag and BroadcastTo cases): like
CANN's DiagInferShape, Diag's output is x's dims twice with -1 kept, of known rank (only an unknown-rank x gives [-2]);
like BroadcastToInferShape, BroadcastTo's output is the values of its shape input whatever x's dims are. And Pad's
paddings of shape [rank, 2], as CANN's Pad cases give it (`kernel Pad failed: ... must be a scalar or 1-D`); SplitV with
unknown dims keeps its rank (CANN's SplitV case), and so does Unpack (CANN's Unpack case)."""

import numpy as np

I32 = np.int32


def test_diag_of_unknown_dims_keeps_the_rank(infer):
    (out,) = infer("Diag", [(I32, (-1,))])
    assert out.shape == (-1, -1)
    (out,) = infer("Diag", [(I32, (3, -1))])
    assert out.shape == (3, -1, 3, -1)


def test_diag_of_known_and_unknown_rank_inputs(infer):
    (out,) = infer("Diag", [(I32, (2, 3))])
    assert out.shape == (2, 3, 2, 3)
    (out,) = infer("Diag", [(I32, (-2,))])
    assert out.shape == (-2,)


def test_broadcast_to_of_unknown_dims_is_the_shape_input(infer):
    target = np.array([1, 1, 4, 4], I32)
    (out,) = infer("BroadcastTo", [(np.float16, (-1,)), (I32, (4,))], [None, target])
    assert out.shape == (1, 1, 4, 4)


def test_pad_reads_paddings_of_shape_rank_by_2(run):
    x = np.arange(6, dtype=I32).reshape(2, 3)
    paddings = np.array([[1, 1], [2, 2]], I32)
    (y,) = run("Pad", [x, paddings], [(I32, (4, 7))])
    assert y.tolist() == np.pad(x, [(1, 1), (2, 2)]).tolist()


def test_split_v_of_unknown_dims_keeps_the_rank_and_the_given_sizes(infer):
    sizes, split_dim = np.array([1], np.int64), np.array([0], I32)
    (out,) = infer("SplitV", [(np.float16, (1, -1)), (np.int64, (1,)), (I32, (1,))], [None, sizes, split_dim],
                   {"num_split": 1})
    assert out.shape == (1, -1)
    first, second = infer("SplitV", [(np.float16, (-1, 4)), (np.int64, (2,)), (I32, (1,))],
                          [None, np.array([2, -1], np.int64), split_dim], {"num_split": 2})
    assert (first.shape, second.shape) == ((2, 4), (-1, 4))


def test_unpack_of_unknown_dims_keeps_the_rank(infer):
    found = infer("Unpack", [(np.float16, (-1, 3, -1))], attrs={"axis": 1, "num": 3})
    assert [out.shape for out in found] == [(-1, -1)] * 3
    found = infer("Unpack", [(np.float16, (-1, -1))], attrs={"axis": 0, "num": 2})
    assert [out.shape for out in found] == [(-1,)] * 2


def _strided(infer, shape, begin, end, strides, **masks):
    consts = [np.array(v, I32) for v in (begin, end, strides)]
    (out,) = infer("StridedSlice", [(np.float16, shape)] + [(I32, (len(begin),))] * 3, [None, *consts], masks)
    return out


def test_strided_slice_of_unknown_dims_keeps_the_rank(infer):
    """CANN's StridedSlice tiling-mode cases: x [-1, 4] sliced by constant begin/end/strides gives [-1, 1]."""
    assert _strided(infer, (-1, 4), [0, 1], [3164, 2], [1, 1]).shape == (-1, 1)
    assert _strided(infer, (-1, 5, 424), [0, 1, 233], [1, 5, 423], [1, 1, 1]).shape == (-1, 4, 190)


def test_strided_slice_of_unknown_dims_drops_a_shrunk_dim_and_places_new_axes(infer):
    assert _strided(infer, (3, -1, 6), [1, 0], [2, 0], [1, 1], shrink_axis_mask=1).shape == (-1, 6)
    assert _strided(infer, (-1, 3, 6), [0, 0, 0], [0, 2, 0], [1, 1, 1], new_axis_mask=1, ellipsis_mask=4).shape \
        == (1, -1, 3, 6)
    assert _strided(infer, (-1, 4, -1), [0, 1], [0, 3], [1, 1], ellipsis_mask=1).shape == (-1, 4, -1)


def test_strided_slice_of_known_dims_is_unchanged_by_the_unknown_dim_rule(infer):
    assert _strided(infer, (5, 4), [1, 0], [3, 4], [1, 2]).shape == (2, 2)


def test_depth_to_space_and_space_to_depth_of_unknown_dims_keep_the_rank(infer):
    """CANN's DepthToSpace case test_depth_to_space_001: x [-1, 8, 2, 3] NCHW with block_size 2 gives [-1, 2, 4, 6]."""
    attrs = {"block_size": 2, "mode": "CRD", "data_format": "NCHW"}
    (out,) = infer("DepthToSpace", [(np.float32, (-1, 8, 2, 3))], attrs=attrs)
    assert out.shape == (-1, 2, 4, 6)
    (out,) = infer("SpaceToDepth", [(np.float32, (2, -1, 4, 6))], attrs={"block_size": 2, "data_format": "NHWC"})
    assert out.shape == (2, -1, 2, 24)
