"""The aclcts pytest plugin: options, markers, reproduce lines and per-step results; the test side is suite_plugin."""

from __future__ import annotations

import gc
import importlib
import os
import shlex
from collections import Counter
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

#: OpenBLAS's thread pool costs more than it gains on the suite's small tensors, and under pytest-xdist the
#: spinning pool threads of each worker take the other workers' cores. Set before NumPy is first imported
#: (the plugin loads ahead of it); a value the user exported is kept. See docs/performance.md.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from aclcts.pytest_plugin.unrewritten import unrewritten
from aclcts.pytest_plugin.xdist_usage import UsageErrorRelay

if TYPE_CHECKING:
    from aclcts.cases import Case

#: Marker name → what it selects; the first group are the documented steps counted in the summary.
STEPS = {
    "load": "op model loading (set_model_dir, load)",
    "memory": "device and host memory (malloc, memcpy, memset, get_mem_info)",
    "descriptors": "tensor descs, data buffers and attributes",
    "infer_shape": "output shape inference (infer_shape, dim and range getters)",
    "execute": "execute_v2 over the case library",
    "handle": "create_handle / execute_with_handle / destroy_handle",
    "blas": "acl.blas GEMM wrappers",
    "cast": "acl.op.cast and its handle form",
    "sync": "streams, events and synchronisation",
    "free": "copy-back and release",
}
CONCERNS = {
    "dynamic": "dynamic-shape models",
    "negative": "invalid arguments and their documented error codes",
    "leak": "resource and memory leak checks",
    "unsafe": "probes that would crash real hardware (isolated on the NPU)",
    "slow": "long-running tests",
    "perf": "execute_v2 against execute_with_handle latency per op family (recorded, warned, never failed)",
    "cases(mode, executions, family, ops)": "parametrize op_case over the case library",
}
DEFAULT_SEED = 20261202
#: Feature modules with their own options and hooks; each has add_options(group) and configure(config).
EXTENSIONS: tuple[str, ...] = (
    "aclcts.pytest_plugin.sharding", "aclcts.pytest_plugin.expectations", "aclcts.pytest_plugin.run_report", "aclcts.pytest_plugin.xdist_events",
)


def pytest_addoption(parser: pytest.Parser) -> None:
    """The aclcts command-line options."""
    group = parser.getgroup("aclcts", "pyacl conformance (aclcts)")
    group.addoption("--backend", default="sim", help="sim (default), npu (the real pyacl) or MODULE:ATTR")
    group.addoption("--device-id", type=int, default=0, help="device to run on (default 0)")
    group.addoption("--model-dir", default=None, help="op models built by ATC (required with --backend=npu)")
    group.addoption("--cases", nargs="+", default=None, action="extend",
                    help="case files or folders (default: the repository's cases/)")
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
    group.addoption("--isolate", action="store_true",
                    help="run unsafe probes in a child process (always so on MODULE:ATTR backends; on npu they are "
                         "skipped without it)")
    for name in EXTENSIONS:
        with unrewritten():
            extension = importlib.import_module(name)
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
    if not _may_distribute(config) or _hypothesis_options(config):
        with unrewritten():
            import aclcts.cases.strategies  # noqa: F401  (registers the profiles before hypothesis' plugin loads one)
    return (yield)


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
    backend = config.getoption("--backend")
    if backend == "npu" and not config.getoption("--model-dir"):
        raise pytest.UsageError(
            "--backend=npu needs --model-dir=DIR with op models built by the real ATC from `aclcts singleop`"
        )
    if xdist_controller(config):
        # The workers load and check the case library; a worker's usage error becomes this run's (xdist_usage).
        config.pluginmanager.register(UsageErrorRelay(), "aclcts-usage-relay")
        if config.getoption("--update-golden"):
            with unrewritten():
                from aclcts.pytest_plugin.suite import update_golden
            update_golden(config)
    else:
        with unrewritten():
            from aclcts.pytest_plugin import suite as suite_plugin
        config.pluginmanager.register(suite_plugin, "aclcts-suite")
    for name in EXTENSIONS:
        importlib.import_module(name).configure(config)


