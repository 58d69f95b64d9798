"""`aclcts report merge`: shard reports combine into the unsharded result; mismatched or overlapping shards are refused."""

import json
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
    assert f"cannot merge {cut}: it has no summary record" in capsys.readouterr().err


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
