"""The test-running half of the aclcts plugin: the case library, parametrization and the session fixtures.

Every process that collects tests registers it (a serial run, each pytest-xdist worker); an xdist controller, which
collects nothing, does not, so that it starts its workers without importing hypothesis, NumPy or the case library.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import warnings
from collections.abc import Iterator
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
from aclcts.drive import budget, dynamic, partial_models
from aclcts.cases import strategies  # noqa: F401
from aclcts.drive.backends import Backend, BackendError, device_problem, load_backend
from aclcts.drive.resources import LeakedObjects
from aclcts.cases import Case, CaseFileError, load_cases
from aclcts.cases.case import CaseRefused, Refusal
from aclcts.pytest_plugin import refusals
from aclcts.pytest_plugin.refusals import CASE_PARAMS, item_refusal
from aclcts.cases.assemble import case_library
from aclcts.cases.custom_ops import custom_ops, kernel_functions
from aclcts.cases.defaults import SHIPPED_CASES
from aclcts.cases.load import case_files
from aclcts.cases.msopst import is_msopst_file
from aclcts.cases.msopst.soc import EVERY_SOC, meant_for
from aclcts.cases.selection import smoke
from aclcts.cases.values import draw_inputs
from aclcts.core.error_codes import ErrorCodesError, load_error_codes
from aclcts.pytest_plugin.library import (CASES, DYNAMIC_CASES, GOLDEN, NOTHING_TO_RUN, SELECTED, SUITE_MODEL_CASES,
                                          case_of, dynamic_cases, golden_folder, library_cases, parametrize_or_deselect,
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
#: The SoC of a backend that names none (the simulator's default).
DEFAULT_SOC = "Ascend910B1"


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
        shipped_library = not config.getoption("--cases") and Path(paths[0]).resolve() == SHIPPED_CASES
        cases = case_library([p for p in paths if Path(p).exists() or config.getoption("--cases")],
                             config.getoption("--aclcts-seed"), shipped=shipped_library, ops=_ops(config),
                             domains=config.getoption("--domains") == "on" and not config.getoption("--smoke"),
                             warn=warn)
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
    config.stash[SELECTED] = frozenset(c.id for c in cases)
    config.stash[REFUSED] = [c for c in cases if c.refusal is not None]
    cases = [c for c in cases if c.refusal is None] + own
    config.stash[CASES] = [c for c in cases if not c.dynamic]
    config.stash[DYNAMIC_CASES] = list({c.id: c for c in cases if c.dynamic}.values())
    config.stash[GOLDEN] = golden_cases
    problem = _load_session_needs(config)
    if problem:
        usage_error(config, problem)
        return
    _keep_files_for_soc(config)
    refusals.refuse_loaded(config, config.stash[REFUSED])
    allure_report.configure(config)


#: The cases the loader refused (Case.refusal), which the tests are parametrized over beside the cases that run (their
#: refusals are in the run's store, refusals.REFUSALS).
REFUSED = pytest.StashKey[list]()


def _run_soc(config: pytest.Config) -> str | None:
    """The SoC the run's msopst files are picked for: --msopst-soc, else the backend's SoC name (None when no backend
    was loaded, as with --collect-only: every file is kept)."""
    given = config.getoption("--msopst-soc")
    if given:
        return given
    backend = config.stash.get(BACKEND, None)
    return (backend.acl.get_soc_name() or DEFAULT_SOC) if backend is not None else None


def _keep_files_for_soc(config: pytest.Config) -> None:
    """Leave out the cases of msopst files whose name tags another SoC than the run's (aclcts.cases.msopst.soc), with
    one warning line saying how many files."""
    soc = _run_soc(config)
    if soc is None:
        return
    dropped: set[str] = set()
    for key in (CASES, DYNAMIC_CASES, REFUSED):
        kept = []
        for case in config.stash[key]:
            if not is_msopst_file(case.file) or meant_for(case.file, soc):
                kept.append(case)
            else:
                dropped.add(case.file)
        config.stash[key] = kept
    if dropped:
        config.issue_config_time_warning(pytest.PytestWarning(
            f"--msopst-soc={soc}: {len(dropped)} msopst case file(s) named for another SoC left out, e.g. "
            f"{sorted(dropped)[0]} (--msopst-soc={EVERY_SOC} runs every file)"), 2)


def _ops(config: pytest.Config) -> list[str]:
    """The op types --ops names (none without it)."""
    return [op.strip() for op in (config.getoption("--ops") or "").split(",") if op.strip()]


def _narrowed(config: pytest.Config, cases: list[Case], golden_cases: list) -> tuple[list[Case], list]:
    """The golden cases narrowed by --ops and the case library (already narrowed by --ops) by --smoke; ValueError (the
    usage line) for an --ops name that no case has."""
    spelled = config.getoption("--ops")
    ops = _ops(config)
    unknown = sorted(set(ops) - {c.op for c in cases} - {g.case.op for g in golden_cases})
    if unknown:
        raise ValueError(f"--ops={spelled}: no case of op type {', '.join(unknown)} in the case library or the golden "
                         "store; expected op types as the case files name them, e.g. --ops=Add,MatMul")
    if ops:
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
    conformance test that runs none of those case files' cases; fail refused cases' tests at once and skip those of
    cases the backend does not implement."""
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
    backend = config.stash.get(BACKEND, None)
    for item in kept:
        case = case_of(item, CASE_PARAMS)
        if case is not None and refusals.refusal_of(config, case) is None and backend is not None:
            _skip_unimplemented(item, backend, case)


