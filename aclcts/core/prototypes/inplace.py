"""Records of the assign and in-place update ops: Assign, AssignAdd, AssignSub, InplaceAddD, InplaceSubD,
InplaceUpdate, InplaceUpdateD and ScatterNonAliasingAdd.

Source: vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/elewise_calculation_ops.h (Assign, AssignAdd,
AssignSub) and selection_ops.h (the Inplace ops, ScatterNonAliasingAdd), which follow TensorFlow's Assign, AssignAdd,
AssignSub, InplaceAdd, InplaceSub, InplaceUpdate and ScatterNdNonAliasingAdd. Types: the op info CANN compiles them with (ops/built-in/tbe/op_info_cfg/ai_core/<soc>/
aic-<soc>-ops-info.ini), a subset of the header's BasicType / NumberType for Assign, AssignAdd, AssignSub,
InplaceUpdate and ScatterNonAliasingAdd.

Ref inputs: Assign's and AssignAdd's `ref` and AssignSub's `var` are inputs the prototype names as outputs too; as
for the optimizers (aclcts/core/prototypes/optimizer.py), the output is its own buffer and holds the updated value,
which is what the suite judges. The Inplace ops name their output y, "an alias of x" in a graph.

Indices index the first dim of x; the D forms' indices attribute is taken modulo that dim (their TBE implementations,
tbe/impl/inplace_update_d.py, inplace_add_d.py, inplace_sub_d.py, wrap it; the header does not say). The header leaves y undefined when indices hold a duplicate: the references refuse
such a case (no value to judge), and the samples draw none (the D forms' sample indices are distinct; InplaceUpdate's
default cases update one row).
"""

from __future__ import annotations

from aclcts.core.prototypes.spec import Attr, Prototype, Sample, op

POLICY = "elementwise"
SHAPE_RULE = "given"

_ELEWISE = "vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/elewise_calculation_ops.h"
_SELECTION = "vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/selection_ops.h"
_LOCKING = Attr("use_locking", "bool", False)
_ROWS = ("float32", "float16", "int32")
_INDICES = Attr("indices", "list_int")
#: x [4, 16] with rows 0 and 2 updated by v [2, 16]; x [5, 3, 2] with rows 4 and 1.
_ROW_SHAPES = (((4, 16), (2, 16)), ((5, 3, 2), (2, 3, 2)))


def _rows(op_type: str, note: str, policy: str = "") -> Prototype:
    """An Inplace*D op: v's rows combined into the rows of x that the indices attribute names."""
    return op(op_type, "x:T, v:T", "y:T", {"T": _ROWS}, (_INDICES,),
              source=f"{_SELECTION} REG_OP({op_type}): {note}; indices distinct (y undefined otherwise)",
              sample_shapes=_ROW_SHAPES, sample_attrs={"indices": [0, 2]}, policy=policy)


PROTOTYPES: tuple[Prototype, ...] = (
    op("Assign", "ref:T, value:T", "ref:T",
       {"T": ("bool", "float32", "float16", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")},
       (Attr("validate_shape", "bool", True), _LOCKING),
       source=f"{_ELEWISE} REG_OP(Assign): ref = value (validate_shape: value has ref's shape; false: the output "
              "takes value's shape)",
       policy="movement", shape_rule="same"),
    op("AssignAdd", "ref:T, value:T", "ref:T", {"T": ("float16", "float32", "int32", "int64")}, (_LOCKING,),
       source=f"{_ELEWISE} REG_OP(AssignAdd): ref + value", shape_rule="same"),
    op("AssignSub", "var:T, value:T", "var:T", {"T": ("float16", "float32", "int32", "int8", "uint8")}, (_LOCKING,),
       source=f"{_ELEWISE} REG_OP(AssignSub): var - value", shape_rule="same"),
    _rows("InplaceAddD", "y = x; y[indices[i], ...] += v[i, ...]"),
    _rows("InplaceSubD", "y = x; y[indices[i], ...] -= v[i, ...]"),
    _rows("InplaceUpdateD", "y = x; y[indices[i], ...] = v[i, ...]", policy="movement"),
    op("InplaceUpdate", "x:T, indices:I, v:T", "y:T", {"T": _ROWS, "I": ("int32",)},
       source=f"{_SELECTION} REG_OP(InplaceUpdate): y = x; y[indices[i], ...] = v[i, ...], indices distinct (y "
              "undefined otherwise)",
       samples={"indices": Sample(0, 3, "a row of x (the sample x has 4 or 5 rows)")},
       sample_shapes=(((4, 16), (1,), (1, 16)), ((5, 3, 2), (1,), (1, 3, 2))), policy="movement"),
    op("ScatterNonAliasingAdd", "x:T, indices:I, updates:T", "y:T",
       {"T": ("float16", "float32", "int32"), "I": ("int32", "int64")},
       source=f"{_SELECTION} REG_OP(ScatterNonAliasingAdd): y = x with updates[j] added at x[indices[j]], the last dim "
              "of indices addressing x's leading dims; repeated indices add up (TensorFlow ScatterNdNonAliasingAdd); a scalar "
              "update may be given as shape [1], as CANN's cases write scalars",
       samples={"indices": Sample(0, 2, "a position inside x's leading dims (3 or more each)")},
       sample_shapes=(((3, 4), (6, 1), (6, 4)), ((3, 4, 5), (2, 2), (2, 5))), policy="reduction",
       # the value profiles would redraw indices over int32's whole range, outside x
       profiles=()),
)
