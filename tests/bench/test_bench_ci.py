"""`aclcts bench ci`: the slowest tests from JUnit XML, .ci/run's part lines, and op types cloned for a scale
experiment."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

from aclcts.tools.bench_ci import _PART, junit_cases, slowest_tests
from aclcts.tools.op_clones import CASES_FOLDER, add_clones, sources

ROOT = Path(__file__).resolve().parents[2]

JUNIT = """<testsuites><testsuite name="pytest">
<testcase classname="tests.a" name="test_fast" time="0.5"/>
<testcase classname="tests.b" name="test_slow" time="12.25"/>
<testcase classname="tests.c" name="test_middle" time="3"><failure message="boom"/></testcase>
</testsuite></testsuites>"""


def test_the_slowest_tests_come_first_from_every_junit_file(tmp_path):
    (tmp_path / "developer.xml").write_text(JUNIT)
    (tmp_path / "user.xml").write_text(JUNIT.replace("12.25", "20").replace("test_slow", "test_slower"))
    assert slowest_tests(tmp_path, 3) == [("user: tests.b::test_slower", 20.0),
                                          ("developer: tests.b::test_slow", 12.25),
                                          ("developer: tests.c::test_middle", 3.0)]
    assert [name for name, _, failed in junit_cases(tmp_path) if failed] == ["developer: tests.c::test_middle",
                                                                            "user: tests.c::test_middle"]


def test_ci_run_ends_each_part_with_a_line_the_benchmark_reads():
    script = (ROOT / ".ci" / "run").read_text()
    parts = re.findall(r'^took "([^"]+)"$', script, flags=re.MULTILINE)
    assert parts == ["developer install", "developer tests", "user install", "user conformance"]
    assert all(_PART.match(f"-- {name}: 12 s") for name in parts)


def test_cloned_op_types_form_a_family_with_records_references_kernels_and_cases(tmp_path):
    shutil.copytree(ROOT / "aclcts", tmp_path / "aclcts", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "cases").mkdir()
    for name in ("elementwise/abs.yaml", "elementwise/add.yaml"):
        (tmp_path / "cases" / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / "cases" / name, tmp_path / "cases" / name)
    assert [op for op, _ in sources(tmp_path)] == ["Abs", "Add"]
    names = add_clones(tmp_path, 3)
    assert names == ["AbsClone000", "AddClone001", "AbsClone002"]
    assert sorted(path.name for path in (tmp_path / CASES_FOLDER).iterdir()) == [f"{n}.yaml" for n in sorted(names)]
    check = ("from aclcts.core.prototypes import prototype; from aclcts.reference import reference; "
             "from aclcts.sim.kernels import get_kernel; from aclcts.cases import load_cases; "
             f"names = {names!r}; "
             "assert all(prototype(n).op_type == n and reference(n).op_type == n and get_kernel(n) for n in names); "
             "ops = {c.op for c in load_cases(['cases/clones'])}; assert ops == set(names), ops; print('ok')")
    done = subprocess.run([sys.executable, "-c", check], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "ok", done.stderr[-2000:]
