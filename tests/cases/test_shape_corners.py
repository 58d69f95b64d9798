"""Shape corners generated from the library's dynamic cases (issue 40): -1 dims at their range bounds and unknown rank."""

from __future__ import annotations

import pytest

from aclcts.cases import domains
from aclcts.cases.defaults import SHIPPED_CASES, with_defaults
from aclcts.cases.load import load_cases
from aclcts.core.prototypes import prototype
from aclcts.pytest_plugin.plugin import DEFAULT_SEED


@pytest.fixture(scope="module")
def dynamic():
    return [c for c in with_defaults(load_cases([str(SHIPPED_CASES)], kind="all"), None) if c.dynamic]


@pytest.fixture(scope="module")
def corners(dynamic):
    return {c.id: c for c in domains.shape_corner_cases(dynamic, DEFAULT_SEED)}


def test_every_shape_determined_dynamic_case_gets_bounds_and_an_unknown_rank_twin(dynamic, corners):
    bases = [c for c in dynamic if not c.data_dependent and not c.inputs[0].unknown_rank]
    assert len(bases) >= 10
    twins = 0
    for base in bases:
        bounds = corners[f"{base.op}-domain-bounds-{base.id}"]
        assert (bounds.inputs, bounds.outputs) == (base.inputs, base.outputs) and domains.is_generated(bounds)
        unknown = [c for key, c in corners.items() if key.startswith(f"{base.op}-domain-unknown-rank-")
                   and key.endswith(f"-{base.id}")]
        for twin in unknown:
            assert all(t.unknown_rank for t in twin.inputs + twin.outputs if t.const is None)
            assert set(base.runtime_shapes) <= set(twin.runtime_shapes), base.id
            assert domains.is_generated(twin)
        twins += len(unknown)
    # an op whose dynamic cases already take every dtype its record allows x (AscendQuant's float16 and float32) has
    # no dtype left for an unknown-rank twin, which would otherwise take the ranked models' out-of-range shapes
    with_a_free_dtype = [b for b in bases if _free_dtypes(b, dynamic)]
    assert twins >= len(with_a_free_dtype) - 1


def _free_dtypes(base, dynamic) -> set[str]:
    """The dtypes the record allows the base's first input that no dynamic case of its op takes."""
    record = prototype(base.op)
    name = base.inputs[0].name
    allowed = record.dtypes_of(name if name in record.input_names() else name.rstrip("0123456789"))
    return set(allowed) - {c.inputs[0].dtype_name for c in dynamic if c.op == base.op}


def test_an_unknown_rank_twin_takes_a_dtype_no_ranked_model_of_its_op_has(dynamic, corners):
    """An unknown-rank model would also take the shapes outside a ranked model's range (ACL picks any matching
    model), so each twin's dtype is one no dynamic library case of its op uses."""
    for twin in (c for c in corners.values() if "-unknown-rank-" in c.id):
        used = {c.inputs[0].dtype for c in dynamic if c.op == twin.op}
        assert twin.inputs[0].dtype not in used, twin.id


def test_bounds_put_every_minus_one_dim_at_its_range_minimum_and_maximum(dynamic, corners):
    add = next(c for c in dynamic if c.id == "dyn_add_float32")
    (low, high), = {tuple(pair) for t in add.inputs for pair in t.dim_ranges()}
    shapes = set(corners["Add-domain-bounds-dyn_add_float32"].runtime_shapes)
    assert shapes == {((a,) * 2, (b,) * 2) for a in (low, high) for b in (low, high)}


def test_a_bound_combination_the_reference_refuses_is_left_out(corners):
    matmul = corners["MatMul-domain-bounds-dyn_mat_mul_float32"].runtime_shapes
    assert ((1, 1), (16, 16)) not in matmul and ((16, 16), (16, 16)) in matmul and ((1, 1), (1, 1)) in matmul


def test_data_dependent_cases_get_no_corners(dynamic, corners):
    for case in dynamic:
        if case.data_dependent:
            assert not any(case.id in key for key in corners), case.id
