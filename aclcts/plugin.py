"""The aclcts pytest plugin: backend options, the device session, model provisioning, cases and per-step results."""

from __future__ import annotations

import gc
import importlib
import os
import shlex
import warnings
from collections import Counter
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

#: OpenBLAS's thread pool costs more than it gains on the suite's small tensors, and under pytest-xdist the
#: spinning pool threads of each worker take the other workers' cores. Set before NumPy is first imported
#: (the plugin loads ahead of it); a value the user exported is kept. See docs/performance.md.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from aclcts.unrewritten import unrewritten

with unrewritten():
    import hypothesis.extra.numpy  # noqa: F401  (imported here, so that it is never imported rewritten)

    from aclcts import flow, golden, model_cache, strategies, testing
    from aclcts.atc import compile_elements, generate_singleop_json
    from aclcts.backends import Backend, BackendError, load_backend
    from aclcts.cases import Case, CaseFileError, load_cases
    from aclcts.cases.values import draw_inputs
    from aclcts.error_codes import ErrorCodesError, load_error_codes
    from aclcts.resources import TrackingAcl

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
    "aclcts.sharding", "aclcts.waivers", "aclcts.report.plugin", "aclcts.allure_report", "aclcts.xdist_events",
)
#: The hypothesis profiles (ci, default, qualification) are registered when the plugin loads.
HYPOTHESIS_PROFILES = strategies.PROFILES


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
    return (yield)


def pytest_configure(config: pytest.Config) -> None:
    """Register markers, check the options and load the case library."""
    for name, text in {**STEPS, **CONCERNS}.items():
        config.addinivalue_line("markers", f"{name}: {text}")
    backend = config.getoption("--backend")
    if backend == "npu" and not config.getoption("--model-dir"):
        raise pytest.UsageError(
            "--backend=npu needs --model-dir=DIR with op models built by the real ATC from `aclcts singleop`"
        )
    paths = config.getoption("--cases") or [str(config.rootpath / "cases")]
    try:
        cases = load_cases([p for p in paths if Path(p).exists() or config.getoption("--cases")])
    except CaseFileError as exc:
        raise pytest.UsageError(f"case library: {exc}") from None
    config.stash[_CASES] = cases
    config.stash[_GOLDEN] = _golden_cases(config)
    for name in EXTENSIONS:
        importlib.import_module(name).configure(config)


_CASES = pytest.StashKey[list]()
_GOLDEN = pytest.StashKey[list]()


def golden_folder(config: pytest.Config) -> Path:
    """The golden folder: --golden-dir or the repository's golden/."""
    return Path(config.getoption("--golden-dir") or config.rootpath / "golden")


def _golden_cases(config: pytest.Config) -> list:
    folder = golden_folder(config)
    if not (folder / golden.DEFINITIONS).exists():
        return []
    try:
        # Under pytest-xdist the controller rewrites the files before it starts the workers; they only read them.
        if config.getoption("--update-golden") and not hasattr(config, "workerinput"):
            written = golden.generate(folder)
            config.issue_config_time_warning(
                pytest.PytestWarning(f"--update-golden rewrote {len(written)} golden file(s) in {folder}"), 2)
        return golden.load_definitions(folder)
    except CaseFileError as exc:
        raise pytest.UsageError(f"golden definitions: {exc}") from None


def library_cases(config: pytest.Config) -> list[Case]:
    """The case library loaded for this run (--cases or cases/)."""
    return config.stash.get(_CASES, [])


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize `op_case` over the cases the test's `cases` marker selects, `golden_case` over the golden store."""
    if "golden_case" in metafunc.fixturenames:
        chosen = metafunc.config.stash.get(_GOLDEN, [])
        metafunc.parametrize("golden_case", chosen, ids=[g.name for g in chosen])
    if "op_case" not in metafunc.fixturenames:
        return
    marker = metafunc.definition.get_closest_marker("cases")
    options = marker.kwargs if marker else {}
    mode = options.get("mode")
    selected = [
        c for c in library_cases(metafunc.config)
        if (mode is None or mode in c.modes)
        and (options.get("family") is None or c.family in options["family"])
        and (options.get("ops") is None or c.op in options["ops"])
    ]
    metafunc.parametrize("op_case", selected, ids=[c.id for c in selected])


@pytest.fixture(scope="session")
def aclcts_backend(pytestconfig: pytest.Config) -> Backend:
    """The backend named by --backend."""
    try:
        return load_backend(pytestconfig.getoption("--backend"))
    except BackendError as exc:
        pytest.exit(str(exc), returncode=4)


def _compile_into(elements: list[dict], out: Path, soc: str) -> Path:
    result = compile_elements(elements, out, soc)
    if not result.ok:
        raise pytest.UsageError("compiling the case library failed:\n" + "\n".join(result.errors))
    return out / "models"


