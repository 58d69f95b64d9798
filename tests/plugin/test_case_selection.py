"""--ops and --smoke: the case library narrowed before collection, and a smoke selection whose size does not grow with
the library."""

import dataclasses
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from aclcts.cases import CaseFileError, load_cases
from aclcts.cases.defaults import with_defaults
from aclcts.cases.selection import elements, of_ops, smoke, smoke_key
from aclcts.pytest_plugin.library import SUITE_MODEL_CASES

ROOT = Path(__file__).resolve().parents[2]
SUITE_MODEL_IDS = [case_id for _, case_id in SUITE_MODEL_CASES]


@pytest.fixture(scope="module")
def library():
    """The shipped library as a run without --cases holds it: the case files' cases and the records' default ones."""
    return with_defaults(load_cases([str(ROOT / "cases")], kind="all"))


def collected(*args: str) -> subprocess.CompletedProcess:
    """`pytest --collect-only -q` in a child process from the repository root."""
    return subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                           "-p", "no:xdist", *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_smoke_keeps_the_smallest_non_empty_case_of_every_key_and_the_kept_ids(library):
    chosen = smoke(library, keep=SUITE_MODEL_IDS)
    keys = {smoke_key(case) for case in library if elements(case) > 0}
    representatives = [case for case in chosen if case.id not in SUITE_MODEL_IDS]
    assert {smoke_key(case) for case in representatives} <= keys
    for case in chosen:
        rivals = [c for c in library if smoke_key(c) == smoke_key(case) and elements(c) > 0]
        if case.id not in SUITE_MODEL_IDS:
            assert (elements(case), case.id) == min((elements(c), c.id) for c in rivals)
    assert {smoke_key(case) for case in chosen} == keys
    assert set(SUITE_MODEL_IDS) <= {case.id for case in chosen}
    assert all(elements(case) > 0 for case in chosen if case.id not in SUITE_MODEL_IDS)


def test_the_smoke_selection_does_not_grow_when_the_library_gains_op_types(library):
    clones = [dataclasses.replace(case, op=f"{case.op}Clone", id=f"clone-{case.id}") for case in library]
    assert len(smoke(library + clones, keep=SUITE_MODEL_IDS)) == len(smoke(library, keep=SUITE_MODEL_IDS))


def test_of_ops_keeps_exactly_the_named_op_types(library):
    narrowed = of_ops(library, ["FloorMod", "Add"])
    assert narrowed and {case.op for case in narrowed} == {"FloorMod", "Add"}
    assert len(narrowed) == sum(case.op in ("FloorMod", "Add") for case in library)


def test_ops_collects_only_the_named_ops_cases():
    done = collected("conformance/test_execute.py", "--ops=FloorMod", "-k", "matches_reference")
    ids = [line for line in done.stdout.splitlines() if "::" in line]
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert ids and all("[FloorMod-" in test_id for test_id in ids)


def test_an_ops_name_no_case_has_is_one_usage_line():
    done = collected("conformance/test_execute.py", "--ops=FloorMod,NoSuchOp")
    assert done.returncode == 4
    assert "--ops=FloorMod,NoSuchOp: no case of op type NoSuchOp" in done.stderr and "Traceback" not in done.stderr


def test_smoke_collects_one_op_case_per_key_for_each_test_and_every_step_test(library):
    full = collected("conformance/test_memory.py", "--ops=Add")  # its step tests do not depend on the library
    quick = collected("conformance/test_execute.py", "conformance/test_memory.py", "--smoke")
    assert full.returncode == quick.returncode == 0, quick.stderr[-2000:]

    def ids(done: subprocess.CompletedProcess) -> set[str]:
        return {line for line in done.stdout.splitlines() if "::" in line}

    steps = ids(full)
    assert steps and steps <= ids(quick)
    executed = {test_id for test_id in ids(quick) if "test_execute_v2_matches_reference[" in test_id}
    expected = {f"conformance/test_execute.py::test_execute_v2_matches_reference[{case.id}]"
                for case in smoke([c for c in library if not c.dynamic], keep=SUITE_MODEL_IDS)}
    assert executed == expected


def test_load_cases_with_ops_reads_only_the_files_that_name_those_ops(tmp_path):
    shutil.copy2(ROOT / "cases" / "elementwise" / "add.yaml", tmp_path / "add.yaml")
    (tmp_path / "broken.yaml").write_text("op: Abs\nthis is: [not valid\n")
    assert {case.op for case in load_cases([str(tmp_path)], kind="all", ops={"Add"})} == {"Add"}
    with pytest.raises(CaseFileError, match="broken.yaml"):
        load_cases([str(tmp_path)], kind="all")


def test_domain_cases_join_the_shipped_library_unless_turned_off_or_smoke():
    """--domains=on (the default) adds the generated -domain-/-special- cases; off and --smoke leave them out."""
    def generated_ids(*args: str) -> list[str]:
        done = collected("conformance/test_execute.py", "--ops=Reciprocal,Roll", "-k", "matches_reference", *args)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        return [line for line in done.stdout.splitlines() if "-domain-" in line or "-special-" in line]

    on = generated_ids()
    assert any("[Reciprocal-special-float16]" in i for i in on) and any("[Roll-domain-" in i for i in on)
    assert generated_ids("--domains=off") == []
    assert generated_ids("--smoke") == []
