"""The model cache in a folder with other content (issue 37, finding 3): eviction and repair remove only the entries
and build folders the cache made (they hold the owner file), never a user's folder, however old or oddly named."""

from __future__ import annotations

import os
import time

import pytest
from counting_compiler import Compiler

from aclcts.core.outputs import OWNER_FILE
from aclcts.drive import model_cache

SOC = "Ascend910B1"
TENSOR = {"format": "ND", "shape": [3], "type": "float"}
ELEMENTS = [{"op": "Add", "input_desc": [TENSOR, TENSOR], "output_desc": [TENSOR]}]
OLD = 30 * 86400


def age(path, seconds):
    stamp = time.time() - seconds
    os.utime(path, (stamp, stamp))


def user_tree(root):
    """70 user folders and an older project folder, all older than any entry may live; their files by path."""
    files = {}
    for index in range(70):
        folder = root / f"user-{index:02d}"
        folder.mkdir()
        (folder / "notes.txt").write_text(f"user data {index}\n")
        files[folder / "notes.txt"] = f"user data {index}\n"
        age(folder, OLD + index)
    project = root / "old-project" / "src"
    project.mkdir(parents=True)
    (project / "main.py").write_text("print('hello')\n")
    files[project / "main.py"] = "print('hello')\n"
    age(root / "old-project", 10 * OLD)
    killed = root / f"{model_cache.BUILD_PREFIX}{model_cache._host()}-999999999-abcdefgh"
    killed.mkdir()
    (killed / "mine.txt").write_text("named like a killed build, made by a user\n")
    files[killed / "mine.txt"] = "named like a killed build, made by a user\n"
    age(killed, OLD)
    return files


def test_eviction_removes_only_the_caches_own_entries(tmp_path, monkeypatch):
    monkeypatch.setattr(model_cache, "MAX_ENTRIES", 3)
    files = user_tree(tmp_path)
    stale = []
    for index in range(4):
        entry = tmp_path / f"{index:032x}"
        (entry / "models").mkdir(parents=True)
        (entry / OWNER_FILE).touch()
        age(entry, OLD)
        stale.append(entry)
    models = model_cache.cached_models(ELEMENTS, SOC, tmp_path, Compiler())
    assert models.is_dir()
    assert {path: path.read_text() for path in files} == files
    assert not any(entry.exists() for entry in stale)
    assert len([p for p in tmp_path.iterdir() if p.name.startswith("user-")]) == 70


def test_a_user_folder_named_like_an_entry_is_left_alone(tmp_path):
    entry = tmp_path / model_cache.entry_key(ELEMENTS, SOC)
    entry.mkdir()
    (entry / "thesis.tex").write_text("chapter 1\n")
    with pytest.raises(model_cache.ModelCacheError, match="was not made by aclcts"):
        model_cache.cached_models(ELEMENTS, SOC, tmp_path, Compiler())
    assert sorted(p.name for p in entry.iterdir()) == ["thesis.tex"]
    assert not list(tmp_path.glob(f"{model_cache.BUILD_PREFIX}*"))


def test_an_entry_is_removed_by_a_rename_so_a_reader_never_sees_part_of_one(tmp_path, monkeypatch):
    monkeypatch.setattr(model_cache, "MAX_ENTRIES", 1)
    first = model_cache.cached_models(ELEMENTS, SOC, tmp_path, Compiler())
    age(first.parent, OLD)
    removed = []
    real = model_cache.shutil.rmtree
    monkeypatch.setattr(model_cache.shutil, "rmtree",
                        lambda path, **kwargs: (removed.append(os.path.basename(path)), real(path, **kwargs)))
    other = [{**ELEMENTS[0], "op": "Mul"}]
    model_cache.cached_models(other, SOC, tmp_path, Compiler())
    assert not first.parent.exists()
    assert first.parent.name not in removed and all(name.startswith(model_cache.BUILD_PREFIX) for name in removed)
