"""User code run by aclcts (golden modules and functions of msopst case files, `reference: module:ATTR`, --backend
MODULE:ATTR): raising, sys.exit, os._exit or a hang becomes one line naming the file and what it did (issue 37,
finding 8)."""

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from aclcts.core import usercode
from aclcts.core.usercode import UserCodeError, guarded

ROOT = Path(__file__).resolve().parents[3]
MSOPST_CASE = [{
    "case_name": "Test_Add_user", "op": "Add",
    "input_desc": [{"name": n, "format": "ND", "type": "float32", "shape": [2, 4], "data_distribute": "uniform",
                    "value_range": [-1.0, 1.0]} for n in ("x1", "x2")],
    "output_desc": [{"name": "y", "format": "ND", "type": "float32", "shape": [2, 4]}],
    "calc_expect_func_file": "golden.py:calc",
}]
EXITS_AT_IMPORT = "import sys\nsys.exit(0)\n"
LOOPS_AT_IMPORT = "while True:\n    pass\n"
OS_EXIT_IN_CALL = "import os\n\ndef calc(x1, x2, y):\n    os._exit(0)\n"
SYS_EXIT_IN_CALL = "import sys\n\ndef calc(x1, x2, y):\n    sys.exit(3)\n"


def msopst_folder(tmp_path: Path, golden: str) -> Path:
    (tmp_path / "case.json").write_text(json.dumps(MSOPST_CASE))
    (tmp_path / "golden.py").write_text(golden)
    return tmp_path


def environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_ADDOPTS"))}
    env.pop("PYTEST_CURRENT_TEST", None)
    return {**env, **extra}


def aclcts(*args: str, **env: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-c", "import sys; from aclcts.cli import main; sys.exit(main())", *args]
    return subprocess.run(command, cwd=ROOT, env=environment(**env), capture_output=True, text=True, timeout=300)


def suite(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                           "--model-cache=off", *args], cwd=ROOT, env=environment(**env), capture_output=True,
                          text=True, timeout=300)


# ------------------------------------------------------------------------------------------- the guard itself


@pytest.mark.parametrize("body, said", [
    (lambda: sys.exit(0), "called sys.exit(0)"),
    (lambda: sys.exit("bye"), "called sys.exit('bye')"),
    (lambda: os._exit(7), "called os._exit(7)"),
    (lambda: 1 / 0, "raised ZeroDivisionError: division by zero"),
])
def test_what_user_code_does_wrong_is_one_line_naming_it(body, said):
    with pytest.raises(UserCodeError) as caught:
        with guarded("golden.py"):
            body()
    assert str(caught.value) == f"golden.py {said}"
    assert os._exit is usercode._REAL_EXIT  # put back


def test_a_hang_in_the_main_thread_is_stopped_by_the_alarm(monkeypatch):
    monkeypatch.setenv(usercode.TIMEOUT_VARIABLE, "0.5")
    started = time.monotonic()
    with pytest.raises(UserCodeError, match=r"^loop\.py did not finish within 0\.5 s"):
        with guarded("loop.py"):
            while True:
                pass
    assert time.monotonic() - started < 10


def test_keyboard_interrupt_is_not_user_code_s_to_swallow():
    with pytest.raises(KeyboardInterrupt):
        with guarded("x.py"):
            raise KeyboardInterrupt


def test_a_bad_time_limit_variable_is_named(monkeypatch):
    monkeypatch.setenv(usercode.TIMEOUT_VARIABLE, "soon")
    with pytest.raises(ValueError, match=r"^ACLCTS_IMPORT_TIMEOUT='soon': expected a number of seconds"):
        usercode.timeout()


def test_os_exit_in_another_thread_outside_user_code_still_exits():
    code = ("import os, threading\nfrom aclcts.core.usercode import guarded\n"
            "with guarded('a.py'):\n    pass\nos._exit(5)\n")
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT, timeout=120).returncode == 5


