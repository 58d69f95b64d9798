"""`aclcts sim run` passes SIGINT, SIGTERM and SIGHUP on to its program, waits for it, removes its `atc` folder and
exits with the program's status (issue 22, bad finding 4)."""

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

#: This interpreter's scripts first, so that `aclcts` is the console script of the aclcts under test.
PATH = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])
#: Prints its pid and the first PATH entry (the wrapper's `atc` folder), then sleeps until signalled.
SLEEPER = "import os, time; print(os.getpid(), os.environ['PATH'].split(os.pathsep)[0], flush=True); time.sleep(120)"
#: Like SLEEPER, but leaves with status 3 on SIGTERM.
TRAPPER = ("import os, signal, sys, time; signal.signal(signal.SIGTERM, lambda *a: sys.exit(3)); "
           "print(os.getpid(), os.environ['PATH'].split(os.pathsep)[0], flush=True); time.sleep(120)")


def start(program: str) -> tuple[subprocess.Popen, int, str]:
    """`aclcts sim run -- python -c program` in a session of its own (no terminal); the wrapper, the program's pid and
    the wrapper's temporary folder."""
    script = shutil.which("aclcts", path=PATH)
    command = [script] if script else [sys.executable, "-m", "aclcts.cli"]
    wrapper = subprocess.Popen([*command, "sim", "run", "--", sys.executable, "-c", program],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=dict(os.environ, PATH=PATH), start_new_session=True)
    pid, folder = wrapper.stdout.readline().split()
    return wrapper, int(pid), folder


def gone(pid: int) -> bool:
    """Whether no process (not even a zombie) has this pid, within a few seconds."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
                if handle.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return False  # a zombie nobody reaps: the wrapper did not wait for it
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP], ids=lambda n: n.name)
def test_a_signal_to_sim_run_ends_its_program_and_removes_its_folder(number):
    wrapper, pid, folder = start(SLEEPER)
    assert os.path.isdir(folder) and os.path.basename(folder).startswith("aclcts-sim-bin-")
    wrapper.send_signal(number)
    _, err = wrapper.communicate(timeout=60)
    assert gone(pid), f"the program (pid {pid}) outlived `aclcts sim run`"
    assert not os.path.exists(folder)
    # Python ends an uncaught KeyboardInterrupt by SIGINT too, so every program here ends by the signal.
    assert wrapper.returncode == 128 + number
    assert "aclcts" not in err  # no traceback or message of the wrapper's own


def test_sim_run_exits_with_the_status_the_program_chose_on_sigterm():
    wrapper, pid, folder = start(TRAPPER)
    wrapper.send_signal(signal.SIGTERM)
    _, err = wrapper.communicate(timeout=60)
    assert wrapper.returncode == 3, err
    assert gone(pid) and not os.path.exists(folder)


#: Starts a grandchild that sleeps, prints both pids and the wrapper's folder, then sleeps itself (issue 37).
PARENT_OF_A_SLEEPER = ("import os, subprocess, sys, time; g = subprocess.Popen([sys.executable, '-c', "
                       "'import time; time.sleep(120)']); print(os.getpid(), os.environ['PATH'].split(os.pathsep)[0], "
                       "g.pid, flush=True); time.sleep(120)")


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT], ids=lambda n: n.name)
def test_a_signal_to_sim_run_reaches_the_program_s_own_children(number):
    script = shutil.which("aclcts", path=PATH)
    command = [script] if script else [sys.executable, "-m", "aclcts.cli"]
    wrapper = subprocess.Popen([*command, "sim", "run", "--", sys.executable, "-c", PARENT_OF_A_SLEEPER],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=dict(os.environ, PATH=PATH), start_new_session=True)
    pid, _, grandchild = wrapper.stdout.readline().split()
    try:
        wrapper.send_signal(number)
        wrapper.communicate(timeout=60)
        assert gone(int(pid))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and os.path.exists(f"/proc/{grandchild}"):
            time.sleep(0.05)
        assert not os.path.exists(f"/proc/{grandchild}"), "the program's child outlived the signal"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(grandchild), signal.SIGKILL)


#: Makes `aclcts msopst convert` wait at import of a golden module until signalled, after leaving a mark.
WAITING_GOLDEN = "import pathlib, time\npathlib.Path(__file__).with_name('started').write_text('')\ntime.sleep(120)\n"


def test_sigint_to_an_aclcts_command_is_one_line_and_status_130(tmp_path):
    (tmp_path / "golden.py").write_text(WAITING_GOLDEN)
    (tmp_path / "case.json").write_text(json.dumps([{
        "case_name": "T", "op": "Add", "calc_expect_func_file": "golden.py:calc",
        "input_desc": [{"name": n, "format": "ND", "type": "float32", "shape": [2]} for n in ("x1", "x2")],
        "output_desc": [{"name": "y", "format": "ND", "type": "float32", "shape": [2]}]}]))
    script = shutil.which("aclcts", path=PATH)
    command = [script] if script else [sys.executable, "-m", "aclcts.cli"]
    # started with SIGINT's default action, as from a terminal: a parent that ignores SIGINT (a background job of a
    # non-interactive shell, a test process that set it so) passes the ignore on, and Python then installs no handler
    process = subprocess.Popen([*command, "msopst", "convert", str(tmp_path / "case.json"), "-o", str(tmp_path / "out")],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=dict(os.environ, PATH=PATH), start_new_session=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while not (tmp_path / "started").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130
    assert err == "aclcts msopst: interrupted (SIGINT); stopped\n"


def test_keyboard_interrupt_in_any_command_is_one_line_and_status_130(monkeypatch, capsys):
    from aclcts import cli

    def interrupted(argv: list[str]) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr("aclcts.atc.main", interrupted)
    assert cli.main(["atc", "--singleop=x.json"]) == 130
    assert capsys.readouterr().err == "aclcts atc: interrupted (SIGINT); stopped\n"
