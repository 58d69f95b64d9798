"""What a failing run prints: the judge's message without wrapper frames, the per-op summary, bounded leak reports."""

import shlex
import textwrap
from types import SimpleNamespace

import pytest

from aclcts.core.listing import SHOWN_IN_FULL
from aclcts.drive.resources import TrackingAcl
from aclcts.pytest_plugin.failures import FIRST, NO_OP, REPRODUCE, summary_lines

FAILING = textwrap.dedent("""
    import pytest
    from aclcts.drive import executor
    from aclcts.judge.decorator import compares_with_reference

    @pytest.mark.execute
    @pytest.mark.cases(mode="execute_v2")
    @compares_with_reference
    def test_case(acl, stream, op_case, case_inputs):
        outputs = executor.run(acl, stream, op_case, case_inputs, "execute_v2")
        if op_case.inputs[0].dtype_name == "int32":
            outputs[0].arrays[0].flat[0] += 1  # a precision failure
        if op_case.id.endswith("1_1"):
            raise RuntimeError("some other failure")
        return outputs

    def test_leaky(acl):
        for _ in range(LEAKED):
            acl.create_tensor_desc(0, [2], 2)
""")
#: A stand-in for the categories module: the category of a failing report from its exception type.
CATEGORIES = textwrap.dedent("""
    import pytest
    from aclcts.drive.resources import LeakedObjects
    from aclcts.judge.decorator import PrecisionMismatch

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(item, call):
        report = (yield).get_result()
        if report.failed and call.excinfo is not None:
            for kind, name in ((PrecisionMismatch, "precision"), (LeakedObjects, "leak")):
                if call.excinfo.errisinstance(kind):
                    report.aclcts_category = name
""")
LEAKED = 3 * SHOWN_IN_FULL


def run(project, *args):
    project.makepyfile(test_failing=FAILING.replace("LEAKED", str(LEAKED)))
    project.makeconftest(CATEGORIES)
    return project.runpytest_subprocess("-p", "no:cacheprovider", *args)


def section_lines(stdout, first_line_prefix):
    """aclcts' summary lines: from the first one that starts with the given op name to the next blank or '=' line."""
    lines = stdout.lines
    start = next(i for i, line in enumerate(lines) if line.startswith(first_line_prefix))
    end = next((i for i in range(start, len(lines)) if not lines[i].strip() or lines[i].startswith("=")), len(lines))
    return lines[start:end]


@pytest.mark.parametrize("workers", [["-p", "no:xdist"], ["-n", "2"]], ids=["serial", "xdist"])
def test_failures_are_summed_up_per_op_with_categories_the_first_test_and_its_reproduce_line(project, workers):
    result = run(project, *workers)
    result.assert_outcomes(failed=7, passed=10, errors=1)
    lines = section_lines(result.stdout, "Add ")
    assert lines[0].split() == ["Add", "7", "failed:", "precision", "3,", "other", "4"]
    first = lines[1].strip()
    assert first.startswith(FIRST) and first.split()[1].startswith("test_failing.py::test_case[Add-")
    reproduce = lines[2].strip()
    assert reproduce.startswith(REPRODUCE)
    words = shlex.split(reproduce[len(REPRODUCE):])
    assert words[:2] == ["pytest", first.split()[1]] and "--backend=sim" in words
    leaks = section_lines(result.stdout, NO_OP)
    assert leaks[0].split()[-3:] == ["failed:", "leak", "1"]
    assert leaks[1].strip() == f"{FIRST} test_failing.py::test_leaky"


def test_a_precision_failure_prints_the_judges_message_first_without_the_wrappers_frame(project):
    result = run(project, "-p", "no:xdist", "-k", "int32-8x16")
    result.assert_outcomes(failed=1)
    text = result.stdout.str()
    message = next(i for i, line in enumerate(result.stdout.lines) if "differs from the reference" in line)
    assert "PrecisionMismatch" in result.stdout.lines[message]
    before = result.stdout.lines[:message]
    assert not any(line.startswith(("args = ", "kwargs = ", "sink = ", "input_sets = ")) for line in before), text
    assert "decorator.py" not in text and "def test(*args" not in text


def test_a_leak_of_many_objects_counts_them_by_place_and_shows_the_first_few_in_full(project):
    result = run(project, "-p", "no:xdist", "-k", "leaky")
    result.assert_outcomes(passed=1, errors=1)
    lines = result.stdout.lines
    head = next(i for i, line in enumerate(lines) if "left objects alive" in line)
    assert lines[head].endswith(f"left objects alive: {LEAKED} desc")
    assert lines[head + 1].split()[:3] == [str(LEAKED), "x", "desc"]
    line = FAILING.strip("\n").splitlines().index("        acl.create_tensor_desc(0, [2], 2)") + 1
    assert f"test_failing.py:{line} in test_leaky" in lines[head + 1]
    full = [line for line in lines[head + 1:head + 3 + SHOWN_IN_FULL] if line.strip().startswith("desc 0x")]
    assert len(full) == SHOWN_IN_FULL
    assert lines[head + 3 + SHOWN_IN_FULL].strip() == f"... and {LEAKED - SHOWN_IN_FULL} more"
    # The simulator's own warning at the end of the session is bounded the same way.
    warning = next(i for i, line in enumerate(lines) if "acl.finalize: " in line and "still alive" in line)
    tail = next(i for i in range(warning, len(lines)) if lines[i].strip().startswith("... and "))
    assert sum(line.strip().startswith("desc 0x") for line in lines[warning:tail]) == SHOWN_IN_FULL
    assert lines[tail].strip() == f"... and {LEAKED - SHOWN_IN_FULL} more"


def report(nodeid, category=None, op=None, reproduce=None):
    return SimpleNamespace(nodeid=nodeid, aclcts_category=category, aclcts_op=op, aclcts_reproduce=reproduce)


def test_the_summary_puts_the_op_with_most_failures_first_tests_of_no_op_last_and_reads_crashed_tests_op_from_the_case_id():
    lines = summary_lines([
        report("t.py::test_a[Cast-float16_float32-4x4]", "precision", "Cast", "pytest x"),
        report("t.py::test_b[MatMul-float16-2x2]", "crash"),  # a crashed worker's report: no op recorded
        report("t.py::test_c[MatMul-float32-2x2]", "timeout", "MatMul"),
        report("t.py::test_d", None),
    ])
    assert [line.split()[:2] for line in lines if not line.startswith(" ")] == [["MatMul", "2"], ["Cast", "1"],
                                                                                 [NO_OP.split()[0], NO_OP.split()[1]]]
    assert lines[0].split()[2:] == ["failed:", "crash", "1,", "timeout", "1"]
    assert lines[1].split() == [FIRST, "t.py::test_b[MatMul-float16-2x2]"]
    assert lines[2].split()[2:] == ["failed:", "precision", "1"] and lines[4].strip() == f"{REPRODUCE} pytest x"


def test_a_tracked_acl_and_its_submodules_read_as_the_acl_names_a_failing_assert_shows():
    tracked = TrackingAcl(SimpleNamespace(op=SimpleNamespace(), rt=SimpleNamespace()))
    assert (repr(tracked), repr(tracked.op), repr(tracked.rt)) == ("acl", "acl.op", "acl.rt")
