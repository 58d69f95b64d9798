"""`aclcts sim run` passes SIGINT, SIGTERM and SIGHUP on to its program, waits for it, removes its `atc` folder and
exits with the program's status (issue 22, bad finding 4)."""

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
