"""The test-running half of the aclcts plugin: the case library, parametrization and the session fixtures.

Every process that collects tests registers it (a serial run, each pytest-xdist worker); an xdist controller, which
collects nothing, does not, so that it starts its workers without importing hypothesis, NumPy or the case library.
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

# The plugin imports this module, and with it all of the below, past assertion rewriting (tuning.unrewritten).
import hypothesis.extra.numpy  # noqa: F401  (imported with the rest of the test side)

# strategies registers the hypothesis profiles on import.
from aclcts.pytest_plugin import allure_results as allure_report  # noqa: F401
from aclcts.pytest_plugin import timeouts
from aclcts.drive import flow  # noqa: F401
from aclcts.judge import golden  # noqa: F401
from aclcts.drive import model_cache  # noqa: F401
from aclcts.drive import budget, dynamic
from aclcts.cases import strategies  # noqa: F401
from aclcts.atc import compile_elements, generate_singleop_json
from aclcts.drive.backends import Backend, BackendError, device_problem, load_backend
from aclcts.drive.resources import LeakedObjects
from aclcts.cases import Case, CaseFileError, load_cases
from aclcts.cases.custom_ops import custom_ops, kernel_functions, load_with_records
from aclcts.cases.defaults import SHIPPED_CASES, with_defaults
from aclcts.cases.domains import generated
from aclcts.cases.load import case_files
from aclcts.cases.selection import of_ops, smoke
from aclcts.cases.values import draw_inputs
from aclcts.core.error_codes import ErrorCodesError, load_error_codes
from aclcts.pytest_plugin.library import (CASES, DYNAMIC_CASES, GOLDEN, NOTHING_TO_RUN, SELECTED, SUITE_MODEL_CASES,
                                          dynamic_cases, golden_folder, library_cases, parametrize_or_deselect,
                                          selected_case, step_tests_run, suite_model_cases)
from aclcts.drive.resources import TrackingAcl
from aclcts.pytest_plugin.model_dir import missing_model_dir
from aclcts.pytest_plugin.run_backend import BACKEND
from aclcts.pytest_plugin.tuning import unrewritten
from aclcts.pytest_plugin.xdist_usage import raise_usage_error, usage_error

#: The error-code table used without --error-codes, relative to the run's root folder.
DEFAULT_ERROR_CODES = Path("error-codes") / "cann-9.0.yaml"
#: The error-code table of the run, loaded before any test (the backend: run_backend.BACKEND).
ERROR_CODES = pytest.StashKey[Any]()
#: Host bytes one test process may spend on a case (--memory-budget), and the op-model folder of the case library.
MEMORY_BUDGET = pytest.StashKey[int]()
MODELS = pytest.StashKey[str]()
#: The parameters through which a conformance test runs a case of the run's case files.
CASE_PARAMS = ("op_case", "model", "perf_case")


def pytest_configure(config: pytest.Config) -> None:
    """Load the case library, the golden definitions, the error codes and the backend; a problem is one usage line."""
    config.addinivalue_line("markers", f"{NOTHING_TO_RUN}: the placeholder of an empty parametrization (deselected)")
    problem = timeouts.limit_user_code(config)
    if problem is not None:
        usage_error(config, problem)
        return
    paths = config.getoption("--cases") or [str(config.rootpath / "cases")]
    try:
        warn = lambda line: config.issue_config_time_warning(pytest.PytestWarning(line), 2)  # noqa: E731
        cases = load_with_records([p for p in paths if Path(p).exists() or config.getoption("--cases")], kind="all",
                                  warn=warn, ops=_ops(config) or None)
        shipped_library = not config.getoption("--cases") and Path(paths[0]).resolve() == SHIPPED_CASES
        if shipped_library:
            cases = with_defaults(cases, _ops(config) or None)
        shipped = config.rootpath / "cases" / "dynamic"
        own = load_cases([str(shipped)], kind="dynamic", warn=warn) if shipped.is_dir() and step_tests_run(config) else []
    except CaseFileError as exc:
        usage_error(config, f"case library: {exc}")
        return
    empty = [p for p in config.getoption("--cases") or [] if Path(p).is_dir() and not case_files([p])
             and not custom_ops([p])]
    if empty:
        usage_error(config, f"--cases {empty[0]}: the folder holds no case file (*.yaml, *.yml, msopst *.json) or operator "
                            "record (op_proto/aclcts/<OpType>.json); a run that selects no case tests nothing")
        return
    try:
        cases, golden_cases = _narrowed(config, cases, _golden_cases(config))
    except ValueError as exc:
        usage_error(config, str(exc))
        return
    if shipped_library and config.getoption("--domains") == "on" and not config.getoption("--smoke"):
        cases += generated(cases, config.getoption("--aclcts-seed"))
    config.stash[SELECTED] = frozenset(c.id for c in cases)
    cases += own
    config.stash[CASES] = [c for c in cases if not c.dynamic]
    config.stash[DYNAMIC_CASES] = list({c.id: c for c in cases if c.dynamic}.values())
    config.stash[GOLDEN] = golden_cases
    problem = _load_session_needs(config)
    if problem:
        usage_error(config, problem)
        return
    allure_report.configure(config)


def _ops(config: pytest.Config) -> list[str]:
    """The op types --ops names (none without it)."""
    return [op.strip() for op in (config.getoption("--ops") or "").split(",") if op.strip()]


def _narrowed(config: pytest.Config, cases: list[Case], golden_cases: list) -> tuple[list[Case], list]:
    """The case library and golden cases narrowed by --ops and --smoke; ValueError (the usage line) for an --ops name
    that no case has."""
    spelled = config.getoption("--ops")
    ops = _ops(config)
    unknown = sorted(set(ops) - {c.op for c in cases} - {g.case.op for g in golden_cases})
    if unknown:
        raise ValueError(f"--ops={spelled}: no case of op type {', '.join(unknown)} in the case library or the golden "
                         "store; expected op types as the case files name them, e.g. --ops=Add,MatMul")
    if ops:
        cases = of_ops(cases, ops)
        golden_cases = [g for g in golden_cases if g.case.op in ops]
    if config.getoption("--smoke"):
        cases = smoke(cases, keep=[case_id for _, case_id in SUITE_MODEL_CASES])
    return cases, golden_cases


def _load_session_needs(config: pytest.Config) -> str | None:
    """Load the error codes and (unless only collecting) the backend every test needs; why not, or None.

    Found here, a problem ends the run as one usage line, on a pytest-xdist worker too; found in a session fixture, it
    would end a worker in the middle of its session.
    """
    given = config.getoption("--error-codes")
    path = Path(given) if given else config.rootpath / DEFAULT_ERROR_CODES
    if given or path.exists():  # without the option, only the tests that judge error codes need the file
        try:
            config.stash[ERROR_CODES] = load_error_codes(path, lenient=config.getoption("--error-codes-lenient"))
        except ErrorCodesError as exc:
            return f"--error-codes: {exc}"
    spelled = config.getoption("--memory-budget")
    try:
        config.stash[MEMORY_BUDGET] = _memory_budget(config, spelled)
    except ValueError as exc:
        return f"--memory-budget={spelled}: {exc}"
    if config.option.collectonly:
        return None
    try:
        with unrewritten():  # the simulator is a library like the rest of aclcts
            config.stash[BACKEND] = load_backend(config.getoption("--backend"))
    except BackendError as exc:
        return str(exc)
    problem = missing_model_dir(config, config.stash[BACKEND].capabilities)
    if problem:
        return problem
    if _on_simulator(config.stash[BACKEND]):
        try:
            _register_kernels(config.getoption("--cases") or [])
        except CaseFileError as exc:
            return f"--cases: {exc}"
    cache = config.getoption("--model-cache")
    if cache and cache != "off" and not config.getoption("--model-dir"):
        try:
            Path(cache).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return f"--model-cache: model cache {cache}: cannot create a folder there ({exc.strerror})"
    return None


def _on_simulator(backend: Backend) -> bool:
    """Whether the backend's module is aclcts' simulator: --backend=sim, or `import acl` under `aclcts sim run`."""
    simulator = sys.modules.get("aclcts.sim")
    return backend.capabilities.simulated_devices or (simulator is not None and
                                                      backend.acl is getattr(simulator, "acl", None))


def _register_kernels(paths: list[str]) -> None:
    """Register on the simulator the kernel each operator record under the --cases folders names."""
    import aclcts.sim

    for op in custom_ops(paths):
        if op.record.kernel:
            aclcts.sim.register_kernel(op.record.op_type, *kernel_functions(op))


def _memory_budget(config: pytest.Config, spelled: str | None) -> int:
    """Bytes this process may spend on one case: --memory-budget (a share of the available memory split among the
    xdist workers) or DEFAULT_SHARE of the available memory, split alike; ValueError for a bad value."""
    workers = int(getattr(config, "workerinput", {}).get("workercount", 1))
    available = budget.available_memory()
    if spelled is None:
        return int(available * budget.DEFAULT_SHARE) // workers
    size = budget.parse_budget(spelled, available)
    return size // workers if spelled.strip().endswith("%") else size


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Check --device-id against the backend's device count (after every option, --devices too, has set it)."""
    config = session.config
    if BACKEND in config.stash:
        problem = device_problem(config.stash[BACKEND].acl, config.getoption("--device-id"))
        if problem:
            usage_error(config, problem)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect the placeholders of empty parametrizations and, in a --cases run without --with-step-tests, every
    conformance test that runs none of those case files' cases."""
    steps = step_tests_run(config)
    suite_folder = config.rootpath / "conformance"
    kept, dropped = [], []
    for item in items:
        wanted = not item.get_closest_marker(NOTHING_TO_RUN) and (
            steps or suite_folder not in item.path.parents or selected_case(item, CASE_PARAMS) is not None)
        (kept if wanted else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


@pytest.hookimpl(tryfirst=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """Compile the case library now if a selected test needs its models: a case ATC refuses is one usage line that
    names its case file, not an error of every test."""
    config = session.config
    if BACKEND not in config.stash or config.getoption("--model-dir"):
        return
    if any("model_dir" in getattr(item, "fixturenames", ()) for item in session.items):
        try:
            library_models(config)
        except ModelsError as exc:
            raise_usage_error(config, str(exc))


class ModelsError(Exception):
    """The case library's op models cannot be made; the message names the case file and case."""


def _owners(elements: list[dict], models: list[Any], owner: dict[Any, Case]) -> list[Case | None]:
    """The case behind each single-op JSON element (None for a compile_flag element)."""
    remaining = iter(models)
    return [owner[next(remaining)] if "op" in element else None for element in elements]


#: The start of an ATC message naming the temporary JSON file, its line and the element.
_WHERE = re.compile(r'^.*?:\d+: element \d+ \(op "[^"]*"\): ')


def _compiler(owners: list[Case | None]) -> Callable[[list[dict], Path, str], Path]:
    """The compile function of the model cache: ModelsError naming the first refused element's case file and case."""

    def compile_into(elements: list[dict], out: Path, soc: str) -> Path:
        result = compile_elements(elements, out, soc)
        if result.ok:
            return out / "models"
        located = [(owners[op.position], d.message) for op in result.operators for d in op.errors
                   if 0 <= op.position < len(owners) and owners[op.position] is not None]
        more = len(result.errors) - 1
        tail = f" (and {more} more error(s))" if more > 0 else ""
        if located:
            case, message = located[0]
            raise ModelsError(f"compiling the case library: {case.file}: case {case.id}: "
                              f"{_WHERE.sub('', message)}{tail}")
        raise ModelsError(f"compiling the case library: {result.errors[0]}{tail}")

    return compile_into


def _singleop_json(models: list[Any], owner: dict[Any, Case]) -> list[dict]:
    """The single-op JSON elements of the models; ModelsError naming the case whose model cannot be written."""
    try:
        return generate_singleop_json(models)
    except ValueError as exc:
        for model in models:
            try:
                generate_singleop_json([model])
            except ValueError as own:
                case = owner[model]
                message = re.sub(r'^model \d+ \(op "[^"]*"\): ', "", str(own))
                raise ModelsError(f"compiling the case library: {case.file}: case {case.id}: {message}") from None
        raise ModelsError(f"compiling the case library: {exc}") from None


def library_models(config: pytest.Config) -> str:
    """The op-model folder of the run's case library, golden cases and the step tests' own models (SUITE_MODEL_CASES,
    whatever --cases selects), compiled once (through the model cache unless --model-cache=off); ModelsError why not."""
    if MODELS in config.stash:
        return config.stash[MODELS]
    soc = config.stash[BACKEND].acl.get_soc_name() or "Ascend910B1"
    curated = [g.case for g in config.stash.get(GOLDEN, [])]
    cases = library_cases(config) + curated + suite_model_cases(config.rootpath / "cases")
    owner: dict[Any, Case] = {}
    for case in cases:
        owner.setdefault(case.op_model(soc), case)
    models = list(owner)
    elements = _singleop_json(models, owner)
    compile_into = _compiler(_owners(elements, models, owner))
    setting = config.getoption("--model-cache")
    folder = None
    if setting != "off":
        root = Path(setting) if setting else model_cache.default_root()
        try:
            folder = str(model_cache.cached_models(elements, soc, root, compile_into))
        except model_cache.ModelCacheError as exc:
            if setting:
                raise ModelsError(f"--model-cache: {exc}") from None
            warnings.warn(pytest.PytestWarning(f"{exc}; compiling into the session's temporary folder instead"))
    if folder is None:
        scratch = tempfile.mkdtemp(prefix="aclcts-models-")
        config.add_cleanup(lambda: shutil.rmtree(scratch, ignore_errors=True))
        folder = str(compile_into(elements, Path(scratch), soc))
    config.stash[MODELS] = folder
    return folder


def update_golden(config: pytest.Config) -> None:
    """--update-golden: rewrite the golden files once a run (serially, or on an xdist controller before its workers)."""
    folder = golden_folder(config)
    if not (folder / golden.DEFINITIONS).exists():
        return
    try:
        written = golden.generate(folder)
    except CaseFileError as exc:
        raise pytest.UsageError(f"golden definitions: {exc}") from None
    except golden.GoldenError as exc:
        raise pytest.UsageError(f"--update-golden: {exc}") from None
    config.issue_config_time_warning(
        pytest.PytestWarning(f"--update-golden rewrote {len(written)} golden file(s) in {folder}"), 2)


def _golden_cases(config: pytest.Config) -> list:
    folder = golden_folder(config)
    if config.getoption("--golden-dir") and not folder.is_dir():
        usage_error(config, f"--golden-dir={config.getoption('--golden-dir')}: no such folder; expected the golden "
                            "store (a folder with definitions.yaml), e.g. the repository's golden/")
        return []
    if not (folder / golden.DEFINITIONS).exists():
        return []
    if config.getoption("--update-golden") and not hasattr(config, "workerinput"):
        update_golden(config)
    try:
        return golden.load_definitions(folder)
    except CaseFileError as exc:
        usage_error(config, f"golden definitions: {exc}")
        return []


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize `op_case` over the cases the test's `cases` marker selects, `golden_case` over the golden store."""
    if "golden_case" in metafunc.fixturenames:
        chosen = metafunc.config.stash.get(GOLDEN, [])
        parametrize_or_deselect(metafunc, "golden_case", chosen, [g.name for g in chosen])
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
        and (options.get("where") is None or options["where"](c))
    ]
    parametrize_or_deselect(metafunc, "op_case", selected, [c.id for c in selected])


@pytest.fixture(scope="session")
def aclcts_backend(pytestconfig: pytest.Config) -> Backend:
    """The backend named by --backend (loaded while the run was configured)."""
    return pytestconfig.stash[BACKEND]


@pytest.fixture(scope="session")
def model_dir(pytestconfig: pytest.Config, aclcts_backend: Backend) -> str:
    """The op-model folder: --model-dir, or the case library compiled with `aclcts atc` (through the model cache)."""
    try:
        return pytestconfig.getoption("--model-dir") or library_models(pytestconfig)
    except ModelsError as exc:
        raise pytest.UsageError(str(exc)) from None


@pytest.fixture(scope="session")
def dynamic_models(pytestconfig: pytest.Config, session: flow.Session,
                   tmp_path_factory: pytest.TempPathFactory) -> dict[str, Case]:
    """The run's dynamic cases by id, their models compiled and loaded once per session; on the NPU they must be in
    --model-dir."""
    by_id = {c.id: c for c in dynamic_cases(pytestconfig)}
    if pytestconfig.stash[BACKEND].capabilities.real_device:
        if not pytestconfig.getoption("--model-dir"):
            pytest.skip("dynamic models on the NPU: `aclcts singleop --dynamic` JSON compiled with ATC into --model-dir")
        return by_id
    soc = session.acl.get_soc_name() or "Ascend910B1"
    dynamic.load_models(session.acl, dynamic.compile_cases(by_id.values(), tmp_path_factory.mktemp("dynamic-models"), soc))
    return by_id


@pytest.fixture(scope="session")
def error_codes(pytestconfig: pytest.Config) -> Any:
    """The release's documented error codes (--error-codes), checked strictly unless --error-codes-lenient."""
    if ERROR_CODES not in pytestconfig.stash:
        pytest.fail(f"no error-code table: {pytestconfig.rootpath / DEFAULT_ERROR_CODES} does not exist; give "
                    "--error-codes=FILE (the repository's error-codes/ folder holds CANN 9.0's)", pytrace=False)
    return pytestconfig.stash[ERROR_CODES]


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
        __tracebackhide__ = True
        raise LeakedObjects.of(leaked)


@pytest.fixture
def stream(session: flow.Session) -> int:
    """The session's stream."""
    return session.stream


@pytest.fixture
def case_seed(op_case: Case, pytestconfig: pytest.Config) -> int:
    """The case's input seed for this run."""
    return op_case.seed(pytestconfig.getoption("--aclcts-seed"))


@pytest.fixture
def case_inputs(op_case: Case, case_seed: int, request: pytest.FixtureRequest,
                pytestconfig: pytest.Config) -> list[list[Any]]:
    """Input sets for the case: one, or the `cases` marker's `executions` (each with fresh data); skipped, before
    anything is drawn, if the case's estimated host memory is above the memory budget."""
    marker = request.node.get_closest_marker("cases")
    executions = marker.kwargs.get("executions", 1) if marker else 1
    allowed = pytestconfig.stash.get(MEMORY_BUDGET, None)
    reason = allowed and budget.over_budget(op_case, allowed, executions, _device_on_host(pytestconfig))
    if reason:
        pytest.skip(reason)
    return [draw_inputs(op_case, case_seed + index) for index in range(executions)]


def _device_on_host(config: pytest.Config) -> bool:
    """Whether the run's device memory is host memory (every backend but a real device)."""
    backend = config.stash.get(BACKEND, None)
    return not (backend and backend.capabilities.real_device)


@pytest.fixture
def within_memory_budget(pytestconfig: pytest.Config) -> Callable[..., None]:
    """A check to call before a dynamic case's arrays are made: check(case, runtime_shapes, output_shapes=None)
    skips the test with its one-line reason when one execution at those shapes is over the memory budget."""
    allowed = pytestconfig.stash.get(MEMORY_BUDGET, None)
    on_host = _device_on_host(pytestconfig)

    def check(case: Case, runtime: Any, outputs: Any = None) -> None:
        reason = budget.shapes_over_budget(case, runtime, allowed, outputs, on_host)
        if reason:
            pytest.skip(reason)

    return check
