"""Outputs (issue 37): short suite runs in a folder with one small Add case file, and special files to aim at."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Two quick tests of the suite (execute_v2 of the one Add case), enough to write every report.
SUITE = [str(ROOT / "conformance" / "test_execute.py"), "-k", "execute_v2"]
#: The node kinds an output must never replace; a character device needs root to be made.
NODE_KINDS = ("character device", "FIFO", "folder")


def make_node(path: Path, kind: str) -> Path:
    """Make a character device (the numbers of /dev/null), a FIFO or a folder holding one file at path."""
    if kind == "character device":
        if os.geteuid() != 0:
            pytest.skip("making a character device needs root")
        os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(1, 3))
    elif kind == "FIFO":
        os.mkfifo(path)
    else:
        path.mkdir()
        (path / "keep.txt").write_text("user data\n")
    return path


def node_state(path: Path) -> tuple:
    """What must not change about a node: its type, inode, device numbers and (for a folder) its listing."""
    found = os.lstat(path)
    listing = sorted(os.listdir(path)) if stat.S_ISDIR(found.st_mode) else None
    return stat.S_IFMT(found.st_mode), found.st_ino, found.st_rdev, listing


def one_error_line(result: subprocess.CompletedProcess, status: int = 4) -> str:
    """The run's one line: the exit status, no traceback or internal error, exactly one ERROR line."""
    everything = result.stdout + result.stderr
    assert result.returncode == status, everything[-3000:]
    assert "Traceback" not in everything and "INTERNALERROR" not in everything, everything[-3000:]
    [line] = [line for line in result.stderr.splitlines() if line.startswith("ERROR:")]
    return line


def start_suite(folder: Path, *args: str) -> subprocess.Popen:
    """A serial suite run of the two quick tests on add.yaml in folder (its working folder), started."""
    env = {**os.environ, "ACLCTS_MODEL_CACHE": str(folder / "cache")}
    command = [sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider", "-q", *SUITE,
               "--cases", "add.yaml", *args]
    return subprocess.Popen(command, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(run: subprocess.Popen, timeout: float = 300) -> subprocess.CompletedProcess:
    """Wait for a started run; its status and output."""
    out, err = run.communicate(timeout=timeout)
    return subprocess.CompletedProcess(run.args, run.returncode, out, err)


def run_suite(folder: Path, *args: str) -> subprocess.CompletedProcess:
    """start_suite, waited for."""
    return finish(start_suite(folder, *args))
