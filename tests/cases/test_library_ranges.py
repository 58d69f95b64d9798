"""The value ranges of the shipped case library and of the built-in records' default cases keep their references
finite: checked here once, not as each process loads the library (aclcts.cases.load.ranges_checked_at_load)."""

from __future__ import annotations

import pytest

from aclcts.cases import CaseFileError, case_files, expand_file, load_cases
from aclcts.cases.defaults import SHIPPED_CASES, case_data, source_of, uncovered
from aclcts.cases.load import expand_data, ranges_checked_at_load
from aclcts.cases.msopst import is_msopst_file
from aclcts.core.prototypes import prototype

#: A range whose ends overflow Exp's float16 reference (e^12 > 65504).
OVERFLOWING = ("op: Exp\npolicy: elementwise\nsource: s\ninputs: [x]\noutputs: [y]\ndtypes: [float16]\nshapes: [[[4]]]\n"
               "values:\n  x: {uniform: [-5, 12]}\n")


def test_every_shipped_case_file_keeps_its_reference_finite_over_its_ranges():
    for path in case_files([str(SHIPPED_CASES)]):
        if not is_msopst_file(path):
            expand_file(path, check_values=True)


def test_the_default_cases_of_every_record_no_file_covers_keep_their_reference_finite_over_their_ranges():
    for op_type in uncovered(load_cases([str(SHIPPED_CASES)], kind="all")):
        record = prototype(op_type)
        expand_data(case_data(record), source_of(record), {}, check_values=True)


def test_a_users_file_is_checked_as_it_loads_and_the_shipped_library_is_not(tmp_path):
    path = tmp_path / "exp.yaml"
    path.write_text(OVERFLOWING, encoding="utf-8")
    with pytest.raises(CaseFileError, match="stay finite"):
        expand_file(str(path))
    assert ranges_checked_at_load(str(path))
    assert not ranges_checked_at_load(str(SHIPPED_CASES / "elementwise" / "exp.yaml"))
    assert not ranges_checked_at_load(source_of(prototype("Exp")))
    with pytest.raises(CaseFileError, match="stay finite"):
        expand_file(str(path), check_values=True)
    assert expand_file(str(path), check_values=False)
