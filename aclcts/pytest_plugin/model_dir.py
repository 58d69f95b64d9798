"""The --model-dir check, made once before any test: one usage line instead of one setup error per test."""

from __future__ import annotations

import os

import pytest

from aclcts.drive.backends import Capabilities
from aclcts.pytest_plugin.run_backend import run_capabilities

#: acl.op.set_model_dir loads the *.om files of the folder and of its subfolders this many levels down (dir, dir/a,
#: dir/a/b; docs/contract/op-load-execute.md#set_model_dir).
MODEL_DIR_LEVELS = 3


def model_dir_problem(path: str) -> str | None:
    """Why path cannot be --model-dir (missing, not a folder, or no *.om model where set_model_dir looks), or None."""
    if not os.path.exists(path):
        return "no such folder"
    if not os.path.isdir(path):
        return "not a folder"
    root = os.path.realpath(path)
    for folder, subfolders, files in os.walk(root):
        if any(name.endswith(".om") for name in files):
            return None
        if os.path.relpath(folder, root).count(os.sep) + (folder != root) >= MODEL_DIR_LEVELS - 1:
            subfolders.clear()
    return f"holds no op models (no *.om file in it or {MODEL_DIR_LEVELS - 1} levels of subfolders below it)"


def check_model_dir(config: pytest.Config) -> None:
    """Stop the run with one usage line if --model-dir is missing on the NPU or names no usable folder.

    A given --model-dir replaces the compiled case library on every backend, so on every backend it must hold op
    models: an empty folder would fail every test that executes an op with ACL_ERROR_OP_NOT_FOUND.
    """
    model_dir = config.getoption("--model-dir")
    problem = missing_model_dir(config, run_capabilities(config))
    if problem:
        raise pytest.UsageError(problem)
    problem = model_dir and model_dir_problem(model_dir)
    if problem:
        raise pytest.UsageError(f"--model-dir={model_dir}: {problem}; expected the --output folder of "
                                "`atc --singleop=op_list.json` run on the JSON from `aclcts singleop`")


def missing_model_dir(config: pytest.Config, capabilities: Capabilities | None) -> str | None:
    """The usage line of a real-device backend run without --model-dir (it cannot load `aclcts atc` models), or None
    (also when the capabilities are not known yet: a MODULE:ATTR object is checked once loaded)."""
    if capabilities is None or not capabilities.real_device or config.getoption("--model-dir"):
        return None
    return (f"--backend={config.getoption('--backend')} needs --model-dir=DIR with op models built by the real ATC from "
            "`aclcts singleop` (it runs on a real device)")
