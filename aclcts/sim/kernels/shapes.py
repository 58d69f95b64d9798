"""Shape helpers shared by compute and infer_shape: broadcasting (with unknown dims) and InferredShape building."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from aclcts.sim.kernels.base import InferredShape
from aclcts.sim.kernels.call import OpCall

UNKNOWN = -1
UNKNOWN_RANK = -2
UNBOUNDED = -1


def unknown_rank(shape: Sequence[int]) -> bool:
    """Whether a shape is the unknown-rank marker [-2]."""
    return len(shape) == 1 and shape[0] == UNKNOWN_RANK


def inferred(dtype: int, shape: Sequence[int], ranges: Sequence[tuple[int, int]] | None = None) -> InferredShape:
    """An InferredShape; fixed dims get (d, d), unknown dims (0, unbounded) unless ranges are given."""
    shape = tuple(int(d) for d in shape)
    if unknown_rank(shape):
        return InferredShape(dtype, shape, ())
    if ranges is None:
        ranges = [(d, d) if d >= 0 else (0, UNBOUNDED) for d in shape]
    return InferredShape(dtype, shape, tuple((int(lo), int(hi)) for lo, hi in ranges))


def broadcast(call: OpCall, inputs: Sequence[int | str], shapes: Sequence[Sequence[int]]) -> tuple[int, ...]:
    """NumPy broadcasting of several shapes, where a dim of -1 is unknown and [-2] is an unknown rank; inputs are
    the input indices the shapes belong to (or, for a shape that is no input's own, a label for messages)."""
    if any(unknown_rank(s) for s in shapes):
        return (UNKNOWN_RANK,)
    rank = max((len(s) for s in shapes), default=0)
    result = []
    for position in range(rank):
        dims = []
        for shape in shapes:
            offset = position - (rank - len(shape))
            dims.append(shape[offset] if offset >= 0 else 1)
        known = {d for d in dims if d >= 0 and d != 1}
        if len(known) > 1:
            names = [call.name(i) if isinstance(i, int) else i for i in inputs]
            listed = ", ".join(f"'{n}' {list(s)}" for n, s in zip(names, shapes))
            raise call.fail(f"inputs cannot be broadcast together: {listed}")
        if known:
            result.append(known.pop())
        elif any(d < 0 for d in dims):
            result.append(UNKNOWN)
        else:
            result.append(1)
    return tuple(result)


def numel(shape: Sequence[int]) -> int:
    """The element count of a fully known shape."""
    count = 1
    for d in shape:
        count *= int(d)
    return count


def fully_known(shape: Sequence[int]) -> bool:
    """Whether every dim of a shape is known (and the rank too)."""
    return all(d >= 0 for d in shape)


def like_input(op_type: str, shape_of: int = 0) -> Callable[..., list[InferredShape]]:
    """An infer_shape of one output: input 0's dtype and input shape_of's shape, the inputs checked against the
    op's record."""
    def infer(inputs: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        return [inferred(call.input(0).dtype, tuple(call.input(shape_of).shape))]
    return infer
