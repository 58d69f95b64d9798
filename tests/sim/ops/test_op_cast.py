"""The simulator's Cast numerics through acl.op.cast: fp32 to fp16 rounds to nearest even and keeps NaN, signed
zero and overflow to infinity (the Cast rules of the contract: conformance/test_cast.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from opkit import FLOAT16, Device, attr, op, tensor

from aclcts.core.dtypes import numpy_dtype

OK = 0
N = 8


def _cast_model(src: str, dst: str, dst_type: int, shape: list[int], truncate: bool | None) -> dict:
    attrs = [attr("dst_type", "int", dst_type)]
    if truncate is not None:
        attrs.insert(0, attr("truncate", "bool", truncate))
    return op("Cast", [tensor(src, shape)], [tensor(dst, shape)], attrs)


FP32_TO_FP16 = _cast_model("float", "float16", FLOAT16, [N], False)


def _cast(dev: Device, src: np.ndarray, dst_type: int, truncate: int = 0) -> tuple[int, np.ndarray | None]:
    source = dev.tensor(src)
    out = dev.output(dst_type, list(src.shape), fill=0)
    ret = dev.acl.op.cast(source[0], source[1], out[0], out[1], truncate, dev.stream)
    if ret != OK:
        return ret, None
    dev.sync()
    return ret, dev.get(out[2], numpy_dtype(dst_type), src.shape)


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
