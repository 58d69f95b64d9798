"""The kernel boundary of private formats: a tensor stored in NC1HWC0, FRACTAL_NZ, ... (docs/formats.md) is laid
out in device memory as that format says; kernels compute on the origin layout, so the runtime reads each such
input into its origin layout and lays each such output out in its format."""

from __future__ import annotations

import numpy as np

from aclcts.core.formats import from_storage, is_private, to_storage
from aclcts.core.opmodel import TensorSpec
from aclcts.sim.kernels import TensorInfo
from aclcts.sim.seams import Seam


def _read(array: np.ndarray, fmt: int, origin_format: int, origin_shape: tuple[int, ...]) -> np.ndarray:
    """The origin-layout array of a tensor stored in format fmt."""
    return from_storage(array, fmt, origin_format, origin_shape)


#: How the runtime reads a private-format input for a kernel.
read_layout = Seam("private layout read", _read)


def private_specs(specs: tuple[TensorSpec, ...]) -> list[TensorSpec | None]:
    """Per tensor, its spec if the model stores it in a private format, else None."""
    return [s if is_private(s.format) and s.origin_shape else None for s in specs]


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
