"""acl.op.set_model_dir and acl.op.load (pyacl-api.md §6.1, §13; atc-singleop.md §8)."""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from opkit import Device, binary, compile_ops

from aclcts.core.constants import ErrorCode

OK = 0
INVALID_PARAM = int(ErrorCode.ACL_ERROR_INVALID_PARAM)
REPEAT_INITIALIZE = int(ErrorCode.ACL_ERROR_REPEAT_INITIALIZE)
DESERIALIZE_MODEL = int(ErrorCode.ACL_ERROR_DESERIALIZE_MODEL)
PARSE_MODEL = int(ErrorCode.ACL_ERROR_PARSE_MODEL)
READ_MODEL_FAILURE = int(ErrorCode.ACL_ERROR_READ_MODEL_FAILURE)
OP_NOT_FOUND = int(ErrorCode.ACL_ERROR_OP_NOT_FOUND)

#: Folder (relative to the model dir) → the Add shape compiled into it; level 1 is the model dir itself.
LEVELS = {1: ("", [2, 1]), 2: ("a", [2, 2]), 3: ("a/b", [2, 3]), 4: ("a/b/c", [2, 4])}


def _add(shape: list[int]) -> dict:
    return binary("Add", "int32", shape)


def _om_bytes(folder: Path) -> bytes:
    (model,) = sorted(folder.glob("*.om"))
    return model.read_bytes()


@pytest.fixture
def nested(tmp_path: Path) -> Path:
    """A model dir with one Add model per folder level 1 to 4."""
    root = tmp_path / "nested"
    for level, (sub, shape) in LEVELS.items():
        compile_ops([_add(shape)], root / sub if sub else root, tmp_path / f"level{level}.json")
    return root


@pytest.mark.parametrize("level,expected", [(1, OK), (2, OK), (3, OK), (4, OP_NOT_FOUND)])
def test_set_model_dir_reads_three_folder_levels_and_not_the_fourth(
        acl: Any, dev: Device, nested: Path, level: int, expected: int) -> None:
    assert acl.op.set_model_dir(str(nested)) == OK
    assert dev.add_int32(LEVELS[level][1]) == expected


def test_set_model_dir_reads_only_files_ending_in_om(acl: Any, dev: Device, models: Callable[..., Path],
                                                     tmp_path: Path) -> None:
    folder = models([_add([3, 3])])
    other = models([_add([5, 5])], "other")
    data = _om_bytes(other)
    for name in ("model.om.bak", "model.OM", "model", "model.om.txt"):
        (folder / name).write_bytes(data)
    assert acl.op.set_model_dir(str(folder)) == OK
    assert dev.add_int32([3, 3]) == OK
    assert dev.add_int32([5, 5]) == OP_NOT_FOUND


@pytest.mark.parametrize("content", [b"", b"not a model", b"IMOD" + bytes(252), bytes(range(256)) * 3],
                         ids=["empty", "text", "ascend-header", "noise"])
def test_set_model_dir_skips_an_unparseable_om_and_loads_the_others(
        acl: Any, dev: Device, models: Callable[..., Path], content: bytes) -> None:
    folder = models([_add([3, 3]), _add([4, 4])])
    (folder / "broken.om").write_bytes(content)
    assert acl.op.set_model_dir(str(folder)) == OK
    assert dev.add_int32([3, 3]) == OK
    assert dev.add_int32([4, 4]) == OK


def test_set_model_dir_twice_returns_repeat_initialize(acl: Any, session: Any, models: Callable[..., Path]) -> None:
    first = models([_add([3, 3])])
    second = models([_add([4, 4])], "second")
    assert acl.op.set_model_dir(str(first)) == OK
    assert acl.op.set_model_dir(str(second)) == REPEAT_INITIALIZE
    assert acl.op.set_model_dir(str(first)) == REPEAT_INITIALIZE


def test_set_model_dir_repeat_loads_nothing_more(acl: Any, dev: Device, models: Callable[..., Path]) -> None:
    assert acl.op.set_model_dir(str(models([_add([3, 3])]))) == OK
    assert acl.op.set_model_dir(str(models([_add([4, 4])], "second"))) == REPEAT_INITIALIZE
    assert dev.add_int32([4, 4]) == OP_NOT_FOUND


