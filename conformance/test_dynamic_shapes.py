"""Dynamic-shape cases (-1 dims with shape_range, and [-2]; cases/dynamic/*.yaml or --cases): execute_v2 inside and
outside the range, the real shape written back, infer_shape's dims and ranges, and desc sizes of dynamic dims
(docs/contract/op-load-execute.md#dynamic-shape-flow, docs/contract/single-op-json.md#dynamic-shapes). Each test runs
over the run's dynamic cases (the case library's and cases/dynamic's) that its `over` filter selects; the ids are the case ids."""

from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from aclcts.cases import Case, load_cases, strategies
from aclcts.cases.domains import is_generated
from aclcts.cases.schema import shape_fits
from aclcts.cases.values import draw_runtime
from aclcts.core.constants import DataType, ErrorCode, Format
from aclcts.core.dtypes import JSON_TYPE_NAMES, numpy_dtype
from aclcts.core.opmodel import canonical_attr
from aclcts.drive import executor, flow
from aclcts.judge.decorator import Judged, compared
from aclcts.pytest_plugin.library import dynamic_cases, parametrize_or_deselect
from aclcts.reference import reference

pytestmark = [pytest.mark.dynamic]
#: The session fixture that compiles and loads the dynamic cases' models (used by the tests that execute).
LOADED = pytest.mark.usefixtures("dynamic_models")

INVALID_PARAM = int(ErrorCode.ACL_ERROR_INVALID_PARAM)
OP_NOT_FOUND = int(ErrorCode.ACL_ERROR_OP_NOT_FOUND)
F32, I32, I64 = int(DataType.ACL_FLOAT), int(DataType.ACL_INT32), int(DataType.ACL_INT64)
ND = int(Format.ACL_FORMAT_ND)


def shape_determined(case):
    """A case whose output shapes follow from its input shapes."""
    return not case.data_dependent


def _runtime_inputs(case):
    """The inputs given at run time (not const), in order."""
    return [t for t in case.inputs if t.const is None]


def _leading(case):
    """The case's first runtime input (its first input when every input is const): a const input such as Fill's
    dims has a known rank whatever the runtime inputs have."""
    return next(iter(_runtime_inputs(case)), case.inputs[0])


def ranked(case):
    """A shape-determined case whose first runtime input has a known rank."""
    return shape_determined(case) and not _leading(case).unknown_rank


def unknown_rank(case):
    """A shape-determined case whose first runtime input is [-2]."""
    return shape_determined(case) and _leading(case).unknown_rank


def over(select):
    """Run the test over the dynamic cases for which select(case) holds (see pytest_generate_tests)."""
    def mark(test):
        test.dynamic_cases = select
        return test
    return mark


def _shapes_id(shapes):
    return "x".join(str(list(d)) for d in shapes)


def pytest_generate_tests(metafunc):
    """Parametrize `model` over the selected dynamic cases, with `shapes` over each one's runtime_shapes; a shape
    corner generated from a library case (docs/domains.md) runs only at its runtime shapes."""
    select = getattr(metafunc.function, "dynamic_cases", None)
    if select is None:
        return
    at_shapes = "shapes" in metafunc.fixturenames
    chosen = [c for c in dynamic_cases(metafunc.config) if select(c) and (at_shapes or not is_generated(c))]
    if at_shapes:
        pairs = [(c, shapes) for c in chosen for shapes in c.runtime_shapes]
        parametrize_or_deselect(metafunc, "model,shapes", pairs, [f"{c.id}-{_shapes_id(s)}" for c, s in pairs])
    else:
        parametrize_or_deselect(metafunc, "model", chosen, [c.id for c in chosen])


def _signature(case):
    """What execute_v2 matches a dynamic model on besides the shapes: op, attrs, format, and each runtime input's and
    output's dtype and storage format."""
    return (case.op, case.format, case.attrs, [(t.dtype, t.storage_format) for t in _runtime_inputs(case)],
            [(t.dtype, t.storage_format) for t in case.outputs])


