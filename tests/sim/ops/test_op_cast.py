"""acl.op.cast and create_handle_for_cast (pyacl-api.md §6.1; atc-singleop.md §9 wrapper APIs, §11.2)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from opkit import FLOAT, FLOAT16, INT32, Device, attr, op, tensor

from aclcts.core.constants import ErrorCode
from aclcts.core.dtypes import numpy_dtype

OK = 0
INVALID_PARAM = int(ErrorCode.ACL_ERROR_INVALID_PARAM)
OP_NOT_FOUND = int(ErrorCode.ACL_ERROR_OP_NOT_FOUND)
N = 8


def _cast_model(src: str, dst: str, dst_type: int, shape: list[int], truncate: bool | None) -> dict:
    attrs = [attr("dst_type", "int", dst_type)]
    if truncate is not None:
        attrs.insert(0, attr("truncate", "bool", truncate))
    return op("Cast", [tensor(src, shape)], [tensor(dst, shape)], attrs)


FP32_TO_FP16 = _cast_model("float", "float16", FLOAT16, [N], False)
FP32_TO_FP16_NO_TRUNCATE = _cast_model("float", "float16", FLOAT16, [N], None)
FP16_TO_FP32_NO_TRUNCATE = _cast_model("float16", "float", FLOAT, [N], None)
FP32_TO_INT32 = _cast_model("float", "int32", INT32, [N], False)


def _cast(dev: Device, src: np.ndarray, dst_type: int, truncate: int = 0) -> tuple[int, np.ndarray | None]:
    source = dev.tensor(src)
    out = dev.output(dst_type, list(src.shape), fill=0)
    ret = dev.acl.op.cast(source[0], source[1], out[0], out[1], truncate, dev.stream)
    if ret != OK:
        return ret, None
    dev.sync()
    return ret, dev.get(out[2], numpy_dtype(dst_type), src.shape)


@pytest.mark.parametrize("model", [FP32_TO_FP16, FP32_TO_FP16_NO_TRUNCATE], ids=["with-truncate", "without-truncate"])
def test_cast_matches_a_cast_model_with_or_without_a_truncate_attribute(
        acl: Any, dev: Device, models: Callable[..., Path], model: dict) -> None:
    assert acl.op.set_model_dir(str(models([model]))) == OK
    x = np.linspace(-3, 3, N, dtype=np.float32)
    ret, result = _cast(dev, x, FLOAT16)
    assert ret == OK
    np.testing.assert_array_equal(result, x.astype(np.float16))


def test_cast_takes_dst_type_from_the_dst_desc(acl: Any, dev: Device, models: Callable[..., Path]) -> None:
    assert acl.op.set_model_dir(str(models([FP32_TO_FP16, FP32_TO_INT32]))) == OK
    x = np.array([1.75, -2.5, 3.0, 0.25, 7.9, -0.9, 100.5, -100.5], np.float32)
    ret, as_int = _cast(dev, x, INT32)
    assert ret == OK
    np.testing.assert_array_equal(as_int, np.trunc(x).astype(np.int32))
    ret, as_half = _cast(dev, x, FLOAT16)
    assert ret == OK
    np.testing.assert_array_equal(as_half, x.astype(np.float16))


def test_cast_model_compiled_for_another_dst_type_does_not_match(acl: Any, dev: Device,
                                                                 models: Callable[..., Path]) -> None:
    wrong = op("Cast", [tensor("float", [N])], [tensor("float16", [N])],
               [attr("truncate", "bool", False), attr("dst_type", "int", INT32)])
    assert acl.op.set_model_dir(str(models([wrong]))) == OK
    ret, _ = _cast(dev, np.ones(N, np.float32), FLOAT16)
    assert ret == OP_NOT_FOUND


def test_cast_passes_the_truncate_value_when_it_is_added(acl: Any, dev: Device, models: Callable[..., Path]) -> None:
    assert acl.op.set_model_dir(str(models([FP32_TO_FP16]))) == OK
    ret, _ = _cast(dev, np.ones(N, np.float32), FLOAT16, truncate=1)
    assert ret == OP_NOT_FOUND


def test_truncate_is_added_for_every_cast_once_some_cast_model_has_it(acl: Any, dev: Device,
                                                                      models: Callable[..., Path]) -> None:
    assert acl.op.set_model_dir(str(models([FP32_TO_FP16, FP16_TO_FP32_NO_TRUNCATE]))) == OK
    ret, _ = _cast(dev, np.ones(N, np.float16), FLOAT)
    assert ret == OP_NOT_FOUND
    ret, _ = _cast(dev, np.ones(N, np.float32), FLOAT16)
    assert ret == OK


def test_cast_without_a_cast_model_returns_op_not_found(acl: Any, dev: Device, models: Callable[..., Path]) -> None:
    assert acl.op.set_model_dir(str(models([op("Add", [tensor("float", [N])] * 2, [tensor("float", [N])])]))) == OK
    ret, _ = _cast(dev, np.ones(N, np.float32), FLOAT16)
    assert ret == OP_NOT_FOUND


def test_cast_with_a_null_dst_desc_is_invalid_param(acl: Any, dev: Device, models: Callable[..., Path]) -> None:
    assert acl.op.set_model_dir(str(models([FP32_TO_FP16]))) == OK
    source = dev.tensor(np.ones(N, np.float32))
    out = dev.output(FLOAT16, [N])
    assert acl.op.cast(source[0], source[1], 0, out[1], 0, dev.stream) == INVALID_PARAM


def test_cast_is_asynchronous(acl: Any, dev: Device, models: Callable[..., Path]) -> None:
    assert acl.op.set_model_dir(str(models([FP32_TO_FP16]))) == OK
    source = dev.tensor(np.ones(N, np.float32))
    out = dev.output(FLOAT16, [N], fill=0x44)
    assert acl.op.cast(source[0], source[1], out[0], out[1], 0, dev.stream) == OK
    assert dev.get(out[2], np.uint8, [2 * N]).tolist() == [0x44] * (2 * N)
    dev.sync()
    np.testing.assert_array_equal(dev.get(out[2], np.float16, [N]), np.ones(N, np.float16))


def _fp16_bits(values: list[float]) -> list[int]:
    return np.array(values, np.float16).view(np.uint16).tolist()


#: float32 inputs exactly halfway between two float16 values, and the even neighbour they must round to.
TIES = [
    (1.0 + 2.0 ** -11, 1.0),
    (1.0 + 3 * 2.0 ** -11, 1.0 + 2.0 ** -9),
    (-(1.0 + 2.0 ** -11), -1.0),
    (2048.0 + 1.0, 2048.0),
    (2048.0 + 3.0, 2052.0),
    (65504.0 + 16.0, float("inf")),
    (2.0 ** -24 * 0.5, 0.0),
    (2.0 ** -24 * 1.5, 2.0 ** -23),
]


def test_cast_fp32_to_fp16_rounds_to_nearest_even_on_ties(acl: Any, dev: Device, models: Callable[..., Path]) -> None:
    assert acl.op.set_model_dir(str(models([FP32_TO_FP16]))) == OK
    x = np.array([t[0] for t in TIES], np.float32)
    assert x.astype(np.float64).tolist() == [t[0] for t in TIES]
    ret, result = _cast(dev, x, FLOAT16)
    assert ret == OK
    assert result.view(np.uint16).tolist() == _fp16_bits([t[1] for t in TIES])


def test_cast_fp32_to_fp16_keeps_nan_and_signed_zero_and_overflows_to_inf(
        acl: Any, dev: Device, models: Callable[..., Path]) -> None:
    assert acl.op.set_model_dir(str(models([FP32_TO_FP16]))) == OK
    x = np.array([np.nan, -0.0, 0.0, 1e6, -1e6, np.inf, -np.inf, 65504.0], np.float32)
    ret, result = _cast(dev, x, FLOAT16)
    assert ret == OK
    assert np.isnan(result[0])
    assert result[1:].view(np.uint16).tolist() == _fp16_bits([-0.0, 0.0, np.inf, -np.inf, np.inf, -np.inf, 65504.0])


# ---- create_handle_for_cast --------------------------------------------------------------------


@pytest.mark.parametrize("model", [FP32_TO_FP16, FP32_TO_FP16_NO_TRUNCATE], ids=["with-truncate", "without-truncate"])
def test_create_handle_for_cast_runs_with_execute_with_handle(acl: Any, dev: Device, models: Callable[..., Path],
                                                              model: dict) -> None:
    assert acl.op.set_model_dir(str(models([model]))) == OK
    src_desc, dst_desc = dev.desc(FLOAT, [N]), dev.desc(FLOAT16, [N])
    handle, ret = acl.op.create_handle_for_cast(src_desc, dst_desc, 0)
    assert ret == OK and handle != 0
    for scale in (1.0, -0.5, 1000.0):
        x = (np.arange(N, dtype=np.float32) + 0.3) * np.float32(scale)
        source = dev.tensor(x)
        out = dev.output(FLOAT16, [N])
        assert acl.op.execute_with_handle(handle, [source[1]], [out[1]], dev.stream) == OK
        dev.sync()
        np.testing.assert_array_equal(dev.get(out[2], np.float16, [N]), x.astype(np.float16))
    assert acl.op.destroy_handle(handle) is None


def test_create_handle_for_cast_without_a_cast_model_returns_op_not_found(dev: Device) -> None:
    assert dev.acl.op.create_handle_for_cast(dev.desc(FLOAT, [N]), dev.desc(FLOAT16, [N]), 0) == (0, OP_NOT_FOUND)


def test_create_handle_for_cast_uses_the_same_truncate_rule(acl: Any, dev: Device,
                                                            models: Callable[..., Path]) -> None:
    assert acl.op.set_model_dir(str(models([FP32_TO_FP16]))) == OK
    assert acl.op.create_handle_for_cast(dev.desc(FLOAT, [N]), dev.desc(FLOAT16, [N]), 1) == (0, OP_NOT_FOUND)


def test_create_handle_for_cast_with_a_null_dst_desc_is_invalid_param(acl: Any, dev: Device,
                                                                      models: Callable[..., Path]) -> None:
    assert acl.op.set_model_dir(str(models([FP32_TO_FP16]))) == OK
    assert acl.op.create_handle_for_cast(dev.desc(FLOAT, [N]), 0, 0) == (0, INVALID_PARAM)
