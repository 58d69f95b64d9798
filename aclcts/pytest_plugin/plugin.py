"""The aclcts pytest plugin: options, markers, reproduce lines and per-step results; the test side is `suite`.

It is the entry point and the one place that composes the wing: every process registers the feature modules
(`extensions`; `-p no:NAME` leaves one out) and the tuning; a process that collects tests also registers the test
side (`suite`, `comparisons`), which an xdist controller does not, so that it starts its workers without importing
NumPy, hypothesis or the case library.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Generator, Iterator
from typing import Any

import pytest

from aclcts.core.constants import DEFAULT_SEED
from aclcts.pytest_plugin import extensions, reproduce, run_outputs, tuning
from aclcts.pytest_plugin.failures import FailureSummary, op_of
from aclcts.pytest_plugin.library import outside, referenced_modules
from aclcts.pytest_plugin.markers import CONCERNS, STEPS
from aclcts.pytest_plugin.model_dir import check_model_dir
from aclcts.pytest_plugin.reproduce import repro_command
from aclcts.pytest_plugin.xdist_usage import UsageErrorRelay



def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    """The aclcts command-line options; the check of the run's outputs, which goes before every other plugin's set-up."""
    pluginmanager.register(run_outputs, "aclcts-outputs")
    group = parser.getgroup("aclcts", "pyacl conformance (aclcts)")
    group.addoption("--backend", default="sim", help="sim (default), npu (the real pyacl) or MODULE:ATTR")
    group.addoption("--device-id", type=int, default=0, help="device to run on (default 0)")
    group.addoption("--model-dir", default=None, help="op models built by ATC (required with --backend=npu)")
    group.addoption("--cases", nargs="+", default=None, action="extend",
                    help="case files or folders (default: the repository's cases/); a --cases run runs only the "
                         "tests of those files' cases")
    group.addoption("--msopst-soc", default=None, metavar="SOC|all",
                    help="run the msopst case files whose name tags this SoC (e.g. Ascend310P3; `Sort_case_310.json` "
                         "is tagged 310) and those with no tag; all: every file (default: the backend's SoC)")
    group.addoption("--with-step-tests", action="store_true",
                    help="with --cases: also run the step tests, which run the suite's own models (its Add, GEMM, "
                         "GEMV and Cast cases, cases/dynamic, golden/) instead of the case files' cases")
    group.addoption("--ops", default=None, metavar="OP[,OP...]",
                    help="run only the cases (and golden cases) of these op types, e.g. --ops=Add,MatMul")
    group.addoption("--smoke", action="store_true",
                    help="run the smoke selection: the step tests' own models and one case per family and kind "
                         "(static or dynamic, modes, const inputs); its size does not grow with the library")
    group.addoption("--domains", choices=("on", "off"), default="on",
                    help="on (default): add to the shipped library the cases generated from the op records' domains "
                         "(ids with -domain- or -special-: every attribute value class, special points, broadcasting "
                         "corners; docs/domains.md); --smoke never adds them")
    group.addoption("--aclcts-seed", type=int, default=DEFAULT_SEED, help=f"input seed (default {DEFAULT_SEED})")
    group.addoption("--model-cache", default=None, metavar="DIR|off",
                    help="compiled-model cache folder (default $ACLCTS_MODEL_CACHE or ~/.cache/aclcts/models); "
                         "off: compile the case library into the session's temporary folder")
    group.addoption("--golden-dir", default=None, help="golden data folder (default: the repository's golden/)")
    group.addoption("--update-golden", action="store_true", help="rewrite the golden files instead of checking them")
    group.addoption("--error-codes", default=None,
                    help="documented error codes of the release under test (default: error-codes/cann-9.0.yaml)")
    group.addoption("--error-codes-lenient", action="store_true",
                    help="negative tests accept any non-zero code instead of the exact documented one")
    group.addoption("--memory-budget", default=None, metavar="SIZE",
                    help="host memory one case may take, e.g. 4GiB, or a share of the available memory, e.g. 50%% "
                         "(default 50%%, split among xdist workers); a case estimated above it is skipped")
    group.addoption("--isolate", action="store_true",
                    help="run unsafe probes in a child process (without it: in-process on sim, skipped on npu, in a "
                         "child on MODULE:ATTR backends unless they declare survives_misuse or real_device)")
    extensions.register(pluginmanager)
    for extension in extensions.registered(pluginmanager):
        extension.add_options(group)


@pytest.hookimpl(wrapper=True)
def pytest_cmdline_main(config: pytest.Config) -> Generator[None, int | pytest.ExitCode | None, int | pytest.ExitCode | None]:
    """Under `-n` without `--dist`, distribute by work stealing instead of pytest-xdist's `load`."""
    # Each worker starts with half of the tests and takes half of the other's queue when it runs out, so no worker
    # is left alone with a slow stretch at the end; it also needs fewer scheduling messages (docs/performance.md).
    # A wrapper, so it runs before xdist's own tryfirst hook (which turns `no` into `load`) whatever order the two
    # plugins were registered in.
    if getattr(config.option, "numprocesses", None) and getattr(config.option, "dist", None) == "no":
        config.option.dist = "worksteal"
    if not _may_distribute(config) or _hypothesis_options(config) or os.environ.get("ACLCTS_HYPOTHESIS_PROFILE"):
        with tuning.unrewritten():
            import aclcts.cases.strategies  # noqa: F401  (registers the profiles before hypothesis' plugin loads one)
        _check_hypothesis_profile(config)
    return (yield)


