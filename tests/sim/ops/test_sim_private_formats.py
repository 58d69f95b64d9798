"""Private formats on the simulator (docs/formats.md): a tensor the model stores in FRACTAL_NZ or NC1HWC0 is that
layout's array in device memory; the kernel computes on the origin layout and its output is laid out again, so
a run that reads the layout as plain data gives other numbers."""

import numpy as np
import pytest

from aclcts.core.formats import FORMAT_VALUES, from_storage, storage_shape, to_storage
from aclcts.sim.faults import FAULT, names

from opkit import FLOAT16, op, tensor

NZ, ND, NCHW, NC1HWC0 = (FORMAT_VALUES[n] for n in ("FRACTAL_NZ", "ND", "NCHW", "NC1HWC0"))
M, K, N = 20, 33, 18


def stored(name, fmt, origin_format, origin_shape):
    shape = storage_shape(origin_shape, FORMAT_VALUES[origin_format], FORMAT_VALUES[fmt], np.float16)
    return tensor("float16", list(shape), fmt, name=name, origin_format=origin_format, origin_shape=list(origin_shape))


NZ_MATMUL = op("MatMul", [stored("x1", "FRACTAL_NZ", "ND", (M, K)), stored("x2", "FRACTAL_NZ", "ND", (K, N))],
               [stored("y", "FRACTAL_NZ", "ND", (M, N))])


def nz_matmul(dev, x1, x2):
    """MatMul of x1 @ x2 with every tensor stored in FRACTAL_NZ: the output read back in its origin layout."""
    ins = [dev.tensor(to_storage(a, ND, NZ), NZ) for a in (x1, x2)]
    out_shape = storage_shape((M, N), ND, NZ, np.float16)
    out = dev.output(FLOAT16, list(out_shape), NZ)
    ret = dev.acl.op.execute_v2("MatMul", [t[0] for t in ins], [t[1] for t in ins], [out[0]], [out[1]], 0,
                                dev.stream)
    assert ret == 0
    dev.sync()
    raw = dev.get(out[2], np.float16, out_shape)
    return raw, from_storage(raw, NZ, ND, (M, N))


@pytest.fixture
def operands():
    rng = np.random.default_rng(7)
    return rng.uniform(-1, 1, (M, K)).astype(np.float16), rng.uniform(-1, 1, (K, N)).astype(np.float16)


def test_a_fractal_nz_matmul_computes_on_the_origin_layout_and_pads_its_output_with_zeros(models, load_dir, dev,
                                                                                          operands):
    load_dir(models([NZ_MATMUL]))
    x1, x2 = operands
    raw, y = nz_matmul(dev, x1, x2)
    np.testing.assert_allclose(y, x1.astype(np.float32) @ x2.astype(np.float32), rtol=2e-2, atol=2e-2)
    assert np.count_nonzero(raw) == np.count_nonzero(y)


def test_an_nc1hwc0_add_keeps_its_channel_blocks(models, load_dir, dev):
    shape = (2, 20, 3, 5)
    x = stored("x", "NC1HWC0", "NCHW", shape)
    load_dir(models([op("Add", [dict(x, name="x1"), dict(x, name="x2")], [dict(x, name="y")])]))
    a = np.arange(np.prod(shape), dtype=np.float16).reshape(shape) / 64
    ins = [dev.tensor(to_storage(a, NCHW, NC1HWC0), NC1HWC0) for _ in range(2)]
    out_shape = storage_shape(shape, NCHW, NC1HWC0, np.float16)
    out = dev.output(FLOAT16, list(out_shape), NC1HWC0)
    assert dev.acl.op.execute_v2("Add", [t[0] for t in ins], [t[1] for t in ins], [out[0]], [out[1]], 0,
                                 dev.stream) == 0
    dev.sync()
    np.testing.assert_array_equal(from_storage(dev.get(out[2], np.float16, out_shape), NC1HWC0, NCHW, shape), a + a)


@pytest.mark.sim_settings(faults="fractal_nz_read_as_nd")
def test_the_fault_reading_fractal_nz_as_nd_gives_another_product(models, load_dir, dev, operands):
    assert "fractal_nz_read_as_nd" in names(FAULT)
    load_dir(models([NZ_MATMUL]))
    x1, x2 = operands
    _, y = nz_matmul(dev, x1, x2)
    assert not np.allclose(y, x1.astype(np.float32) @ x2.astype(np.float32), rtol=2e-2, atol=2e-2)
