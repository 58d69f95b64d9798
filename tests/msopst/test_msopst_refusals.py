"""A bad msopst case is a failed test, not a stopped run: refused cases and files, their stage in --report and
--st-report, per-file namespaces of case names, the SoC a file is meant for, and `aclcts msopst survey`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from aclcts.cases.msopst.soc import meant_for, soc_tag
from aclcts.tools.msopst import main as msopst_main
from tests.msopst.test_msopst_suite import run_suite

#: The tests that run a static case: one per execution mode.
SELECTION = ["conformance/test_execute.py", "conformance/test_handle.py"]
#: A golden function that adds one too many (the compare stage fails) and one whose file cannot be imported.
WRONG_GOLDEN = "def wrong(x1, x2, y):\n    return [x1['value'] + x2['value'] + 1]\n"
BROKEN_GOLDEN = "raise ImportError('No module named tensorflow')\n\n\ndef f(x1, x2, y):\n    return [x1['value']]\n"


def tensor(name: str, type_: str = "float32") -> dict:
    """One msopst tensor object of shape [2, 3]."""
    return {"name": name, "format": "ND", "type": type_, "shape": [2, 3]}


def add_case(name: str, **more) -> dict:
    """An msopst Add case."""
    return {"case_name": name, "op": "Add", "input_desc": [tensor("x1"), tensor("x2")],
            "output_desc": [tensor("y")], **more}


def write(folder: Path, name: str, cases: list | str) -> Path:
    """Write an msopst case file (a list of cases, or raw text) into folder."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(cases if isinstance(cases, str) else json.dumps(cases))
    return path


def records_of(cases: dict, case_id: str) -> dict:
    """The report records of a case's tests, by test id."""
    return {test_id: record for test_id, record in cases.items() if test_id.endswith(f"[{case_id}]")}


@pytest.fixture(scope="module")
def mixed_run(tmp_path_factory):
    """One run over a folder with good cases, a refused case, a refused expect-failed case, a broken file, a golden
    that cannot be imported, a golden that gives wrong values, a case whose output dtype the prototype refuses (ATC)
    and two files holding the same case name."""
    folder = tmp_path_factory.mktemp("mixed-cases")
    write(folder, "wrong.py", WRONG_GOLDEN)
    write(folder, "broken.py", BROKEN_GOLDEN)
    write(folder, "mixed.json", [
        add_case("Test_good"),
        add_case("Test_bad_type", input_desc=[tensor("x1", "float99"), tensor("x2")]),
        add_case("Test_bad_expected", expect="failed", input_desc=[tensor("x1", "float99"), tensor("x2")]),
        add_case("Test_wrong_golden", calc_expect_func_file="wrong.py:wrong"),
        add_case("Test_no_golden_module", calc_expect_func_file="broken.py:f"),
        {"case_name": "Test_atc_refused", "op": "Equal", "input_desc": [tensor("x1"), tensor("x2")],
         "output_desc": [tensor("y", "int8")]}])
    write(folder, "broken_file.json", '[{"case_name": "Test_cut", "op": "Add", ')
    write(folder, "Add_a.json", [add_case("Test_same")])
    write(folder, "Add_b.json", [add_case("Test_same")])
    out = tmp_path_factory.mktemp("mixed-out")
    return run_suite(folder, out, *SELECTION)


def test_a_bad_case_fails_its_tests_with_its_stage_and_the_other_cases_run(mixed_run):
    done, cases, _ = mixed_run
    assert done.returncode == 1, done.stdout[-3000:]
    good = records_of(cases, "mixed.Test_good_case_001_ND_float32")
    assert len(good) == 2 and {r["status"] for r in good.values()} == {"passed"}
    assert all(r["stage"] is None for r in good.values())
    bad = records_of(cases, "mixed.Test_bad_type")
    assert len(bad) == 2 and {r["status"] for r in bad.values()} == {"failed"}
    for record in bad.values():
        assert record["stage"] == "load"
        assert record["message"].startswith("CaseRefused: load: ") and "Test_bad_type: input_desc[0].type" in \
            record["message"]


def test_a_case_atc_refuses_is_failed_at_atc_in_the_report_and_the_st_report(mixed_run):
    _, cases, st = mixed_run
    reason = "atc: output_desc[0].type: \"int8\": Equal's y takes one of bool [E13014]"
    records = records_of(cases, "mixed.Test_atc_refused_case_001_ND_int8")
    assert len(records) == 2 and all(r["stage"] == "atc" and reason in r["message"] for r in records.values())
    [entry] = [e for e in st["report_list"] if e["case_name"].startswith("Test_atc_refused")]
    assert entry["status"] == "failed"
    assert entry["trace_detail"]["stage_result"] == [
        {"status": "failed", "result": reason, "stage_name": "atc_single_op_convert", "cmd": ""}]


