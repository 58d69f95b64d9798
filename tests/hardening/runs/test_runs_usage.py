"""Whole-run problems are one usage line, exit 4, serially and under -n 2: a backend factory that raises, a device id
beyond the device count, an unknown simulator fault name, an unknown hypothesis profile, an empty or missing input
folder (issue 22, scope 5); a backend module calling sys.exit, ACLCTS_HYPOTHESIS_PROFILE or ACLCTS_IMPORT_TIMEOUT
naming nothing usable, device and shard counts beyond any farm (issue 37). A case ATC refuses is no such problem: it
fails its own tests and the run goes on; a compile problem no case owns still is (issue 34)."""

import pytest
from add_case import ADD_CASE

#: 65536 x 65536 elements: above ATC's limit of 2147483647 elements per tensor.
OVERSIZED_CASE = ADD_CASE + "  - [[65536, 65536], [65536, 65536]]\n"
WORKERS = {"serial": ["-p", "no:xdist"], "n2": ["-n", "2"]}


@pytest.fixture
def project(pytester):
    pytester.makefile(".yaml", **{"cases/add": ADD_CASE})
    pytester.makepyfile(test_x="def test_x(acl):\n    pass\n",
                        raising_factory="def make():\n    raise RuntimeError('no driver in this container')\n",
                        raising_module="raise OSError('libascendcl.so: cannot open shared object file')\n",
                        exiting_module="import sys\nsys.exit(2)\n")
    (pytester.path / "empty").mkdir()
    (pytester.path / "notes").mkdir()
    (pytester.path / "notes" / "README.txt").write_text("no case file here\n")
    return pytester


def usage_line(result) -> str:
    """The run's one line: exit 4, no traceback or internal error anywhere, exactly one ERROR line on stderr."""
    everything = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.USAGE_ERROR, everything[-3000:]
    assert "Traceback" not in everything and "INTERNALERROR" not in everything, everything[-3000:]
    [line] = [line for line in result.stderr.lines if line.startswith("ERROR:")]
    return line


#: Arguments, environment, and the words the usage line must hold.
PROBLEMS = {
    "factory raises": (["--backend=raising_factory:make"], {}, ["--backend=raising_factory:make", "RuntimeError",
                                                                "no driver in this container"]),
    "module import raises": (["--backend=raising_module:acl"], {}, ["--backend=raising_module:acl", "OSError"]),
    "device id beyond the count": (["--device-id=7"], {}, ["--device-id=7", "2 device(s)"]),
    "unknown fault name": ([], {"ACLCTS_SIM_FAULTS": "no_such_fault"}, ["ACLCTS_SIM_FAULTS", "no_such_fault"]),
    "unknown hypothesis profile": (["--hypothesis-profile=no_such_profile"], {}, ["--hypothesis-profile",
                                                                                  "no_such_profile"]),
    "unknown hypothesis profile variable": ([], {"ACLCTS_HYPOTHESIS_PROFILE": "nope"}, ["ACLCTS_HYPOTHESIS_PROFILE",
                                                                                      "'nope'", "expected one of"]),
    "module calls sys.exit at import": (["--backend=exiting_module:acl"], {}, ["--backend=exiting_module:acl",
                                                                               "called sys.exit(2)"]),
    "device range beyond any host": (["--devices=0-999999999999"], {}, ["--devices=0-999999999999",
                                                                         "expected ids 0..63"]),
    "shard count too large": (["--shard=1/99999999999999999999"], {}, ["--shard=1/99999999999999999999",
                                                                        "expected 1 <= K <= N"]),
    "bad import timeout": ([], {"ACLCTS_IMPORT_TIMEOUT": "soon"}, ["ACLCTS_IMPORT_TIMEOUT='soon'"]),
    "empty cases folder": (["--cases", "empty"], {}, ["--cases empty", "no case file"]),
    "cases folder without a case file": (["--cases", "notes"], {}, ["--cases notes", "no case file"]),
    "missing cases folder": (["--cases", "missing"], {}, ["missing", "no such case file or folder"]),
    "missing golden folder": (["--golden-dir=missing"], {}, ["--golden-dir=missing", "no such folder"]),
    "bad memory budget": (["--memory-budget=lots"], {}, ["--memory-budget=lots", "4GiB"]),
}


@pytest.mark.parametrize("workers", WORKERS.values(), ids=WORKERS.keys())
@pytest.mark.parametrize("problem", PROBLEMS)
def test_a_whole_run_problem_is_one_usage_line(project, monkeypatch, problem, workers):
    args, environment, words = PROBLEMS[problem]
    monkeypatch.setenv("ACLCTS_SIM_DEVICE_COUNT", "2")
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    line = usage_line(project.runpytest_subprocess("-p", "no:cacheprovider", "--model-cache=off", *workers, *args))
    for word in words:
        assert word in line


@pytest.mark.parametrize("workers", WORKERS.values(), ids=WORKERS.keys())
def test_a_case_atc_refuses_fails_its_own_test_and_the_run_goes_on(project, workers):
    project.makefile(".yaml", **{"cases/add": OVERSIZED_CASE})
    project.makepyfile(test_case="def test_case(op_case, acl):\n    pass\n")
    result = project.runpytest_subprocess("-p", "no:cacheprovider", "--model-cache=off", *workers)
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*CaseRefused: atc: input_desc[[]0[]].shape: *[[]E13014[]]*",
                                 "FAILED test_case.py::test_case[[]Add-float32-65536x65536_65536x65536[]]*"])
    assert "op_list.json" not in result.stdout.str() and "INTERNALERROR" not in result.stdout.str()


#: A conftest making every compilation fail for a reason no element owns (an output folder ATC cannot create).
SHARED_COMPILE_PROBLEM = """\
from aclcts.atc import CompileResult
from aclcts.drive import partial_models


def unwritable(elements, folder, soc, json_name="op_list.json"):
    return CompileResult(errors=["--output: models: cannot create the directory (Permission denied)"])


partial_models.compile_elements = unwritable
"""


@pytest.mark.parametrize("workers", WORKERS.values(), ids=WORKERS.keys())
def test_a_compile_problem_no_case_owns_is_one_usage_line(project, workers):
    project.makeconftest(SHARED_COMPILE_PROBLEM)
    line = usage_line(project.runpytest_subprocess("-p", "no:cacheprovider", "--model-cache=off", *workers))
    assert "compiling the case library: --output: models: cannot create the directory (Permission denied)" in line


def test_without_a_problem_the_same_project_runs(project, monkeypatch):
    monkeypatch.setenv("ACLCTS_SIM_DEVICE_COUNT", "2")
    result = project.runpytest_subprocess("-p", "no:cacheprovider", "--model-cache=off", "-p", "no:xdist",
                                          "--device-id=1", "--cases", "cases", "--memory-budget=1GiB")
    result.assert_outcomes(passed=1)
