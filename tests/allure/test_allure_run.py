"""What a run writes into --alluredir besides allure-pytest's own results: environment.properties, categories.json
that sorts each kind of failure into its one category, the documented acl steps, crashed and flaky tests."""

import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

from aclcts.core.error_codes import ErrorCodeMismatch
from aclcts.drive.executor import GuardBandError
from aclcts.drive.flow import AclCallError
from aclcts.drive.resources import LeakedObjects
from aclcts.judge.decorator import PrecisionMismatch
from aclcts.pytest_plugin.allure_categories import EXCEPTIONS
from allure_selection import CASES, CAST, EXECUTE, HANDLE, ROOT

MALLOC_ZERO = "test_invalid_call_gets_the_documented_outcome[rt.malloc.size_0.normal_only]"
FAULTS = "execute_overwrites_output,malloc_size_zero_succeeds"
SEED = 4242
KINDS = textwrap.dedent('''
    import os
    import time
    from pathlib import Path

    import pytest


    @pytest.fixture
    def device_that_does_not_come_up():
        raise RuntimeError("device 0 did not come up")


    def test_fails_at_setup(device_that_does_not_come_up):
        pass


    def test_leaks_a_tensor_desc(acl):
        acl.create_tensor_desc(0, [2, 2], 2)


    def test_hangs():
        time.sleep(60)


    def test_kills_its_worker():
        os._exit(3)


    @pytest.mark.flaky(reruns=1)
    def test_fails_on_its_first_run_only():
        marker = Path(os.environ["FIRST_RUN_MARKER"])
        if not marker.exists():
            marker.write_text("ran")
            raise AssertionError("first run")


    def test_passes():
        pass
''')


