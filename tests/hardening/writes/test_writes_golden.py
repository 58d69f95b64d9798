"""The golden store: a name cannot leave the golden folder, and --update-golden killed at any moment leaves a store."""

import json
import os
import random
import shutil
import signal
import statistics
import time
from pathlib import Path

import pytest

from aclcts.cases import CaseFileError
from aclcts.judge import golden

REPO_GOLDEN = Path(__file__).resolve().parents[3] / "golden"

#: One golden case; the new store drops the first cases, changes the values of some and adds others.
DEFINITION = """\
- name: {name}
  why: "kill test"
  exact_because: "docs/precision-policy.md#cann-commercial-standard: integer compute is bitwise"
  op: Add
  family: elementwise
  dtypes: {{x1: int32, x2: int32, y: int32}}
  inputs:
    x1: {{values: [{a}, 1, 2, 3]}}
    x2: {{values: [{b}, 4, 5, 6]}}
  outputs: [y]
"""
OLD = "".join(DEFINITION.format(name=f"add_{k}", a=k, b=1) for k in range(0, 30))
NEW = "".join(DEFINITION.format(name=f"add_{k}", a=k, b=2 if k % 2 else 1) for k in range(6, 36))
#: Kills at least (more, up to three times as many, until some landed mid-write and some after the switch).
KILLS = 40


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_definition_named_out_of_the_folder_is_one_error_naming_file_and_field(tmp_path):
    store = tmp_path / "a" / "b" / "golden"
    shutil.copytree(REPO_GOLDEN, store)
    text = (store / golden.DEFINITIONS).read_text()
    (store / golden.DEFINITIONS).write_text(text.replace("- name: add_int32_wraps", "- name: ../../X", 1))
    before = tree(tmp_path)
    with pytest.raises(CaseFileError) as error:
        golden.generate(store)
    message = str(error.value)
    line = text[:text.index("- name: add_int32_wraps")].count("\n") + 1
    assert message.startswith(f"{store / golden.DEFINITIONS}:{line}: ") and ": name: " in message
    assert "\n" not in message
    assert tree(tmp_path) == before


@pytest.mark.parametrize("name", ["a/b", "..", ".hidden", "", "x" * 101, "tab\tname"])
def test_names_that_are_not_one_plain_file_name_are_refused(tmp_path, name):
    store = tmp_path / "golden"
    store.mkdir()
    (store / golden.DEFINITIONS).write_text(DEFINITION.format(name=json.dumps(name), a=1, b=1))
    with pytest.raises(CaseFileError, match=r"definitions\.yaml:1: golden case 0: name: "):
        golden.load_definitions(store)


def test_a_name_defined_twice_is_refused(tmp_path):
    store = tmp_path / "golden"
    store.mkdir()
    (store / golden.DEFINITIONS).write_text(DEFINITION.format(name="same", a=1, b=1) * 2)
    with pytest.raises(CaseFileError, match=r"definitions\.yaml:11: golden case 1: name: "):
        golden.load_definitions(store)


def test_update_golden_with_a_traversing_name_is_a_usage_error_and_writes_nothing(pytester):
    store = pytester.path / "deep" / "gold"
    shutil.copytree(REPO_GOLDEN, store)
    text = (store / golden.DEFINITIONS).read_text()
    (store / golden.DEFINITIONS).write_text(text.replace("- name: add_int32_wraps", "- name: ../../X", 1))
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    before = tree(store.parent)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist", "--update-golden",
                                           f"--golden-dir={store}")
    assert result.ret == 4
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    assert not list(pytester.path.rglob("X.npz")) and not (pytester.path.parent / "X.npz").exists()
    assert tree(store.parent) == before


def test_a_manifest_entry_pointing_outside_the_folder_is_refused(tmp_path):
    store = tmp_path / "golden"
    shutil.copytree(REPO_GOLDEN, store)
    (tmp_path / "elsewhere.npz").write_bytes((store / "add_int32_wraps.npz").read_bytes())
    manifest = json.loads((store / golden.MANIFEST).read_text())
    manifest["entries"]["add_int32_wraps"]["file"] = "../elsewhere.npz"
    (store / golden.MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(golden.GoldenError, match="outside the golden folder"):
        golden.load_expected(store, "add_int32_wraps")


def _store(folder: Path, definitions: str) -> dict[str, str]:
    """Generate a store from definitions in folder; its manifest's file and sha256 per name."""
    folder.mkdir()
    (folder / golden.DEFINITIONS).write_text(definitions)
    golden.generate(folder)
    return _listing(folder)


def _listing(folder: Path) -> dict[str, tuple[str, str]]:
    entries = json.loads((folder / golden.MANIFEST).read_text())["entries"]
    return {name: (entry["file"], entry["sha256"]) for name, entry in entries.items()}


def _run_killed(folder: Path, delay: float | None) -> float:
    """Fork a writer that runs generate(folder); SIGKILL it after delay (None: let it finish); the seconds it ran."""
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            golden.generate(folder)
        except BaseException:
            code = 1
        os._exit(code)
    if delay is not None:
        time.sleep(delay)
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    if delay is None:
        assert os.waitstatus_to_exitcode(status) == 0
    return time.perf_counter() - start


def test_update_golden_killed_at_random_moments_leaves_the_old_or_the_new_store(tmp_path):
    old_listing = _store(tmp_path / "old", OLD)
    new_listing = _store(tmp_path / "new", NEW)
    seed = tmp_path / "seed"
    shutil.copytree(tmp_path / "old", seed)
    (seed / golden.DEFINITIONS).write_text(NEW)
    durations = []
    for run in range(3):
        shutil.copytree(seed, tmp_path / f"full{run}")
        durations.append(_run_killed(tmp_path / f"full{run}", None))
        assert _listing(tmp_path / f"full{run}") == new_listing
    span = statistics.median(durations)
    rng = random.Random(22)
    outcomes = {"old": 0, "old, new files beside it": 0, "new": 0}
    k = 0
    while k < KILLS or not (outcomes["old, new files beside it"] and outcomes["new"]) and k < 3 * KILLS:
        k += 1
        work = tmp_path / f"kill{k}"
        shutil.copytree(seed, work)
        _run_killed(work, rng.uniform(0, span))
        golden.verify(work)
        listing = _listing(work)
        assert listing in (old_listing, new_listing), f"kill {k}: the manifest is neither the old nor the new one"
        if listing == new_listing:
            outcomes["new"] += 1
        elif {p.name for p in work.glob("*.npz")} - {f for f, _ in old_listing.values()}:
            outcomes["old, new files beside it"] += 1
        else:
            outcomes["old"] += 1
        golden.generate(work)
        assert _listing(work) == new_listing
        assert sorted(p.name for p in work.glob("*.npz")) == sorted(f for f, _ in new_listing.values())
        assert not [p for p in work.iterdir() if p.name.endswith(".tmp")]
    print(f"{k} kills within {span * 1000:.0f} ms of starting: {outcomes}")
    assert outcomes["old, new files beside it"] and outcomes["new"], outcomes


def test_a_listed_file_that_is_a_fifo_is_reported_and_replaced_by_update_golden(tmp_path):
    store = tmp_path / "golden"
    shutil.copytree(REPO_GOLDEN, store)
    (store / "add_int32_wraps.npz").unlink()
    os.mkfifo(store / "add_int32_wraps.npz")
    with pytest.raises(golden.GoldenError, match="not a regular file"):
        golden.verify(store)
    golden.generate(store)
    assert "add_int32_wraps" in golden.verify(store)