def _covering_model(config, model, shapes):
    """Another dynamic case of the run whose model takes these runtime input shapes (every shape, when shapes is
    None and its runtime inputs are [-2]), or None: execute_v2 finds that model, so these shapes cannot show that a
    shape outside the case's own model is not found (CANN's files give one op a ranged and a [-2] model side by side)."""
    mine = _signature(model)
    for other in dynamic_cases(config):
        runtime = _runtime_inputs(other)
        if other is model or _signature(other) != mine:
            continue
        if shapes is None and all(t.unknown_rank for t in runtime):
            return other
        if shapes is not None and all(shape_fits(tuple(s), t.shape, t.shape_range) for t, s in zip(runtime, shapes)):
            return other
    return None


def _skip_if_every_shape_is_covered(config, model):
    """Skip a not-found test whose op has, beside this case, a [-2] model of the same signature: it takes them all."""
    other = _covering_model(config, model, None)
    if other is not None:
        pytest.skip(f"{other.id} has a [-2] model of the same op, attrs, dtypes and formats, which execute_v2 finds "
                    "for every shape: no shape can be not found")


def _drawn(data, model, within_memory_budget):
    """Runtime inputs drawn inside the case's ranges, small first; over the memory budget, the test is skipped with
    the reason before the arrays are made."""
    shapes = data.draw(strategies.model_shapes(model), label="shapes")
    within_memory_budget(model, shapes)
    return data.draw(strategies.model_arrays(model, shapes), label="inputs")


def _expected(model, runtime, within_memory_budget):
    """The reference's output shapes and arrays; over the memory budget at those output shapes, the test is skipped
    with the reason before the reference computes them."""
    inputs = executor.case_inputs(model, runtime)
    ref = reference(model.reference)
    attrs = model.reference_attr_values()
    shapes = [list(s) for s in ref.shape([a.shape for a in inputs], inputs, attrs)]
    within_memory_budget(model, [a.shape for a in runtime], shapes)
    arrays = ref.compute(inputs, attrs, [numpy_dtype(t.dtype) for t in model.outputs])
    return shapes, arrays


def _maximum(model, runtime_shapes, within_memory_budget, needed=True):
    """Every output's dims at its range maximum; the test is skipped with the reason when that is over the memory
    budget or, if the maximum is `needed` (the execution succeeds into those buffers), when an output has none (an
    unknown rank, an unbounded dim); where it is not needed, an unbounded dim takes its range minimum (at least 1)."""
    unbounded = [t.name for t in model.outputs if t.unknown_rank or any(hi == -1 for _, hi in t.dim_ranges())]
    if unbounded and needed:
        pytest.skip(f"{model.id}: output(s) {', '.join(unbounded)} have an unknown rank or an unbounded dim, so no "
                    "range maximum to size their buffers at")
    maximum = [[hi if hi != -1 else max(lo, 1) for lo, hi in t.dim_ranges()] for t in model.outputs]
    within_memory_budget(model, runtime_shapes, maximum)
    return maximum


def _differences(model, executed, expected_shapes, expected_arrays, inputs, into):
    """What differs from the reference; the comparisons made replace those in `into` (the `comparisons` fixture's
    list, reported as metrics): hypothesis runs a test body once per example, a failing one's shrunk example last."""
    problems, judged = [], []
    named = tuple((tensor.name, np.asarray(array)) for tensor, array in zip(model.inputs, inputs))
    for tensor, dims, size, count, actual, shape, want in zip(model.outputs, executed.dims, executed.sizes,
                                                              executed.counts, executed.arrays, expected_shapes,
                                                              expected_arrays):
        itemsize = numpy_dtype(tensor.dtype).itemsize
        stored = list(executor.stored_dims(model, tensor, tuple(shape)))
        elements = int(np.prod(stored, dtype=np.int64))
        if dims != stored:
            problems.append(f"output {tensor.name}: dims read back {dims}, the reference shape is {shape}"
                            + (f" (stored as {stored})" if stored != shape else ""))
            continue
        if count != elements or size != elements * itemsize:
            problems.append(f"output {tensor.name}: element count {count} and size {size}, expected {elements} "
                            f"and {elements * itemsize}")
            continue
        want = np.asarray(want).astype(actual.dtype)
        result = compared(model, tensor, inputs, actual, want)
        judged.append(Judged(tensor.name, 0, result, named, actual.shape, actual=actual, expected=want))
        if not result.passed:
            problems.append(f"output {tensor.name}: differs from the reference (max abs {result.max_abs:.4g}, "
                            f"worst {result.worst(3)})")
    into[:] = judged
    return problems


