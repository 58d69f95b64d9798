"""aclcts report expectations: a run report's failing cases as an expectations file the plugin's loader reads."""

import datetime

import pytest

from aclcts.pytest_plugin.expectations import glob_match, load_expectations
from aclcts.report.baseline import main
from aclcts.report.records import write_report

EXECUTE = "conformance/test_execute.py::test_execute_v2_matches_reference"
HANDLE = "conformance/test_handle.py::test_execute_with_handle_matches_reference_on_every_execution"
TOMORROW = (datetime.date.today() + datetime.timedelta(days=1)).isoformat()

#: case id -> (status, category) of a run: Erf fails wholly in EXECUTE but not in HANDLE, Tanh has one case there.
CASES = {
    f"{EXECUTE}[Erf-float16-2x3]": ("failed", "precision"),
    f"{EXECUTE}[Erf-float32-2x3]": ("failed", "precision"),
    f"{EXECUTE}[Erf-bfloat16-s]": ("failed", "precision"),
    f"{EXECUTE}[Tanh-float16-2x3]": ("failed", "precision"),
    f"{EXECUTE}[Add-float16-2x3_2x3]": ("passed", None),
    f"{HANDLE}[Erf-float16-2x3]": ("failed", "precision"),
    f"{HANDLE}[Erf-float32-2x3]": ("passed", None),
    f"{HANDLE}[Exp-float16-2x3]": ("failed", "precision"),
    f"{HANDLE}[Exp-float32-2x3]": ("error", "setup"),
    "conformance/test_load.py::test_load_from_memory[ACL_FLOAT16]": ("error", "setup"),
    "conformance/test_free.py::test_double_free_is_an_error": ("crashed", "crash"),
    "conformance/test_sync.py::test_wait_forever": ("failed", "timeout"),
    "conformance/test_leaks.py::test_cycles_return_memory": ("error", "leak"),
    "conformance/test_memory.py::test_malloc[1]": ("xfailed", None),
}


def report(path, cases=CASES, summary=True, **run):
    """Write a run report of cases (id -> (status, category)) to path."""
    records = [{"record": "run", "version": "0.1.0", "seed": 1, "backend": "sim", "pytest_args": ["conformance/"],
                **run},
               {"record": "environment", "backend": "sim", "soc_name": "Ascend910B1", "cann_version": "9.0.0"}]
    records += [{"record": "case", "id": case_id, "status": status, "category": category,
                 "message": f"{status} here \x7f\n"}
                for case_id, (status, category) in cases.items()]
    if summary:
        records.append({"record": "summary", "counts": {}, "total": len(cases), "exit_status": 1})
    write_report(path, records)
    return path


def baseline(tmp_path, *extra, source=None):
    """Run the command on a report of CASES into out.yaml; its exit status."""
    source = source or report(tmp_path / "run.jsonl")
    return main([str(source), "-o", str(tmp_path / "out.yaml"), "--owner", "qa@example.com", "--expires", TOMORROW,
                 "--reason", "baseline of 9.0.0", *extra])


def test_failures_become_entries_and_whole_ops_become_one_pattern(tmp_path, capsys):
    assert baseline(tmp_path, "--issue", "https://example.com/i/1", "--soc", "Ascend910B*", "--cann", "9.0.*") == 0
    entries = load_expectations(tmp_path / "out.yaml")
    assert {(e.id, e.raises, e.action) for e in entries} == {
        (f"{EXECUTE}[Erf-*]", "failed", "xfail"),
        (f"{EXECUTE}[Tanh-float16-2x3]", "failed", "xfail"),
        (f"{HANDLE}[Erf-float16-2x3]", "failed", "xfail"),
        (f"{HANDLE}[Exp-float16-2x3]", "failed", "xfail"),
        (f"{HANDLE}[Exp-float32-2x3]", "error", "xfail"),
        ("conformance/test_load.py::test_load_from_memory[ACL_FLOAT16]", "error", "xfail"),
        ("conformance/test_free.py::test_double_free_is_an_error", "failed", "skip"),
        ("conformance/test_sync.py::test_wait_forever", "failed", "skip"),
    }
    for entry in entries:
        assert (entry.reason, entry.owner, entry.issue, entry.soc, entry.cann) == (
            "baseline of 9.0.0", "qa@example.com", "https://example.com/i/1", "Ascend910B*", "9.0.*")
        assert entry.expires.isoformat() == TOMORROW and entry.release == "Ascend910B1, CANN 9.0.0 (sim)"
    covered = {case_id for case_id in CASES if any(glob_match(e.id, case_id) for e in entries)}
    assert covered == {case_id for case_id, (status, category) in CASES.items()
                       if status in ("failed", "error", "crashed") and category != "leak"}
    out = capsys.readouterr()
    assert out.out.startswith(f"wrote {tmp_path / 'out.yaml'}: 8 entries (1 op pattern(s), 2 action: skip)")
    assert out.err == ""


