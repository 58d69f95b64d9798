"""Matrix-unit accumulation modes, exact integer products, the pairwise tree sum, and kernels writing into device memory."""

import numpy as np
import pytest

import aclcts.sim
from aclcts.core.opmodel import OpModel, TensorSpec
from aclcts.sim.kernels import get_kernel
from aclcts.sim.kernels.numerics import ACCUMULATION_MODES, accumulation, batched_matmul, tree_sum, vector_sum
from aclcts.sim.kernels.base import TensorInfo
from aclcts.sim.settings import Settings, updated

F32, ACL_FLOAT, ND = np.float32, 0, 2


def _k_order_loop(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    total = np.zeros((a.shape[0], b.shape[1]), F32)
    for k in range(a.shape[1]):
        total = total + a[:, k : k + 1].astype(F32) * b[k : k + 1, :].astype(F32)
    return total


def test_sequential_mode_adds_the_products_in_k_order_bit_for_bit():
    rng = np.random.default_rng(5)
    a, b = rng.uniform(-1, 1, (16, 300)).astype(np.float16), rng.uniform(-1, 1, (300, 8)).astype(np.float16)
    with accumulation("sequential"):
        got = batched_matmul(a, b)
    assert np.array_equal(got.view(np.uint32), _k_order_loop(a, b).view(np.uint32))


def test_blocked_mode_is_an_fp32_accumulation_of_the_same_products():
    rng = np.random.default_rng(6)
    a, b = rng.uniform(-1, 1, (16, 300)).astype(np.float16), rng.uniform(-1, 1, (300, 8)).astype(np.float16)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    got = batched_matmul(a, b)
    assert got.dtype == F32
    np.testing.assert_allclose(got, exact, rtol=0, atol=300 * 2.0**-23)


def test_an_unknown_accumulation_mode_is_refused_and_the_setting_offers_the_modes():
    with pytest.raises(ValueError, match="blocked, sequential"):
        with accumulation("fast"):
            pass
    assert Settings().matmul_accumulation == "blocked"
    assert updated(Settings(), matmul_accumulation="sequential").matmul_accumulation == "sequential"
    with pytest.raises(ValueError, match="matmul_accumulation"):
        updated(Settings(), matmul_accumulation="fast")
    for mode in ACCUMULATION_MODES:
        updated(Settings(), matmul_accumulation=mode)


@pytest.mark.parametrize("k", [1, 1024, 1025, 131071, 131072])
def test_int8_products_are_exact_in_int32_with_wrap_at_every_k(k):
    a = np.full((1, k), -128, np.int8)
    b = np.full((k, 2), -128, np.int8)
    b[:, 1] = 127
    exact = (a.astype(np.int64) @ b.astype(np.int64)).astype(np.int32)  # int64 -> int32 keeps the low 32 bits
    assert np.array_equal(batched_matmul(a, b), exact)


def test_int32_products_wrap_like_twos_complement():
    rng = np.random.default_rng(8)
    a = rng.integers(-(2**31), 2**31, (3, 40), dtype=np.int64).astype(np.int32)
    b = rng.integers(-(2**31), 2**31, (40, 5), dtype=np.int64).astype(np.int32)
    exact = ((a.astype(object) @ b.astype(object)) % 2**32).astype(np.int64)
    exact = np.where(exact >= 2**31, exact - 2**32, exact).astype(np.int32)
    assert np.array_equal(batched_matmul(a, b), exact)


def _pairwise(values: np.ndarray) -> np.ndarray:
    while values.shape[-1] > 1:
        if values.shape[-1] % 2:
            values = np.concatenate([values, np.full(values.shape[:-1] + (1,), -0.0, values.dtype)], axis=-1)
        values = values[..., 0::2] + values[..., 1::2]
    return values[..., 0]


@pytest.mark.parametrize("shape, axis", [((7, 13), 1), ((5, 2049), 1), ((300, 5000), 1), ((9, 6, 4), 0), ((3, 1), 1)])
def test_tree_sum_is_the_pairwise_tree_bit_for_bit(shape, axis):
    rng = np.random.default_rng(9)
    x = (rng.uniform(-1, 1, shape) * 10.0 ** rng.integers(-6, 6, shape)).astype(F32)
    x.flat[0] = -0.0
    expected = _pairwise(np.moveaxis(x, axis, -1))
    assert np.array_equal(np.atleast_1d(tree_sum(x, axis)).view(np.uint32), np.atleast_1d(expected).view(np.uint32))


def test_tree_sum_of_negative_zeros_keeps_the_sign():
    assert np.signbit(tree_sum(np.full((2, 7), -0.0, F32), 1)).all()


def _lanes_one_at_a_time(row: np.ndarray) -> np.ndarray:
    """64 float32 lanes, each adding its elements j, j + 64, ... in order, then the pairwise tree over the lanes."""
    if row.size < 64:
        return _pairwise(row)
    lanes = row[:64].copy()
    for start in range(64, row.size):
        lanes[start % 64] = F32(lanes[start % 64] + row[start])
    return _pairwise(lanes)


@pytest.mark.parametrize("shape, axis", [((7, 13), 1), ((3, 64), 1), ((4, 100), 1), ((5, 2049), 1), ((2, 4096), 1),
                                         ((130, 3), 0)])
def test_vector_sum_is_lane_order_then_the_tree_bit_for_bit(shape, axis):
    rng = np.random.default_rng(11)
    x = (rng.uniform(-1, 1, shape) * 10.0 ** rng.integers(-6, 6, shape)).astype(F32)
    moved = np.moveaxis(x, axis, -1)
    expected = np.array([_lanes_one_at_a_time(row) for row in moved.reshape(-1, moved.shape[-1])], F32)
    got = np.atleast_1d(vector_sum(x, axis)).reshape(-1)
    assert np.array_equal(got.view(np.uint32), expected.view(np.uint32))


def test_vector_sum_of_negative_zeros_keeps_the_sign():
    assert np.signbit(vector_sum(np.full((2, 200), -0.0, F32), 1)).all()


def test_conv2d_sequential_mode_follows_channel_row_column_order():
    rng = np.random.default_rng(10)
    x = rng.uniform(-1, 1, (1, 3, 5, 5)).astype(np.float16)
    w = rng.uniform(-1, 1, (2, 3, 2, 2)).astype(np.float16)
    attrs = {"strides": [1, 1, 1, 1], "pads": [0, 0, 0, 0], "data_format": "NCHW"}
    with accumulation("sequential"):
        (y,) = get_kernel("Conv2D").compute([x, w, None], attrs, [TensorInfo(ACL_FLOAT, (1, 2, 4, 4), ND)])
    expected = np.zeros((1, 2, 4, 4), F32)
    for c in range(3):
        for i in range(2):
            for j in range(2):
                expected = expected + w[:, c, i, j].astype(F32)[None, :, None, None] * x[:, c, i : i + 4, j : j + 4].astype(F32)[:, None]
    assert np.array_equal(y.view(np.uint32), expected.view(np.uint32))


# Through the runtime -----------------------------------------------------------------------------------------------
def _spec(shape):
    return TensorSpec(ACL_FLOAT, ND, shape, tuple((d, d) for d in shape), ND, shape)


def _add_on_device(acl, stream, x1, x2, same_output_as_x1):
    """Add x1 + x2 on the device, the output either its own allocation or x1's; returns the output bytes."""
    image = OpModel("Add", (_spec(x1.shape), _spec(x2.shape)), (_spec(x1.shape),), (), "Ascend910B1").to_bytes()
    assert acl.op.load(acl.util.bytes_to_ptr(image), len(image)) == 0
    pointers = []
    for array in (x1, x2):
        ptr, ret = acl.rt.malloc(array.nbytes, 0)
        assert ret == 0
        assert acl.rt.memcpy(ptr, array.nbytes, acl.util.bytes_to_ptr(array.tobytes()), array.nbytes, 1) == 0
        pointers.append(ptr)
    if same_output_as_x1:
        out = pointers[0]
    else:
        out, ret = acl.rt.malloc(x1.nbytes, 0)
        assert ret == 0
    descs = [acl.create_tensor_desc(ACL_FLOAT, list(x1.shape), ND) for _ in range(3)]
    bufs = [acl.create_data_buffer(p, x1.nbytes) for p in (*pointers, out)]
    attr = acl.op.create_attr()
    assert acl.op.execute_v2("Add", descs[:2], bufs[:2], descs[2:], bufs[2:], attr, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    host, _ = acl.rt.malloc_host(x1.nbytes)
    assert acl.rt.memcpy(host, x1.nbytes, out, x1.nbytes, 2) == 0
    result = np.frombuffer(acl.util.ptr_to_bytes(host, x1.nbytes), F32).reshape(x1.shape).copy()
    acl.rt.free_host(host)
    acl.op.destroy_attr(attr)
    for item in bufs:
        acl.destroy_data_buffer(item)
    for desc in descs:
        acl.destroy_tensor_desc(desc)
    for ptr in {*pointers, out}:
        acl.rt.free(ptr)
    return result


@pytest.mark.parametrize("in_place", [False, True])
def test_an_op_whose_output_is_its_input_still_reads_the_input_first(session, in_place):
    x1 = np.arange(64, dtype=F32).reshape(8, 8)
    x2 = np.full((8, 8), 0.5, F32)
    result = _add_on_device(session.acl, session.stream, x1, x2, in_place)
    assert np.array_equal(result, x1 + x2)


def test_built_in_kernels_read_inputs_they_cannot_write_and_custom_kernels_get_copies(session):
    seen = {}

    def compute(inputs, attrs, outputs):
        seen["writeable"] = inputs[0].flags.writeable
        inputs[0][...] = 0  # a custom kernel may scribble on its private copy
        return [np.asarray(inputs[0] + inputs[1], F32)]

    x1 = np.ones((4, 4), F32)
    aclcts.sim.register_kernel("Add", compute)
    try:
        result = _add_on_device(session.acl, session.stream, x1, x1, False)
    finally:
        from aclcts.sim.kernels import unregister_kernel

        unregister_kernel("Add")
    assert seen["writeable"] and np.array_equal(result, np.ones((4, 4), F32))


def test_built_in_kernels_get_read_only_views():
    from aclcts.sim import launch
    from aclcts.sim.memory import Memory

    memory = Memory(None, 0)
    region = memory.allocate_device(0, 1 << 17, 1 << 17, "test")
    source = launch.Source(ACL_FLOAT, None, region, 0, np.dtype(F32), (4, 4))
    view = source.read(private=False)
    assert not view.flags.writeable and np.shares_memory(view, region.storage)
    assert not np.shares_memory(source.read(private=True), region.storage)


def test_conv2d_taking_images_a_few_at_a_time_changes_no_bit(monkeypatch):
    from aclcts.sim.kernels import conv

    rng = np.random.default_rng(11)
    x = rng.uniform(-1, 1, (5, 4, 9, 9)).astype(np.float16)
    w = rng.uniform(-1, 1, (6, 2, 3, 3)).astype(np.float16)
    bias = rng.uniform(-1, 1, 6).astype(np.float16)
    attrs = {"strides": [1, 1, 2, 1], "pads": [1, 0, 1, 2], "groups": 2, "data_format": "NCHW", "dilations": [1, 1, 1, 2]}
    info = [TensorInfo(1, (5, 6, 4, 8), ND)]  # float16 output
    with accumulation("sequential"):
        whole = get_kernel("Conv2D").compute([x, w, bias], attrs, info)[0]
        monkeypatch.setattr(conv, "IM2COL_ELEMENTS", 1)
        one_by_one = get_kernel("Conv2D").compute([x, w, bias], attrs, info)[0]
    assert whole.shape == (5, 6, 4, 8) and np.array_equal(whole.view(np.uint16), one_by_one.view(np.uint16))
