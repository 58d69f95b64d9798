"""Files and folders aclcts writes get the modes open() and mkdir() would give them under the process's umask."""

import json
import stat
import subprocess
import sys
import pytest

#: Writes with every writer of aclcts' stores under the umask argv[1], into argv[2]; prints each path's mode.
WRITER = """\
import json, os, sys
from pathlib import Path

os.umask(int(sys.argv[1], 8))
out = Path(sys.argv[2])

from aclcts.atc import compile_elements
from aclcts.core.files import write_atomically
from aclcts.drive import model_cache
from aclcts.judge import golden

tensor = {"format": "ND", "shape": [3], "type": "float"}
elements = [{"op": "Add", "input_desc": [tensor, tensor], "output_desc": [tensor]}]
write_atomically(out / "atomic.json", b"{}")
assert compile_elements(elements, out / "atc", "Ascend910B1").ok

def compile_into(elements, folder, soc):
    compile_elements(elements, folder, soc)
    return folder / "models"

model_cache.cached_models(elements, "Ascend910B1", out / "cache", compile_into)
(out / "golden").mkdir()
(out / "golden" / golden.DEFINITIONS).write_text(sys.stdin.read())
golden.generate(out / "golden")
print(json.dumps({p.relative_to(out).as_posix(): p.stat().st_mode for p in out.rglob("*")}))
"""

DEFINITION = """\
- name: add_one
  why: "mode test"
  exact_because: "docs/precision-policy.md#cann-commercial-standard: integer compute is bitwise"
  op: Add
  family: elementwise
  dtypes: {x1: int32, x2: int32, y: int32}
  inputs:
    x1: {values: [1, 2]}
    x2: {values: [3, 4]}
  outputs: [y]
"""


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_written_files_and_folders_follow_the_umask(tmp_path, umask):
    out = tmp_path / "out"
    out.mkdir()
    result = subprocess.run([sys.executable, "-c", WRITER, f"{umask:o}", str(out)], input=DEFINITION,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    modes = json.loads(result.stdout)
    written = {"atomic.json", "atc/op_list.json", "atc/models", "golden/manifest.json", "cache"}
    assert written <= set(modes)
    assert any(p.startswith("atc/models/") for p in modes) and any(p.endswith(".npz") for p in modes)
    assert any(p.startswith("cache/") and p.endswith(".om") for p in modes)
    wrong = {path: oct(stat.S_IMODE(mode)) for path, mode in modes.items()
             if stat.S_IMODE(mode) != (0o777 if stat.S_ISDIR(mode) else 0o666) & ~umask}
    assert not wrong, f"umask {umask:03o}: {wrong}"
