"""The value-profile faults (aclcts.sim.faults.values) change the simulator's kernels only where a profile's inputs
reach them: unit inputs give the correct kernel's results, profile inputs do not."""

from __future__ import annotations

import numpy as np

from aclcts.core.constants import DataType, Format
from aclcts.sim.faults import values as v
from aclcts.sim.kernels.base import TensorInfo
from aclcts.sim.kernels.registry import get_kernel

ND = int(Format.ACL_FORMAT_ND)
INT32, FLOAT = int(DataType.ACL_INT32), int(DataType.ACL_FLOAT)


def test_a_narrowed_accumulator_is_exact_below_2_24_and_wrong_above():
    matmul = get_kernel("MatMul").compute
    narrowed = v.accumulates_in_float32("MatMul")(matmul)
    out = [TensorInfo(INT32, (2, 2), ND)]
    small = [np.arange(6, dtype=np.int32).reshape(2, 3), np.arange(6, dtype=np.int32).reshape(3, 2)]
    assert np.array_equal(narrowed(small, {}, out)[0], matmul(small, {}, out)[0])
    wide = [np.full((2, 3), 20001, np.int32), np.full((3, 2), 20003, np.int32)]
    exact = matmul(wide, {}, out)[0]
    assert exact[0, 0] == 3 * 20001 * 20003 and not np.array_equal(narrowed(wide, {}, out)[0], exact)


def test_the_narrowed_accumulator_adds_the_bias():
    matmul = get_kernel("BatchMatMulV2").compute
    narrowed = v.accumulates_in_float32("BatchMatMulV2")(matmul)
    x1, x2 = np.ones((1, 2, 3), np.int8), np.ones((1, 3, 2), np.int8)
    inputs = [x1, x2, np.array([5, -7], np.int32)]
    out = [TensorInfo(INT32, (1, 2, 2), ND)]
    assert np.array_equal(narrowed(inputs, {}, out)[0], matmul(inputs, {}, out)[0])


def test_the_narrowed_accumulator_follows_the_transpose_flags():
    matmul = get_kernel("BatchMatMul").compute
    narrowed = v.accumulates_in_float32("BatchMatMul")(matmul)
    x1, x2 = np.arange(8, dtype=np.int32).reshape(2, 2, 2), np.arange(12, dtype=np.int32).reshape(2, 2, 3)
    out = [TensorInfo(INT32, (2, 2, 3), ND)]
    attrs = {"adj_x1": True}
    assert np.array_equal(narrowed([x1, x2], attrs, out)[0], matmul([x1, x2], attrs, out)[0])


def test_flushed_subnormals_read_and_write_zero_in_float32_only():
    log = v.flushes_subnormals(get_kernel("Log").compute)
    x = np.array([1e-40, 2.0, -0.0], dtype=np.float32)
    y = log([x], {}, [TensorInfo(FLOAT, (3,), ND)])[0]
    assert y[0] == -np.inf and y[1] == np.float32(np.log(np.float32(2.0)))
    add = v.flushes_subnormals(get_kernel("Add").compute)
    half = np.array([6e-8], dtype=np.float16)
    assert add([half, half], {}, [TensorInfo(int(DataType.ACL_FLOAT16), (1,), ND)])[0][0] != 0


def test_the_elementwise_lookup_wraps_elementwise_kernels_and_leaves_the_others():
    find = v.elementwise_flush_subnormals(get_kernel)
    assert find("Add") is not get_kernel("Add") and find("Add") is find("Add")
    assert find("MatMul") is get_kernel("MatMul") and find("SoftmaxV2") is get_kernel("SoftmaxV2")


def test_a_softmax_without_max_subtraction_matches_on_unit_logits_and_overflows_on_large_ones():
    softmax = get_kernel("SoftmaxV2").compute
    naive = v.softmax_without_max(softmax)
    out = [TensorInfo(FLOAT, (2, 4), ND)]
    unit = np.linspace(-3, 3, 8, dtype=np.float32).reshape(2, 4)
    assert np.allclose(naive([unit], {}, out)[0], softmax([unit], {}, out)[0], rtol=1e-6)
    large = unit * np.float32(40)
    assert np.isfinite(softmax([large], {}, out)[0]).all() and not np.isfinite(naive([large], {}, out)[0]).all()