def test_a_hang_off_the_main_thread_ends_the_process_with_one_line():
    code = ("import threading, time\nfrom aclcts.core.usercode import guarded\n"
            "def hang():\n    with guarded('loop.py'):\n        time.sleep(60)\n"
            "t = threading.Thread(target=hang)\nt.start()\nt.join()\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env=environment(ACLCTS_IMPORT_TIMEOUT="1"))
    assert done.returncode == usercode.WATCHDOG_EXIT
    assert done.stderr == "aclcts: error: loop.py did not finish within 1 s (a hang?); stopped\n"


# --------------------------------------------------------------------------------------- msopst convert


def test_convert_with_a_golden_module_that_exits_at_import_fails_in_one_line_and_writes_nothing(tmp_path):
    folder = msopst_folder(tmp_path, EXITS_AT_IMPORT)
    done = aclcts("msopst", "convert", str(folder / "case.json"), "-o", str(tmp_path / "out"))
    assert done.returncode == 2 and not (tmp_path / "out").exists()
    assert done.stderr.strip().splitlines() == [
        f"aclcts msopst: {folder / 'case.json'}: case Test_Add_user: calc_expect_func_file: expected an importable "
        f"Python file ({folder / 'golden.py'} called sys.exit(0))"]


def test_convert_with_a_golden_module_that_loops_at_import_stops_at_the_time_limit(tmp_path):
    folder = msopst_folder(tmp_path, LOOPS_AT_IMPORT)
    done = aclcts("msopst", "convert", str(folder / "case.json"), "-o", str(tmp_path / "out"),
                  ACLCTS_IMPORT_TIMEOUT="1")
    assert done.returncode == 2 and not (tmp_path / "out").exists()
    assert done.stderr.strip().endswith(f"({folder / 'golden.py'} did not finish within 1 s (a hang?); stopped it)")
    assert len(done.stderr.strip().splitlines()) == 1


# ------------------------------------------------------------------------------------------------ the suite


@pytest.mark.parametrize("golden, said", [(OS_EXIT_IN_CALL, "called os._exit(0)"),
                                          (SYS_EXIT_IN_CALL, "called sys.exit(3)")])
def test_a_golden_function_that_exits_fails_its_case_and_the_run_ends_with_a_summary(tmp_path, golden, said):
    folder = msopst_folder(tmp_path, golden)
    done = suite("-p", "no:xdist", "conformance/test_execute.py", "-k", "Test_Add_user", "--cases",
                 str(folder / "case.json"))
    assert done.returncode == 1, done.stdout[-2000:]
    assert "1 failed" in done.stdout.splitlines()[-1]
    assert f"calc_expect_func_file golden.py:calc {said}" in done.stdout


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_a_golden_module_that_loops_at_import_is_stopped_by_timeout_and_fails_its_case(tmp_path, workers):
    folder = msopst_folder(tmp_path, LOOPS_AT_IMPORT)
    started = time.monotonic()
    done = suite(*(workers or ["-p", "no:xdist"]), "conformance/test_execute.py", "--cases", str(folder / "case.json"),
                 "--timeout=2")
    assert time.monotonic() - started < 120
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, done.stdout[-2000:] + done.stderr[-2000:]
    assert f"CaseRefused: golden: {folder / 'case.json'}: case Test_Add_user: calc_expect_func_file: expected an " \
           f"importable Python file ({folder / 'golden.py'} did not finish within 2 s (a hang?); stopped it)" \
        in done.stdout
    assert "Traceback" not in done.stderr + done.stdout


@pytest.mark.parametrize("module, said", [
    ("import sys\nsys.exit(3)\n", "called sys.exit(3)"),
    ("import os\nos._exit(0)\n", "called os._exit(0)"),
    ("raise RuntimeError('no driver')\n", "raised RuntimeError: no driver"),
])
def test_a_backend_module_that_exits_or_raises_at_import_is_one_usage_line(tmp_path, module, said):
    (tmp_path / "exiting_backend.py").write_text(module)
    done = suite("-p", "no:xdist", "conformance/test_execute.py", "--backend=exiting_backend:acl",
                 PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout[-2000:] + done.stderr[-2000:]
    assert "INTERNALERROR" not in done.stdout + done.stderr
    assert f"--backend=exiting_backend:acl: importing module 'exiting_backend' {said}" in done.stderr


def test_a_reference_module_that_exits_at_import_is_named_and_the_run_ends(tmp_path):
    (tmp_path / "exiting_reference.py").write_text("import sys\nsys.exit(0)\n")
    (tmp_path / "my_add.yaml").write_text(
        "op: Add\nfamily: elementwise\nsource: test\nreference: exiting_reference:REF\ninputs: [x1, x2]\n"
        "outputs: [y]\ndtypes: [float32]\nshapes:\n  - [[8, 16], [8, 16]]\n")
    done = suite("-p", "no:xdist", "conformance/test_execute.py", "--cases", str(tmp_path))
    assert done.returncode != 0
    assert "reference 'exiting_reference:REF': cannot load it: importing it called sys.exit(0)" in (
        done.stdout + done.stderr)
    assert "INTERNALERROR" not in done.stdout + done.stderr


def test_guard_nesting_restores_the_real_exit_only_at_the_outermost():
    with guarded("outer"):
        with guarded("inner"):
            pass
        assert os._exit is not usercode._REAL_EXIT
    assert os._exit is usercode._REAL_EXIT and threading.current_thread() is threading.main_thread()