def test_a_refused_case_that_expects_failure_is_an_expected_failure(mixed_run):
    _, cases, _ = mixed_run
    refused = records_of(cases, "mixed.Test_bad_expected")
    assert len(refused) == 2 and {(r["status"], r["stage"]) for r in refused.values()} == {("xfailed", "load")}


def test_a_broken_file_is_one_refused_case_of_failed_tests(mixed_run):
    _, cases, st = mixed_run
    broken = records_of(cases, "broken_file")
    assert broken and {r["status"] for r in broken.values()} == {"failed"}
    assert all("not valid JSON" in r["message"] and r["stage"] == "load" for r in broken.values())
    entries = [e for e in st["report_list"] if e["case_name"] == "broken_file"]
    assert len(entries) == 1


def test_a_golden_that_cannot_be_imported_fails_at_the_golden_stage(mixed_run):
    _, cases, st = mixed_run
    records = records_of(cases, "mixed.Test_no_golden_module")
    assert records and {(r["status"], r["stage"]) for r in records.values()} == {("failed", "golden")}
    entry = next(e for e in st["report_list"] if e["case_name"] == "Test_no_golden_module")
    assert entry["trace_detail"]["stage_result"][0]["stage_name"] == "gen_acl_code"
    assert entry["trace_detail"]["stage_result"][0]["result"].startswith("golden: ")


def test_a_wrong_golden_fails_at_the_compare_stage_in_both_reports(mixed_run):
    _, cases, st = mixed_run
    records = records_of(cases, "mixed.Test_wrong_golden_case_001_ND_float32")
    assert records and {(r["status"], r["stage"]) for r in records.values()} == {("failed", "compare")}
    entry = next(e for e in st["report_list"] if e["case_name"] == "Test_wrong_golden_case_001_ND_float32")
    assert entry["status"] == "failed"
    assert {s["stage_name"]: s["status"] for s in entry["trace_detail"]["stage_result"]}["compare_data"] == "failed"


def test_st_report_shows_a_refused_case_failed_at_its_msopst_stage(mixed_run):
    _, _, st = mixed_run
    entry = next(e for e in st["report_list"] if e["case_name"] == "Test_bad_type")
    assert entry["status"] == "failed"
    stages = entry["trace_detail"]["stage_result"]
    assert [(s["stage_name"], s["status"]) for s in stages] == [("gen_acl_code", "failed")]
    assert stages[0]["result"].startswith("load: ") and "input_desc[0].type" in stages[0]["result"]


def test_two_files_with_the_same_case_name_run_side_by_side(mixed_run):
    _, cases, st = mixed_run
    for stem in ("Add_a", "Add_b"):
        records = records_of(cases, f"{stem}.Test_same_case_001_ND_float32")
        assert len(records) == 2 and {r["status"] for r in records.values()} == {"passed"}
    # st_report keeps msopst's sub-case name: one entry per file's case
    assert [e["case_name"] for e in st["report_list"]].count("Test_same_case_001_ND_float32") == 2


@pytest.mark.parametrize("name, tag", [("Sort_static_case_310.json", "310"), ("Log_case_ascend910.json", "910"),
                                       ("X_case_ascend310p3.json", "310p3"), ("R_case910.json", "910"),
                                       ("Add_case.json", None), ("Add_case_001.json", None),
                                       ("Conv2D_v200_Ascend310P_impl.json", None), ("T_20210411201838.json", None)])
def test_the_soc_tag_is_the_last_word_of_the_file_name_naming_a_chip(name, tag):
    assert soc_tag(f"some/folder/{name}") == tag


def test_a_tagged_file_runs_on_the_socs_of_its_chip_and_an_untagged_file_everywhere():
    assert meant_for("A_910.json", "Ascend910B1") and meant_for("A_910.json", "Ascend910")
    assert not meant_for("A_310.json", "Ascend910B1") and meant_for("A_310.json", "Ascend310P3")
    assert meant_for("A_ascend310p3.json", "Ascend310P3") and not meant_for("A_ascend310p3.json", "Ascend310B1")
    assert meant_for("A_case.json", "Ascend310P3") and meant_for("A_310.json", "all")


@pytest.fixture(scope="module")
def soc_folder(tmp_path_factory):
    """Per-SoC files of one op reusing a case name, as CANN's Sort files do."""
    folder = tmp_path_factory.mktemp("soc-cases")
    write(folder, "Add_static_case_910.json", [add_case("Test_Add_001")])
    write(folder, "Add_static_case_310.json", [add_case("Test_Add_001")])
    return folder


