"""The model cache: an entry is complete or absent, a corrupted one is rebuilt with a warning, killed builds go."""

import json
import os
import signal
import time

import pytest
from counting_compiler import Compiler

from aclcts.drive import model_cache

SOC = "Ascend910B1"
TENSOR = {"format": "ND", "shape": [3], "type": "float"}
ELEMENTS = [{"op": op, "input_desc": [TENSOR, TENSOR], "output_desc": [TENSOR]} for op in ("Add", "Mul", "Sub")]

ADD_CASE = """\
op: Add
policy: elementwise
source: "REG_OP(Add)"
inputs: [x1, x2]
outputs: [y]
dtypes: [float32]
shapes:
  - [[3], [3]]
"""


def snapshot(models):
    return {p.name: p.read_bytes() for p in models.iterdir()}


def test_an_entry_index_holds_a_checksum_per_model(tmp_path):
    models = model_cache.cached_models(ELEMENTS, SOC, tmp_path, Compiler())
    index = json.loads((models.parent / model_cache.MARKER).read_text())
    assert sorted(index["models"]) == sorted(p.name for p in models.iterdir()) and len(index["models"]) == 3


@pytest.mark.parametrize("damage", ["flip a byte", "truncate", "add a file", "remove the index", "a FIFO"])
def test_a_damaged_entry_is_detected_on_use_and_rebuilt_with_a_warning(tmp_path, damage):
    compiler = Compiler()
    models = model_cache.cached_models(ELEMENTS, SOC, tmp_path, compiler)
    good = snapshot(models)
    victim = sorted(models.iterdir())[1]
    if damage == "flip a byte":
        data = bytearray(victim.read_bytes())
        data[len(data) // 2] ^= 0x01
        victim.write_bytes(bytes(data))
    elif damage == "truncate":
        victim.write_bytes(victim.read_bytes()[:10])
    elif damage == "add a file":
        (models / "9_Stray.om").write_bytes(b"not a model")
    elif damage == "a FIFO":
        victim.unlink()
        os.mkfifo(victim)
    else:
        (models.parent / model_cache.MARKER).unlink()
    with pytest.warns(model_cache.ModelCacheWarning):
        again = model_cache.cached_models(ELEMENTS, SOC, tmp_path, compiler)
    assert compiler.calls == 2 and again == models and snapshot(again) == good
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(model_cache.BUILD_PREFIX)]


def test_an_intact_entry_is_used_without_a_warning_or_a_compilation(tmp_path, recwarn):
    compiler = Compiler()
    model_cache.cached_models(ELEMENTS, SOC, tmp_path, compiler)
    model_cache.cached_models(ELEMENTS, SOC, tmp_path, compiler)
    assert compiler.calls == 1
    assert not [w for w in recwarn if issubclass(w.category, model_cache.ModelCacheWarning)]


def test_a_build_killed_midway_leaves_no_entry_and_its_folder_is_removed_on_the_next_use(tmp_path):
    pid = os.fork()
    if pid == 0:
        try:
            model_cache.cached_models(ELEMENTS, SOC, tmp_path, Compiler(during=lambda: time.sleep(60)))
        finally:
            os._exit(1)
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob(f"{model_cache.BUILD_PREFIX}*/models/*.om")) and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    (build,) = tmp_path.glob(f"{model_cache.BUILD_PREFIX}*")
    assert [p.name for p in tmp_path.iterdir()] == [build.name]  # no entry: complete or absent
    compiler = Compiler()
    models = model_cache.cached_models(ELEMENTS, SOC, tmp_path, compiler)
    assert compiler.calls == 1 and not build.exists() and len(snapshot(models)) == 3


def test_stale_build_folders_go_by_age_or_because_their_builder_is_gone(tmp_path):
    now = time.time()
    host = model_cache._build_prefix()[len(model_cache.BUILD_PREFIX):].rsplit("-", 2)[0]
    gone = _finished_pid()
    folders = {
        f".build-{host}-{gone}-dead": (10, True),  # made here by a process that has ended
        f".build-{host}-{os.getpid()}-live": (10, False),  # made by this live process
        f".build-elsewhere-{gone}-remote": (10, False),  # another host's: only age counts
        ".build-old": (model_cache.STALE_BUILD_MINUTES * 60 + 60, True),
        ".build-young": (60, False),
        "entry": (10 * 86400, False),  # entries are prune()'s, not removed as builds
    }
    for name, (age, _) in folders.items():
        (tmp_path / name).mkdir()
        os.utime(tmp_path / name, (now - age, now - age))
    removed = model_cache.remove_stale_builds(tmp_path, now=now)
    assert sorted(p.name for p in removed) == sorted(n for n, (_, stale) in folders.items() if stale)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(n for n, (_, stale) in folders.items() if not stale)


def _finished_pid() -> int:
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    return pid


def test_a_run_on_a_corrupted_cache_rebuilds_it_and_passes(pytester, tmp_path):
    pytester.makefile(".yaml", **{"cases/add": ADD_CASE})
    pytester.makepyfile(test_x="def test_x(acl):\n    pass\n")
    # both runs use one key even if aclcts' source changes between them (the key is not what is tested here)
    pytester.makeconftest("from aclcts.drive import model_cache\n\nmodel_cache.source_fingerprint = lambda: 'fixed'\n")
    cache = tmp_path / "cache"
    args = ("-p", "no:cacheprovider", "-p", "no:xdist", f"--model-cache={cache}")
    assert pytester.runpytest_subprocess(*args).ret == 0
    (entry,) = cache.iterdir()
    for model in (entry / "models").iterdir():
        model.write_bytes(model.read_bytes()[:-7] + b"garbage")
    result = pytester.runpytest_subprocess(*args)
    assert result.ret == 0
    assert result.parseoutcomes().get("warnings", 0) == 1
    assert model_cache._problem(entry) is None