def _assert_execution_matches_the_reference(acl: Any, stream: int, model: Case, runtime: list[np.ndarray],
                                            into: list[Judged], within_memory_budget: Any) -> None:
    """execute_v2 at these runtime inputs returns 0 and writes the reference's shapes and values."""
    shapes, arrays = _expected(model, runtime, within_memory_budget)
    inputs = executor.case_inputs(model, runtime)
    executed = executor.execute_dynamic(acl, stream, model, inputs, shapes)
    assert executed.ret == 0, (f"execute_v2 at input shapes {[a.shape for a in runtime]} "
                               f"{_returned(acl, executed.ret, _undeclared_outputs(model, shapes))}")
    problems = _differences(model, executed, shapes, arrays, inputs, into)
    assert not problems, "\n".join(problems)


def _returned(acl, ret, why=""):
    """'returned <ret>', then why (aclcts' reason, if any) and the backend's latest error message
    (acl.get_recent_err_msg): a failure says why in its one line."""
    said = flow.recent_error(acl)
    return f"returned {ret}{why}" + (f"; the backend says: {said}" if said else "")


def _inferred_differs(tensor, found, shape):
    """One line for an infer_shape output whose dims or dtype are not the reference's dims and the case's dtype."""
    def name(dtype):
        return JSON_TYPE_NAMES.get(dtype, f"aclDataType {dtype}")
    return (f"output {tensor.name}: infer_shape gave dims {found.dims} and dtype {name(found.dtype)}, the reference "
            f"gives dims {shape} and the case declares dtype {name(tensor.dtype)}")


def _undeclared_outputs(model, shapes):
    """Why no model matches, when the reference's output shapes at these inputs lie outside the case's declared
    outputs (a case whose output_desc the op cannot give); else nothing."""
    outside = [f"{t.name} {list(s)} outside the declared {list(t.shape)}"
               + (f" with shape_range {[list(r) for r in t.shape_range]}" if t.shape_range else "")
               for t, s in zip(model.outputs, shapes) if not shape_fits(tuple(s), t.shape, t.shape_range)]
    return f" (the reference gives output {'; '.join(outside)}: no model of the case has it)" if outside else ""


@LOADED
@pytest.mark.execute
@over(shape_determined)
@given(data=st.data())
def test_execute_v2_at_shapes_inside_the_range_matches_the_reference(acl, stream, model, data, comparisons,
                                                                     within_memory_budget):
    runtime = _drawn(data, model, within_memory_budget)
    _assert_execution_matches_the_reference(acl, stream, model, runtime, comparisons, within_memory_budget)


@LOADED
@pytest.mark.execute
@over(unknown_rank)
def test_execute_v2_of_an_unknown_rank_model_accepts_every_rank(acl, stream, model, shapes, pytestconfig, comparisons,
                                                                within_memory_budget):
    within_memory_budget(model, shapes)
    runtime = draw_runtime(model, shapes, model.seed(pytestconfig.getoption("--aclcts-seed")))
    _assert_execution_matches_the_reference(acl, stream, model, runtime, comparisons, within_memory_budget)


@LOADED
@pytest.mark.execute
@over(ranked)
def test_execute_v2_at_the_runtime_shapes_of_the_case_file_matches_the_reference(acl, stream, model, shapes, pytestconfig,
                                                                                 comparisons, within_memory_budget):
    within_memory_budget(model, shapes)
    runtime = draw_runtime(model, shapes, model.seed(pytestconfig.getoption("--aclcts-seed")))
    _assert_execution_matches_the_reference(acl, stream, model, runtime, comparisons, within_memory_budget)


@LOADED
@pytest.mark.execute
@over(ranked)
@given(data=st.data())
def test_execute_v2_with_outputs_at_the_range_maximum_writes_the_real_shape_back(acl, stream, model, data, comparisons,
                                                                                within_memory_budget):
    runtime = _drawn(data, model, within_memory_budget)
    shapes, arrays = _expected(model, runtime, within_memory_budget)
    maximum = _maximum(model, [a.shape for a in runtime], within_memory_budget)
    inputs = executor.case_inputs(model, runtime)
    executed = executor.execute_dynamic(acl, stream, model, inputs, maximum)
    assert executed.ret == 0, (f"execute_v2 with output descs {maximum} "
                               f"{_returned(acl, executed.ret, _undeclared_outputs(model, shapes))}")
    problems = _differences(model, executed, shapes, arrays, inputs, comparisons)
    assert not problems, "\n".join(problems)


