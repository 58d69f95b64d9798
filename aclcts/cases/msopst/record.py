"""The facts of an op type that an msopst sub-case takes from the op's record: its shape rule and its policy class.

The op records (aclcts.core.prototypes) do not carry these yet; until they do, the tables below state them, one line
per rule or class, and record_shape_rule / record_policy_class are the only readers.
"""

from __future__ import annotations

#: How the runtime input shapes of a dynamic case of each op relate (aclcts.cases.schema.SHAPE_RULES, drawn by
#: aclcts.cases.strategies.model_shapes), by op type; an op type in no line draws each runtime input inside its own
#: ranges ("each"): one runtime input, inputs the op does not relate (GatherV2's x and indices; its axis is a
#: constant), or relations no rule states yet (Conv2D's channels, LayerNorm's gamma), which a case keeps by declaring
#: the related dims fixed.
SHAPE_RULES: dict[str, tuple[str, ...]] = {
    # NumPy broadcasting of two inputs.
    "broadcast": ("Add", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "Pow", "Equal", "Less", "Greater",
                  "LogicalAnd", "Atan2", "Div", "DivNoNan", "FloorDiv", "FloorMod", "Mod", "TruncateDiv",
                  "TruncateMod", "SquaredDifference", "Xlogy", "Xdivy", "LessEqual", "GreaterEqual", "NotEqual",
                  "LogicalOr", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "LeftShift", "RightShift", "Axpy"),
    # Every runtime input has one shape.
    "same": ("AddN", "Pack", "Select", "SoftmaxCrossEntropyWithLogits"),
    # (.., m, k) by (.., k, n), either side transposed by its attribute.
    "matmul": ("MatMul", "MatMulV2", "BatchMatMul", "BatchMatMulV2"),
    # Equal dims except along the concat dim (an attribute, or a constant input).
    "concat": ("ConcatD", "ConcatV2"),
}

#: The precision policy class (Case.family, a case file's `policy`) of each op type outside "elementwise".
POLICY_CLASSES: dict[str, tuple[str, ...]] = {
    "reduction": ("ReduceAll", "ReduceAllD", "ReduceAny", "ReduceAnyD", "ReduceLogSumExp", "ReduceMax", "ReduceMean",
                  "ReduceMin", "ReduceMinD", "ReduceProd", "ReduceProdD", "ReduceSum"),
    "matmul": ("BatchMatMul", "BatchMatMulV2", "GEMM", "MatMul", "MatMulV2"),
    "shape": ("ConcatD", "Reshape", "Slice", "SplitD", "Tile", "Transpose"),
    "index": ("ArgMaxD", "ArgMaxV2", "ArgMaxWithValue", "ArgMin", "ArgMinWithValue", "NonZero", "TopK", "Unique"),
    "nn": ("Conv2D", "LogSoftmaxV2", "Relu", "Sigmoid", "SoftmaxV2", "Tanh"),
    "cast": ("Cast",),
}

_RULE_OF = {op: rule for rule, ops in SHAPE_RULES.items() for op in ops}
_CLASS_OF = {op: name for name, ops in POLICY_CLASSES.items() for op in ops}


def record_shape_rule(op_type: str) -> str:
    """The shape rule of an op type's dynamic cases (one of aclcts.cases.schema.SHAPE_RULES)."""
    return _RULE_OF.get(op_type, "each")


def record_policy_class(op_type: str) -> str:
    """The precision policy class of an op type (the `policy` a case file of it names); "elementwise" if none other."""
    return _CLASS_OF.get(op_type, "elementwise")
