"""aclcts.core.outputs: what an output may be, folders aclcts owns, and the run lock (issue 37, scope 1 and 2)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from output_runs import make_node

from aclcts.core.files import write_atomically
from aclcts.core.outputs import (OWNER_FILE, OutputError, OutputLock, Target, check_targets, create_owned,
                                 lock_path, remove_owned, target_problem)


@pytest.mark.parametrize("kind", ["character device", "FIFO", "folder"])
def test_a_file_output_must_be_a_regular_file_or_a_new_name(tmp_path, kind):
    node = make_node(tmp_path / "out", kind)
    assert target_problem(node) == f"is a {kind}, expected a regular file or a new name"
    assert target_problem(tmp_path / "new") is None and target_problem(tmp_path / "deep" / "er" / "new") is None


def test_write_atomically_never_replaces_a_special_file(tmp_path):
    fifo = make_node(tmp_path / "fifo", "FIFO")
    with pytest.raises(OSError, match="is a FIFO, not a regular file"):
        write_atomically(fifo, b"data")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo"]


def test_an_output_may_be_neither_an_input_nor_another_output(tmp_path):
    case = tmp_path / "case.yaml"
    case.write_text("op: Add\n")
    (tmp_path / "link.yaml").symlink_to(case)
    with pytest.raises(OutputError, match=r"^--report=link.yaml: .* is an input of this run"):
        check_targets([Target("--report=link.yaml", tmp_path / "link.yaml")], [case])
    with pytest.raises(OutputError, match=r"^--st-report=r: .* is also the output of --report=r;"):
        check_targets([Target("--report=r", tmp_path / "r"), Target("--st-report=r", tmp_path / "r")], [])


def test_only_a_folder_aclcts_made_is_removed(tmp_path):
    user = tmp_path / "user"
    user.mkdir()
    (user / "data").write_text("x")
    with pytest.raises(OutputError, match="not created by aclcts"):
        remove_owned(user, "--st-report=u.json")
    with pytest.raises(OutputError, match="not created by aclcts"):
        create_owned(user)
    assert sorted(p.name for p in user.iterdir()) == ["data"]
    mine = tmp_path / "mine"
    create_owned(mine)
    create_owned(mine)
    assert (mine / OWNER_FILE).is_file()
    remove_owned(mine, "--st-report=m.json")
    assert not mine.exists()


def test_a_symbolic_link_to_an_owned_folder_is_not_owned(tmp_path):
    create_owned(tmp_path / "mine")
    (tmp_path / "link").symlink_to(tmp_path / "mine")
    with pytest.raises(OutputError):
        remove_owned(tmp_path / "link", "--st-report=l.json")
    assert (tmp_path / "mine" / OWNER_FILE).is_file()


def test_a_held_lock_refuses_a_second_holder_naming_the_first(tmp_path):
    target = tmp_path / "run.jsonl"
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, pathlib\n"
        "from aclcts.core.outputs import OutputLock\n"
        f"lock = OutputLock(pathlib.Path({str(target)!r}), '--report')\n"
        "lock.acquire()\nprint('held', flush=True)\nsys.stdin.readline()\nlock.release()\n")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        with pytest.raises(OutputError, match=rf"^--report: another run \(pid {holder.pid} on .*, started 20.*\) is "
                                              r"writing .*run.jsonl; wait for it to end or choose another path$"):
            OutputLock(target, "--report").acquire()
    finally:
        holder.communicate("\n", timeout=30)
    assert not lock_path(target).exists()
    second = OutputLock(target, "--report")
    second.acquire()
    second.release()


def test_a_lock_file_left_by_a_killed_run_is_taken_over(tmp_path):
    target = tmp_path / "run.jsonl"
    lock_path(target).write_text('{"pid": 999999999, "host": "gone", "started": "2026-01-01T00:00:00+00:00"}')
    lock = OutputLock(target, "--report")
    lock.acquire()
    assert f'"pid": {os.getpid()}' in lock_path(target).read_text()
    lock.release()
    assert not lock_path(target).exists()