#: Stash keys of the run's case library and golden definitions, which suite_plugin loads.
CASES = pytest.StashKey[list]()
GOLDEN = pytest.StashKey[list]()


def golden_folder(config: pytest.Config) -> Path:
    """The golden folder: --golden-dir or the repository's golden/."""
    return Path(config.getoption("--golden-dir") or config.rootpath / "golden")


def library_cases(config: pytest.Config) -> list[Case]:
    """The case library loaded for this run (--cases or cases/)."""
    return config.stash.get(CASES, [])


def freeze_survivors() -> None:
    """Collect the garbage, then move every object still alive out of the cyclic garbage collector's scans."""
    gc.collect()
    gc.freeze()


def pytest_collection_finish(session: pytest.Session) -> None:
    """Freeze the collected items, cases and loaded modules: they live for the whole session."""
    # Without this every full collection rescans them (docs/performance.md).
    freeze_survivors()


@pytest.hookimpl(wrapper=True)
def pytest_runtestloop(session: pytest.Session) -> Generator[None, object, object]:
    """On an xdist controller, its workers started: import hypothesis, then freeze what it loaded."""
    # hypothesis' own terminal summary imports hypothesis. Imported here it is not rewritten (0.2 s, not 0.6 s) and
    # overlaps the workers' start-up. The controller collects nothing, so nothing else freezes its heap before the
    # workers' reports arrive.
    if session.config.pluginmanager.hasplugin("dsession"):
        with unrewritten():
            import hypothesis  # noqa: F401
        freeze_survivors()
    return (yield)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """Freeze what is left, so that pytest's five closing collections (for unraisable exceptions) rescan nothing."""
    # One collection here finds what they would; each of theirs otherwise rescans the whole heap (0.2 s).
    freeze_survivors()


#: Options that change what a test does, repeated in its reproducing command line when the run gave them.
REPRO_OPTIONS = ("--model-dir", "--device-id", "--golden-dir", "--error-codes", "--error-codes-lenient", "--isolate",
                 "--cann-version", "--expectations-today")


def repro_command(item: pytest.Item) -> str:
    """One command line that reruns exactly this test with the same environment, backend, seed, cases and options."""
    config = item.config
    environment = [f"{name}={shlex.quote(value)}" for name, value in sorted(os.environ.items())
                   if name.startswith("ACLCTS_")]
    words = ["pytest", item.nodeid, f"--backend={config.getoption('--backend')}",
             f"--aclcts-seed={config.getoption('--aclcts-seed')}", "-p", "no:randomly"]
    for option in REPRO_OPTIONS:
        value = config.getoption(option)
        if value is True:
            words.append(option)
        elif value:
            words.append(f"{option}={value}")
    for path in config.getoption("--expectations"):
        words.append(f"--expectations={path}")
    if config.getoption("--cases"):
        words += ["--cases", *config.getoption("--cases")]
    return " ".join([*environment, shlex.join(words)])  # NAME=value words stay unquoted, or a shell runs them


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    """Attach the reproducing command line to every failure, and the test's documented steps to every report."""
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        report.sections.append(("reproduce", repro_command(item)))
    if _STEPS_OF not in item.stash:
        item.stash[_STEPS_OF] = [name for name in STEPS if item.get_closest_marker(name)]
    report.aclcts_steps = item.stash[_STEPS_OF]


_STEPS_OF = pytest.StashKey[list]()


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> None:
    """Count results per documented step."""
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        counts = config.stash.setdefault(_COUNTS, Counter())
        for step in getattr(report, "aclcts_steps", ()):
            counts[(step, report.outcome)] += 1


_COUNTS = pytest.StashKey[Counter]()


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """Print the pass matrix per documented step."""
    counts = config.stash.get(_COUNTS, Counter())
    if not counts:
        return
    terminalreporter.section("aclcts results per documented step")
    for step in STEPS:
        row = {outcome: counts.get((step, outcome), 0) for outcome in ("passed", "failed", "skipped")}
        if any(row.values()):
            terminalreporter.write_line(f"{step:<12} passed {row['passed']:>5}  failed {row['failed']:>5}  "
                                        f"skipped {row['skipped']:>5}")
