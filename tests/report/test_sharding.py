"""--shard K/N or auto: a stable crc32 assignment of tests to shards, others reported as deselected, K/N validated;
auto reads K and N from GitLab's, Kubernetes' or Slurm's variables."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from aclcts.pytest_plugin.sharding import ENGINE_VARIABLES, in_shard, parse_shard, shard_from_environment

ROOT = Path(__file__).resolve().parents[2]

TEN_TESTS = textwrap.dedent("""
    import pytest

    @pytest.mark.parametrize("i", range(10))
    def test_many(i):
        pass
""")


@pytest.fixture(autouse=True)
def not_an_xdist_worker_nor_a_shard(monkeypatch):
    """In-process runs must not see the outer xdist worker's variables, nor those of an engine running this CI."""
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(name, raising=False)
    for names in ENGINE_VARIABLES.values():
        for name in names:
            monkeypatch.delenv(name, raising=False)


def run(pytester, *args):
    return pytester.runpytest("-p", "no:cacheprovider", "-p", "no:xdist", *args)


def test_the_shards_of_a_run_partition_its_tests(pytester):
    pytester.makepyfile(test_ten=TEN_TESTS)
    picked = []
    for k in (1, 2, 3):
        result = run(pytester, f"--shard={k}/3", "-v")
        ran = [line.split(" ")[0] for line in result.outlines if " PASSED" in line]
        deselected = result.parseoutcomes().get("deselected", 0)
        assert len(ran) + deselected == 10
        assert all(in_shard(nodeid, k, 3) for nodeid in ran)
        picked += ran
    assert sorted(picked) == sorted(f"test_ten.py::test_many[{i}]" for i in range(10))


def test_assignment_is_crc32_of_the_node_id_modulo_n():
    # crc32(b"a") is 0xE8B7BE43 (the standard CRC-32 check value of "a").
    assert [k for k in range(1, 8) if in_shard("a", k, 7)] == [0xE8B7BE43 % 7 + 1]
    assert in_shard("anything", 1, 1)


@pytest.mark.parametrize("text, expected", [("1/1", (1, 1)), ("3/8", (3, 8)), (" 2 / 4 ", (2, 4))])
def test_shard_spellings(text, expected):
    assert parse_shard(text) == expected


@pytest.mark.parametrize("text", ["0/3", "4/3", "1/0", "a/b", "2", "1/2/3", "", "1/99999999999999999999",
                                  "1/" + "9" * 5000])
def test_a_bad_shard_is_a_one_line_usage_error(pytester, text):
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = run(pytester, f"--shard={text}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*--shard={text}: expected *"])
    assert "Traceback" not in result.stderr.str()


def test_the_shard_is_recorded_in_the_run_record(pytester):
    pytester.makepyfile(test_ten=TEN_TESTS)
    path = pytester.path / "shard.jsonl"
    run(pytester, "--shard=2/5", f"--report={path}")
    first = path.read_text().splitlines()[0]
    assert '"record":"run"' in first and '"shard":"2/5"' in first


#: One engine's variables for shard k (1-based) of n, as that engine sets them.
ENGINES = {
    "gitlab": lambda k, n: {"CI_NODE_INDEX": str(k), "CI_NODE_TOTAL": str(n)},
    "kubernetes": lambda k, n: {"JOB_COMPLETION_INDEX": str(k - 1), "ACLCTS_SHARD_COUNT": str(n)},
    # sbatch --array=4-10:3 on three shards: task ids 4, 7, 10
    "slurm": lambda k, n: {"SLURM_ARRAY_TASK_ID": str(4 + 3 * (k - 1)), "SLURM_ARRAY_TASK_MIN": "4",
                           "SLURM_ARRAY_TASK_MAX": str(4 + 3 * (n - 1)), "SLURM_ARRAY_TASK_STEP": "3",
                           "SLURM_ARRAY_TASK_COUNT": str(n)},
}

