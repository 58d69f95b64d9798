"""Run functions of a test file each in a fresh process on the run's backend, for rules that hold once per process
(acl.init, acl.finalize, the Cast truncate rule of the models loaded so far)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

#: The child: import the test file, load the backend's acl, call fn(acl, device_id, folder), print its JSON result.
CHILD = r"""
import importlib.util, json, sys
from aclcts.drive.backends import load_backend
spec = importlib.util.spec_from_file_location("aclcts_fresh_process", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
acl = load_backend(sys.argv[3]).acl
print(json.dumps(getattr(module, sys.argv[2])(acl, int(sys.argv[4]), sys.argv[5])))
"""
#: Seconds a child may take.
TIMEOUT = 120


def run_fresh(config: pytest.Config, functions: list[Callable[..., Any]], folders: dict[str, Path]) -> dict[str, Any]:
    """Each function(acl, device_id, folder) run at once in its own process; its JSON result (or the child's stderr)
    by function name. The functions must be module-level in an importable test file."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    backend, device = config.getoption("--backend"), str(config.getoption("--device-id"))
    children = {function.__name__: subprocess.Popen(
        [sys.executable, "-c", CHILD, sys.modules[function.__module__].__file__, function.__name__, backend, device,
         str(folders[function.__name__])], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        for function in functions}
    results = {}
    for name, child in children.items():
        out, err = child.communicate(timeout=TIMEOUT)
        results[name] = json.loads(out.strip().splitlines()[-1]) if child.returncode == 0 else err[-3000:]
    return results
