"""`aclcts report diff`: new failures, fixes, missing and added cases, environment changes and in-tolerance drift."""

import json
from pathlib import Path

import pytest
from report_runs import ROOT, SUBSET, run_pytest

from aclcts.report.cli import main
from aclcts.report.records import read_report

FAULTS = ROOT / "tests" / "suite"


def rewrite(source, target, change):
    """Copy a report, passing every record through change (which may return None to drop it)."""
    lines = [change(json.loads(line)) for line in Path(source).read_text().splitlines()]
    target.write_text("".join(json.dumps(r) + "\n" for r in lines if r is not None))
    return target


def diff(capsys, *args):
    status = main(["diff", *map(str, args)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def section(out, title):
    """The lines of one section of the diff output."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    body = []
    for line in lines[start + 1:]:
        if not line.startswith("  "):
            break
        body.append(line.strip())
    return lines[start], body


def passing_with_error(report):
    """Ids of two passing cases whose first output has a non-zero max_abs."""
    chosen = [case_id for case_id, case in report.cases.items() if case["status"] == "passed"
              and any(isinstance(m, dict) and m.get("max_abs", 0) > 0 for m in case["metrics"].values())]
    assert len(chosen) >= 2
    return chosen[:2]


def test_a_faulty_backend_shows_as_new_failures_and_in_tolerance_drift(subset_report, tmp_path, capsys):
    new = tmp_path / "fault.jsonl"
    run_pytest([*SUBSET, "-p", "no:xdist", "--backend=faults:changed_output_element"], new, PYTHONPATH=str(FAULTS))
    faulty = read_report(new)
    failing = {c for c, case in faulty.cases.items() if case["status"] == "failed"}
    assert failing and len(failing) < len(faulty.cases)
    status, out, _ = diff(capsys, subset_report.path, new)
    assert status == 1
    header, rows = section(out, "new failures")
    assert header == f"new failures ({len(failing)})"
    assert {row.split(": passed -> failed")[0] for row in rows} == failing
    rows = section(out, "drift")[1]
    assert rows and all(row.split(" ")[0] not in failing for row in rows)
    assert any("Add-float32" in row and "max_ulp 0 ->" in row for row in rows)
    _, rows = section(out, "environment differences")
    assert "backend: ['sim'] -> ['faults:changed_output_element']" in rows


def test_a_rewritten_regression_and_upward_metrics_are_both_reported(subset_report, tmp_path, capsys):
    regressed, drifted = passing_with_error(subset_report)

    def change(record):
        if record.get("id") == regressed:
            return {**record, "status": "failed", "message": "AssertionError: y differs"}
        if record.get("id") == drifted:
            return {**record, "metrics": {k: {**m, "max_abs": m["max_abs"] * 10 + 1e-3} if isinstance(m, dict) else m
                                          for k, m in record["metrics"].items()}}
        return record

    new = rewrite(subset_report.path, tmp_path / "new.jsonl", change)
    status, out, _ = diff(capsys, subset_report.path, new)
    assert status == 1
    assert section(out, "new failures")[1] == [f"{regressed}: passed -> failed: AssertionError: y differs"]
    rows = section(out, "drift")[1]
    assert len(rows) == 1 and rows[0].startswith(f"{drifted} ") and "max_abs" in rows[0] and "max_rel" not in rows[0]
    status, out, _ = diff(capsys, new, subset_report.path)
    assert status == 0 and section(out, "fixes")[1] == [f"{regressed}: failed -> passed"]
    assert section(out, "new failures")[0] == "new failures (0)"


def test_drift_respects_threshold_floor_and_metric_choice(subset_report, tmp_path, capsys):
    _, drifted = passing_with_error(subset_report)
    old_max = next(m["max_abs"] for m in subset_report.cases[drifted]["metrics"].values() if isinstance(m, dict))

    def change(record):
        if record.get("id") != drifted:
            return record
        return {**record, "metrics": {k: {**m, "max_abs": m["max_abs"] * 3} if isinstance(m, dict) else m
                                      for k, m in record["metrics"].items()}}

    new = rewrite(subset_report.path, tmp_path / "new.jsonl", change)
    grown = 2 * old_max
    assert section(diff(capsys, subset_report.path, new, "--floor", grown / 2)[1], "drift")[0].endswith("(1)")
    assert section(diff(capsys, subset_report.path, new, "--floor", grown * 2)[1], "drift")[0].endswith("(0)")
    assert section(diff(capsys, subset_report.path, new, "--floor", 0, "--threshold", 4)[1], "drift")[0].endswith("(0)")
    assert section(diff(capsys, subset_report.path, new, "--floor", 0, "--metric", "rmse")[1], "drift")[0].endswith(
        "(0)")


def test_missing_added_and_environment_changes_are_listed(subset_report, tmp_path, capsys):
    dropped = next(iter(subset_report.cases))

    def change(record):
        if record.get("id") == dropped:
            return {**record, "id": dropped + "-renamed", "status": "failed"}
        if record["record"] == "environment":
            return {**record, "soc_name": "Ascend310P3", "acl_version": "1.1.0"}
        return record

    new = rewrite(subset_report.path, tmp_path / "new.jsonl", change)
    status, out, _ = diff(capsys, subset_report.path, new)
    assert status == 0
    assert section(out, "missing cases")[1] == [f"{dropped} (passed)"]
    assert section(out, "added cases")[1] == [f"{dropped}-renamed (failed)"]
    assert section(out, "environment differences")[1] == [
        "environment.soc_name: ['Ascend910B1'] -> ['Ascend310P3']", "environment.acl_version: ['1.0.0'] -> ['1.1.0']"]


def test_a_report_cut_short_is_compared_with_a_warning(subset_report, tmp_path, capsys):
    cut = rewrite(subset_report.path, tmp_path / "cut.jsonl", lambda r: None if r["record"] == "summary" else r)
    status, out, _ = diff(capsys, subset_report.path, cut)
    assert status == 0 and f"warning: {cut} has no summary record (the run did not finish)" in out


@pytest.mark.parametrize("text, message", [
    ('{"record": "run", "version": "1", "seed": 1}\nnot json\n', "bad.jsonl:2: not valid JSON"),
    ("", "bad.jsonl: empty report, expected a run record on line 1"),
])
def test_malformed_input_is_a_one_line_error_with_exit_2(subset_report, tmp_path, capsys, text, message):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(text)
    status, out, err = diff(capsys, subset_report.path, bad)
    assert status == 2 and out == ""
    assert err.strip().count("\n") == 0 and message in err and "Traceback" not in err


def test_help_says_what_the_exit_statuses_mean(capsys):
    assert main(["diff", "--help"]) == 0
    out = capsys.readouterr().out
    assert "1  new failures" in out and "2  usage error" in out and "0  no new failures" in out
