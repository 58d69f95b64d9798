"""The kernel boundary of private formats: a tensor stored in NC1HWC0, FRACTAL_NZ, ... (docs/formats.md) is laid
out in device memory as that format says; kernels compute on the origin layout, so the runtime reads each such
input into its origin layout and lays each such output out in its format."""

from __future__ import annotations

import numpy as np

from dataclasses import replace

from aclcts.core.dtypes import numpy_dtype
from aclcts.core.formats import from_storage, is_private, runtime_origin_shape, to_storage
from aclcts.core.opmodel import TensorSpec
from aclcts.sim.kernels import TensorInfo
from aclcts.sim.seams import Seam


def _read(array: np.ndarray, fmt: int, origin_format: int, origin_shape: tuple[int, ...]) -> np.ndarray:
    """The origin-layout array of a tensor stored in format fmt."""
    return from_storage(array, fmt, origin_format, origin_shape)


#: How the runtime reads a private-format input for a kernel.
read_layout = Seam("private layout read", _read)


def private_specs(specs: tuple[TensorSpec, ...], dims: list[tuple[int, ...]]) -> list[TensorSpec | None]:
    """Per tensor, its spec if the model stores it in a private format, else None; a dynamic model's spec carries the
    origin shape its runtime desc's stored dims (dims, one per tensor) give back (docs/formats.md)."""
    found: list[TensorSpec | None] = []
    for spec, stored in zip(specs, dims):
        if not is_private(spec.format) or not spec.origin_shape:
            found.append(None)
        elif any(d < 0 for d in spec.origin_shape):
            found.append(replace(spec, origin_shape=runtime_origin_shape(
                tuple(stored), spec.origin_shape, spec.origin_format, spec.format, numpy_dtype(spec.dtype))))
        else:
            found.append(spec)
    return found


def kernel_inputs(arrays: list[np.ndarray | None], specs: list[TensorSpec | None]) -> list[np.ndarray | None]:
    """The inputs a kernel computes on: private-format ones read into their origin layout."""
    return [a if s is None or a is None else read_layout(a, s.format, s.origin_format, s.origin_shape)
            for a, s in zip(arrays, specs)]


def kernel_output_info(info: TensorInfo, spec: TensorSpec | None) -> TensorInfo:
    """What a kernel is told about an output: a private-format one in its origin layout, with no destination."""
    return info if spec is None else TensorInfo(info.dtype, tuple(spec.origin_shape), spec.origin_format,
                                                exact=info.exact)


def stored_output(result: np.ndarray, spec: TensorSpec | None) -> np.ndarray:
    """A kernel's output as it is stored: a private-format one laid out in its format, padded with zeros."""
    return result if spec is None else to_storage(np.asarray(result), spec.origin_format, spec.format)
