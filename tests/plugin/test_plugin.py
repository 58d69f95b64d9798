"""The pytest plugin: options, backend loading, leak failures, reproduce lines, per-step summary, case errors, tuning."""

import ast
import os
import re
import shlex
import textwrap

import pytest

from aclcts.pytest_plugin.plugin import DEFAULT_SEED


def run(pytester, *args):
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist", *args)


def test_pytest_help_shows_the_options_of_every_aclcts_extension(project):
    # argparse formats each help text with %: a bare % in one of them breaks `pytest --help` for everyone.
    result = run(project, "--help")
    assert result.ret == 0, result.stderr.str()[-2000:]
    for option in ("--backend", "--memory-budget", "--shard", "--expectations", "--report", "--rerun-new-failures"):
        result.stdout.fnmatch_lines([f"*{option}[= ]*"])


def test_npu_backend_without_model_dir_is_a_one_line_usage_error(project):
    project.makepyfile(test_x="def test_x():\n    pass\n")
    result = run(project, "--backend=npu")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*--backend=npu needs --model-dir=DIR*"])
    assert "Traceback" not in result.stderr.str()


def test_npu_backend_without_pyacl_tells_to_source_set_env(project):
    project.makepyfile(test_x="def test_x(acl):\n    pass\n")
    (project.path / "models").mkdir()
    (project.path / "models" / "op.om").write_bytes(b"")  # the model folder check comes first and passes
    result = run(project, "--backend=npu", f"--model-dir={project.path / 'models'}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: *set_env.sh*"])
    assert "Traceback" not in result.stderr.str()


def test_an_unrelated_module_named_acl_is_detected(project):
    project.makepyfile(acl="VERSION = 1\n", test_x="def test_x(acl):\n    pass\n")
    (project.path / "models").mkdir()
    (project.path / "models" / "op.om").write_bytes(b"")  # the model folder check comes first and passes
    result = run(project, "--backend=npu", f"--model-dir={project.path / 'models'}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: *is not CANN's pyacl*unrelated package named `acl`*"])


def test_module_attr_backend_runs_the_cases(project):
    project.makepyfile(
        mybackend="from aclcts.sim import acl as simulated\n\ndef make():\n    return simulated\n",
        test_cases=textwrap.dedent("""
            import pytest
            from aclcts.drive import executor
            from aclcts.judge.decorator import compares_with_reference

            @pytest.mark.execute
            @pytest.mark.cases(mode="execute_v2")
            @compares_with_reference
            def test_case(acl, stream, op_case, case_inputs):
                return executor.run(acl, stream, op_case, case_inputs, "execute_v2")
        """),
    )
    result = run(project, "--backend=mybackend:make")
    result.assert_outcomes(passed=16)
    result.stdout.fnmatch_lines(["*aclcts results per documented step*", "execute*passed*16*failed*0*"])


def test_the_per_step_summary_counts_xfails_apart_from_skips(project):
    project.makepyfile(test_steps=textwrap.dedent("""
        import pytest

        @pytest.mark.execute
        def test_passes():
            pass

        @pytest.mark.execute
        @pytest.mark.xfail(reason="known", strict=True)
        def test_known_failure():
            assert False

        @pytest.mark.execute
        def test_skipped():
            pytest.skip("not here")
    """))
    result = run(project)
    result.assert_outcomes(passed=1, xfailed=1, skipped=1)
    result.stdout.fnmatch_lines(["execute*passed*1*failed*0*skipped*1*xfailed*1"])


def test_a_test_that_leaks_a_desc_fails_and_names_where_it_was_created(project):
    project.makepyfile(test_leak="def test_leak(acl):\n    acl.create_tensor_desc(0, [2], 2)\n")
    result = run(project)
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*left objects alive: 1 desc", "*desc*create_tensor_desc at test_leak.py:2*"])


def test_every_failure_prints_one_reproducing_command(project):
    project.makepyfile(test_fail="def test_fail(acl):\n    assert acl.rt.malloc(0, 0)[1] == 0\n")
    result = run(project, "--aclcts-seed=7")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*reproduce*", "pytest test_fail.py::test_fail --backend=sim --aclcts-seed=7*"])