#: How the header line names each engine.
ENGINE_NAMES = {"gitlab": "GitLab parallel job", "kubernetes": "Kubernetes Indexed Job", "slurm": "Slurm job array"}


@pytest.mark.parametrize("environ, expected", [
    ({"CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "4"}, (1, 4, "GitLab parallel job")),
    ({"CI_NODE_INDEX": "4", "CI_NODE_TOTAL": "4"}, (4, 4, "GitLab parallel job")),
    ({"CI_NODE_TOTAL": "1"}, (1, 1, "GitLab job without parallel")),
    ({"JOB_COMPLETION_INDEX": "0", "ACLCTS_SHARD_COUNT": "3"}, (1, 3, "Kubernetes Indexed Job")),
    ({"JOB_COMPLETION_INDEX": "2", "ACLCTS_SHARD_COUNT": "3"}, (3, 3, "Kubernetes Indexed Job")),
    ({"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "8"},
     (1, 8, "Slurm job array")),
    ({"SLURM_ARRAY_TASK_ID": "7", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "8",
      "SLURM_ARRAY_TASK_COUNT": "8"}, (7, 8, "Slurm job array")),
    ({"SLURM_ARRAY_TASK_ID": "12", "SLURM_ARRAY_TASK_MIN": "10", "SLURM_ARRAY_TASK_MAX": "13",
      "SLURM_ARRAY_TASK_STEP": "1", "SLURM_ARRAY_TASK_COUNT": "4"}, (3, 4, "Slurm job array")),
    ({"SLURM_ARRAY_TASK_ID": "8", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "12",
      "SLURM_ARRAY_TASK_STEP": "4", "SLURM_ARRAY_TASK_COUNT": "4"}, (3, 4, "Slurm job array")),
    # sbatch hands the submitting GitLab job's variables on: the Slurm task is what started this process
    ({"CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "2", "SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "1",
      "SLURM_ARRAY_TASK_COUNT": "3"}, (3, 3, "Slurm job array")),
])
def test_each_engines_variables_give_its_shard(environ, expected):
    found = shard_from_environment(environ)
    assert (found.k, found.n, found.engine) == expected


def test_the_kubernetes_count_comes_from_the_option_before_the_variable():
    found = shard_from_environment({"JOB_COMPLETION_INDEX": "4", "ACLCTS_SHARD_COUNT": "9"}, count=5)
    assert (found.k, found.n) == (5, 5)


@pytest.mark.parametrize("environ, count, named", [
    ({}, None, ["CI_NODE_INDEX", "JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID", "ACLCTS_SHARD_COUNT"]),
    ({"CI_NODE_INDEX": "2"}, None, ["CI_NODE_TOTAL"]),
    ({"CI_NODE_TOTAL": "3"}, None, ["CI_NODE_INDEX"]),
    ({"CI_NODE_INDEX": "0", "CI_NODE_TOTAL": "3"}, None, ["CI_NODE_INDEX=0"]),
    ({"CI_NODE_INDEX": "4", "CI_NODE_TOTAL": "3"}, None, ["CI_NODE_INDEX=4"]),
    ({"CI_NODE_INDEX": "two", "CI_NODE_TOTAL": "3"}, None, ["CI_NODE_INDEX='two'"]),
    ({"CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "3"}, 4, ["count of 4", "CI_NODE_TOTAL=3"]),
    ({"JOB_COMPLETION_INDEX": "1"}, None, ["--shard-count", "ACLCTS_SHARD_COUNT"]),
    ({"JOB_COMPLETION_INDEX": "3"}, 3, ["JOB_COMPLETION_INDEX=3"]),
    ({"JOB_COMPLETION_INDEX": "1", "ACLCTS_SHARD_COUNT": "0"}, None, ["count of 0"]),
    ({"SLURM_ARRAY_TASK_ID": "3"}, None, ["SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_COUNT"]),
    # --array=1,2,9: not one evenly spaced range, so task ids do not map onto shards
    ({"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "9",
      "SLURM_ARRAY_TASK_COUNT": "3"}, None, ["SLURM_ARRAY_TASK_MAX=9", "--array=1-N"]),
    ({"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_STEP": "2",
      "SLURM_ARRAY_TASK_COUNT": "4"}, None, ["SLURM_ARRAY_TASK_STEP=2", "SLURM_ARRAY_TASK_ID=4"]),
    ({"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "3",
      "ACLCTS_SHARD_COUNT": "4"}, None, ["count of 4", "SLURM_ARRAY_TASK_COUNT=3"]),
])
def test_missing_or_inconsistent_variables_are_named(environ, count, named):
    with pytest.raises(ValueError) as raised:
        shard_from_environment(environ, count)
    message = str(raised.value)
    assert "\n" not in message and message.startswith("--shard=auto: ")
    assert all(name in message for name in named), message


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_auto_shards_of_each_engine_partition_the_run_and_are_recorded(pytester, monkeypatch, engine):
    pytester.makepyfile(test_ten=TEN_TESTS)
    picked = []
    for k in (1, 2, 3):
        with monkeypatch.context() as patch:
            for name, value in ENGINES[engine](k, 3).items():
                patch.setenv(name, value)
            path = pytester.path / f"{engine}{k}.jsonl"
            result = run(pytester, "--shard=auto", f"--report={path}")
        assert result.ret == pytest.ExitCode.OK
        records = [json.loads(line) for line in path.read_text().splitlines()]
        ran = [record["id"] for record in records if record["record"] == "case"]
        assert all(in_shard(nodeid, k, 3) for nodeid in ran)
        assert records[0]["shard"] == f"{k}/3"
        result.stdout.fnmatch_lines([f"aclcts shard: {k}/3 (--shard=auto: {ENGINE_NAMES[engine]}, *"])
        picked += ran
    assert sorted(picked) == sorted(f"test_ten.py::test_many[{i}]" for i in range(10))


@pytest.mark.parametrize("args, environ, named", [
    (["--shard=auto"], {}, "CI_NODE_INDEX"),
    (["--shard=auto"], {"JOB_COMPLETION_INDEX": "0"}, "--shard-count=N"),
    (["--shard=auto", "--shard-count=2"], {"CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "3"}, "CI_NODE_TOTAL=3"),
    (["--shard=1/2", "--shard-count=2"], {}, "--shard-count=2 goes with --shard=auto"),
    (["--shard-count=2"], {"JOB_COMPLETION_INDEX": "0"}, "--shard-count=2 goes with --shard=auto"),
])
def test_auto_without_usable_variables_is_one_usage_line(pytester, monkeypatch, args, environ, named):
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    result = run(pytester, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if named in line]
    assert len(errors) == 1 and errors[0].startswith("ERROR: --shard")
    assert "Traceback" not in result.stderr.str()


def test_auto_shards_of_the_conformance_suite_partition_it():
    """Under a Slurm array of three tasks (ids 1-3), each xdist-free collection (of the step tests and Add's cases)
    keeps its shard; together, all."""
    def collect(*args, **environ):
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("PYTEST_") and not any(k in names for names in ENGINE_VARIABLES.values())}
        done = subprocess.run([sys.executable, "-m", "pytest", "conformance/", "--ops=Add", "--collect-only", "-q",
                               "-p", "no:cacheprovider", "-p", "no:randomly", *args], cwd=ROOT, capture_output=True,
                              text=True, env={**env, **environ}, timeout=300, check=False)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        return [line for line in done.stdout.splitlines() if line.startswith("conformance/")]

    whole = collect()
    shards = [collect("--shard=auto", SLURM_ARRAY_TASK_ID=str(k), SLURM_ARRAY_TASK_MIN="1", SLURM_ARRAY_TASK_MAX="3",
                      SLURM_ARRAY_TASK_COUNT="3") for k in (1, 2, 3)]
    assert all(shards)
    assert sorted(nodeid for shard in shards for nodeid in shard) == sorted(whole)
