"""`-p aclcts.pytest_plugin.bench_phases`: each process that runs tests appends its test span; an xdist controller does not."""

import time

import pytest

from aclcts.pytest_plugin.bench_phases import read_spans

SLOW_TESTS = """\
import time

import pytest


@pytest.mark.parametrize("n", range(6))
def test_sleeps(n):
    time.sleep(0.05)
"""


def run_with_phases(pytester, *args):
    pytester.makepyfile(test_slow=SLOW_TESTS)
    phases = pytester.path / "phases"
    before = time.time()
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "aclcts.pytest_plugin.bench_phases",
                                           f"--bench-phases={phases}", *args)
    return result, read_spans(phases), before, time.time()


def test_a_serial_run_appends_one_span_holding_its_tests(pytester):
    result, spans, before, after = run_with_phases(pytester, "-p", "no:xdist")
    result.assert_outcomes(passed=6)
    assert len(spans) == 1
    span = spans[0]
    assert span.tests == 6
    assert before < span.first_start and span.last_end < after
    assert span.last_end - span.first_start >= 6 * 0.05


def test_under_xdist_each_worker_appends_its_span_and_the_controller_none(pytester):
    result, spans, before, after = run_with_phases(pytester, "-n", "2")
    result.assert_outcomes(passed=6)
    assert len(spans) == 2
    assert sum(span.tests for span in spans) == 6
    assert all(before < span.first_start < span.last_end < after for span in spans)


def test_without_the_option_the_plugin_stays_out_of_the_way(pytester):
    pytester.makepyfile(test_slow=SLOW_TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist", "-p", "aclcts.pytest_plugin.bench_phases")
    result.assert_outcomes(passed=6)
    assert result.ret == 0
    assert "Traceback" not in result.stderr.str()


@pytest.mark.parametrize("text", ["", "1.5 2.5 3\n"])
def test_read_spans_reads_what_was_appended(tmp_path, text):
    path = tmp_path / "phases"
    path.write_text(text, encoding="utf-8")
    assert [(s.first_start, s.last_end, s.tests) for s in read_spans(path)] == ([(1.5, 2.5, 3)] if text else [])