def _skip_unimplemented(item: pytest.Item, backend: Backend, case: Case) -> None:
    """Skip a case's test on a backend that declares it does not implement the case's op for its input dtypes (the
    simulator's kernels: "the simulator does not implement Sin for complex64"), rather than let it fail at run."""
    reason = backend.unimplemented(case.op, [tensor.dtype for tensor in case.inputs])
    if reason:
        item.add_marker(pytest.mark.skip(reason=reason))


def _fail_at_once(item: pytest.Item, refusal: Refusal) -> None:
    """Make a refused case's test fail with CaseRefused as it starts, setting up no fixture: the case never reaches
    the model compiler or a device."""

    def refuse() -> None:
        raise CaseRefused(refusal)

    item.setup = lambda: None  # type: ignore[method-assign]
    item.runtest = refuse  # type: ignore[method-assign]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """Compile the case library (and the dynamic cases' models) now if a selected test needs them, then make every
    test of a refused case fail at once (refusals); only a problem that no case owns is one usage line."""
    config = session.config
    if BACKEND in config.stash:
        needs = {name for item in session.items for name in getattr(item, "fixturenames", ())}
        try:
            if "model_dir" in needs and not config.getoption("--model-dir"):
                library_models(config)
            if "dynamic_models" in needs and not config.stash[BACKEND].capabilities.real_device:
                compiled_dynamic_models(config)
        except ModelsError as exc:
            raise_usage_error(config, str(exc))
    for item in session.items:
        refusal = item_refusal(item)
        if refusal is not None:
            _fail_at_once(item, refusal)


class ModelsError(Exception):
    """The case library's op models cannot be made for a reason no single case owns."""


#: Stash key of the dynamic cases' compiled model files (compiled_dynamic_models).
DYNAMIC_MODEL_FILES = pytest.StashKey[list]()


def _compile_into(elements: list[dict], out: Path, soc: str) -> Path:
    """The compile function of the model cache: the elements ATC accepts compiled into out/models, its refusals
    recorded beside them (model_cache.REFUSALS); ModelsError for a problem no case owns."""
    try:
        compiled = partial_models.compile_accepted(elements, out, soc)
    except partial_models.SharedCompileError as exc:
        raise ModelsError(f"compiling the case library: {exc}") from None
    model_cache.write_refusals(compiled.folder, compiled.refused)
    return compiled.folder


def _singleop_json(config: pytest.Config, users: dict[Any, list[Case]]) -> tuple[list[dict], list[Any]]:
    """The single-op JSON elements of the models that can be written as one, and those models; a model that cannot be
    written refuses its cases (stage atc); ModelsError for a problem of the models together."""
    try:
        elements, models, unwritable = partial_models.writable_json(list(users))
    except partial_models.SharedCompileError as exc:
        raise ModelsError(f"compiling the case library: {exc}") from None
    for model, reason in unwritable.items():
        refusals.refuse(config, users[model], Refusal("atc", reason))
    return elements, models


