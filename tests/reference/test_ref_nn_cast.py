"""Relu/Sigmoid/Tanh/SoftmaxV2, Conv2D (NCHW) and Cast references."""

import ml_dtypes
import numpy as np
import pytest

from aclcts.core.constants import DataType
from aclcts.reference import reference

F16, F32, I32 = np.float16, np.float32, np.int32


def run(op, inputs, outs, attrs=None):
    """Run a reference op and return its outputs."""
    return reference(op).compute([None if x is None else np.asarray(x) for x in inputs], attrs or {}, outs)


def test_relu_sigmoid_tanh():
    (r,) = run("Relu", [np.array([-1.0, 2.0, np.nan, -0.0])], [F32])
    assert r[[0, 1]].tolist() == [0, 2] and np.isnan(r[2]) and not np.signbit(r[3])
    assert run("Relu", [np.array([-3, 4], I32)], [I32])[0].tolist() == [0, 4]
    assert run("Sigmoid", [np.array([0.0, -np.inf, np.inf])], [F32])[0].tolist() == [0.5, 0.0, 1.0]
    assert run("Tanh", [np.array([0.0, np.inf])], [F32])[0].tolist() == [0.0, 1.0]


def test_softmax_over_default_and_given_axes():
    x = np.array([[0.0, np.log(3.0)], [1.0, 1.0]])
    (y,) = run("SoftmaxV2", [x], [np.float64])
    assert y.reshape(-1).tolist() == pytest.approx([0.25, 0.75, 0.5, 0.5])
    (z,) = run("SoftmaxV2", [x], [np.float64], {"axes": [0, 1]})
    assert z.sum() == pytest.approx(1.0)
    (h,) = run("SoftmaxV2", [np.array([1000.0, 1000.0], F16)], [F32], {"half_to_float": True})
    assert h.dtype == F32 and h.tolist() == [0.5, 0.5]


def test_conv2d_padding_stride_bias():
    x = np.arange(16, dtype=F32).reshape(1, 1, 4, 4)
    w = np.ones((1, 1, 2, 2), F32)
    attrs = {"strides": [1, 1, 2, 2], "pads": [0, 0, 0, 0], "data_format": "NCHW"}
    (y,) = run("Conv2D", [x, w, np.array([1], F32)], [F32], attrs)
    assert y.tolist() == [[[[11, 19], [43, 51]]]]
    padded = {**attrs, "strides": [1, 1, 1, 1], "pads": [1, 0, 1, 0]}
    (p,) = run("Conv2D", [np.ones((1, 1, 2, 2), F32), w], [F32], padded)
    assert p.tolist() == [[[[1, 2], [2, 4]]]]


def test_conv2d_dilation_and_groups():
    x = np.arange(2 * 9, dtype=F32).reshape(1, 2, 3, 3)
    w = np.zeros((2, 1, 2, 2), F32)
    w[:, 0, 0, 0] = 1
    w[:, 0, 1, 1] = 1
    attrs = {"strides": [1, 1, 1, 1], "pads": [0, 0, 0, 0], "dilations": [1, 1, 2, 2], "groups": 2,
             "data_format": "NCHW"}
    (y,) = run("Conv2D", [x, w], [F32], attrs)
    assert y.tolist() == [[[[0 + 8]], [[9 + 17]]]]
    assert reference("Conv2D").shape([(1, 2, 3, 3), (2, 1, 2, 2)], [], attrs) == [(1, 2, 1, 1)]


def test_conv2d_rejects_unmodelled_layouts_and_bad_groups():
    nchw = {"strides": [1, 1, 1, 1], "pads": [0, 0, 0, 0]}
    with pytest.raises(ValueError, match="Conv2D: data_format='NHWC'"):
        run("Conv2D", [np.ones((1, 1, 2, 2)), np.ones((1, 1, 1, 1))], [F32], nchw)
    with pytest.raises(ValueError, match="Conv2D: groups=2"):
        run("Conv2D", [np.ones((1, 3, 2, 2)), np.ones((2, 1, 1, 1))], [F32],
            {**nchw, "data_format": "NCHW", "groups": 2})
    with pytest.raises(ValueError, match="required attribute"):
        run("Conv2D", [np.ones((1, 1, 2, 2)), np.ones((1, 1, 1, 1))], [F32], {"data_format": "NCHW"})


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
