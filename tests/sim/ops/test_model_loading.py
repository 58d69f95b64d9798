"""Model loading choices the documentation leaves open, as the simulator makes them (the documented contract:
conformance/test_load.py): a relative model folder resolves against the working directory, and acl.op.load and
acl.op.set_model_dir fill one registry."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from opkit import Device, binary

OK = 0


def _om_bytes(folder: Path) -> bytes:
    (model,) = sorted(folder.glob("*.om"))
    return model.read_bytes()


def _add(shape: list[int]) -> dict:
    return binary("Add", "int32", shape)


def test_set_model_dir_accepts_a_relative_path(acl: Any, dev: Device, models: Callable[..., Path], tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    models([_add([3, 3])])
    monkeypatch.chdir(tmp_path)
    assert acl.op.set_model_dir("models") == OK
    assert dev.add_int32([3, 3]) == OK


def test_load_and_set_model_dir_share_one_registry(acl: Any, dev: Device, load_bytes: Callable[[bytes], int],
                                                  models: Callable[..., Path]) -> None:
    assert load_bytes(_om_bytes(models([_add([3, 3])], "loaded"))) == OK
    assert acl.op.set_model_dir(str(models([_add([4, 4])], "dir"))) == OK
    assert load_bytes(_om_bytes(models([_add([5, 5])], "later"))) == OK
    for shape in ([3, 3], [4, 4], [5, 5]):
        assert dev.add_int32(shape) == OK