def test_an_error_after_the_test_body_is_listed_for_a_person_not_waived(tmp_path):
    assert baseline(tmp_path) == 0
    text = (tmp_path / "out.yaml").read_text()
    assert "test_cycles_return_memory" in text
    assert not any("test_cycles_return_memory" in e.id for e in load_expectations(tmp_path / "out.yaml"))


def test_a_run_without_failures_gives_an_empty_valid_file(tmp_path):
    source = report(tmp_path / "run.jsonl", {f"{EXECUTE}[Erf-float16-2x3]": ("passed", None)})
    assert baseline(tmp_path, "--release", "CANN 9.0.0 on 910B", source=source) == 0
    assert load_expectations(tmp_path / "out.yaml") == []
    assert "release: \"CANN 9.0.0 on 910B\"" in (tmp_path / "out.yaml").read_text()


def test_texts_with_quotes_and_colons_survive_the_round_trip(tmp_path):
    reason, owner = 'Erf: "v2" cap # not a comment \\ \t \x7f \ufffe', "张三 <z@x> 😀"
    assert baseline(tmp_path, "--reason", reason, "--owner", owner) == 0
    entry = load_expectations(tmp_path / "out.yaml")[0]
    assert (entry.reason, entry.owner) == (reason, owner)


def test_a_selection_is_noted(tmp_path, capsys):
    source = report(tmp_path / "run.jsonl", pytest_args=["conformance/", "-k", "Erf"])
    assert baseline(tmp_path, source=source) == 0
    assert capsys.readouterr().err.startswith(f"note: {source} ran a selection (-k)")


def test_expires_may_be_a_number_of_days_from_today(tmp_path):
    assert baseline(tmp_path, "--expires", "+90") == 0
    (entry, *_) = load_expectations(tmp_path / "out.yaml")
    assert entry.expires == datetime.date.today() + datetime.timedelta(days=90)


def test_an_existing_file_is_kept_unless_forced(tmp_path, capsys):
    (tmp_path / "out.yaml").write_text("mine\n")
    assert baseline(tmp_path) == 2
    assert (tmp_path / "out.yaml").read_text() == "mine\n"
    err = capsys.readouterr().err
    assert err == f"aclcts report expectations: error: -o {tmp_path / 'out.yaml'}: the file exists; give --force to overwrite it\n"
    assert baseline(tmp_path, "--force") == 0
    assert load_expectations(tmp_path / "out.yaml")


@pytest.mark.parametrize(("change", "said"), [
    (["--expires", "31/03/2027"], "argument --expires: expected an ISO date (YYYY-MM-DD) or +DAYS, got '31/03/2027'"),
    (["--expires", "2020-01-01"], "--expires 2020-01-01: expected today"),
    (["--owner", " "], "argument --owner: expected a non-empty text"),
], ids=["bad-date", "past-date", "empty-owner"])
def test_bad_options_are_one_line_and_exit_2(tmp_path, capsys, change, said):
    assert baseline(tmp_path, *change) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert said in err[-1] and not (tmp_path / "out.yaml").exists()


@pytest.mark.parametrize(("write", "said"), [
    (lambda path: path.write_text('{"record": "case"}\n'), "the first record must be the run record"),
    (lambda path: report(path, summary=False), "it has no summary record (the run did not finish)"),
    (lambda path: None, "cannot read the report"),
], ids=["malformed", "unfinished", "missing"])
def test_a_bad_run_report_is_one_line_and_exit_2(tmp_path, capsys, write, said):
    write(tmp_path / "run.jsonl")
    assert baseline(tmp_path, source=tmp_path / "run.jsonl") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and said in err and not (tmp_path / "out.yaml").exists()


def test_the_output_folder_is_made_and_an_unwritable_one_is_one_line(tmp_path, capsys):
    source = report(tmp_path / "run.jsonl")
    common = ["--owner", "o", "--expires", TOMORROW, "--reason", "r"]
    assert main([str(source), "-o", str(tmp_path / "new" / "dir" / "b.yaml"), *common]) == 0
    assert load_expectations(tmp_path / "new" / "dir" / "b.yaml")
    (tmp_path / "file").write_text("")
    assert main([str(source), "-o", str(tmp_path / "file" / "b.yaml"), *common]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is a regular file, not a folder" in err


def test_the_output_cannot_be_the_run_report(tmp_path, capsys):
    source = report(tmp_path / "run.jsonl")
    assert main([str(source), "-o", str(source), "--owner", "o", "--expires", TOMORROW, "--reason", "r",
                 "--force"]) == 2
    assert "is the run report itself" in capsys.readouterr().err
    assert source.read_text().startswith('{"record":"run"')