@LOADED
@pytest.mark.negative
@pytest.mark.execute
@over(ranked)
@given(data=st.data())
def test_execute_v2_at_an_input_shape_outside_the_range_is_op_not_found(acl, stream, model, data, within_memory_budget,
                                                                        pytestconfig):
    _skip_if_every_shape_is_covered(pytestconfig, model)
    runtime_tensors = _runtime_inputs(model)
    bounded = [i for i, t in enumerate(runtime_tensors)
               if not t.unknown_rank and any(hi != -1 for _, hi in t.dim_ranges())]
    if not bounded:
        pytest.skip(f"{model.id}: no runtime input has a bounded dim, so no shape outside the range")
    inside = _drawn(data, model, within_memory_budget)
    index = data.draw(st.sampled_from(bounded), label="input outside")
    tensor = runtime_tensors[index]
    shape = data.draw(strategies.outside(tensor.dim_ranges()), label="shape outside")
    stored = zip(executor.stored_dims(model, tensor, shape), tensor.stored_ranges(model.format))
    assume(any(d < lo or -1 < hi < d for d, (lo, hi) in stored))  # a private format may store it as a shape inside
    shapes = [shape if i == index else a.shape for i, a in enumerate(inside)]
    assume(_covering_model(pytestconfig, model, shapes) is None)
    maximum = _maximum(model, shapes, within_memory_budget, needed=False)
    inside[index] = np.zeros(shape, numpy_dtype(tensor.dtype))
    executed = executor.execute_dynamic(acl, stream, model, executor.case_inputs(model, inside), maximum)
    assert executed.ret == OP_NOT_FOUND


@LOADED
@pytest.mark.negative
@pytest.mark.execute
@over(ranked)
def test_execute_v2_at_an_input_rank_other_than_the_models_is_op_not_found(acl, stream, model, within_memory_budget,
                                                                           pytestconfig):
    runtime_tensors = _runtime_inputs(model)
    if not runtime_tensors:
        pytest.skip(f"{model.id}: every input is const, so no runtime input whose rank could differ")
    first, rest = runtime_tensors[0], runtime_tensors[1:]
    shapes = [(1,) * (len(first.shape) + 1)] + [strategies.smallest(t.dim_ranges()) for t in rest]
    other = _covering_model(pytestconfig, model, shapes)
    if other is not None:
        pytest.skip(f"{other.id}'s model takes the shapes {shapes} too, so execute_v2 finds it")
    maximum = _maximum(model, shapes, within_memory_budget, needed=False)
    runtime = [np.zeros(shape, numpy_dtype(t.dtype)) for shape, t in zip(shapes, runtime_tensors)]
    assert executor.execute_dynamic(acl, stream, model, executor.case_inputs(model, runtime), maximum).ret == OP_NOT_FOUND


@LOADED
@pytest.mark.negative
@pytest.mark.execute
@pytest.mark.parametrize("side", ["input", "output"])
@over(ranked)
def test_execute_v2_with_a_minus_one_left_in_a_desc_is_invalid_param(acl, stream, model, side, within_memory_budget,
                                                                      pytestconfig):
    smallest = list(model.runtime_shapes[0]) if model.runtime_shapes else \
        [strategies.smallest(t.dim_ranges(), nonempty=True) for t in _runtime_inputs(model)]
    within_memory_budget(model, smallest)
    runtime = draw_runtime(model, smallest, model.seed(pytestconfig.getoption("--aclcts-seed")))
    inputs = executor.case_inputs(model, runtime)
    shapes, _ = _expected(model, runtime, within_memory_budget)
    if all(0 in shape for shape in shapes):
        pytest.skip(f"{model.id}: every output is empty at the input shapes {smallest}, where execute_v2 "
                    "returns 0 before it looks at the descs (docs/contract/op-load-execute.md, execute_v2 rule 7)")
    in_dims = [list(a.shape) for a in inputs]
    out_dims = [list(s) for s in shapes]
    if side == "input":
        in_dims[0][0] = -1
    else:
        ranked_output = next((dims for dims in out_dims if dims), None)
        if ranked_output is None:
            assert not _undeclared_outputs(model, shapes), \
                f"no output dim to leave -1 in at input shapes {smallest}{_undeclared_outputs(model, shapes)}"
            pytest.skip(f"{model.id}: every output is rank 0 at the input shapes {smallest}: no dim to leave -1 in")
        ranked_output[0] = -1
    executed = executor.execute_dynamic(acl, stream, model, inputs, shapes, in_dims=in_dims, out_desc_dims=out_dims)
    assert executed.ret == INVALID_PARAM


