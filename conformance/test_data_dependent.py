"""Outputs whose shape depends on input values (NonZero, Unique, TopK with k at run time; the data_dependent cases of
cases/dynamic): the documented max-shape flow end to end — infer_shape, the range maximum, execute_v2, the real shape
read back (docs/contract/op-load-execute.md#dynamic-shape-flow)."""

from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given

from aclcts.drive import executor

from aclcts.cases import load_cases, strategies
from aclcts.cases.values import draw_runtime
from aclcts.judge.compare import compare
from aclcts.judge.policies import default_policy
from aclcts.core.dtypes import numpy_dtype
from aclcts.reference import reference

pytestmark = [pytest.mark.dynamic]
#: The session fixture that compiles and loads the dynamic cases' models (used by the tests that execute).
LOADED = pytest.mark.usefixtures("dynamic_models")

#: The dynamic cases shipped with the suite, by name.
SHIPPED = {c.id: c for c in load_cases([str(Path(__file__).resolve().parents[1] / "cases" / "dynamic")], kind="dynamic")}
NON_ZERO, UNIQUE, TOP_K = SHIPPED["dyn_non_zero_int32"], SHIPPED["dyn_unique_float32"], SHIPPED["dyn_top_k_float32"]


def _reference(model, inputs):
    ref = reference(model.reference)
    attrs = model.reference_attr_values()
    shapes = ref.shape([a.shape for a in inputs], inputs, attrs)
    arrays = ref.compute(inputs, attrs, [numpy_dtype(t.dtype) for t in model.outputs])
    return [list(s) for s in shapes], arrays


def _inferred(acl, model, inputs):
    ret, found = executor.infer_case(acl, model, inputs)
    assert ret == 0, f"infer_shape returned {ret}"
    return found


def check_inferred_ranges_contain_the_truth(acl, model, inputs):
    """infer_shape: exact dims where determined, else -1 whose range holds the reference dim; size 0 while dynamic."""
    shapes, _ = _reference(model, inputs)
    for tensor, found, shape in zip(model.outputs, _inferred(acl, model, inputs), shapes):
        assert found.dtype == tensor.dtype, f"output {tensor.name}: dtype {found.dtype}"
        assert found.dims is not None and len(found.dims) == len(shape), f"output {tensor.name}: dims {found.dims}"
        for j, (dim, true) in enumerate(zip(found.dims, shape)):
            if dim == -1:
                lo, hi = found.ranges[j]
                assert lo <= true and (hi == -1 or true <= hi), \
                    f"output {tensor.name} dim {j}: inferred range [{lo}, {hi}] excludes the real {true}"
            else:
                assert dim == true, f"output {tensor.name} dim {j}: inferred {dim}, the reference gives {true}"
        if -1 in found.dims:
            assert (found.count, found.size) == (0, 0), \
                f"output {tensor.name} dims {found.dims}: element count {found.count}, size {found.size}"


def check_max_shape_flow(acl, stream, model, inputs, maximum):
    """Execute with output descs of the maximal dims, then the real dims, size and values read back."""
    shapes, arrays = _reference(model, inputs)
    executed = executor.execute_dynamic(acl, stream, model, inputs, maximum)
    assert executed.ret == 0, f"execute_v2 with maximal output descs {maximum} returned {executed.ret}"
    for tensor, dims, size, actual, shape, want in zip(model.outputs, executed.dims, executed.sizes, executed.arrays,
                                                       shapes, arrays):
        assert dims == shape, f"output {tensor.name}: dims read back {dims}, the real shape is {shape}"
        assert size == int(np.prod(shape, dtype=np.int64)) * numpy_dtype(tensor.dtype).itemsize
        result = compare(actual, np.asarray(want).astype(actual.dtype), default_policy(actual.dtype, model.family))
        assert result.passed, f"output {tensor.name}: {result.worst(3)}"


def inferred_maximum(acl, model, inputs):
    """The documented maximal output dims: infer_shape, every -1 replaced by its range maximum."""
    found = _inferred(acl, model, inputs)
    return [executor.range_maximum(f, t.dim_ranges()) for f, t in zip(found, model.outputs)]


ALL_NONZERO = [np.arange(1, 65, dtype=np.int32).reshape(8, 8)]
ALL_DISTINCT = [np.arange(64, dtype=np.float32) - 31.5]


@pytest.mark.infer_shape
@given(inputs=strategies.model_arrays(NON_ZERO))
@example(inputs=ALL_NONZERO)
def test_non_zero_inferred_range_contains_the_real_count(acl, inputs):
    check_inferred_ranges_contain_the_truth(acl, NON_ZERO, inputs)


@LOADED
@pytest.mark.execute
@given(inputs=strategies.model_arrays(NON_ZERO))
@example(inputs=ALL_NONZERO)
def test_non_zero_max_shape_flow_reads_the_real_shape_back(acl, stream, inputs):
    check_max_shape_flow(acl, stream, NON_ZERO, inputs, inferred_maximum(acl, NON_ZERO, inputs))


@pytest.mark.infer_shape
@given(inputs=strategies.model_arrays(UNIQUE))
@example(inputs=ALL_DISTINCT)
def test_unique_inferred_range_contains_the_real_count(acl, inputs):
    check_inferred_ranges_contain_the_truth(acl, UNIQUE, inputs)


@LOADED
@pytest.mark.execute
@given(inputs=strategies.model_arrays(UNIQUE))
@example(inputs=ALL_DISTINCT)
def test_unique_max_shape_flow_reads_the_real_shape_back(acl, stream, inputs):
    check_max_shape_flow(acl, stream, UNIQUE, inputs, inferred_maximum(acl, UNIQUE, inputs))


@pytest.mark.infer_shape
@given(inputs=strategies.model_arrays(TOP_K))
def test_top_k_with_k_at_run_time_infers_k_along_the_dim(acl, inputs):
    check_inferred_ranges_contain_the_truth(acl, TOP_K, inputs)


@LOADED
@pytest.mark.execute
@given(inputs=strategies.model_arrays(TOP_K))
def test_top_k_with_k_at_run_time_and_outputs_at_the_size_of_x_reads_k_back(acl, stream, inputs):
    x = inputs[0]
    check_max_shape_flow(acl, stream, TOP_K, inputs, [list(x.shape), list(x.shape)])


RUNTIME = [(c, shapes) for c in SHIPPED.values() if c.data_dependent for shapes in c.runtime_shapes]


@LOADED
@pytest.mark.execute
@pytest.mark.parametrize("model,shapes", RUNTIME,
                         ids=[f"{c.id}-{'x'.join(str(list(s)) for s in shapes)}" for c, shapes in RUNTIME])
def test_infer_shape_then_execute_v2_at_the_runtime_shapes_of_the_case_file_reads_the_real_shape_back(
        acl, stream, model, shapes, pytestconfig):
    inputs = executor.case_inputs(model, draw_runtime(model, shapes, model.seed(pytestconfig.getoption("--aclcts-seed"))))
    expected_shapes, arrays = _reference(model, inputs)
    executed = executor.infer_then_execute(acl, stream, model, inputs)
    assert executed.ret == 0, f"execute_v2 at the inferred maximal output dims returned {executed.ret}"
    for tensor, dims, actual, shape, want in zip(model.outputs, executed.dims, executed.arrays, expected_shapes, arrays):
        assert dims == shape, f"output {tensor.name}: dims read back {dims}, the real shape is {shape}"
        result = compare(actual, np.asarray(want).astype(actual.dtype), default_policy(actual.dtype, model.family))
        assert result.passed, f"output {tensor.name}: {result.worst(3)}"