def run(command, cwd, env_extra, timeout=300):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACLCTS_")}
    env.update(PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]), **env_extra)
    return subprocess.run([sys.executable, "-m", "pytest", *command, "-p", "no:cacheprovider", "-q"], check=False,
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def read_results(folder):
    """Every result by test name, as a list in order of start (a rerun test has one result per run)."""
    found = {}
    for result in sorted((json.loads(p.read_text()) for p in folder.glob("*-result.json")), key=lambda r: r["start"]):
        found.setdefault(result["name"], []).append(result)
    return found


def unescape(text):
    """A .properties key or value without its backslash escapes."""
    return re.sub(r"\\(?:u([0-9a-fA-F]{4})|(.))",
                  lambda m: chr(int(m[1], 16)) if m[1] else {"n": "\n", "r": "\r", "t": "\t"}.get(m[2], m[2]), text)


def parse_properties(text):
    """A .properties file of key=value lines as a dict."""
    pairs = (re.fullmatch(r"((?:[^\\=]|\\.)*)=(.*)", line).groups() for line in text.splitlines())
    return {unescape(key): unescape(value) for key, value in pairs}


def matching(categories, result):
    """The names of the categories a result falls in, by the documented fields of categories.json."""
    details = result.get("statusDetails") or {}
    names = []
    for category in categories:
        if result["status"] not in category.get("matchedStatuses", [result["status"]]):
            continue
        if "messageRegex" in category and not re.fullmatch(category["messageRegex"], details.get("message") or ""):
            continue
        if "traceRegex" in category and not re.fullmatch(category["traceRegex"], details.get("trace") or ""):
            continue
        if "flaky" in category and bool(details.get("flaky")) != category["flaky"]:
            continue
        names.append(category["name"])
    return names


@pytest.fixture(scope="module")
def faulty_run(tmp_path_factory):
    """A conformance selection under two simulator faults (a corrupted output, malloc of size 0 accepted), -n 2 on
    devices 0 and 1."""
    base = tmp_path_factory.mktemp("allure-faults")
    (base / "golden").mkdir()
    selection = [f"conformance/test_execute.py::{EXECUTE}", f"conformance/test_handle.py::{HANDLE}",
                 f"conformance/test_cast.py::{CAST}", f"conformance/test_negative.py::{MALLOC_ZERO}"]
    done = run([*selection, f"--alluredir={base / 'results'}", "-n", "2", "--devices=0-1", f"--aclcts-seed={SEED}",
                f"--golden-dir={base / 'golden'}", "--with-step-tests", "--cases", str(CASES)], ROOT,
               {"ACLCTS_SIM_FAULTS": FAULTS, "ACLCTS_TEST_MARK": "ümlaut = a:b"})
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    return base / "results"


@pytest.fixture(scope="module")
def kinds_run(tmp_path_factory):
    """Tests that fail at setup, leak, hang past --timeout, kill their worker, pass on a rerun and pass, -n 2."""
    base = tmp_path_factory.mktemp("allure-kinds")
    (base / "test_kinds.py").write_text(KINDS)
    done = run(["test_kinds.py", f"--alluredir={base / 'results'}", "-n", "2", "--timeout=5"], base,
               {"FIRST_RUN_MARKER": str(base / "first-run")})
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    return base / "results"


@pytest.fixture(scope="module")
def faulty_results(faulty_run):
    return read_results(faulty_run)


@pytest.fixture(scope="module")
def kinds_results(kinds_run):
    return read_results(kinds_run)


def only(results, name):
    (result,) = results[name]
    return result


# ------------------------------------------------------------------------------------------- environment


def test_environment_properties_name_the_backend_soc_seed_faults_and_settings(faulty_run):
    values = parse_properties((faulty_run / "environment.properties").read_text(encoding="ascii"))
    assert values["backend"] == "sim"
    assert values["seed"] == str(SEED)
    assert values["sim.faults"] == FAULTS
    assert values["env.ACLCTS_SIM_FAULTS"] == FAULTS
    assert values["env.ACLCTS_TEST_MARK"] == "ümlaut = a:b"
    assert values["devices"] == "0, 1"
    assert values["workers"] == "2"
    assert values["cases"] == str(CASES)
    from aclcts.sim import acl
    assert values["soc"] == acl.get_soc_name()
    major, minor, patch, _ = acl.get_version()
    assert values["acl.version"] == f"{major}.{minor}.{patch}"


def test_environment_properties_record_the_versions_the_run_used(faulty_run):
    import importlib.metadata
    import platform

    import numpy

    values = parse_properties((faulty_run / "environment.properties").read_text(encoding="ascii"))
    assert values["python.version"] == platform.python_version()
    assert values["numpy.version"] == numpy.__version__
    assert values["pytest.version"] == pytest.__version__
    assert values["aclcts.version"] == importlib.metadata.version("aclcts")


def test_environment_properties_are_written_once_for_the_run(faulty_run):
    assert [p.name for p in faulty_run.iterdir() if "environment" in p.name] == ["environment.properties"]


# -------------------------------------------------------------------------------------------- categories


def test_category_exception_names_are_aclcts_exception_classes():
    named = {name for names in EXCEPTIONS.values() for name in names}
    classes = (PrecisionMismatch, GuardBandError, ErrorCodeMismatch, AclCallError, LeakedObjects)
    assert named == {cls.__name__ for cls in classes}


@pytest.mark.parametrize("name, category", [(EXECUTE, "precision"), (HANDLE, "precision"),
                                            (MALLOC_ZERO, "error code")])
def test_each_failure_of_the_faulty_run_falls_in_its_one_category(faulty_run, faulty_results, name, category):
    categories = json.loads((faulty_run / "categories.json").read_text())
    result = only(faulty_results, name)
    assert result["status"] == "failed"
    assert matching(categories, result) == [category]


def test_the_faulty_runs_failures_group_by_category_and_op_not_one_group_each(faulty_run, faulty_results):
    """Allure's Categories tab groups a category's results by their message: each (category, op) is one group."""
    categories = json.loads((faulty_run / "categories.json").read_text())
    failed = [r for results in faulty_results.values() for r in results if r["status"] in ("failed", "broken")]
    groups, kinds = {}, set()
    for result in failed:
        (category,) = matching(categories, result)
        case = result["name"].partition("[")[2]
        op = case.split("-")[0] if case[:1].isupper() else None
        groups.setdefault((category, result["statusDetails"]["message"]), set()).add(op)
        kinds.add((category, op))
    assert len(failed) > len(kinds) >= 2  # two faults; the Add case fails both its execute_v2 and its handle test
    assert len(groups) == len(kinds) and all(len(ops) == 1 for ops in groups.values()), groups
    execute = only(faulty_results, EXECUTE)["statusDetails"]
    assert "max abs" in execute["trace"] and "Add-float16-4x8_4x8" in execute["trace"]  # the whole message is kept


def test_passing_results_fall_in_no_category(faulty_run, faulty_results):
    categories = json.loads((faulty_run / "categories.json").read_text())
    passed = [r for results in faulty_results.values() for r in results if r["status"] == "passed"]
    assert passed
    assert all(matching(categories, r) == [] for r in passed)


@pytest.mark.parametrize("name, status, category", [
    ("test_fails_at_setup", "broken", "setup"),
    ("test_leaks_a_tensor_desc", "failed", "leak"),
    ("test_hangs", "failed", "timeout"),
    ("test_kills_its_worker", "broken", "crash"),
])
def test_each_kind_of_failure_falls_in_its_one_category(kinds_run, kinds_results, name, status, category):
    categories = json.loads((kinds_run / "categories.json").read_text())
    result = only(kinds_results, name)
    assert result["status"] == status
    assert matching(categories, result) == [category]


def test_only_the_passing_rerun_of_a_flaky_test_falls_in_flaky(kinds_run, kinds_results):
    categories = json.loads((kinds_run / "categories.json").read_text())
    first, second = kinds_results["test_fails_on_its_first_run_only"]
    assert (first["status"], second["status"]) == ("failed", "passed")
    assert second["statusDetails"]["flaky"] is True
    assert not (first.get("statusDetails") or {}).get("flaky")
    assert matching(categories, second) == ["flaky"]
    assert matching(categories, only(kinds_results, "test_passes")) == []


# ------------------------------------------------------------------------------------------------ crash


def test_a_crashed_test_gets_a_broken_result_from_the_controller(kinds_results):
    result = only(kinds_results, "test_kills_its_worker")
    assert result["status"] == "broken"
    assert "test_kinds.py::test_kills_its_worker" in result["statusDetails"]["message"]
    assert {label["name"]: label["value"] for label in result["labels"]}["suite"] == "test_kinds"


def test_the_run_goes_on_after_a_crash_and_a_timeout(kinds_results):
    assert only(kinds_results, "test_passes")["status"] == "passed"
    assert set(kinds_results) == {"test_fails_at_setup", "test_leaks_a_tensor_desc", "test_hangs",
                                  "test_kills_its_worker", "test_fails_on_its_first_run_only", "test_passes"}


# ------------------------------------------------------------------------------------------------ steps


def steps_of(result):
    """(depth, name, status) of every step, depth first."""
    found = []

    def walk(steps, depth):
        for step in steps:
            found.append((depth, step["name"], step["status"]))
            walk(step.get("steps", []), depth + 1)
    walk(result.get("steps", []), 0)
    return found


def top(result):
    return [name for depth, name, _ in steps_of(result) if depth == 0]


def children(result, group):
    steps = next(s for s in result["steps"] if s["name"] == group)
    return [s["name"] for s in steps.get("steps", [])]


def test_an_execute_v2_case_shows_the_documented_steps_per_execution(faulty_results):
    result = only(faulty_results, EXECUTE)
    assert top(result) == ["stage", "execution 1", "release"]
    assert children(result, "stage") == ["acl.op.create_attr"] + [
        "acl.create_tensor_desc", "acl.rt.malloc", "acl.rt.memcpy (H2D)", "acl.create_data_buffer"] * 2 + [
        "acl.create_tensor_desc", "acl.rt.malloc", "acl.create_data_buffer"]
    assert children(result, "execution 1") == ["acl.rt.memset", "acl.op.execute_v2", "acl.rt.synchronize_stream",
                                               "acl.rt.malloc_host", "acl.rt.memcpy (D2H)"]
    assert children(result, "release") == ["acl.destroy_data_buffer", "acl.destroy_tensor_desc", "acl.op.destroy_attr",
                                           "acl.rt.free", "acl.rt.free_host"]
    assert {status for _, _, status in steps_of(result)} == {"passed"}


def test_a_handle_case_creates_its_handle_once_and_executes_it_per_input_set(faulty_results):
    result = only(faulty_results, HANDLE)
    assert top(result) == ["stage", "acl.op.create_handle", "execution 1", "execution 2", "execution 3", "release"]
    assert children(result, "execution 2")[:2] == ["acl.rt.memcpy (H2D)"] * 2
    assert "acl.op.execute_with_handle" in children(result, "execution 3")
    assert children(result, "release")[0] == "acl.op.destroy_handle"


def test_a_cast_case_shows_acl_op_cast(faulty_results):
    result = only(faulty_results, CAST)
    assert top(result) == ["stage", "execution 1", "release"]
    assert children(result, "execution 1") == ["acl.rt.memcpy (H2D)", "acl.rt.memset", "acl.op.cast",
                                               "acl.rt.synchronize_stream", "acl.rt.malloc_host",
                                               "acl.rt.memcpy (D2H)", "release"]


def test_a_failing_acl_call_fails_its_step(tmp_path):
    (tmp_path / "test_call.py").write_text(textwrap.dedent('''
        from aclcts.drive import flow


        def test_malloc_too_much(acl):
            with flow.resources(acl) as res:
                flow.malloc(res, 1 << 62)
    '''))
    done = run(["test_call.py", f"--alluredir={tmp_path / 'results'}"], tmp_path, {})
    assert done.returncode == 1, done.stdout[-3000:]
    result = only(read_results(tmp_path / "results"), "test_malloc_too_much")
    assert ("acl.rt.malloc", "failed") in [(name, status) for _, name, status in steps_of(result)]
    categories = json.loads((tmp_path / "results" / "categories.json").read_text())
    assert matching(categories, result) == ["error code"]
    values = parse_properties((tmp_path / "results" / "environment.properties").read_text(encoding="ascii"))
    assert (values["workers"], values["devices"]) == ("0", "0")
