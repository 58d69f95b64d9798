"""Facts README and docs/ state that the code decides: fault counts, files they name, the hints commands print."""

import re
import subprocess
import sys
from pathlib import Path

from aclcts.sim import faults

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def test_readme_counts_the_faults_and_deviations_the_simulator_defines():
    text = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    found = re.search(r"kills all (\d+) faults and passes all (\d+) deviations", text)
    assert found, "README no longer says how many faults the kill matrix kills"
    assert (int(found.group(1)), int(found.group(2))) == (len(faults.names(faults.FAULT)),
                                                         len(faults.names(faults.DEVIATION)))


def test_every_expectations_file_the_docs_name_exists():
    named = {(doc.name, path) for doc in DOCS
             for path in re.findall(r"expectations/[\w.-]+\.ya?ml", doc.read_text(encoding="utf-8"))}
    assert named and [(doc, path) for doc, path in sorted(named) if not (ROOT / path).is_file()] == []


def test_singleop_next_hint_compiles_into_the_folder_readme_runs_from(tmp_path):
    done = subprocess.run([sys.executable, "-m", "aclcts.tools.singleop", str(ROOT / "cases/elementwise/abs.yaml"),
                           "-o", "build/op_list.json"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    hint = next(line for line in done.stdout.splitlines() if line.startswith("next: "))
    output = re.search(r"--output=(\S+)", hint).group(1)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"atc --singleop=build/op_list.json --output={output} " in readme
    assert f"--model-dir={output}" in readme
