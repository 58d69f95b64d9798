"""The package layout and its import contract (.importlinter) as CI checks them with lint-imports."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import aclcts

PACKAGE = Path(aclcts.__file__).parent
ROOT = PACKAGE.parent
TOP_LEVEL_MODULES = {"__init__.py", "__main__.py", "cli.py"}


def _lint_imports(cwd: Path) -> subprocess.CompletedProcess:
    lint = shutil.which("lint-imports")
    if lint is None:
        pytest.fail("lint-imports is not installed: pip install -e '.[test]' brings import-linter")
    return subprocess.run([lint, "--no-cache"], cwd=cwd, capture_output=True, text=True,
                          env={"PYTHONPATH": str(cwd), "PATH": str(Path(sys.executable).parent)})


def test_the_package_top_level_holds_only_wings_and_the_cli():
    modules = {p.name for p in PACKAGE.glob("*.py")}
    assert modules <= TOP_LEVEL_MODULES, f"modules outside a wing: {sorted(modules - TOP_LEVEL_MODULES)}"


def test_the_import_contract_holds():
    result = _lint_imports(ROOT)
    assert result.returncode == 0, result.stdout[-4000:]


@pytest.mark.parametrize("importer, imported", [
    ("reference/numeric.py", "aclcts.sim"),
    ("sim/memory.py", "aclcts.reference"),
    ("core/dtypes.py", "aclcts.drive"),
    ("drive/flow.py", "pytest"),
    ("judge/compare.py", "aclcts.sim"),
    ("pytest_plugin/sharding.py", "aclcts.pytest_plugin.reruns"),
    # a cycle only through the plugin's registration of its feature modules, which import-linter must see
    ("pytest_plugin/reruns.py", "aclcts.pytest_plugin.plugin"),
])
def test_a_forbidden_import_breaks_the_contract(tmp_path, importer, imported):
    shutil.copytree(PACKAGE, tmp_path / "aclcts", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / ".importlinter", tmp_path / ".importlinter")
    module = tmp_path / "aclcts" / importer
    module.write_text(module.read_text() + f"\nimport {imported}  # deliberate violation\n")
    result = _lint_imports(tmp_path)
    assert result.returncode != 0
