"""The prototype's format rule: a tensor stored in a private format must be one the record allows it, with the shape
that format gives its origin shape (docs/formats.md)."""

from __future__ import annotations

from aclcts.core.dtypes import has_numpy_dtype, numpy_dtype
from aclcts.core.formats import FORMAT_NAMES, FormatError, is_private, storage_shape
from aclcts.core.opmodel import TensorSpec
from aclcts.core.prototypes.check import Problem, slots
from aclcts.core.prototypes.spec import Prototype


def _problem(proto: Prototype, side: str, name: str, spec: TensorSpec) -> str | None:
    fmt = FORMAT_NAMES[spec.format]
    allowed = proto.formats.get(name, ())
    if fmt not in allowed:
        others = f"one of {', '.join(allowed)} or a plain format" if allowed else "a plain format (ND, NCHW, ...)"
        return f"{proto.op_type} {side} {name!r} cannot be stored in {fmt}; expected {others}"
    if not has_numpy_dtype(spec.dtype):
        return None
    try:
        expected = storage_shape(spec.origin_shape, spec.origin_format, spec.format, numpy_dtype(spec.dtype))
    except FormatError as exc:
        origin = FORMAT_NAMES.get(spec.origin_format, spec.origin_format)
        return f"origin_shape {list(spec.origin_shape)} in origin_format {origin} cannot be stored in {fmt}: {exc}"
    if tuple(spec.shape) != expected:
        return (f"shape {list(spec.shape)} does not fit origin_shape {list(spec.origin_shape)} in {fmt}; "
                f"expected {list(expected)}")
    return None


def format_problems(proto: Prototype, inputs: tuple[TensorSpec, ...], outputs: tuple[TensorSpec, ...]) -> list[Problem]:
    """One problem per tensor stored in a private format the record does not allow it, or with the wrong shape."""
    problems = []
    for side, specs, tensors in (("input", inputs, proto.inputs), ("output", outputs, proto.outputs)):
        fitted = slots(tensors, len(specs)) or []
        for index, (slot, spec) in enumerate(zip(fitted, specs)):
            if not is_private(spec.format) or any(d < 0 for d in spec.shape):
                continue
            message = _problem(proto, side, slot.name, spec)
            if message:
                problems.append(Problem((side, index, "format"), message, "format"))
    return problems
