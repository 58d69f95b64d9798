"""A dynamic msopst case draws its runtime shapes by its own op's shape rule: one op of every prototype family.

Each case below is a small msopst file with -1 dims and shape_range. Its drawn runtime shapes (the suite's
strategies.model_shapes) must each lie inside the input's declared shape and ranges, keep the relation the op needs
(broadcast, equal inner dims, equal dims off the concat axis, equal shapes) and be accepted by the op's built-in
reference, whose output shapes must lie inside the declared outputs.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aclcts.cases import msopst
from aclcts.cases.schema import shape_fits
from aclcts.cases.strategies import model_arrays, model_shapes
from aclcts.reference import reference


def dyn(name: str, shape: list[int], ranges: list[list[int]], typical: list[int], type_: str = "float32",
        fmt: str = "ND") -> dict:
    """A dynamic tensor: -1 dims with one [min, max] each, run first at typical."""
    return {"name": name, "format": fmt, "type": type_, "shape": shape, "shape_range": ranges,
            "typical_shape": typical}


def fixed(name: str, shape: list[int], type_: str = "float32", fmt: str = "ND") -> dict:
    """A tensor of a static shape, given at run time."""
    return {"name": name, "format": fmt, "type": type_, "shape": shape}


def const(name: str, values: list, type_: str = "int32", fmt: str = "ND") -> dict:
    """A constant 1-D input (an axis, a size)."""
    return {"name": name, "format": fmt, "type": type_, "shape": [len(values)], "is_const": True,
            "const_value": values}


def out(name: str, shape: list[int], ranges: list[list[int]] | None = None, type_: str = "float32",
        fmt: str = "ND") -> dict:
    """An output, with shape_range for its -1 dims."""
    return {"name": name, "format": fmt, "type": type_, "shape": shape, **({"shape_range": ranges} if ranges else {})}


def attr(name: str, type_: str, value) -> dict:
    return {"name": name, "type": type_, "value": value}


M2 = [[1, 8], [1, 8]]
M2_OUT = [[1, 16], [1, 16]]
NHWC, NCHW = dict(fmt="NHWC"), dict(fmt="NCHW")
#: (prototype family, op type, its shape rule, input_desc, output_desc, attr).
FAMILIES = [
    ("activation", "Gelu", "same", [dyn("x", [-1, -1], M2, [2, 3])], [out("y", [-1, -1], M2)], []),
    ("arg", "ArgMaxD", "each", [dyn("x", [-1, -1], M2, [2, 3])], [out("y", [-1], [[1, 8]], "int32")],
     [attr("dimension", "int", 1)]),
    ("binary_math", "Div", "broadcast", [dyn("x1", [-1, -1], M2, [2, 3]), dyn("x2", [-1, -1], M2, [2, 3])],
     [out("y", [-1, -1], M2)], []),
    ("cast", "Cast", "same", [dyn("x", [-1], [[1, 16]], [4])], [out("y", [-1], [[1, 16]], "int32")],
     [attr("dst_type", "int", 3)]),
    ("conv", "Conv2D", "each",
     [dyn("x", [-1, 3, -1, -1], [[1, 4], [3, 9], [3, 9]], [1, 3, 5, 5], **NCHW), fixed("filter", [4, 3, 2, 2], **NCHW)],
     [out("y", [-1, 4, -1, -1], [[1, 4], [2, 8], [2, 8]], **NCHW)],
     [attr("strides", "list_int", [1, 1, 1, 1]), attr("pads", "list_int", [0, 0, 0, 0]),
      attr("data_format", "string", "NCHW")]),
    ("elementwise", "Add", "broadcast", [dyn("x1", [-1, -1], M2, [2, 3]), dyn("x2", [-1, -1], M2, [2, 3])],
     [out("y", [-1, -1], M2)], []),
    ("gather_scatter", "GatherV2", "given",
     [dyn("x", [-1, -1], M2, [4, 3]), dyn("indices", [-1], [[1, 6]], [2], "int32"), const("axis", [0])],
     [out("y", [-1, -1], M2)], []),
    ("index", "ArgMaxV2", "each", [dyn("x", [-1, -1], M2, [2, 3]), const("dimension", [1])],
     [out("y", [-1], [[1, 8]], "int32")], []),
    ("logic", "LogicalOr", "broadcast",
     [dyn("x1", [-1, -1], M2, [2, 3], "bool"), dyn("x2", [-1, -1], M2, [2, 3], "bool")],
     [out("y", [-1, -1], M2, "bool")], []),
    ("matmul", "MatMul", "matmul", [dyn("x1", [-1, -1], [[1, 8], [2, 6]], [2, 3]), dyn("x2", [-1, -1], M2, [4, 3])],
     [out("y", [-1, -1], M2)], [attr("transpose_x1", "bool", False), attr("transpose_x2", "bool", True)]),
    ("matmul", "BatchMatMul", "matmul",
     [dyn("x1", [-1, -1, -1], [[1, 3], [1, 6], [1, 8]], [2, 3, 2]), dyn("x2", [-1, -1, -1], [[1, 4]] + M2, [2, 3, 4])],
     [out("y", [-1, -1, -1], [[1, 3]] + M2)], [attr("adj_x1", "bool", True), attr("adj_x2", "bool", False)]),
    ("activation", "Relu", "same", [dyn("x", [-1, -1], M2, [2, 3])], [out("y", [-1, -1], M2)], []),
    ("norm", "L2Normalize", "each", [dyn("x", [-1, -1], M2, [2, 3])], [out("y", [-1, -1], M2)],
     [attr("axis", "list_int", [1])]),
    ("pooling", "MaxPool", "each", [dyn("x", [-1, -1, -1, 3], [[1, 4], [2, 8], [2, 8]], [1, 4, 4, 3], **NHWC)],
     [out("y", [-1, -1, -1, 3], [[1, 4], [1, 7], [1, 7]], **NHWC)],
     [attr("ksize", "list_int", [1, 2, 2, 1]), attr("strides", "list_int", [1, 1, 1, 1]),
      attr("padding", "string", "VALID"), attr("data_format", "string", "NHWC")]),
    ("reduction", "ReduceSum", "each", [dyn("x", [-1, -1], M2, [2, 3]), const("axes", [1])],
     [out("y", [-1], [[1, 8]])], [attr("keep_dims", "bool", False)]),
    ("reshaping", "Pack", "same", [dyn("x0", [-1, -1], M2, [2, 3]), dyn("x1", [-1, -1], M2, [2, 3])],
     [out("y", [2, -1, -1], M2)], [attr("axis", "int", 0), attr("N", "int", 2)]),
    ("reshaping", "ConcatV2", "concat",
     [dyn("x0", [-1, -1], [[1, 8], [1, 4]], [2, 3]), dyn("x1", [-1, -1], M2, [2, 5]), const("concat_dim", [-1])],
     [out("y", [-1, -1], M2_OUT)], [attr("N", "int", 2)]),
    ("resize", "ResizeBilinearV2", "each",
     [dyn("x", [-1, -1, -1, 3], [[1, 4], [1, 8], [1, 8]], [1, 2, 2, 3], **NHWC), const("size", [4, 4], **NHWC)],
     [out("y", [-1, 4, 4, 3], [[1, 4]], **NHWC)], []),
    ("matrix_structure", "DiagPart", "square", [dyn("x", [-1, -1], [[1, 8], [3, 12]], [4, 4])],
     [out("y", [-1], [[1, 8]])], []),
    ("scan", "Cumsum", "each", [dyn("x", [-1, -1], M2, [2, 3]), const("axis", [0])], [out("y", [-1, -1], M2)], []),
    ("shape", "ConcatD", "concat", [dyn("x0", [-1, -1], [[1, 8], [1, 4]], [2, 3]), dyn("x1", [-1, -1], M2, [2, 5])],
     [out("y", [-1, -1], [[1, 8], [2, 16]])], [attr("concat_dim", "int", 1), attr("N", "int", 2)]),
    ("softmax", "SoftmaxV2", "same", [dyn("x", [-1, -1], M2, [2, 3])], [out("y", [-1, -1], M2)],
     [attr("axes", "list_int", [-1])]),
    ("sparse", "SparseTensorDenseMatMul", "each",
     [fixed("x1_indices", [3, 2], "int64"), fixed("x1_values", [3]), const("x1_shape", [4, 5], "int64"),
      dyn("x2", [5, -1], [[1, 8]], [5, 2])],
     [out("y", [4, -1], [[1, 8]])], []),
    ("unary_math", "Sin", "same", [dyn("x", [-1], [[1, 16]], [4])], [out("y", [-1], [[1, 16]])], []),
]


def loaded(tmp_path: Path, op: str, inputs: list, outputs: list, attrs: list):
    """The one sub-case of an msopst file holding one case of op."""
    case = {"case_name": f"Test_{op}_dynamic", "op": op, "input_desc": inputs, "output_desc": outputs}
    if attrs:
        case["attr"] = attrs
    path = tmp_path / f"{op}.json"
    path.write_text(json.dumps([case]))
    (sub,) = msopst.load_msopst_cases(str(path))
    return sub


def relation_holds(rule: str, case, shapes: tuple[tuple[int, ...], ...]) -> bool:
    """Whether drawn runtime shapes keep the relation the op's rule states."""
    attrs = case.attr_values()
    if rule == "broadcast":
        return np.broadcast_shapes(*shapes) is not None
    if rule == "same":
        return len(set(shapes)) == 1
    if rule == "square":
        half = len(shapes[0]) // 2
        return shapes[0][:half] == shapes[0][half:]
    if rule == "matmul":
        a, b = shapes[:2]
        inner_a = a[-2] if attrs.get("transpose_x1", attrs.get("adj_x1")) else a[-1]
        inner_b = b[-1] if attrs.get("transpose_x2", attrs.get("adj_x2")) else b[-2]
        return inner_a == inner_b and a[:-2] == b[:-2]
    if rule == "concat":
        axis = attrs.get("concat_dim", case.inputs[-1].const[0] if case.inputs[-1].const else None) % len(shapes[0])
        return len({s[:axis] + s[axis + 1:] for s in shapes}) == 1
    return True


