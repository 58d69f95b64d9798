"""The outputs of a suite run (issue 37, findings 1, 2 and 4): an output that is an input, another output, a special
file, a folder, or lies in a folder aclcts did not create is one usage line before any test, and nothing is touched."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from output_runs import NODE_KINDS, ROOT, make_node, node_state, one_error_line, run_suite

from aclcts.core.outputs import OWNER_FILE

MSOPST_DATA = ROOT / "tests" / "msopst" / "data"


def test_an_st_report_over_the_msopst_case_file_being_run_is_refused(world):
    for name in ("add_case.json", "add_golden.py", "add_x1_3x4_float32.bin"):
        shutil.copy(MSOPST_DATA / name, world / name)
    before = (world / "add_case.json").read_bytes()
    line = one_error_line(run_suite(world, "--cases", "add_case.json", "--st-report=add_case.json"))
    assert "--st-report=add_case.json" in line and "is an input of this run" in line
    assert (world / "add_case.json").read_bytes() == before


def test_a_report_and_an_st_report_on_one_path_are_refused(world):
    (world / "R").write_text("the previous run's report\n")
    line = one_error_line(run_suite(world, "--report=R", "--st-report=R"))
    assert "--st-report=R" in line and "also the output of --report=R" in line
    assert (world / "R").read_text() == "the previous run's report\n"


@pytest.mark.parametrize("spelling", ["add.yaml", "./sub/../add.yaml", "link.yaml", "hardlink.yaml"])
def test_a_report_over_a_case_file_is_refused_however_it_is_named(world, spelling):
    (world / "sub").mkdir()
    (world / "link.yaml").symlink_to(world / "add.yaml")
    (world / "hardlink.yaml").hardlink_to(world / "add.yaml")
    before = (world / "add.yaml").read_bytes()
    line = one_error_line(run_suite(world, f"--report={spelling}"))
    assert f"--report={spelling}" in line and "is an input of this run" in line
    assert (world / "add.yaml").read_bytes() == before


def test_an_st_report_never_removes_a_folder_it_did_not_create(world):
    user = world / "st3" / "important_data"
    user.mkdir(parents=True)
    (user / "results.csv").write_text("months of work\n")
    line = one_error_line(run_suite(world, "--st-report=st3/important.json"))
    assert "important_data" in line and "not created by aclcts" in line
    assert (user / "results.csv").read_text() == "months of work\n" and sorted(p.name for p in user.iterdir()) == [
        "results.csv"]
    assert not (world / "st3" / "important.json").exists()


def test_an_st_report_replaces_its_own_data_folder_of_a_previous_run(world):
    for _ in range(2):
        result = run_suite(world, "--st-report=st.json")
        assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    data = world / "st_data"
    assert (data / OWNER_FILE).is_file() and [p.name for p in data.iterdir() if p.is_dir()]
    report = json.loads((world / "st.json").read_text())
    assert report["summary"]["test case count"] == 1
    assert sorted(p.name for p in world.iterdir() if p.name.startswith(".")) == []  # no lock file left behind


#: Each output option with each node kind it must not replace (a folder is what --alluredir and --model-cache name).
OPTION_NODES = [(option, kind) for option in ("--report", "--st-report", "--alluredir", "--model-cache")
                for kind in NODE_KINDS if not (kind == "folder" and option in ("--alluredir", "--model-cache"))]


@pytest.mark.parametrize("option, kind", OPTION_NODES)
def test_an_output_option_never_replaces_a_special_file_or_a_folder(world, option, kind):
    node = make_node(world / "target", kind)
    before = node_state(node)
    line = one_error_line(run_suite(world, f"{option}=target"))
    assert f"{option}=target" in line and kind in line
    assert node_state(node) == before


@pytest.mark.parametrize("kind", NODE_KINDS)
def test_update_golden_never_replaces_a_special_file_or_a_folder(world, kind):
    store = world / "golden"
    shutil.copytree(ROOT / "golden", store)
    manifest = json.loads((store / "manifest.json").read_text())
    victim = store / next(iter(manifest["entries"].values()))["file"]
    victim.unlink()
    make_node(victim, kind)
    before = node_state(victim)
    line = one_error_line(run_suite(world, "--golden-dir=golden", "--update-golden"))
    assert "--update-golden" in line and kind in line
    assert node_state(victim) == before


def test_report_dev_null_is_refused_as_not_a_regular_file(world):
    line = one_error_line(run_suite(world, "--report=/dev/null"))
    assert line == "ERROR: --report=/dev/null: /dev/null is a character device, expected a regular file or a new name"


@pytest.mark.parametrize("option", ["--report", "--st-report"])
def test_an_unwritable_report_path_is_refused_before_any_test(world, option):
    (world / "file").write_text("")
    result = run_suite(world, f"{option}=file/sub/out.json")
    line = one_error_line(result)
    assert f"{option}=file/sub/out.json" in line and "is a regular file, not a folder" in line
    assert "passed" not in result.stdout
