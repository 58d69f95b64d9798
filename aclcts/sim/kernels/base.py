"""The kernel interface: what a kernel is told about its tensors, what it returns, how it fails."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class TensorInfo:
    """What a kernel knows about one input or output: aclDataType, dims and aclFormat.

    destination, for an output the runtime can let the kernel write in place: a C-ordered array of the output's
    dtype and dims over the output's device memory, overlapping no input (None otherwise). A kernel may compute
    into it and return it, which saves the runtime's copy; it is never required to.
    exact, for an output of a static model: its dims are the shape the result must have, never a maximum.
    """

    dtype: int
    shape: tuple[int, ...]
    format: int
    destination: np.ndarray | None = field(default=None, compare=False, repr=False)
    exact: bool = field(default=False, compare=False)


@dataclass(frozen=True)
class InferredShape:
    """The result of shape inference for one output: dtype, dims (-1 = value-dependent) and one (min, max) per dim."""

    dtype: int
    shape: tuple[int, ...]
    shape_range: tuple[tuple[int, int], ...]


class KernelError(Exception):
    """Invalid inputs or attributes for an op; the message names the op, the input/attr and what was expected."""


ComputeFn = Callable[[list[np.ndarray | None], dict[str, Any], list[TensorInfo]], list[np.ndarray]]
InferFn = Callable[[list[TensorInfo], list[np.ndarray | None], dict[str, Any]], list[InferredShape]]


@dataclass(frozen=True)
class Kernel:
    """One op type's device-numerics implementation and (optionally) its shape inference."""

    op_type: str
    compute: ComputeFn
    infer_shape: InferFn | None