@pytest.mark.infer_shape
@over(shape_determined)
@given(data=st.data())
def test_infer_shape_gives_exact_dims_when_the_input_shapes_determine_them(acl, model, data, within_memory_budget):
    runtime = _drawn(data, model, within_memory_budget)
    inputs = executor.case_inputs(model, runtime)
    shapes, _ = _expected(model, runtime, within_memory_budget)
    ret, inferred = executor.infer_case(acl, model, inputs)
    assert ret == 0, f"infer_shape at input shapes {[a.shape for a in runtime]} {_returned(acl, ret)}"
    for tensor, found, shape in zip(model.outputs, inferred, shapes):
        elements = int(np.prod(shape, dtype=np.int64))
        assert (found.dims, found.dtype) == (shape, tensor.dtype), _inferred_differs(tensor, found, shape)
        assert (found.count, found.size) == (elements, elements * numpy_dtype(tensor.dtype).itemsize)


@pytest.mark.infer_shape
@over(shape_determined)
def test_infer_shape_at_the_runtime_shapes_of_the_case_file_gives_the_reference_dims(acl, model, shapes, pytestconfig,
                                                                                     within_memory_budget):
    within_memory_budget(model, shapes)
    runtime = draw_runtime(model, shapes, model.seed(pytestconfig.getoption("--aclcts-seed")))
    inputs = executor.case_inputs(model, runtime)
    expected, _ = _expected(model, runtime, within_memory_budget)
    ret, inferred = executor.infer_case(acl, model, inputs)
    assert ret == 0, f"infer_shape at input shapes {[a.shape for a in runtime]} {_returned(acl, ret)}"
    for tensor, found, shape in zip(model.outputs, inferred, expected):
        assert (found.dims, found.dtype) == (shape, tensor.dtype), \
            f"{_inferred_differs(tensor, found, shape)} (input shapes {[a.shape for a in runtime]})"


@pytest.mark.infer_shape
@over(ranked)
@given(data=st.data())
def test_infer_shape_of_unknown_input_dims_gives_minus_one_and_a_range_containing_the_output(acl, model, data,
                                                                                             within_memory_budget):
    runtime = _drawn(data, model, within_memory_budget)
    inputs = executor.case_inputs(model, runtime)
    shapes, _ = _expected(model, runtime, within_memory_budget)
    dims = [list(t.shape) for t in model.inputs]
    ranges = [list(t.shape_range) or None for t in model.inputs]
    ret, inferred = executor.infer_case(acl, model, inputs, dims, ranges)
    assert ret == 0, f"infer_shape at input dims {dims} with ranges {ranges} {_returned(acl, ret)}"
    for tensor, found, shape in zip(model.outputs, inferred, shapes):
        assert found.dims is not None and len(found.dims) == len(shape), f"output {tensor.name}: dims {found.dims}"
        for j, (dim, true) in enumerate(zip(found.dims, shape)):
            if dim == -1:
                lo, hi = found.ranges[j]
                assert lo <= true and (hi == -1 or true <= hi), \
                    f"output {tensor.name} dim {j}: range [{lo}, {hi}] excludes {true} (inputs {[a.shape for a in runtime]})"
            else:
                assert dim == true, f"output {tensor.name} dim {j}: {dim}, the reference gives {true}"
        if -1 in found.dims:
            assert (found.count, found.size) == (0, 0), f"output {tensor.name} with dims {found.dims}"


