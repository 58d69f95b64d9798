"""Cases generated from the op records' domains (issue 40): value classes, all-pairs rows, coverage of the library."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from aclcts.cases import domains
from aclcts.cases.defaults import SHIPPED_CASES, default_cases, uncovered
from aclcts.cases.load import load_cases
from aclcts.core.prototypes import op_types, prototype
from aclcts.core.prototypes.spec import Attr, Axes, OneOf
from aclcts.pytest_plugin.plugin import DEFAULT_SEED


@pytest.fixture(scope="module")
def library():
    """The shipped case library with its default cases, as the suite loads it."""
    cases = load_cases([str(SHIPPED_CASES)], kind="all")
    return cases + [case for op in uncovered(cases) for case in default_cases(op)]


@pytest.fixture(scope="module")
def generated(library):
    return domains.generated(library, DEFAULT_SEED)


def test_axes_cover_both_signs_and_every_list_length():
    assert Axes("x").values(2) == (-2, -1, 0, 1)
    assert Axes("x", extra=1).values(1) == (-2, -1, 0, 1)
    lists = Axes("x", many=True).values(3)
    assert {len(v) for v in lists} == {1, 2, 3}
    assert all(any(a < 0 for a in v) for v in lists if len(v) > 1)
    assert {len(v) for v in Axes("x", many=True, longest=1).values(3)} == {1}


def test_value_classes_of_bools_enums_and_plain_attributes():
    assert Attr("b", "bool", False).value_classes(2) == (False, True)
    assert Attr("mode", "str", "a", domain=OneOf(("a", "b"))).value_classes(2) == ("a", "b")
    assert Attr("epsilon", "float", 1e-5).value_classes(2) == ()


@pytest.mark.parametrize("sizes", [(2, 2), (6, 2, 2), (3, 3, 2, 2), (1, 4)])
def test_all_pairs_covers_every_pair_with_fewer_rows_than_the_product(sizes):
    factors = [[f"{k}{v}" for v in range(n)] for k, n in enumerate(sizes)]
    rows = domains.all_pairs(factors)
    for i, j in itertools.combinations(range(len(factors)), 2):
        assert {(r[i], r[j]) for r in rows} == set(itertools.product(factors[i], factors[j]))
    assert len(rows) <= math.prod(sizes)
    if len(sizes) > 2:
        assert len(rows) < math.prod(sizes)


def test_generated_ids_are_unique_and_marked(generated):
    ids = [c.id for c in generated]
    assert len(ids) == len(set(ids))
    assert all(domains.is_generated(c) and c.modes == (domains.MODE,) for c in generated)


def test_every_axis_value_of_every_rank_is_generated(library, generated):
    """Every op with an axis-like attribute: every axis in [-rank, rank) (lists: every length) at each rank of its
    library cases."""
    usable = [c for c in library if domains._usable(c)]
    checked = 0
    for op in sorted({c.op for c in usable}):
        record = prototype(op)
        ranks = {domains._rank_of(c, record) for c in usable if c.op == op}
        for attr in (a for a in record.attrs if isinstance(a.domain, Axes)):
            for rank in ranks:
                got = {domains._tag(c.attr_values().get(attr.name)) for c in generated
                       if c.op == op and f"-r{rank}-" in c.id}
                assert {domains._tag(v) for v in attr.value_classes(rank)} <= got, (op, attr.name, rank)
                checked += 1
    assert checked >= 40


def test_every_enum_and_bool_value_is_generated(generated):
    for op in op_types():
        record = prototype(op)
        mine = [c for c in generated if c.op == op and "-domain-" in c.id]
        if not mine:
            continue
        for attr in (a for a in record.attrs if a.value_classes(1) and not isinstance(a.domain, Axes)):
            got = {c.attr_values().get(attr.name) for c in mine}
            assert set(attr.value_classes(1)) <= got, (op, attr.name)


def test_special_cases_hold_every_point_once_per_floating_dtype(library, generated):
    special = {c.id: c for c in generated if "-special-" in c.id}
    for op, dtype in [("Log", "float16"), ("Log", "float32"), ("Reciprocal", "bfloat16"), ("Atan2", "float32")]:
        case = special[f"{op}-special-{dtype}"]
        points = domains.special_points(prototype(op), case.inputs[0].np_dtype)
        columns = [np.asarray(case.values[t.name]["fixed"], dtype=np.float64).tolist() for t in case.inputs]
        pairs = set(zip(*(map(repr, col) for col in columns)))
        assert len(pairs) == len(points) ** len(case.inputs)
        assert {repr(-0.0), repr(math.inf), repr(-math.inf), repr(math.nan)} <= {repr(v) for v in columns[0]}


def _every_point_open(op: str) -> bool:
    """Whether the op's record leaves its result open at every non-finite point (no special case can be placed)."""
    return all(domains._is_open(prototype(op), p) for p in domains.NONFINITE)


def test_special_cases_exist_for_every_floating_op_of_the_special_families(library, generated):
    ops = {c.op for c in library if domains._usable(c) and c.inputs[0].np_dtype.kind == "f"
           and prototype(c.op) is not None and not _every_point_open(c.op)
           and prototype(c.op).family in domains.SPECIAL_FAMILIES + domains.SCATTERED_FAMILIES and c.op != "Fill"}
    covered = {c.op for c in generated if "-special-" in c.id}
    assert ops <= covered, sorted(ops - covered)


def test_broadcast_corners_meet_zero_size_and_rank_0(generated):
    add = {tuple(t.shape for t in c.inputs): c for c in generated if c.op == "Add" and "-broadcast-" in c.id}
    assert add[((0, 3), (1, 3))].outputs[0].shape == (0, 3)
    assert add[((3, 1), (1, 0))].outputs[0].shape == (3, 0)
    assert add[((), (2, 3))].outputs[0].shape == (2, 3)


def test_a_combination_the_reference_refuses_is_left_out(library):
    roll = [c for c in library if c.op == "Roll" and domains._usable(c)]
    record = prototype("Roll")
    two_dims = domains._variant(roll[0], record, DEFAULT_SEED, "Roll-domain-two-dims", {"dims": (0, 1)})
    assert len(roll[0].attr_values()["shifts"]) == 1 and two_dims is None