def _check_hypothesis_profile(config: pytest.Config) -> None:
    """An unregistered --hypothesis-profile or ACLCTS_HYPOTHESIS_PROFILE is one usage line (in hypothesis' own plugin
    the option ends in INTERNALERROR)."""
    from aclcts.cases.strategies import choose_profile

    try:
        choose_profile()
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    name = getattr(config.option, "hypothesis_profile", None)
    if not name:
        return
    from hypothesis import settings
    from hypothesis.errors import InvalidArgument

    from aclcts.cases.strategies import PROFILES

    try:
        settings.get_profile(name)
    except InvalidArgument:
        raise pytest.UsageError(f"--hypothesis-profile={name}: no such hypothesis profile; aclcts registers "
                                f"{', '.join(PROFILES)} (a conftest.py may register more)") from None


def _may_distribute(config: pytest.Config) -> bool:
    """Before pytest-xdist reads its options: whether this process may become an xdist controller."""
    return (not hasattr(config, "workerinput") and not config.option.collectonly
            and bool(getattr(config.option, "numprocesses", None) or getattr(config.option, "tx", None)))


def _hypothesis_options(config: pytest.Config) -> bool:
    """Whether the command line gives any of hypothesis' own options (all stored as hypothesis_*)."""
    return any(value for name, value in vars(config.option).items() if name.startswith("hypothesis_"))


def xdist_controller(config: pytest.Config) -> bool:
    """Whether this process is a pytest-xdist controller: it starts the workers and collects nothing itself."""
    return (not hasattr(config, "workerinput") and not config.option.collectonly
            and getattr(config.option, "dist", "no") != "no" and bool(getattr(config.option, "tx", None)))


def pytest_configure(config: pytest.Config) -> None:
    """Register markers, check the options, and load the test side unless this is an xdist controller."""
    for name, text in {**STEPS, **CONCERNS}.items():
        config.addinivalue_line("markers", f"{name}: {text}")
    check_model_dir(config)
    if xdist_controller(config):
        # The workers load and check the case library; a worker's usage error becomes this run's (xdist_usage).
        config.pluginmanager.register(UsageErrorRelay(), "aclcts-usage-relay")
        if config.getoption("--update-golden"):
            with tuning.unrewritten():
                from aclcts.pytest_plugin.suite import update_golden
            update_golden(config)
    else:
        with tuning.unrewritten():
            from aclcts.pytest_plugin import comparisons, suite
        config.pluginmanager.register(suite, "aclcts-suite")
        config.pluginmanager.register(reproduce, "aclcts-reproduce")
        config.pluginmanager.register(comparisons, "aclcts-comparisons")
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(FailureSummary(), "aclcts-failure-summary")
    tuning.configure(config)
    for extension in extensions.registered(config.pluginmanager):
        extension.configure(config)


def pytest_report_header(config: pytest.Config) -> str | None:
    """Case files from outside the repository: the Python modules their `reference: module:ATTR` will import."""
    foreign = outside(config)
    if not foreign:
        return None
    modules = referenced_modules(foreign)
    if not modules:
        return "aclcts: --cases from outside the repository name no Python module (no reference: module:ATTR)"
    named = ", ".join(f"{module} ({name})" for module, name in modules)
    return f"aclcts: --cases from outside the repository import and run these Python modules at collection: {named}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    """Attach the reproducing command line and the op to every failure, and the test's documented steps to every
    report."""
    outcome = yield
    report = outcome.get_result()
    if report.failed and call.excinfo is not None and call.excinfo.typename == "AclCallError":
        # The call and the backend's own message say what went wrong; the traceback and the case's arrays do not.
        report.longrepr = f"{item.location[0]}:{item.location[1] + 1}: AclCallError: {call.excinfo.value}"
    if report.failed:
        report.aclcts_reproduce = repro_command(item)
        report.aclcts_op = op_of(item)
        report.sections.append(("reproduce", report.aclcts_reproduce))
    if _STEPS_OF not in item.stash:
        item.stash[_STEPS_OF] = [name for name in STEPS if item.get_closest_marker(name)]
    report.aclcts_steps = item.stash[_STEPS_OF]


_STEPS_OF = pytest.StashKey[list]()


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> None:
    """Count results per documented step."""
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        counts = config.stash.setdefault(_COUNTS, Counter())
        for step in getattr(report, "aclcts_steps", ()):
            counts[(step, _step_outcome(report))] += 1


def _step_outcome(report: pytest.TestReport) -> str:
    """passed, failed, skipped, xfailed or xpassed, as pytest's own summary counts the report."""
    if hasattr(report, "wasxfail"):
        return "xfailed" if report.skipped else "xpassed" if report.passed else report.outcome
    return report.outcome


_COUNTS = pytest.StashKey[Counter]()
#: The outcomes of the per-step summary's columns (xpassed shown only when a step has one).
STEP_OUTCOMES = ("passed", "failed", "skipped", "xfailed", "xpassed")


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """Print the pass matrix per documented step."""
    counts = config.stash.get(_COUNTS, Counter())
    if not counts:
        return
    terminalreporter.section("aclcts results per documented step")
    for step in STEPS:
        row = {outcome: counts.get((step, outcome), 0) for outcome in STEP_OUTCOMES}
        if any(row.values()):
            shown = [outcome for outcome in STEP_OUTCOMES if outcome != "xpassed" or row[outcome]]
            terminalreporter.write_line(f"{step:<12} " + "  ".join(f"{o} {row[o]:>5}" for o in shown))
