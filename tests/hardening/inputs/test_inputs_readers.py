"""The last readers of issue 22's findings: `aclcts atc` and `acl.init` never open a FIFO they are given, and golden
definitions that are not UTF-8 are one line, not a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from aclcts.cases import CaseFileError
from aclcts.core.constants import ErrorCode
from aclcts.judge.golden import load_definitions

#: Seconds a child may take before the test calls it a hang.
HANG = 60

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")


@needs_fifo
def test_atc_given_a_fifo_as_singleop_json_is_one_error_line(tmp_path):
    fifo = tmp_path / "op.json"
    os.mkfifo(fifo)
    done = subprocess.run([sys.executable, "-m", "aclcts.atc", f"--singleop={fifo}", f"--output={tmp_path / 'out'}",
                           "--soc_version=Ascend910B1"], capture_output=True, text=True, timeout=HANG)
    assert done.returncode != 0
    lines = [line for line in (done.stdout + done.stderr).splitlines() if str(fifo) in line]
    assert len(lines) == 1 and "E10024" in lines[0], done.stdout + done.stderr
    assert "Traceback" not in done.stderr


@needs_fifo
def test_acl_init_given_a_fifo_config_returns_the_invalid_file_code(tmp_path):
    fifo = tmp_path / "acl.json"
    os.mkfifo(fifo)
    program = f"from aclcts.sim import acl\nprint(acl.init({str(fifo)!r}))\n"
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=HANG)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(int(ErrorCode.ACL_ERROR_INVALID_FILE))


def test_golden_definitions_that_are_not_utf8_are_one_case_file_error(tmp_path):
    (tmp_path / "definitions.yaml").write_bytes(b"- name: a\n  why: \xff\n")
    with pytest.raises(CaseFileError) as raised:
        load_definitions(tmp_path)
    message = str(raised.value)
    assert "\n" not in message and "definitions.yaml:2" in message and "byte offset" in message