@pytest.fixture(scope="session")
def model_dir(pytestconfig: pytest.Config, aclcts_backend: Backend, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The op-model folder: --model-dir, or the case library compiled with `aclcts atc` (through the model cache)."""
    given = pytestconfig.getoption("--model-dir")
    if given:
        return given
    soc = aclcts_backend.acl.get_soc_name() or "Ascend910B1"
    cases = library_cases(pytestconfig) + [g.case for g in pytestconfig.stash.get(_GOLDEN, [])]
    elements = generate_singleop_json(list(dict.fromkeys(c.op_model(soc) for c in cases)))
    setting = pytestconfig.getoption("--model-cache")
    if setting != "off":
        root = Path(setting) if setting else model_cache.default_root()
        try:
            return str(model_cache.cached_models(elements, soc, root, _compile_into))
        except model_cache.ModelCacheError as exc:
            if setting:
                pytest.exit(f"--model-cache: {exc}", returncode=4)
            warnings.warn(pytest.PytestWarning(f"{exc}; compiling into the session's temporary folder instead"))
    return str(_compile_into(elements, tmp_path_factory.mktemp("aclcts-models"), soc))


@pytest.fixture(scope="session")
def error_codes(pytestconfig: pytest.Config) -> Any:
    """The release's documented error codes (--error-codes), checked strictly unless --error-codes-lenient."""
    path = pytestconfig.getoption("--error-codes") or str(pytestconfig.rootpath / "error-codes" / "cann-9.0.yaml")
    try:
        return load_error_codes(path, lenient=pytestconfig.getoption("--error-codes-lenient"))
    except ErrorCodesError as exc:
        pytest.exit(str(exc), returncode=4)


@pytest.fixture(scope="session")
def golden_dir(pytestconfig: pytest.Config) -> Path:
    """The golden folder of this run."""
    return golden_folder(pytestconfig)


@pytest.fixture(scope="session")
def tracked_acl(aclcts_backend: Backend) -> TrackingAcl:
    """The backend's acl module behind the resource-tracking wrapper."""
    return TrackingAcl(aclcts_backend.acl)


@pytest.fixture(scope="session")
def session(tracked_acl: TrackingAcl, pytestconfig: pytest.Config, model_dir: str) -> Iterator[flow.Session]:
    """The device session of the whole run: init, set_device, create_context, create_stream, set_model_dir."""
    opened = flow.open_session(tracked_acl, pytestconfig.getoption("--device-id"))
    flow.check(tracked_acl.op.set_model_dir(model_dir), f"acl.op.set_model_dir({model_dir!r})")
    yield opened
    flow.close_session(opened)


@pytest.fixture
def acl(tracked_acl: TrackingAcl, session: flow.Session) -> Iterator[Any]:
    """The backend's acl module in a ready session; the test fails if it leaves any object it created alive."""
    before = tracked_acl.tracker.snapshot()
    yield tracked_acl
    leaked = tracked_acl.tracker.created_since(before)
    if leaked:
        for obj in leaked:
            tracked_acl.tracker.live.pop((obj.kind, obj.handle), None)
        pytest.fail("the test left objects alive: " + "; ".join(map(str, leaked)), pytrace=False)


@pytest.fixture
def stream(session: flow.Session) -> int:
    """The session's stream."""
    return session.stream


@pytest.fixture
def case_seed(op_case: Case, pytestconfig: pytest.Config) -> int:
    """The case's input seed for this run."""
    return op_case.seed(pytestconfig.getoption("--aclcts-seed"))


@pytest.fixture
def case_inputs(op_case: Case, case_seed: int, request: pytest.FixtureRequest) -> list[list[Any]]:
    """Input sets for the case: one, or the `cases` marker's `executions` (each with fresh data)."""
    marker = request.node.get_closest_marker("cases")
    executions = marker.kwargs.get("executions", 1) if marker else 1
    return [draw_inputs(op_case, case_seed + index) for index in range(executions)]


def freeze_survivors() -> None:
    """Collect the garbage, then move every object still alive out of the cyclic garbage collector's scans."""
    gc.collect()
    gc.freeze()


def pytest_collection_finish(session: pytest.Session) -> None:
    """Freeze the collected items, cases and loaded modules: they live for the whole session."""
    # Without this every full collection rescans them (docs/performance.md).
    freeze_survivors()


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """On an xdist controller, which collects nothing, freeze what it loaded before the workers' reports arrive."""
    if session.config.pluginmanager.hasplugin("dsession"):
        freeze_survivors()


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """Freeze what is left, so that pytest's five closing collections (for unraisable exceptions) rescan nothing."""
    # One collection here finds what they would; each of theirs otherwise rescans the whole heap (0.2 s).
    freeze_survivors()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """Record comparison metrics of the running test as its user properties."""
    testing.set_recorder(lambda key, value: item.user_properties.append((key, value)))
    try:
        yield
    finally:
        testing.set_recorder(None)


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