@pytest.mark.parametrize("option, stems", [
    ((), ["Add_static_case_910"]),  # the simulator is an Ascend910B1
    (("--msopst-soc=Ascend310P3",), ["Add_static_case_310"]),
    (("--msopst-soc=all",), ["Add_static_case_310", "Add_static_case_910"])])
def test_msopst_soc_runs_the_files_meant_for_the_soc(soc_folder, tmp_path, option, stems):
    done, cases, _ = run_suite(soc_folder, tmp_path, "conformance/test_execute.py", *option)
    assert done.returncode == 0, done.stdout[-3000:]
    ran = sorted(test_id.partition("[")[2].partition(".")[0] for test_id in cases)
    assert ran == stems


def test_survey_counts_per_op_and_stage_and_lists_the_reasons(tmp_path, capsys):
    folder = tmp_path / "cases"
    write(folder, "wrong.py", WRONG_GOLDEN)
    write(folder, "Add_survey.json", [add_case("Test_pass"),
                                      add_case("Test_refused", input_desc=[tensor("x1", "float99"), tensor("x2")]),
                                      add_case("Test_compare", calc_expect_func_file="wrong.py:wrong")])
    report = tmp_path / "out" / "report.jsonl"
    assert msopst_main(["survey", str(folder), "--json", "--report-to", str(report)]) == 0
    data = json.loads(capsys.readouterr().out)
    add = data["ops"]["Add"]
    assert (add["files"], add["loaded"], add["ran"], add["passed"]) == (1, 2, 2, 1)
    assert add["failed"] == {"load": 1, "golden": 0, "atc": 0, "compile": 0, "run": 0, "compare": 1}
    assert data["total"] == add
    assert [r["example"] for r in data["reasons"]["load"]] == ["Add_survey.Test_refused"]
    assert data["reasons"]["load"][0]["reason"].startswith("input_desc[0].type: expected a data type name")
    assert [(r["count"], r["example"]) for r in data["reasons"]["compare"]] == [
        (1, "Add_survey.Test_compare_case_001_ND_float32")]
    assert report.is_file()
    assert msopst_main(["survey", str(folder), "--report-to", str(tmp_path / "again.jsonl")]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0].split() == ["op", "type", "files", "loaded", "ran", "passed", "failed", "load",
                                            "failed", "golden", "failed", "atc", "failed", "compile", "failed",
                                            "run", "failed", "compare"]
    assert text.splitlines()[2].split() == ["total", "1", "2", "2", "1", "1", "0", "0", "0", "0", "1"]
    assert "failure reasons at stage load:" in text and "(e.g. Add_survey.Test_refused)" in text


def test_singleop_json_leaves_a_refused_case_out(tmp_path):
    from aclcts.tools.singleop import library_cases

    write(tmp_path, "mixed.json", [add_case("Test_good"),
                                   add_case("Test_bad_type", input_desc=[tensor("x1", "float99"), tensor("x2")])])
    write(tmp_path, "broken_file.json", '[{"case_name": "Test_cut", "op": "Add", ')
    assert [case.id for case in library_cases([str(tmp_path)], 0)] == ["mixed.Test_good_case_001_ND_float32"]


def test_survey_of_a_run_that_stops_says_why_and_exits_1(tmp_path, capsys, monkeypatch):
    write(tmp_path / "cases", "Add_survey.json", [add_case("Test_pass")])
    monkeypatch.setenv("ACLCTS_IMPORT_TIMEOUT", "soon")  # a usage error of the run, before any test
    assert msopst_main(["survey", str(tmp_path / "cases")]) == 1
    err = capsys.readouterr().err
    assert "the run stopped (pytest exit status 4)" in err and "ACLCTS_IMPORT_TIMEOUT" in err


@pytest.mark.parametrize(("named", "expected"), [(None, "survey"), ("qualification", "qualification")])
def test_survey_runs_under_the_survey_profile_unless_the_environment_names_one(tmp_path, monkeypatch, named, expected):
    from aclcts.tools import msopst_survey

    given_env: dict = {}

    def record_env(command, env, **kwargs):
        given_env.update(env)
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(msopst_survey.subprocess, "run", record_env)
    if named is None:
        monkeypatch.delenv("ACLCTS_HYPOTHESIS_PROFILE", raising=False)
    else:
        monkeypatch.setenv("ACLCTS_HYPOTHESIS_PROFILE", named)
    msopst_survey.run_suite(tmp_path, tmp_path / "report.jsonl", 2, "all", tmp_path / "conformance")
    assert given_env["ACLCTS_HYPOTHESIS_PROFILE"] == expected
