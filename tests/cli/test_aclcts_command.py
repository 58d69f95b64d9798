"""The `aclcts` console script: help at every level, --version, exit codes (0 ok, 1 findings, 2 usage), `sim run`."""

import importlib.metadata
import os
import re
import shutil
import subprocess
import sys

import pytest

import aclcts.sim

#: This interpreter's scripts first, so that `aclcts` is the console script of the aclcts under test.
PATH = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])


def aclcts_command(*args: str, cwd=None) -> subprocess.CompletedProcess:
    """Run the installed `aclcts` console script (python -m aclcts.cli where it is not installed)."""
    script = shutil.which("aclcts", path=PATH)
    command = [script] if script else [sys.executable, "-m", "aclcts.cli"]
    return subprocess.run([*command, *args], capture_output=True, text=True, timeout=120, cwd=cwd,
                          env=dict(os.environ, PATH=PATH))


COMMAND_LINES = [(), ("atc",), ("singleop",), ("sim",), ("sim", "run"), ("sim", "path"), ("sim", "stress"), ("report",),
                 ("report", "merge"), ("new-op",), ("kill-matrix",), ("bench",)]


@pytest.mark.parametrize("words", COMMAND_LINES, ids=lambda words: " ".join(("aclcts", *words)))
def test_help_at_every_level_exits_0_with_a_usage_naming_the_command(words):
    prog = " ".join(("aclcts", *words))
    for flag in ("--help", "-h"):
        done = aclcts_command(*words, flag)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(f"usage: {prog} "), done.stdout[:200]
        assert done.stderr == ""


def test_the_top_level_help_lists_every_command():
    listed = aclcts_command("--help").stdout
    for command in ("atc", "singleop", "sim", "report", "new-op", "kill-matrix", "bench"):
        assert re.search(rf"^ +{command}(\s|$)", listed, flags=re.M), command


def test_version_is_the_installed_distribution_version():
    done = aclcts_command("--version")
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout == f"aclcts {importlib.metadata.version('aclcts')}\n"


@pytest.mark.parametrize("words, prog, named", [
    ((), "aclcts", "no command"),
    (("bogus",), "aclcts", "bogus"),
    (("--bogus",), "aclcts", "--bogus"),
    (("sim",), "aclcts sim", "ACTION"),
    (("sim", "bogus"), "aclcts sim", "bogus"),
    (("sim", "run"), "aclcts sim run", "no command"),
    (("sim", "run", "--"), "aclcts sim run", "no command"),
    (("sim", "path", "extra"), "aclcts sim path", "extra"),
    (("sim", "stress", "--seconds", "0"), "aclcts sim stress", "--seconds"),
    (("sim", "stress", "--threads", "x"), "aclcts sim stress", "--threads"),
    (("atc", "--bogus"), "aclcts atc", "--bogus"),
    (("atc", "--singleop=a.json"), "aclcts atc", "--output"),
    (("singleop",), "aclcts singleop", "--output"),
    (("report", "bogus"), "aclcts report", "bogus"),
    (("new-op",), "aclcts new-op", "name"),
    (("kill-matrix", "--bogus"), "aclcts kill-matrix", "--bogus"),
    (("bench", "speed"), "aclcts bench", "speed"),
], ids=lambda value: " ".join(value) if isinstance(value, tuple) else None)
def test_bad_usage_exits_2_with_one_error_line_naming_the_problem(words, prog, named):
    done = aclcts_command(*words)
    assert done.returncode == 2
    assert done.stdout == "" and "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith(f"{prog}: error:")]
    assert len(errors) == 1 and named in errors[0], done.stderr
    others = [line for line in done.stderr.splitlines() if line not in errors]
    assert all(line.startswith(("usage: ", " ")) for line in others), others


def test_a_failed_compile_is_a_finding_exit_1(tmp_path):
    op_list = tmp_path / "op_list.json"
    op_list.write_text('[{"op": "Add"}]', encoding="utf-8")
    done = aclcts_command("atc", f"--singleop={op_list}", f"--output={tmp_path / 'models'}", "--soc_version=S")
    assert done.returncode == 1 and str(op_list) in done.stderr


PROBE = ("import sys, acl, aclcts.sim; print(acl is aclcts.sim.acl); sys.stdout.flush(); "
         "sys.exit(int(sys.argv[1]))")


@pytest.mark.parametrize("separator", [["--"], []], ids=["with --", "without --"])
def test_sim_run_runs_the_command_with_the_simulator_as_acl_and_passes_its_status_on(separator):
    done = aclcts_command("sim", "run", *separator, sys.executable, "-c", PROBE, "3")
    assert done.returncode == 3, done.stderr
    assert done.stdout == "True\n"


def test_sim_run_puts_the_simulator_atc_on_path_and_keeps_the_command_options():
    done = aclcts_command("sim", "run", "sh", "-c", "atc --help && echo \"$0\"", "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: aclcts atc ") and done.stdout.endswith("\n--help\n")


def test_sim_run_of_a_missing_program_is_127_and_one_line(tmp_path):
    missing = tmp_path / "no-such-program"
    done = aclcts_command("sim", "run", "--", str(missing))
    assert done.returncode == 127
    [line] = done.stderr.splitlines()
    assert line.startswith("aclcts sim run: error:") and str(missing) in line


def test_sim_path_prints_the_folder_that_makes_import_acl_the_simulator(tmp_path):
    folder = aclcts_command("sim", "path").stdout.strip()
    check = "import acl, aclcts.sim; print(acl is aclcts.sim.acl)"
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, timeout=60, cwd=tmp_path,
                          env=dict(os.environ, PYTHONPATH=os.pathsep.join([folder, os.environ.get("PYTHONPATH", "")])))
    assert done.stdout == "True\n", done.stderr
    assert os.path.dirname(aclcts.sim.__file__) in folder



def test_sim_stress_runs_threads_callbacks_and_synchronisation_and_exits_0_without_failures():
    done = aclcts_command("sim", "stress", "--seconds", "1", "--threads", "3")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().endswith("no failures")
    assert re.search(r"^\d+ calls in 1 s, (\d+) callbacks launched, \1 ran$", done.stdout, flags=re.M), done.stdout
