"""Failure categories: which kind of failure each failed or errored report was, read from the report objects."""

import textwrap

import pytest

from aclcts.pytest_plugin.categories import CATEGORIES, category

TESTS = textwrap.dedent("""
    import time

    import pytest

    from aclcts.core.error_codes import ErrorCodeMismatch
    from aclcts.drive.executor import GuardBandError
    from aclcts.drive.flow import AclCallError
    from aclcts.drive.resources import LeakedObjects
    from aclcts.judge.decorator import PrecisionMismatch


    @pytest.fixture
    def leaves_objects():
        yield
        raise LeakedObjects("1 desc left alive")


    @pytest.fixture
    def cannot_load():
        raise AclCallError("acl.op.set_model_dir", 100000)


    @pytest.fixture
    def slow_to_set_up():
        time.sleep(5)


    def test_passes():
        pass

    def test_precision():
        raise PrecisionMismatch("y: 3 elements outside the policy")

    def test_guard_band():
        raise GuardBandError("the guard band after output 0 was overwritten")

    def test_error_code():
        raise ErrorCodeMismatch("expected 100000, got 0")

    def test_acl_call():
        raise AclCallError("acl.rt.malloc", 207001)

    def test_leak(leaves_objects):
        pass

    def test_setup(cannot_load):
        pass

    def test_plain_assertion():
        assert 1 + 1 == 3

    def test_group_with_a_precision_failure():
        raise ExceptionGroup("two", [ValueError("first"), PrecisionMismatch("second")])

    def test_group_of_others():
        raise ExceptionGroup("two", [ValueError("first"), KeyError("second")])

    @pytest.mark.timeout(0.5)
    def test_hangs():
        while True:
            time.sleep(0.05)

    @pytest.mark.timeout(0.5)
    def test_hangs_in_setup(slow_to_set_up):
        pass

    @pytest.mark.timeout(30)
    def test_fails_in_time():
        pytest.fail("a plain failure well within the timeout")
""")

EXPECTED = {
    ("test_precision", "call"): "precision",
    ("test_guard_band", "call"): "precision",
    ("test_error_code", "call"): "error_code",
    ("test_acl_call", "call"): "error_code",
    ("test_leak", "teardown"): "leak",
    ("test_setup", "setup"): "setup",
    ("test_plain_assertion", "call"): "other",
    ("test_group_with_a_precision_failure", "call"): "precision",
    ("test_group_of_others", "call"): "other",
    ("test_hangs", "call"): "timeout",
    ("test_hangs_in_setup", "setup"): "timeout",
    ("test_fails_in_time", "call"): "other",
}


@pytest.fixture
def run_reports(pytester):
    """Every report of one run of TESTS, by (test name, phase)."""
    pytester.makepyfile(test_kinds=TESTS)
    recorded = pytester.inline_run("-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:randomly")
    return {(r.nodeid.split("::")[-1], r.when): r for r in recorded.getreports("pytest_runtest_logreport")}


def test_every_failed_report_has_its_category_and_the_others_none(run_reports):
    failed = {key: report.aclcts_category for key, report in run_reports.items() if report.failed}
    assert failed == EXPECTED
    assert all(category(report) is None and not hasattr(report, "aclcts_category")
               for report in run_reports.values() if not report.failed)
    assert {category(run_reports[key]) for key in EXPECTED} <= set(CATEGORIES)


@pytest.mark.parametrize(("outcome", "expected"), [("failed", "other"), ("rerun", "other"), ("passed", None),
                                                    ("skipped", None)])
def test_category_of_a_report_without_one(outcome, expected):
    longrepr = ("test_x.py", 1, "Skipped: no") if outcome == "skipped" else None
    report = pytest.TestReport("test_x.py::test_x", ("test_x.py", 0, "test_x"), {}, outcome, longrepr, "call")
    assert category(report) == expected


def test_a_rerun_report_keeps_its_category():
    report = pytest.TestReport("test_x.py::test_x", ("test_x.py", 0, "test_x"), {}, "rerun", None, "call")
    report.aclcts_category = "precision"
    assert category(report) == "precision"
