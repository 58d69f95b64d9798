"""Prototypes of the activations the suite has had from the start: Relu, Sigmoid and Tanh.

Source: mindspore-ai/graphengine 910 op_proto/inc/nonlinear_fuc_ops.h (quantized types left out).
"""

from __future__ import annotations

from aclcts.core.prototypes.dtypes import FLOAT64, FLOATS, UNARY
from aclcts.core.prototypes.spec import Prototype, op

_SRC = "graphengine 910 op_proto/inc/nonlinear_fuc_ops.h"

PROTOTYPES: tuple[Prototype, ...] = (
    op("Relu", "x:T", "y:T", {"T": FLOATS + FLOAT64 + ("int8", "int16", "int32", "int64", "uint8", "uint16")},
       source=f"{_SRC} REG_OP(Relu)"),
    op("Sigmoid", "x:T", "y:T", {"T": UNARY}, source=f"{_SRC} REG_OP(Sigmoid)"),
    op("Tanh", "x:T", "y:T", {"T": UNARY}, source=f"{_SRC} REG_OP(Tanh)"),
)
