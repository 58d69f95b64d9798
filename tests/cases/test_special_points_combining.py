"""Special points of the ops that combine many inputs (issue 40): the documented table of docs/special-points.md holds
in the reference, and the generated cases place the points so that only the outputs reading them turn non-finite."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from aclcts.cases import domains
from aclcts.cases.defaults import SHIPPED_CASES, default_cases, uncovered
from aclcts.cases.load import load_cases
from aclcts.cases.values import draw_inputs
from aclcts.core.prototypes import prototype
from aclcts.pytest_plugin.plugin import DEFAULT_SEED
from aclcts.reference import reference

TABLE = Path(__file__).resolve().parents[2] / "docs" / "special-points.md"


def _literal(text: str):
    """A table value: a nested list of numbers (inf, -inf, nan), a number or a bare word."""
    spelled = re.sub(r"-inf\b", "-Infinity", re.sub(r"(?<![-\w])inf\b", "Infinity", text.replace("nan", "NaN")))
    try:
        return json.loads(spelled)
    except json.JSONDecodeError:
        return text


def _named(cell: str) -> dict[str, object]:
    """`a = 1; b = [2]` as {a: 1, b: [2]}; an empty cell as {}."""
    return {name.strip(): _literal(value.strip()) for name, _, value in
            (part.partition("=") for part in cell.split(";") if part.strip())}


def rows() -> list[tuple[str, dict, dict, dict, str]]:
    """(op, inputs, attributes, results, documentation) of every row of the table of ops combining many inputs."""
    found = []
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and re.fullmatch(r"[A-Z][A-Za-z0-9]*", cells[0]) and cells[0] != "op":
            found.append((cells[0], _named(cells[1]), _named(cells[2]), _named(cells[3]), cells[4]))
    return found


def test_the_table_covers_every_combining_family_and_axpy():
    families = {prototype(op).family for op, *_ in rows()}
    assert set(domains.SCATTERED_FAMILIES) <= families
    assert "Axpy" in {op for op, *_ in rows()}
    assert all(doc.startswith("IEEE 754-2019") for *_, doc in rows())


@pytest.mark.parametrize(("op", "inputs", "attrs", "results", "doc"), rows(), ids=lambda v: str(v)[:40])
def test_reference_gives_the_documented_result(op, inputs, attrs, results, doc):
    record = prototype(op)
    arrays = [np.asarray(inputs[name], dtype=np.float32) for name in record.input_names() if name in inputs]
    out_dtypes = [np.dtype(np.float32)] * len(record.outputs)
    got = dict(zip(record.output_names(), reference(op).compute(arrays, attrs, out_dtypes)))
    for name, expected in results.items():
        actual = np.asarray(got[name], dtype=np.float64).ravel()
        want = np.asarray(expected, dtype=np.float64).ravel()
        assert actual.shape == want.shape, (name, doc)
        assert np.array_equal(np.isnan(actual), np.isnan(want)), (name, actual, doc)
        finite = ~np.isnan(want)
        np.testing.assert_allclose(actual[finite], want[finite], rtol=1e-6, atol=1e-6, err_msg=doc)


@pytest.fixture(scope="module")
def generated():
    library = load_cases([str(SHIPPED_CASES)], kind="all")
    library += [case for op in uncovered(library) for case in default_cases(op)]
    return {c.id: c for c in domains.generated(library, DEFAULT_SEED)}


def _expected(case):
    """The inputs and the reference outputs of a case at the default seed."""
    arrays = draw_inputs(case, case.seed(DEFAULT_SEED))
    outs = reference(case.reference).compute(arrays, case.attr_values(), [t.np_dtype for t in case.outputs])
    return arrays, [np.asarray(o, dtype=np.float64) for o in outs]


def test_every_combining_op_runs_each_layout_per_floating_dtype(generated):
    for op in ("MatMul", "BatchMatMulV2", "GEMM", "Conv2D", "MaxPool", "AvgPool", "LayerNorm", "RmsNorm"):
        for layout in ("one_inf", "one_minf", "one_nan", "pair_inf_minf", "full_inf", "full_minf", "full_nan"):
            assert f"{op}-special-float16-{layout}" in generated, (op, layout)


def test_one_infinity_poisons_only_its_row_and_meets_a_zero(generated):
    """MatMul: the x1 row holding the infinity is the only non-finite output row; a zero of x2 in the column the
    infinity multiplies gives NaN, a non-zero one an infinity."""
    for dtype in ("float16", "float32", "bfloat16"):
        (x1, x2), (y,) = _expected(generated[f"MatMul-special-{dtype}-one_inf"])
        (row,), (col,) = np.nonzero(np.isinf(x1.astype(np.float64)))
        assert np.isfinite(np.delete(y, row, axis=0)).all()
        zero = x2[col].astype(np.float64) == 0
        assert np.isnan(y[row][zero]).all() and np.isinf(y[row][~zero]).all()
    assert any((_expected(generated[f"MatMul-special-{d}-one_inf"])[0][1] == 0).any()
               for d in ("float16", "float32"))


def test_opposite_infinities_side_by_side_give_nan_and_the_point_everywhere_fills_every_window(generated):
    (x1, x2), (y,) = _expected(generated["MatMul-special-float32-pair_inf_minf"])
    row = np.nonzero(np.isinf(x1))[0][0]
    same_sign = np.sign(x2[np.isinf(x1[row])]).prod(axis=0) > 0
    assert np.isnan(y[row][same_sign]).all()
    _, (pooled,) = _expected(generated["MaxPool-special-float16-full_minf"])
    assert (pooled == -math.inf).all()
    _, (averaged,) = _expected(generated["AvgPool-special-float32-full_inf"])
    assert (averaged == math.inf).all()


def test_a_nan_in_one_norm_group_leaves_the_other_groups_finite(generated):
    (x, *_), (y, mean, _) = _expected(generated["LayerNorm-special-float32-one_nan"])
    rows_with_nan = np.isnan(x.reshape(x.shape[0], -1)).any(axis=1)
    assert np.isnan(y[rows_with_nan]).all() and np.isfinite(y[~rows_with_nan]).all()
    assert np.isnan(mean.ravel()[rows_with_nan]).all()


def test_axpy_runs_at_the_special_values_of_alpha(generated):
    (x1, x2), (y,) = _expected(generated["Axpy-special-float32-alpha_0.0"])
    assert generated["Axpy-special-float32-alpha_0.0"].attr_values()["alpha"] == 0
    infinite = np.isinf(x2) & ~np.isnan(x1)
    assert infinite.any() and np.isnan(y[infinite]).all()
    assert all(not (np.abs(v) == np.finfo(np.float32).max).any() for v in (x1, x2))


def test_an_open_point_is_never_placed(generated):
    record = prototype("SoftmaxCrossEntropyWithLogits")
    assert math.inf in record.open_points
    mine = [c for c in generated.values() if c.op == record.op_type and "-special-" in c.id]
    assert mine
    for case in mine:
        features = draw_inputs(case, case.seed(DEFAULT_SEED))[0]
        assert not (features == math.inf).any(), case.id