@pytest.mark.descriptors
@over(ranked)
@given(data=st.data())
def test_element_count_and_size_are_zero_with_minus_one_dims_and_real_once_set(acl, model, data):
    tensor = next((t for t in model.inputs if -1 in t.shape), None)
    if tensor is None:
        pytest.skip(f"{model.id}: no input has a -1 dim (its dynamic tensors are outputs)")
    desc = acl.create_tensor_desc(tensor.dtype, list(tensor.shape), ND)
    try:
        assert acl.set_tensor_shape_range(desc, [list(r) for r in tensor.shape_range]) == 0
        before = (acl.get_tensor_desc_element_count(desc), acl.get_tensor_desc_size(desc))
        real = data.draw(strategies.shape_in(tensor.dim_ranges()), label="real shape")
        assert acl.set_tensor_origin_shape(desc, list(real)) == 0
        after = (acl.get_tensor_desc_element_count(desc), acl.get_tensor_desc_size(desc))
    finally:
        acl.destroy_tensor_desc(desc)
    elements = int(np.prod(real, dtype=np.int64))
    assert before == (0, 0)
    assert after == (elements, elements * numpy_dtype(tensor.dtype).itemsize)


ELEMENTWISE_OPS = ("Add", "Mul", "Sub", "Maximum")


@pytest.fixture(scope="module")
def library(pytestconfig):
    """The case library of the run's folder (for the dtypes of each op)."""
    return load_cases([str(pytestconfig.rootpath / "cases")])


@pytest.mark.infer_shape
@pytest.mark.parametrize("op", ELEMENTWISE_OPS)
@given(data=st.data())
def test_infer_shape_broadcasts_every_case_library_dtype_like_the_reference(acl, library, op, data):
    if not any(case.op == op for case in library):
        pytest.skip(f"the case library has no {op} case, so no dtype of {op} to infer")
    (x1, x2), (y,) = data.draw(strategies.dtypes_for(op, library), label="dtypes")
    a, b = data.draw(strategies.broadcastable_pair(), label="shapes")
    arrays = [np.zeros(a, numpy_dtype(x1)), np.zeros(b, numpy_dtype(x2))]
    ret, (found,) = executor.infer_shape(acl, op, [(x1, list(a), arrays[0], ""), (x2, list(b), arrays[1], "")],
                                        [(y, "")])
    assert ret == 0
    assert (found.dims, found.dtype) == (list(reference(op).shape([a, b], arrays, {})[0]), y)


@pytest.mark.infer_shape
@given(data=st.data())
def test_infer_shape_follows_drawn_reduction_axes_and_keep_dims(acl, data):
    shape = data.draw(strategies.shape_in([(1, 5)] * data.draw(st.integers(1, 4))), label="x shape")
    axes = np.array(data.draw(strategies.reduce_axes(len(shape)), label="axes"), np.int64)
    keep = data.draw(st.booleans(), label="keep_dims")
    x = np.zeros(shape, np.float32)
    ret, (found,) = executor.infer_shape(acl, "ReduceSum", [(F32, list(shape), x, ""),
                                                           (I64, [axes.size], axes, "")],
                                        [(F32, "")], (canonical_attr("keep_dims", "bool", keep),))
    assert ret == 0
    assert found.dims == list(reference("ReduceSum").shape([shape, axes.shape], [x, axes], {"keep_dims": keep})[0])


@pytest.mark.infer_shape
@pytest.mark.parametrize("op", ["Transpose", "Tile"])
@given(data=st.data())
def test_infer_shape_follows_a_drawn_perm_or_multiples(acl, op, data):
    shape = data.draw(strategies.shape_in([(1, 5)] * data.draw(st.integers(1, 4))), label="x shape")
    drawn = strategies.permutation(len(shape)) if op == "Transpose" else strategies.multiples(len(shape))
    second = np.array(data.draw(drawn, label="perm" if op == "Transpose" else "multiples"), np.int32)
    x = np.zeros(shape, np.int32)
    ret, (found,) = executor.infer_shape(acl, op, [(I32, list(shape), x, ""),
                                                  (I32, [second.size], second, "")], [(I32, "")])
    assert ret == 0
    assert found.dims == list(reference(op).shape([shape, second.shape], [x, second], {})[0])