@pytest.mark.parametrize("family,op,rule,inputs,outputs,attrs", FAMILIES,
                         ids=[f"{family}-{op}" for family, op, *_ in FAMILIES])
def test_a_dynamic_case_draws_runtime_shapes_by_its_ops_rule(tmp_path, family, op, rule, inputs, outputs, attrs):
    case = loaded(tmp_path, op, inputs, outputs, attrs)
    assert case.shape_rule == rule, f"{op} ({family}) draws by {case.shape_rule!r}"
    runtime = [t for t in case.inputs if t.const is None]
    ref = reference(case.reference)

    @settings(max_examples=25, database=None, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def draws(data):
        shapes = data.draw(model_shapes(case))
        assert len(shapes) == len(runtime)
        for tensor, shape in zip(runtime, shapes):
            assert shape_fits(shape, tensor.shape, tensor.shape_range), (tensor.name, shape)
        assert relation_holds(rule, case, shapes), shapes
        given_shapes = iter(shapes)
        arrays = [t.const_array() if t.const is not None else np.zeros(next(given_shapes), t.np_dtype)
                  for t in case.inputs]
        produced = ref.shape([a.shape for a in arrays], arrays, case.attr_values())
        for tensor, shape in zip(case.outputs, produced):
            assert shape_fits(tuple(shape), tensor.shape, tensor.shape_range), (tensor.name, shape)

    draws()


def test_gather_v2_runs_at_its_own_shapes_with_indices_inside_the_axis_they_index(tmp_path):
    """GatherV2's indices must lie inside the dim of x they index: its dynamic case runs at the case's own runtime
    shapes (x and indices each at their own rank, issue 33) with the indices drawn from the case's value_range, never
    from the integers hypothesis draws for data (which reach -4096)."""
    _, op, _, inputs, outputs, attrs = next(f for f in FAMILIES if f[1] == "GatherV2")
    indices = {**inputs[1], "data_distribute": ["uniform"], "value_range": [[0, 4]]}
    case = loaded(tmp_path, op, [inputs[0], indices, inputs[2]], outputs, attrs)
    seen = set()

    @settings(max_examples=25, database=None, deadline=None, derandomize=True)
    @given(st.data())
    def draws(data):
        x, drawn = data.draw(model_arrays(case))
        assert (x.shape, drawn.shape) == ((4, 3), (2,))
        assert ((0 <= drawn) & (drawn < x.shape[0])).all(), drawn
        seen.add(tuple(drawn))

    draws()
    assert len(seen) > 1  # drawn with a new seed per example, not one fixed array


def test_a_case_without_a_golden_function_draws_its_values_from_its_own_value_range(tmp_path):
    """A dynamic msopst case judged by aclcts' reference (no golden function) draws, at every drawn shape, from its
    own value_range, and from msopst's default uniform [0.1, 1.0] where it gives none: CANN's Iou case gives its boxes
    [0, 100], and values over the whole float16 range overflow the areas, where a correct device fails too."""
    _, op, _, inputs, outputs, attrs = next(f for f in FAMILIES if f[1] == "Add")
    given_range = {**inputs[0], "data_distribute": ["uniform"], "value_range": [[2.0, 3.0]]}
    case = loaded(tmp_path, op, [given_range, inputs[1]], outputs, attrs)

    @settings(max_examples=25, database=None, deadline=None, derandomize=True)
    @given(st.data())
    def draws(data):
        x1, x2 = data.draw(model_arrays(case))
        assert ((2.0 <= x1) & (x1 <= 3.0)).all(), x1
        assert ((0.1 <= x2) & (x2 <= 1.0)).all(), x2

    draws()
