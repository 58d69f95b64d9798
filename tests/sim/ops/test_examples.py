"""Every example pyacl program, end to end through `aclcts sim run` with the `atc` it puts on PATH."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from opkit import SOC

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

#: program → the single-op JSON it is compiled from.
COMPILED = {
    "static_add.py": "add_op.json",
    "handle_reuse.py": "handle_reuse_op.json",
    "gemm.py": "gemm.json",
    "cast.py": "cast_op.json",
    "dynamic_shape.py": "dynamic_shape_op.json",
    "const_input.py": "const_input_op.json",
    "load_from_memory.py": "load_from_memory_ops.json",
    "async_callback.py": "add_op.json",
    "sparse_matmul.py": "sparse_matmul_op.json",
}


def _aclcts() -> list[str]:
    found = shutil.which("aclcts")
    return [found] if found else [sys.executable, "-m", "aclcts.cli"]


def _sim_run(script: str, tmp_path: Path) -> subprocess.CompletedProcess:
    """Run `aclcts sim run -- sh -c script` from tmp_path, with ASCEND_OPP_PATH set as on a CANN host."""
    opp = tmp_path / "opp"
    opp.mkdir(exist_ok=True)
    env = dict(os.environ, ASCEND_OPP_PATH=str(opp))
    return subprocess.run(_aclcts() + ["sim", "run", "--", "sh", "-c", script], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)


def _report(result: subprocess.CompletedProcess) -> str:
    return f"exit {result.returncode}\n--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"


@pytest.mark.parametrize("program", list(COMPILED))
def test_example_compiles_its_models_and_exits_zero(program: str, tmp_path: Path) -> None:
    models = tmp_path / "op_models"
    script = (f"atc --singleop={shlex.quote(str(EXAMPLES / 'data' / COMPILED[program]))} "
              f"--output={shlex.quote(str(models))} --soc_version={SOC} && "
              f"{shlex.quote(sys.executable)} {shlex.quote(str(EXAMPLES / program))} {shlex.quote(str(models))}")
    result = _sim_run(script, tmp_path)
    assert result.returncode == 0, _report(result)
    assert "ATC run success, welcome to the next use." in result.stdout
    assert list(models.glob("*.om")), "atc wrote no model"


def test_copy_roundtrip_exits_zero(tmp_path: Path) -> None:
    result = _sim_run(f"{shlex.quote(sys.executable)} {shlex.quote(str(EXAMPLES / 'copy_roundtrip.py'))}", tmp_path)
    assert result.returncode == 0, _report(result)
    assert "round trip intact" in result.stdout


def test_copy_roundtrip_without_the_synchronize_reads_stale_data_and_exits_one(tmp_path: Path) -> None:
    program = shlex.quote(str(EXAMPLES / "copy_roundtrip.py"))
    result = _sim_run(f"{shlex.quote(sys.executable)} {program} --skip-sync", tmp_path)
    assert result.returncode == 1, _report(result)
    assert "round trip STALE" in result.stdout


def test_an_example_fails_when_its_models_are_missing(tmp_path: Path) -> None:
    empty = tmp_path / "no_models"
    empty.mkdir()
    program = shlex.quote(str(EXAMPLES / "handle_reuse.py"))
    result = _sim_run(f"{shlex.quote(sys.executable)} {program} {shlex.quote(str(empty))}", tmp_path)
    assert result.returncode != 0, _report(result)


#: Programs that need no op models (issue 38): program → the line it prints last when every check passed.
MODEL_FREE = {
    "two_blocking_callbacks.py": "both callbacks ran before synchronize_stream returned",
    "callback_sequence.py": "finalize: ok",
    "deprecation_warnings.py": "every warning points at the calling line",
    "dvpp_memory.py": "DVPP memory round trips intact",
    "callback_without_subscription.py": "every cell gave the code a real device gave",
}


@pytest.mark.parametrize("program", list(MODEL_FREE))
def test_a_model_free_example_exits_zero_with_its_last_line_and_no_warning(program: str, tmp_path: Path) -> None:
    result = _sim_run(f"{shlex.quote(sys.executable)} {shlex.quote(str(EXAMPLES / program))}", tmp_path)
    assert result.returncode == 0, _report(result)
    assert result.stdout.splitlines()[-1] == MODEL_FREE[program], _report(result)
    assert "Warning" not in result.stderr, _report(result)
