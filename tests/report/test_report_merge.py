"""`aclcts report merge`: shard reports combine into the unsharded result; mismatched or overlapping shards are refused."""

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from report_runs import outcomes

from aclcts.report.cli import main
from aclcts.report.records import read_report


def rewrite(source, target, change):
    """Copy a report, passing every record through change (which may return None to drop it)."""
    lines = [change(json.loads(line)) for line in source.read_text().splitlines()]
    target.write_text("".join(json.dumps(r) + "\n" for r in lines if r is not None))
    return target


def test_three_shards_merged_equal_one_unsharded_run(subset_report, run_subset, tmp_path, capsys):
    shards = [run_subset(f"--shard={k}/3", "-p", "no:xdist", name=f"shard{k}.jsonl") for k in (1, 2, 3)]
    assert [s.run["shard"] for s in shards] == ["1/3", "2/3", "3/3"]
    assert all(s.cases and len(s.cases) < len(subset_report.cases) for s in shards)
    out = tmp_path / "merged.jsonl"
    assert main(["merge", *(s.path for s in shards), "-o", str(out)]) == 0
    merged = read_report(out)
    assert outcomes(merged) == outcomes(subset_report)
    assert merged.summary["counts"] == subset_report.summary["counts"]
    assert merged.summary["total"] == len(subset_report.cases) and merged.summary["exit_status"] == 0
    assert merged.run["merged_from"] == [s.path for s in shards] and merged.run["seed"] == subset_report.run["seed"]
    assert f"{len(subset_report.cases)} case(s)" in capsys.readouterr().out


def test_merge_refuses_shards_with_different_seeds(subset_report, tmp_path, capsys):
    source = tmp_path / "a.jsonl"
    rewrite(Path(subset_report.path), source, lambda r: r)
    other = rewrite(source, tmp_path / "b.jsonl",
                    lambda r: {**r, "seed": 1} if r["record"] == "run" else (None if r["record"] == "case" else r))
    assert main(["merge", str(source), str(other), "-o", str(tmp_path / "out.jsonl")]) == 2
    err = capsys.readouterr().err
    assert f"cannot merge {source} and {other}: run field 'seed' differs" in err
    assert not (tmp_path / "out.jsonl").exists()


def test_merge_refuses_a_case_present_in_two_shards(subset_report, tmp_path, capsys):
    source = rewrite(Path(subset_report.path), tmp_path / "a.jsonl", lambda r: r)
    first_id = next(iter(subset_report.cases))
    other = rewrite(source, tmp_path / "b.jsonl", lambda r: r if r["record"] != "case" or r["id"] == first_id else None)
    assert main(["merge", str(source), str(other), "-o", str(tmp_path / "out.jsonl")]) == 2
    assert f"case {first_id!r} is in both {source} and {other}" in capsys.readouterr().err


def test_merge_refuses_a_shard_that_did_not_finish(subset_report, tmp_path, capsys):
    cut = rewrite(Path(subset_report.path), tmp_path / "cut.jsonl",
                  lambda r: None if r["record"] == "summary" else r)
    assert main(["merge", str(cut), "-o", str(tmp_path / "out.jsonl")]) == 2
    assert f"cannot merge: {cut}: it has no summary record (the run did not finish)" in capsys.readouterr().err
    assert not (tmp_path / "out.jsonl").exists()


def allure_folder(path, files):
    path.mkdir()
    for name, text in files.items():
        (path / name).write_text(text)
    return path


