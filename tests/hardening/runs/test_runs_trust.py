"""The trust boundary: --cases from outside the repository prints, in the run's header, which Python modules its case
files will import at collection (issue 22, scope 7)."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
CASE = """\
op: Add
policy: elementwise
source: "elewise_calculation_ops.h REG_OP(Add): inputs x1, x2; output y"
{reference}inputs: [x1, x2]
outputs: [y]
dtypes: [float32]
shapes:
  - [[8, 16], [8, 16]]
"""
#: The custom reference module: importing it leaves a mark, so the test sees that collection ran it.
REFERENCE = """\
from pathlib import Path

from aclcts.reference import reference

Path(__file__).with_name("imported.mark").write_text("imported")
REF = reference("Add")
"""


def header_lines(*cases: str) -> list[str]:
    """The aclcts lines of the header of a collect-only run of the repository's execute tests over these cases."""
    done = subprocess.run([sys.executable, "-m", "pytest", "conformance/test_execute.py", "--collect-only",
                           "-p", "no:cacheprovider", "-p", "no:xdist", "--cases", *cases],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return [line for line in done.stdout.splitlines() if line.startswith("aclcts: --cases")]


@pytest.fixture
def custom_op(tmp_path: Path) -> Path:
    folder = tmp_path / "custom_ops" / "my_add"
    folder.mkdir(parents=True)
    (folder / "my_add.yaml").write_text(CASE.format(reference="reference: my_add_reference:REF\n"))
    (folder / "my_add_reference.py").write_text(REFERENCE)
    return folder


def test_cases_from_outside_the_repository_name_the_modules_they_import(custom_op):
    [line] = header_lines(str(custom_op))
    assert f"my_add_reference ({custom_op / 'my_add.yaml'})" in line
    assert (custom_op / "imported.mark").exists()  # and the header told the truth: collection imported it


def test_cases_from_outside_the_repository_without_modules_say_so(tmp_path):
    (tmp_path / "add.yaml").write_text(CASE.format(reference=""))
    [line] = header_lines(str(tmp_path))
    assert "no Python module" in line


def test_the_repository_own_cases_print_no_such_line():
    assert header_lines("cases/elementwise/add.yaml") == []