def library_models(config: pytest.Config) -> str:
    """The op-model folder of the run's case library, golden cases and the step tests' own models (SUITE_MODEL_CASES,
    whatever --cases selects), compiled once (through the model cache unless --model-cache=off); the cases whose
    model ATC refuses are refused (refusals); ModelsError for a problem no case owns."""
    if MODELS in config.stash:
        return config.stash[MODELS]
    soc = config.stash[BACKEND].acl.get_soc_name() or "Ascend910B1"
    curated = [g.case for g in config.stash.get(GOLDEN, [])]
    users: dict[Any, list[Case]] = {}
    for case in library_cases(config) + curated + suite_model_cases(config.rootpath / "cases"):
        users.setdefault(case.op_model(soc), []).append(case)
    elements, models = _singleop_json(config, users)
    owners = partial_models.by_position(elements, [users[m] for m in models])
    setting = config.getoption("--model-cache")
    folder = None
    if setting != "off":
        root = Path(setting) if setting else model_cache.default_root()
        try:
            folder = str(model_cache.cached_models(elements, soc, root, _compile_into))
        except model_cache.ModelCacheError as exc:
            if setting:
                raise ModelsError(f"--model-cache: {exc}") from None
            warnings.warn(pytest.PytestWarning(f"{exc}; compiling into the session's temporary folder instead"))
    if folder is None:
        scratch = tempfile.mkdtemp(prefix="aclcts-models-")
        config.add_cleanup(lambda: shutil.rmtree(scratch, ignore_errors=True))
        folder = str(_compile_into(elements, Path(scratch), soc))
    for position, reason in model_cache.read_refusals(Path(folder)).items():
        refusals.refuse(config, owners[position] or [], Refusal("atc", reason))
    config.stash[MODELS] = folder
    return folder


def compiled_dynamic_models(config: pytest.Config) -> list[Path]:
    """The dynamic cases' model files, compiled once per process with `aclcts atc`; a case whose model ATC refuses is
    refused at stage atc, as a case of the library is (msopst fails both at its ATC step, atc_single_op_convert)."""
    if DYNAMIC_MODEL_FILES in config.stash:
        return config.stash[DYNAMIC_MODEL_FILES]
    soc = config.stash[BACKEND].acl.get_soc_name() or "Ascend910B1"
    scratch = tempfile.mkdtemp(prefix="aclcts-dynamic-models-")
    config.add_cleanup(lambda: shutil.rmtree(scratch, ignore_errors=True))
    try:
        compiled = dynamic.compile_cases(dynamic_cases(config), Path(scratch), soc)
    except partial_models.SharedCompileError as exc:
        raise ModelsError(f"compiling the dynamic models: {exc}") from None
    for cases, reason in compiled.refused:
        refusals.refuse(config, cases, Refusal("atc", reason))
    config.stash[DYNAMIC_MODEL_FILES] = compiled.written
    return compiled.written


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    """Fail a test of a case refused after collection (its models compiled by a fixture) with that one-line reason,
    before the test body runs."""
    __tracebackhide__ = True
    refusal = item_refusal(item)
    if refusal is not None:
        raise CaseRefused(refusal)


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
    selected += [c for c in metafunc.config.stash.get(REFUSED, []) if _runs_refused(options, c)]
    parametrize_or_deselect(metafunc, "op_case", selected, [c.id for c in selected])


def _runs_refused(options: dict[str, Any], case: Case) -> bool:
    """Whether a test whose `cases` marker has these options fails for a refused case: one that runs cases of every
    op, or of the case's op, in one of the case's modes, and picks no case by its tensors (a refused case may have
    none)."""
    return ((options.get("mode") is None or options["mode"] in case.modes) and options.get("where") is None
            and (options.get("family") is None or case.family in options["family"])
            and (options.get("ops") is None or case.op in options["ops"]))


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
def dynamic_models(pytestconfig: pytest.Config, session: flow.Session) -> dict[str, Case]:
    """The run's dynamic cases by id, their models (compiled_dynamic_models) loaded once per session; on the NPU they
    must be in --model-dir."""
    by_id = {c.id: c for c in dynamic_cases(pytestconfig)}
    if pytestconfig.stash[BACKEND].capabilities.real_device:
        if not pytestconfig.getoption("--model-dir"):
            pytest.skip("dynamic models on the NPU: `aclcts singleop --dynamic` JSON compiled with ATC into --model-dir")
        return by_id
    try:
        dynamic.load_models(session.acl, compiled_dynamic_models(pytestconfig))
    except ModelsError as exc:
        raise pytest.UsageError(str(exc)) from None
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
    anything is drawn, if the case's estimated host memory is above the memory budget; none for a refused case (its
    test fails with that refusal before it would use them)."""
    if item_refusal(request.node) is not None:
        return []
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
