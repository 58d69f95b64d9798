"""The compiled-model cache: reuse, keys, repair, races, pruning, errors, and the --model-cache option."""

import os
import time

import pytest
from counting_compiler import Compiler

import aclcts
from aclcts.core.outputs import OWNER_FILE
from aclcts.drive import model_cache
from aclcts.atc import generate_singleop_json
from aclcts.cases import load_cases

SOC = "Ascend910B1"


@pytest.fixture(scope="module")
def elements(tmp_path_factory, add_case_text):
    folder = tmp_path_factory.mktemp("cases")
    (folder / "add.yaml").write_text(add_case_text)
    return generate_singleop_json(list(dict.fromkeys(c.op_model(SOC) for c in load_cases([str(folder)]))))


def test_a_library_is_compiled_once_and_then_reused(elements, tmp_path):
    compiler = Compiler()
    first = model_cache.cached_models(elements, SOC, tmp_path, compiler)
    second = model_cache.cached_models(elements, SOC, tmp_path, compiler)
    assert compiler.calls == 1 and first == second
    assert sorted(p.name for p in first.iterdir()) and not list(tmp_path.glob(".build-*"))


def test_the_key_follows_the_elements_and_the_soc(elements):
    key = model_cache.entry_key(elements, SOC)
    assert key == model_cache.entry_key(list(elements), SOC)
    assert key != model_cache.entry_key(elements, "Ascend310P3")
    assert key != model_cache.entry_key(elements[:-1], SOC)


def test_the_key_follows_the_aclcts_source(tmp_path, monkeypatch):
    package = tmp_path / "pkg"
    (package / "atc").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "atc" / "compiler.py").write_text("VERSION = 1\n")
    monkeypatch.setattr(aclcts, "__file__", str(package / "__init__.py"))
    before = model_cache.source_fingerprint()
    (package / "atc" / "compiler.py").write_text("VERSION = 2\n")
    assert model_cache.source_fingerprint() != before


def test_an_entry_missing_a_model_is_compiled_again_with_a_warning(elements, tmp_path):
    compiler = Compiler()
    models = model_cache.cached_models(elements, SOC, tmp_path, compiler)
    count = len(list(models.iterdir()))
    next(models.iterdir()).unlink()
    with pytest.warns(model_cache.ModelCacheWarning):
        again = model_cache.cached_models(elements, SOC, tmp_path, compiler)
    assert compiler.calls == 2 and again == models and len(list(again.iterdir())) == count


def test_a_process_that_loses_the_race_uses_the_winners_entry(elements, tmp_path):
    winner = Compiler()
    loser = Compiler(during=lambda: model_cache.cached_models(elements, SOC, tmp_path, winner))
    models = model_cache.cached_models(elements, SOC, tmp_path, loser)
    assert (loser.calls, winner.calls) == (1, 1)
    assert models.is_dir() and not list(tmp_path.glob(".build-*"))


def test_pruning_removes_old_and_surplus_entries_and_stale_builds(tmp_path, monkeypatch):
    now = time.time()
    monkeypatch.setattr(model_cache, "MAX_ENTRIES", 3)
    ages = {"kept": 30 * 86400, "old": 15 * 86400, "a": 10, "b": 20, "c": 30, ".build-x": 2 * 86400, ".build-y": 60}
    for name, age in ages.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / OWNER_FILE).touch()
        os.utime(tmp_path / name, (now - age, now - age))
    removed = model_cache.prune(tmp_path, keep=tmp_path / "kept", now=now)
    assert sorted(p.name for p in removed) == [".build-x", "c", "old"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [".build-y", "a", "b", "kept"]


def test_a_cache_folder_that_cannot_be_created_is_a_clear_error(elements, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(model_cache.ModelCacheError, match=r"model cache .*file.*cannot create"):
        model_cache.cached_models(elements, SOC, blocker / "models", Compiler())


def _run(project, *args):
    return project.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist", *args)


def test_the_option_reuses_the_cache_and_off_leaves_it_alone(project, tmp_path):
    project.makepyfile(test_x="def test_x(acl):\n    pass\n")
    cache = tmp_path / "cache"
    assert _run(project, f"--model-cache={cache}").ret == 0
    (entry,) = cache.iterdir()
    stamps = {p.name: p.stat().st_mtime_ns for p in (entry / "models").iterdir()}
    assert _run(project, f"--model-cache={cache}").ret == 0
    assert {p.name: p.stat().st_mtime_ns for p in (entry / "models").iterdir()} == stamps
    assert _run(project, "--model-cache=off").ret == 0
    assert list(cache.iterdir()) == [entry]


def test_an_unwritable_default_cache_warns_and_compiles_for_the_session(project, tmp_path, monkeypatch):
    project.makepyfile(test_x="def test_x(acl):\n    pass\n")
    (tmp_path / "file").write_text("")
    monkeypatch.setenv(model_cache.ENV, str(tmp_path / "file" / "sub"))
    result = _run(project, "-W", "always::pytest.PytestWarning")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*cannot create a folder there*compiling into the session's temporary folder*"])


def test_a_read_only_cache_entry_is_still_used(elements, tmp_path, monkeypatch):
    models = model_cache.cached_models(elements, SOC, tmp_path, Compiler())

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "utime", refuse)
    assert model_cache.cached_models(elements, SOC, tmp_path, Compiler()) == models


def test_an_unwritable_cache_option_is_a_one_line_error(project, tmp_path):
    project.makepyfile(test_x="def test_x(acl):\n    pass\n")
    (tmp_path / "file").write_text("")
    result = _run(project, f"--model-cache={tmp_path / 'file' / 'sub'}")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["ERROR: --model-cache=*file/sub: *file/sub cannot be written: *file is a regular "
                                 "file, not a folder"])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
