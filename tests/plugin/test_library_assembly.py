"""One assembly of the case library (aclcts.cases.assemble.case_library): `aclcts singleop cases` writes the models of
exactly the cases `pytest conformance/` runs, the records' default cases and the generated domain cases included.

Both sides are narrowed by the same --ops to one op type per record family (family_ops), through the assembly they
use without it (case_library with ops reads only the files naming those op types), so that the comparison's cost does
not grow with the library."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from family_ops import family_ops

from aclcts.cases import load_cases
from aclcts.pytest_plugin.library import SUITE_MODEL_CASES
from aclcts.tools.singleop import build, dynamic_models, golden_models, library_cases, split_paths

ROOT = Path(__file__).resolve().parents[2]
SOC = "Ascend910B1"
#: A plugin that writes the ids of the run's static, dynamic and golden cases (the suite's stash) to ACLCTS_IDS_TO.
DUMP_PLUGIN = """\
import json, os
from aclcts.pytest_plugin.library import CASES, DYNAMIC_CASES, GOLDEN

def pytest_collection_finish(session):
    stash = session.config.stash
    ids = {"static": [c.id for c in stash[CASES]], "dynamic": [c.id for c in stash[DYNAMIC_CASES]],
           "golden": [g.case.id for g in stash[GOLDEN]]}
    with open(os.environ["ACLCTS_IDS_TO"], "w") as out:
        json.dump(ids, out)
"""


def pytest_case_ids(tmp_path: Path, seed: int, ops: list[str]) -> dict[str, list[str]]:
    """The static, dynamic and golden case ids of `pytest conformance/ --collect-only --ops=OPS` (shipped library)."""
    (tmp_path / "dump_case_ids.py").write_text(DUMP_PLUGIN)
    target = tmp_path / "ids.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_ADDOPTS"))}
    env.update(PYTHONPATH=os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")]), ACLCTS_IDS_TO=str(target))
    command = [sys.executable, "-m", "pytest", "conformance/test_execute.py", "--collect-only", "-q", "-p", "no:xdist",
               "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "dump_case_ids", f"--aclcts-seed={seed}",
               f"--ops={','.join(ops)}"]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    return json.loads(target.read_text())


@pytest.mark.slow
def test_singleop_assembles_the_same_cases_as_pytest_for_the_shipped_library(tmp_path, monkeypatch):
    seed = 7  # not the default seed, so that it must reach both assemblies
    ops = family_ops()
    ran = pytest_case_ids(tmp_path, seed, ops)
    monkeypatch.chdir(ROOT)
    library = library_cases(["cases"], seed, ops)
    assert any("-domain-" in case_id for case_id in ran["static"])  # the generated cases are among those compared
    filed = {case.op for case in load_cases(["cases"], kind="all", ops=ops)}
    assert set(ops) - filed  # so are the default cases of a record no case file covers
    assert [case.id for case in library if not case.dynamic] == ran["static"]
    dynamic = [case_id for case_id, _ in dynamic_models(library, SOC)]
    assert dynamic == [f"dynamic-{case_id}" for case_id in ran["dynamic"]]
    _, manifest = build(*split_paths(["cases"], None), SOC, "all", seed, ops)
    golden = set(ran["golden"])
    assert golden and {case_id for case_id, _ in golden_models(split_paths(["cases"], None)[1], SOC, ops)} == golden
    steps = {case_id for _, case_id in SUITE_MODEL_CASES}  # the step tests' own models, which --ops leaves in
    assert set(manifest) == set(ran["static"]) | golden | steps | {f"dynamic-{case_id}" for case_id in ran["dynamic"]}