def test_the_reproducing_command_carries_the_aclcts_environment_and_options_and_reruns_the_failure(project, monkeypatch):
    project.makepyfile(test_fail="import os\n\n\ndef test_fail():\n"
                                 "    assert os.environ.get('ACLCTS_SIM_STACK_DEPTH') != '5'\n")
    for name in [name for name in os.environ if name.startswith("ACLCTS_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("ACLCTS_SIM_STACK_DEPTH", "5")
    monkeypatch.setenv("ACLCTS_NOTE", "two words")
    (project.path / "gold").mkdir()  # a --golden-dir that does not exist is a usage error
    result = run(project, "--error-codes-lenient", "--golden-dir=gold")
    result.assert_outcomes(failed=1)
    line = next(line for line in result.stdout.lines if line.startswith("ACLCTS_") and " pytest " in line)
    assert line == ("ACLCTS_NOTE='two words' ACLCTS_SIM_STACK_DEPTH=5 pytest test_fail.py::test_fail --backend=sim "
                    f"--aclcts-seed={DEFAULT_SEED} -p no:randomly -p no:cacheprovider -p no:xdist --golden-dir=gold "
                    "--error-codes-lenient")
    monkeypatch.delenv("ACLCTS_SIM_STACK_DEPTH")
    monkeypatch.delenv("ACLCTS_NOTE")
    words = shlex.split(line)
    at = words.index("pytest")
    for assignment in words[:at]:
        monkeypatch.setenv(*assignment.split("=", 1))
    again = run(project, *words[at + 1:])
    again.assert_outcomes(failed=1)


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_a_broken_case_file_is_reported_with_file_line_and_field(project, workers):
    # Under -n the controller does not load the case library: a worker's usage error becomes the run's.
    project.makefile(".yaml", **{"cases/bad": "op: Add\npolicy: elementwise\nsource: x\ninputs: [x1, x2]\n"
                                              "outputs: [y]\ndtypes: [fp16]\nshapes: [[[1], [1]]]\n"})
    project.makepyfile(test_x="def test_x():\n    pass\n")
    result = project.runpytest_subprocess("-p", "no:cacheprovider", *workers)
    assert result.ret == 4
    result.stderr.fnmatch_lines(["ERROR: case library: *cases/bad.yaml:6: dtypes[[]0[]]: expected a data type name*'fp16'*"])
    output = result.stdout.str() + result.stderr.str()
    for noise in ("Traceback", "node down", "crashed worker"):
        assert noise not in output


CONTROLLER_PROBE = """\
import sys


def pytest_sessionstart(session):
    if session.config.pluginmanager.hasplugin("dsession"):
        loaded = [name for name in ("numpy", "hypothesis", "aclcts.cases", "aclcts.pytest_plugin.suite") if name in sys.modules]
        sys.stdout.write(f"CONTROLLER_LOADED={loaded}\\n")
"""


def test_an_xdist_controller_starts_its_workers_without_numpy_hypothesis_or_the_case_library(project):
    project.makeconftest(CONTROLLER_PROBE)
    project.makepyfile(test_x="def test_x(op_case):\n    pass\n")
    result = project.runpytest_subprocess("-p", "no:cacheprovider", "-s", "-n", "2")
    result.assert_outcomes(passed=16)
    result.stdout.fnmatch_lines(["CONTROLLER_LOADED=[[][]]"])


def seed_lines(result):
    return [line[line.index("SEED"):] for line in result.stdout.lines if "SEED" in line]


def test_the_seed_option_changes_the_drawn_inputs(project):
    project.makepyfile(test_seed=textwrap.dedent("""
        import pytest
        @pytest.mark.cases(mode="execute_v2", ops=["Add"])
        def test_seed(op_case, case_inputs, case_seed):
            print("SEED", op_case.id, case_seed, case_inputs[0][0].ravel()[0])
    """))
    first = run(project, "-s", "--aclcts-seed=1", "-k", "float32-8x16")
    second = run(project, "-s", "--aclcts-seed=2", "-k", "float32-8x16")
    again = run(project, "-s", "--aclcts-seed=1", "-k", "float32-8x16")
    assert seed_lines(first) and seed_lines(first) == seed_lines(again)
    assert seed_lines(first) != seed_lines(second)


PROCESS_PROBE = """\
import gc
import os

import numpy as np


def test_probe():
    np.ones((64, 64)) @ np.ones((64, 64))
    print(f"THREADS={len(os.listdir('/proc/self/task'))} FROZEN={gc.get_freeze_count()}")
"""


def _probe(pytester, monkeypatch, blas_threads):
    """Thread count and GC freeze count inside a test of a pytest run with OPENBLAS_NUM_THREADS set (None: unset)."""
    if blas_threads is None:
        monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    else:
        monkeypatch.setenv("OPENBLAS_NUM_THREADS", blas_threads)
    result = run(pytester, "-s", "test_probe.py")
    assert result.ret == 0, result.stdout.str()
    line = next(line for line in result.stdout.lines if "THREADS=" in line)
    return {key: int(value) for key, value in (part.split("=") for part in line.split() if "=" in part)}


@pytest.mark.skipif(not os.path.isdir("/proc/self/task") or (os.cpu_count() or 1) < 2,
                    reason="needs Linux /proc to count threads and two CPUs for a second BLAS thread")
def test_openblas_defaults_to_one_thread_and_the_collected_session_is_frozen_unless_tuning_is_off(project, monkeypatch):
    project.makepyfile(test_probe=PROCESS_PROBE)
    one, two = _probe(project, monkeypatch, "1"), _probe(project, monkeypatch, "2")
    if one["THREADS"] == two["THREADS"]:
        pytest.skip("NumPy's BLAS starts no thread pool here, so its thread count cannot be seen")
    default = _probe(project, monkeypatch, None)
    assert default["THREADS"] == one["THREADS"], (default, one, two)
    assert default["FROZEN"] > 0
    monkeypatch.setenv("ACLCTS_TUNING", "off")
    untuned = _probe(project, monkeypatch, None)
    assert untuned["THREADS"] > one["THREADS"], (untuned, one)
    assert untuned["FROZEN"] == 0


REWRITE_PROBE = """\
import sys


def test_rewriting(aclcts_backend):
    loaders = {name: type(sys.modules[name].__spec__.loader).__name__
               for name in ("hypothesis.core", "hypothesis.extra.numpy", "aclcts.pytest_plugin.plugin", "aclcts.judge.compare",
                            "aclcts.sim.api_op", __name__)}
    print("LOADERS", loaders)
    assert 1 + 1 == 3
"""


def _loaders(project, pytestconfig, monkeypatch):
    """Module name → loader class name in a run of REWRITE_PROBE, which must show its failed assert rewritten."""
    # The repository root on the path makes the aclcts.egg-info of `pip install -e` visible, which lists every
    # module of aclcts, so pytest marks the whole package for rewriting as it does in the repository.
    monkeypatch.setenv("PYTHONPATH", str(pytestconfig.rootpath))
    project.makepyfile(test_rewriting=REWRITE_PROBE)
    result = run(project, "-s", "test_rewriting.py")
    line = next(line for line in result.stdout.lines if "LOADERS" in line)
    loaders = ast.literal_eval(line[line.index("{"):])
    if loaders["aclcts.pytest_plugin.plugin"] != "AssertionRewritingHook":
        pytest.skip("pytest does not mark aclcts for rewriting in this installation (no aclcts.egg-info to read)")
    assert loaders["test_rewriting"] == "AssertionRewritingHook", loaders
    result.stdout.fnmatch_lines(["*assert (1 + 1) == 3*"])
    return loaders


LIBRARIES = ("hypothesis.core", "hypothesis.extra.numpy", "aclcts.judge.compare", "aclcts.sim.api_op")


def test_hypothesis_and_aclcts_are_imported_past_assertion_rewriting_and_test_modules_are_still_rewritten(
        project, pytestconfig, monkeypatch):
    loaders = _loaders(project, pytestconfig, monkeypatch)
    for library in LIBRARIES:
        assert loaders[library] != "AssertionRewritingHook", loaders


def test_with_tuning_off_pytest_rewrites_the_libraries_too(project, pytestconfig, monkeypatch):
    monkeypatch.setenv("ACLCTS_TUNING", "off")
    loaders = _loaders(project, pytestconfig, monkeypatch)
    for library in LIBRARIES:
        assert loaders[library] == "AssertionRewritingHook", loaders


CLOSING_PROBE = """\
import gc
import sys

KEPT = []


def pytest_runtest_logreport(report):
    if not KEPT:
        sys.stdout.write(f"FIRST_REPORT_FROZEN={gc.get_freeze_count()}\\n")
        KEPT.extend([] for _ in range(300_000))


def pytest_configure(config):
    def report():
        sys.stdout.write(f"TRACKED={len(gc.get_objects())} FROZEN={gc.get_freeze_count()}\\n")
    config.add_cleanup(report)
"""


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_pytests_closing_collections_find_the_heap_frozen(project, workers):
    project.makeconftest(CLOSING_PROBE)
    project.makepyfile(test_x="def test_x():\n    pass\n")
    result = project.runpytest_subprocess("-p", "no:cacheprovider", "-s", *workers)
    counts = {key: int(value) for key, value in re.findall(r"\b(FIRST_REPORT_FROZEN|TRACKED|FROZEN)=(\d+)",
                                                           result.stdout.str())}
    assert counts["FIRST_REPORT_FROZEN"] > 0, counts
    assert counts["TRACKED"] * 10 < counts["FROZEN"], counts


#: Loads the aclcts plugin before pytest-xdist's, as an aclcts.egg-info in the working folder does (pip install -e).
ACLCTS_FIRST = ("-p", "aclcts.pytest_plugin.plugin", "-p", "no:aclcts")


@pytest.mark.parametrize(("given", "used"), [((), "worksteal"), (ACLCTS_FIRST, "worksteal"), (("--dist=load",), "load"),
                                             (("--dist=loadfile",), "loadfile")])
def test_under_n_the_plugin_distributes_by_work_stealing_unless_dist_is_given(pytester, given, used):
    pytester.makeconftest("def pytest_report_header(config):\n    return f'distribution: {config.option.dist}'\n")
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2", *given)
    result.stdout.fnmatch_lines([f"distribution: {used}"])
    assert result.ret == 0
