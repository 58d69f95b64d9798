"""Crash containment: run a probe function in a child process on the same backend; a crash becomes a failure."""

from __future__ import annotations

import inspect
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aclcts.drive.backends import Capabilities

#: The line prefix the child prints its result after.
MARKER = "ACLCTS-ISOLATED-RESULT "
#: Seconds a child may run before it counts as hung (probes synchronise with a timeout well below this).
DEFAULT_TIMEOUT = 60.0

#: The child: import the probe's module from its file, open a session on the backend, call the probe,
#: print its JSON result, close the session.
CHILD_PROGRAM = r"""
import importlib.util, json, sys
from aclcts.drive import flow
from aclcts.drive.backends import load_backend

request = json.loads(sys.argv[1])
spec = importlib.util.spec_from_file_location("aclcts_isolated_probe", request["file"])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
probe = module
for part in request["name"].split("."):
    probe = getattr(probe, part)
acl = load_backend(request["backend"]).acl
session = flow.open_session(acl, request["device_id"])
if request["model_dir"]:
    flow.check(acl.op.set_model_dir(request["model_dir"]), "acl.op.set_model_dir")
value = probe(acl, session, *request["args"])
sys.stdout.write(request["marker"] + json.dumps(value) + "\n")
sys.stdout.flush()
flow.close_session(session)
"""


class ChildProcessFailure(AssertionError):
    """The isolated probe crashed, hung, exited with an error or printed no result."""


def placement(capabilities: Capabilities, isolate: bool) -> str:
    """Where an `unsafe` probe runs: "child" with --isolate, else "inline" on a backend that survives misuse (the
    simulator), "skip" on a real device, "child" on any other."""
    if isolate:
        return "child"
    if capabilities.survives_misuse:
        return "inline"
    return "skip" if capabilities.real_device else "child"


@dataclass(frozen=True)
class ChildResult:
    """How one isolated probe ended: its exit status, output and, if it got that far, its JSON result."""

    call: str
    returncode: int | None
    stdout: str
    stderr: str
    timeout: float
    value: Any = None
    has_value: bool = False

    def failure(self) -> str | None:
        """Why the child did not end normally with a result, or None if it did."""
        if self.returncode is None:
            return f"hung: no exit within {self.timeout:g} s (killed)"
        if self.returncode < 0:
            number = -self.returncode
            try:
                name = signal.Signals(number).name
            except ValueError:
                name = "unknown signal"
            return f"was killed by signal {number} ({name})"
        if self.returncode != 0:
            return f"exited with status {self.returncode}"
        if not self.has_value:
            return "printed no result"
        return None

    def get(self) -> Any:
        """The probe's result; ChildProcessFailure naming the exit signal (and the stderr tail) otherwise."""
        problem = self.failure()
        if problem is None:
            return self.value
        tail = "\n".join(self.stderr.strip().splitlines()[-15:])
        raise ChildProcessFailure(f"isolated probe {self.call} {problem}; the session goes on\n"
                                  f"  child stderr (tail):\n{tail}")


def _parse(stdout: str) -> tuple[Any, bool]:
    for line in reversed(stdout.splitlines()):
        if line.startswith(MARKER):
            return json.loads(line[len(MARKER):]), True
    return None, False


def run_in_child(probe: Callable[..., Any], args: list[Any], *, backend: str, device_id: int = 0,
                 model_dir: str | None = None, timeout: float = DEFAULT_TIMEOUT) -> ChildResult:
    """Run probe(acl, session, *args) in a fresh Python process with the same backend spec.

    `probe` must be a module-level function of an importable file returning JSON-serialisable data; `args`
    must be JSON-serialisable. The child opens its own session (and sets `model_dir` when given).
    """
    request = {"file": inspect.getfile(probe), "name": probe.__qualname__, "args": list(args), "backend": backend,
               "device_id": device_id, "model_dir": model_dir, "marker": MARKER}
    call = f"{probe.__module__}.{probe.__qualname__}({', '.join(map(repr, args))})"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    command = [sys.executable, "-c", CHILD_PROGRAM, json.dumps(request)]
    try:
        done = subprocess.run(command, check=False, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else exc.stdout or ""
        err = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else exc.stderr or ""
        return ChildResult(call, None, out, err, timeout)
    value, has_value = _parse(done.stdout)
    return ChildResult(call, done.returncode, done.stdout, done.stderr, timeout, value, has_value)