def test_allure_results_are_copied_into_one_folder(subset_report, tmp_path):
    one = allure_folder(tmp_path / "one", {"a-result.json": "{}", "shared-container.json": "[1]"})
    two = allure_folder(tmp_path / "two", {"b-result.json": "{}", "b-attachment.txt": "x", "shared-container.json": "[1]"})
    out = tmp_path / "all"
    assert main(["merge", subset_report.path, "-o", str(tmp_path / "m.jsonl"), "--allure", str(one), str(two),
                 "--allure-out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["a-result.json", "b-attachment.txt", "b-result.json",
                                                     "shared-container.json"]
    assert (out / "b-attachment.txt").read_text() == "x"


def test_the_shards_environment_files_are_combined_with_each_differing_value_once(subset_report, tmp_path):
    one = allure_folder(tmp_path / "one", {"environment.properties": "backend=npu\nshard=1/2\nhost=a\n"})
    two = allure_folder(tmp_path / "two", {"environment.properties": "backend=npu\nshard=2/2\nhost=a\nextra=x\n"})
    out = tmp_path / "all"
    assert main(["merge", subset_report.path, "-o", str(tmp_path / "m.jsonl"), "--allure", str(one), str(two),
                 "--allure-out", str(out)]) == 0
    assert (out / "environment.properties").read_text().splitlines() == [
        "backend=npu", "shard=1/2, 2/2", "host=a", "extra=x"]


def test_allure_name_clashes_with_different_content_are_refused(subset_report, tmp_path, capsys):
    one = allure_folder(tmp_path / "one", {"same-result.json": '{"status": "passed"}'})
    two = allure_folder(tmp_path / "two", {"same-result.json": '{"status": "failed"}'})
    out = tmp_path / "all"
    assert main(["merge", subset_report.path, "-o", str(tmp_path / "m.jsonl"), "--allure", str(one), str(two),
                 "--allure-out", str(out)]) == 2
    assert f"{one / 'same-result.json'} and {two / 'same-result.json'} have the same name and different content" \
        in capsys.readouterr().err
    assert not out.exists() and not (tmp_path / "m.jsonl").exists()


@pytest.mark.parametrize("args, message", [
    (["merge", "missing.jsonl", "-o", "out.jsonl"], "missing.jsonl: cannot read the report"),
    (["merge", "-o", "out.jsonl"], "the following arguments are required: REPORT"),
])
def test_merge_usage_errors_are_one_line(tmp_path, monkeypatch, capsys, args, message):
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def shard_of(subset_report, folder, k, n, change=lambda r: r):
    """A copy of the subset report as shard K/N: its run record says so and it keeps every N-th case."""
    ids = list(subset_report.cases)
    kept = set(ids[k - 1::n])

    def as_shard(record):
        if record["record"] == "run":
            return change({**record, "shard": f"{k}/{n}"})
        if record["record"] == "case" and record["id"] not in kept:
            return None
        return change(record)

    return rewrite(Path(subset_report.path), folder / f"shard{k}.jsonl", as_shard)


def test_merge_of_a_lone_shard_names_the_missing_ones(subset_report, tmp_path, capsys):
    one = shard_of(subset_report, tmp_path, 1, 2)
    assert main(["merge", str(one), "-o", str(tmp_path / "out.jsonl")]) == 2
    assert "cannot merge: shard 2 of 2 missing" in capsys.readouterr().err
    three = shard_of(subset_report, tmp_path, 3, 4)
    first = shard_of(subset_report, tmp_path, 1, 4)
    assert main(["merge", str(first), str(three), "-o", str(tmp_path / "out.jsonl")]) == 2
    assert "cannot merge: shards 2, 4 of 4 missing" in capsys.readouterr().err
    assert not (tmp_path / "out.jsonl").exists()


def test_every_shard_of_the_split_merges_into_all_cases(subset_report, tmp_path):
    shards = [shard_of(subset_report, tmp_path, k, 3) for k in (3, 1, 2)]
    assert main(["merge", *map(str, shards), "-o", str(tmp_path / "out.jsonl")]) == 0
    merged = read_report(tmp_path / "out.jsonl")
    assert outcomes(merged) == outcomes(subset_report) and merged.run["partial"] is None
    assert merged.summary["exit_status"] == 0


@pytest.mark.parametrize("second, message", [
    ((2, 3), "cannot merge shards of different splits: {one} is 1/2, {two} is 2/3"),
    ((1, 2), "cannot merge: shard 1/2 is given twice, {one} and {two}"),
])
def test_shards_of_different_splits_or_twice_the_same_shard_are_refused(subset_report, tmp_path, capsys, second,
                                                                       message):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    one = shard_of(subset_report, tmp_path / "a", 1, 2)
    two = shard_of(subset_report, tmp_path / "b", *second,
                   lambda r: r if r["record"] != "case" else {**r, "id": r["id"] + "-other"})
    assert main(["merge", str(one), str(two), "-o", str(tmp_path / "out.jsonl")]) == 2
    assert message.format(one=one, two=two) in capsys.readouterr().err


def test_an_interrupted_shard_is_refused_unless_partial_merges_are_allowed(subset_report, tmp_path, capsys):
    one = shard_of(subset_report, tmp_path, 1, 2)
    two = shard_of(subset_report, tmp_path, 2, 2, lambda r: {**r, "exit_status": 2} if r["record"] == "summary" else r)
    out = tmp_path / "out.jsonl"
    assert main(["merge", str(one), str(two), "-o", str(out)]) == 2
    assert f"cannot merge: {two}: it was interrupted (exit status 2) (--allow-partial" in capsys.readouterr().err
    assert not out.exists()
    assert main(["merge", str(one), str(two), "-o", str(out), "--allow-partial"]) == 0
    assert f"warning: {out} is a partial merge: {two}: it was interrupted (exit status 2)" in capsys.readouterr().err
    merged = read_report(out)
    assert outcomes(merged) == outcomes(subset_report)
    assert merged.summary["exit_status"] == 2 and two.name in merged.run["partial"]
    assert main(["merge", str(out), "-o", str(tmp_path / "again.jsonl")]) == 2
    assert f"{out}: it is a partial merge" in capsys.readouterr().err


def test_a_partial_merge_of_missing_shards_says_what_it_lacks(subset_report, tmp_path, capsys):
    one = shard_of(subset_report, tmp_path, 1, 3)
    out = tmp_path / "out.jsonl"
    assert main(["merge", str(one), "-o", str(out), "--allow-partial"]) == 0
    merged = read_report(out)
    assert merged.run["partial"] == "shards 2, 3 of 3 missing" and merged.summary["exit_status"] == 2
    assert len(merged.cases) == len(read_report(one).cases)


@pytest.mark.parametrize("spelling", ["same", "dot", "link"])
def test_an_output_that_is_an_input_is_refused_and_the_input_left_alone(subset_report, tmp_path, monkeypatch, capsys,
                                                                       spelling):
    one, two = shard_of(subset_report, tmp_path, 1, 2), shard_of(subset_report, tmp_path, 2, 2)
    before = one.read_bytes()
    monkeypatch.chdir(tmp_path)
    if spelling == "link":
        (tmp_path / "link.jsonl").symlink_to(one)
    out = {"same": str(one), "dot": f"./{one.name}", "link": "link.jsonl"}[spelling]
    assert main(["merge", str(one), str(two), "-o", out]) == 2
    assert f"-o {out} is also the input {one}" in capsys.readouterr().err
    assert one.read_bytes() == before


JUNIT_TESTS = """
import pytest

def test_passes():
    pass

def test_fails():
    assert False

@pytest.mark.parametrize("n", [1, 2])
def test_param(n):
    pass
"""


def junit_of(pytester, name):
    """The JUnit XML file of a pytest run of a module named name."""
    pytester.makepyfile(**{name: JUNIT_TESTS})
    path = pytester.path / f"{name}.xml"
    pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist", f"{name}.py", f"--junitxml={path}")
    return path


def junit_cases(path):
    return sorted((case.get("classname"), case.get("name")) for case in ET.parse(path).getroot().iter("testcase"))


def test_junit_files_merge_into_one_holding_every_testcase(subset_report, pytester, tmp_path, capsys):
    one, two = junit_of(pytester, "test_host_one"), junit_of(pytester, "test_host_two")
    out = tmp_path / "all.xml"
    assert main(["merge", subset_report.path, "-o", str(tmp_path / "m.jsonl"), "--junit", str(one), str(two),
                 "--junit-out", str(out)]) == 0
    assert junit_cases(out) == sorted(junit_cases(one) + junit_cases(two)) and len(junit_cases(out)) == 8
    root = ET.parse(out).getroot()
    assert (root.get("tests"), root.get("failures")) == ("8", "2")
    assert f"into {out}: 8 test case(s)" in capsys.readouterr().out


def test_a_junit_testcase_in_two_files_is_refused(subset_report, pytester, tmp_path, capsys):
    one = junit_of(pytester, "test_same")
    copy = tmp_path / "copy.xml"
    copy.write_bytes(one.read_bytes())
    out = tmp_path / "all.xml"
    assert main(["merge", subset_report.path, "-o", str(tmp_path / "m.jsonl"), "--junit", str(one), str(copy),
                 "--junit-out", str(out)]) == 2
    assert f"test case test_same::test_passes is in both {one} and {copy}" in capsys.readouterr().err
    assert not out.exists() and not (tmp_path / "m.jsonl").exists()


@pytest.mark.parametrize("text, message", [
    ("<testsuites>\n<testsuite>\n</testsuites>\n", "bad.xml:3: not valid XML"),
    ("<html/>\n", "bad.xml:1: the root element is neither <testsuites> nor <testsuite>"),
])
def test_a_file_that_is_not_junit_xml_is_one_line_naming_it(subset_report, tmp_path, capsys, text, message):
    bad = tmp_path / "bad.xml"
    bad.write_text(text)
    assert main(["merge", subset_report.path, "-o", str(tmp_path / "m.jsonl"), "--junit", str(bad),
                 "--junit-out", str(tmp_path / "all.xml")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(tmp_path / message) in err and "Traceback" not in err


def test_junit_out_that_is_a_junit_input_is_refused(subset_report, pytester, tmp_path, capsys):
    one = junit_of(pytester, "test_in")
    before = one.read_bytes()
    assert main(["merge", subset_report.path, "-o", str(tmp_path / "m.jsonl"), "--junit", str(one),
                 "--junit-out", str(one)]) == 2
    assert f"--junit-out {one} is also the input {one}" in capsys.readouterr().err
    assert one.read_bytes() == before


def test_merge_help_names_the_partial_and_junit_options(capsys):
    assert main(["merge", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--allow-partial" in out and "--junit-out" in out and "a shard of the split is missing" in out


def test_merge_into_an_existing_file_is_refused_unless_forced(subset_report, tmp_path, capsys):
    out = tmp_path / "merged.jsonl"
    out.write_text("kept\n")
    assert main(["merge", str(subset_report.path), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"-o {out}: the file exists" in err and "--force" in err
    assert out.read_text() == "kept\n"
    assert main(["merge", str(subset_report.path), "-o", str(out), "--force"]) == 0
    assert read_report(out).cases.keys() == subset_report.cases.keys()
