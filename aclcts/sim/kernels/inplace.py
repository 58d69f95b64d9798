"""Assign and in-place update kernels: Assign, AssignAdd, AssignSub, InplaceAddD, InplaceSubD, InplaceUpdate,
InplaceUpdateD, ScatterNonAliasingAdd.

Prototypes: aclcts.core.prototypes.inplace (elewise_calculation_ops.h, selection_ops.h). Each returns the updated
tensor in its output's own buffer; the ref input is not written. Numerics: one addition or subtraction per element
in the input dtype (float16 rounded once, integers wrap), as the TBE kernels' vadd/vsub (tbe/impl/assign_add.py,
inplace_add_d.py); Assign and the updates copy bit for bit. Indices name rows of x's first dim; the D forms take their
indices attribute modulo that dim, as their TBE implementations do (inplace_update_d.py); an InplaceUpdate index
outside it is a kernel error. Rows are written in index order, so of duplicate indices (y undefined in the REG_OP
comment; the reference refuses them) the last wins. ScatterNonAliasingAdd adds its updates in the compute type
(float16 in float32), one index after another, and rounds once, as the library's ScatterAdd does; integers wrap.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from aclcts.sim.kernels.base import TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.numerics import compute_dtype
from aclcts.sim.kernels.registry import builtin
from aclcts.sim.kernels.shapes import like_input

Arrays = list[np.ndarray | None]
Attrs = dict[str, Any]


def _two(op_type: str, combine: Callable[[np.ndarray, np.ndarray], np.ndarray] | None) -> None:
    """Assign (combine None: the output is the value) and AssignAdd / AssignSub (one ufunc of the two inputs)."""

    def compute(inputs: Arrays, attrs: Attrs, outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        ref, value = call.input(0), call.input(1)
        call.require_simulated(0, ref.dtype)
        call.require_same_dtype([0, 1], [ref.dtype, value.dtype])
        strict = combine is not None or call.attr_bool("validate_shape")
        if strict and ref.shape != value.shape:
            raise call.fail(f"input {call.quoted(1)} has shape {list(value.shape)}, expected {list(ref.shape)} (the "
                            f"shape of {call.quoted(0)})")
        out = Outputs(call, outputs)
        out.require_input_dtype(0, 0, ref.dtype)
        result = out.buffer(0, value.shape)
        if combine is None:
            np.copyto(result, value)
        else:
            with np.errstate(all="ignore"):
                combine(ref, value, out=result)
        return [out.emit(0, result)]

    builtin(op_type, compute, like_input(op_type, 1 if combine is None else 0))


def _rows(call: OpCall, x: np.ndarray, v: np.ndarray, rows: list[int], v_index: int) -> None:
    """Check that v holds one slice of x per row and that the rows are rows of x."""
    if v.ndim == 0 or v.shape[0] != len(rows) or v.shape[1:] != x.shape[1:]:
        raise call.fail(f"input {call.quoted(v_index)} has shape {list(v.shape)}, expected [{len(rows)}] + "
                        f"{list(x.shape[1:])} (one slice of {call.quoted(0)} per index)")
    outside = [r for r in rows if not 0 <= r < x.shape[0]]
    if outside:
        raise call.fail(f"index {outside[0]} is outside [0, {x.shape[0]}) of the first dim of {call.quoted(0)}")


def _row_update(op_type: str, how: np.ufunc | None) -> None:
    """The Inplace ops: v's slices written (how None), added or subtracted into the rows of x the indices name (the
    indices attribute for the D forms, input 1 for InplaceUpdate)."""
    from_input = op_type == "InplaceUpdate"

    def compute(inputs: Arrays, attrs: Attrs, outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        v_index = 2 if from_input else 1
        x, v = call.input(0), call.input(v_index)
        call.require_simulated(0, x.dtype)
        call.require_same_dtype([0, v_index], [x.dtype, v.dtype])
        if from_input:
            call.require_dtype(1, call.input(1).dtype)
            rows = [int(i) for i in call.input(1).reshape(-1)]
        else:
            rows = [i % x.shape[0] if x.ndim and x.shape[0] else i for i in call.attr_list_int("indices")]
        _rows(call, x, v, rows, v_index)
        out = Outputs(call, outputs)
        out.require_input_dtype(0, 0, x.dtype)
        result = out.buffer(0, x.shape)
        np.copyto(result, x)
        with np.errstate(all="ignore"):
            for i, row in enumerate(rows):
                result[row] = v[i] if how is None else how(result[row], v[i])
        return [out.emit(0, result)]

    builtin(op_type, compute, like_input(op_type))


def _scatter_add(inputs: Arrays, attrs: Attrs, outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("ScatterNonAliasingAdd", inputs, attrs)
    call.require_inputs()
    x, indices, updates = call.input(0), call.input(1), call.input(2)
    call.require_simulated(0, x.dtype)
    call.require_dtype(1, indices.dtype)
    call.require_same_dtype([0, 2], [x.dtype, updates.dtype])
    k = indices.shape[-1] if indices.ndim else 0
    expected = tuple(indices.shape[:-1]) + tuple(x.shape[k:])
    if expected == () and updates.size == 1:  # a scalar update written as shape [1], as CANN's cases write scalars
        updates = updates.reshape(())
    if not 1 <= k <= x.ndim or updates.shape != expected:
        raise call.fail(f"input {call.quoted(2)} has shape {list(updates.shape)}, expected {list(expected)} (and the "
                        f"last dim of {call.quoted(1)} in [1, {x.ndim}])")
    at = indices.reshape(-1, k).astype(np.int64)
    bad = (at < 0) | (at >= np.asarray(x.shape[:k]))
    if bad.any():
        raise call.fail(f"input {call.quoted(1)} holds {at[bad.any(axis=1)][0].tolist()}, outside the dims "
                        f"{list(x.shape[:k])} of {call.quoted(0)}")
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, x.dtype)
    wide = x.astype(compute_dtype(x.dtype))
    with np.errstate(all="ignore"):
        np.add.at(wide, tuple(at.T), updates.reshape((-1,) + x.shape[k:]).astype(wide.dtype))
        return [out.emit(0, wide.astype(x.dtype))]


_two("Assign", None)
_two("AssignAdd", np.add)
_two("AssignSub", np.subtract)
_row_update("InplaceAddD", np.add)
_row_update("InplaceSubD", np.subtract)
_row_update("InplaceUpdateD", None)
_row_update("InplaceUpdate", None)
builtin("ScatterNonAliasingAdd", _scatter_add, like_input("ScatterNonAliasingAdd"))