@pytest.mark.parametrize("path", ["does/not/exist", "", "/nonexistent-aclcts-folder/models"])
def test_set_model_dir_with_an_unresolvable_path_returns_read_model_failure(
        acl: Any, session: Any, tmp_path: Path, path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert acl.op.set_model_dir(path) == READ_MODEL_FAILURE


def test_set_model_dir_after_a_failed_call_still_succeeds(acl: Any, dev: Device, models: Callable[..., Path],
                                                          tmp_path: Path) -> None:
    assert acl.op.set_model_dir(str(tmp_path / "missing")) == READ_MODEL_FAILURE
    assert acl.op.set_model_dir(str(models([_add([3, 3])]))) == OK
    assert dev.add_int32([3, 3]) == OK


def test_set_model_dir_of_an_empty_folder_returns_success(acl: Any, dev: Device, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert acl.op.set_model_dir(str(empty)) == OK
    assert dev.add_int32([3, 3]) == OP_NOT_FOUND


def test_set_model_dir_accepts_a_relative_path(acl: Any, dev: Device, models: Callable[..., Path], tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    models([_add([3, 3])])
    monkeypatch.chdir(tmp_path)
    assert acl.op.set_model_dir("models") == OK
    assert dev.add_int32([3, 3]) == OK


@pytest.mark.parametrize("pointer_zero,size_zero", [(True, False), (False, True), (True, True)],
                         ids=["null-pointer", "size-0", "both"])
def test_load_with_null_pointer_or_size_zero_returns_invalid_param(
        acl: Any, session: Any, models: Callable[..., Path], pointer_zero: bool, size_zero: bool) -> None:
    data = _om_bytes(models([_add([3, 3])]))
    ptr = 0 if pointer_zero else acl.util.bytes_to_ptr(data)
    assert acl.op.load(ptr, 0 if size_zero else len(data)) == INVALID_PARAM


@pytest.mark.parametrize("garbage", [b"x", b"not a model at all", bytes(range(256)) * 4, b"\x00" * 64],
                         ids=["one-byte", "text", "noise", "zeros"])
def test_load_of_garbage_returns_deserialize_or_parse_model(acl: Any, load_bytes: Callable[[bytes], int],
                                                            garbage: bytes) -> None:
    assert load_bytes(garbage) in (DESERIALIZE_MODEL, PARSE_MODEL)


def test_load_of_a_real_ascend_om_header_returns_parse_model(load_bytes: Callable[[bytes], int]) -> None:
    fake = b"IMOD" + bytes(252) + b"\x01" * 128
    assert load_bytes(fake) == PARSE_MODEL


def test_load_of_a_truncated_model_fails(load_bytes: Callable[[bytes], int], models: Callable[..., Path]) -> None:
    data = _om_bytes(models([_add([3, 3])]))
    assert load_bytes(data[: len(data) // 2]) in (DESERIALIZE_MODEL, PARSE_MODEL)


def test_loaded_model_executes(dev: Device, load_bytes: Callable[[bytes], int], models: Callable[..., Path]) -> None:
    assert load_bytes(_om_bytes(models([_add([3, 3])]))) == OK
    assert dev.add_int32([3, 3]) == OK
    assert dev.add_int32([4, 4]) == OP_NOT_FOUND


def test_load_copies_the_model_so_the_caller_may_free_its_buffer(
        acl: Any, dev: Device, models: Callable[..., Path]) -> None:
    data = _om_bytes(models([_add([3, 3])]))
    host, ret = acl.rt.malloc_host(len(data))
    assert ret == OK
    ctypes.memmove(host, data, len(data))
    assert acl.op.load(host, len(data)) == OK
    ctypes.memset(host, 0, len(data))
    assert acl.rt.free_host(host) == OK
    assert dev.add_int32([3, 3]) == OK


def test_load_can_be_called_many_times(dev: Device, load_bytes: Callable[[bytes], int],
                                       models: Callable[..., Path]) -> None:
    shapes = [[1, 2], [2, 2], [3, 2], [4, 2]]
    for index, shape in enumerate(shapes):
        assert load_bytes(_om_bytes(models([_add(shape)], f"m{index}"))) == OK
    assert load_bytes(_om_bytes(models([_add(shapes[0])], "again"))) == OK
    for shape in shapes:
        assert dev.add_int32(shape) == OK


def test_load_and_set_model_dir_share_one_registry(acl: Any, dev: Device, load_bytes: Callable[[bytes], int],
                                                  models: Callable[..., Path]) -> None:
    assert load_bytes(_om_bytes(models([_add([3, 3])], "loaded"))) == OK
    assert acl.op.set_model_dir(str(models([_add([4, 4])], "dir"))) == OK
    assert load_bytes(_om_bytes(models([_add([5, 5])], "later"))) == OK
    for shape in ([3, 3], [4, 4], [5, 5]):
        assert dev.add_int32(shape) == OK
