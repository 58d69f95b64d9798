"""Benchmarks: `aclcts bench [runtime|ops|kernels|overhead|suite|all|atc|ci] [--quick] [--cases PATH ...] [--ops N]
[--clone-ops N]`.

Prints one table. `all` is every suite but `atc` and `ci`, which are asked for by name.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from aclcts.drive import executor, flow
from aclcts.atc import compile_elements, generate_singleop_json
from aclcts.pytest_plugin.bench_phases import read_spans
from aclcts.cases import Case, CaseFileError, TensorCase, load_cases
from aclcts.cases.values import draw_inputs
from aclcts.core.opmodel import OpModel, TensorSpec
from aclcts.drive.resources import TrackingAcl
from aclcts.tools import bench_ci, bench_kernels
from aclcts.judge.decorator import judge

ACL_INT32, ACL_FLOAT16, ACL_ND = 3, 1, 2
MIB = 1 << 20
SEED = 20261202
PROG = "aclcts bench"
FIGURE_WIDTH = 52


class BenchError(Exception):
    """A benchmark could not produce its figure (a failed call or child run)."""


class PerfWarning(UserWarning):
    """Handle mode was not faster than execute_v2 (reported, never a failure: timings are noisy)."""


@dataclass(frozen=True)
class Row:
    """One figure of the table, with an optional target such as ('>=', 0.5)."""

    figure: str
    value: float
    unit: str
    target: tuple[str, float] | None = None
    note: str = ""

    def verdict(self) -> str:
        """'met' or 'MISSED' for a row with a target, else ''."""
        if self.target is None:
            return ""
        op, bound = self.target
        met = {">=": self.value >= bound, "<=": self.value <= bound, ">": self.value > bound}[op]
        return "met" if met else "MISSED"

    def line(self) -> str:
        """The row as one table line."""
        target = f"{self.target[0]} {self.target[1]:g}" if self.target else ""
        line = f"{self.figure:<{FIGURE_WIDTH}}  {self.value:>10.3f}  {self.unit:<10}  {target:<8}  {self.verdict()}"
        return f"{line:<{FIGURE_WIDTH + 41}}  {self.note}" if self.note else line


@dataclass(frozen=True)
class Settings:
    """How much each benchmark does: the full run, or --quick for CI smoke."""

    quick: bool
    cases: tuple[str, ...]
    clone_ops: int = 0
    ops: int = 100_000
    keep: str = ""

    @property
    def small_calls(self) -> int:
        """Iterations of the small-call loops."""
        return 2000 if self.quick else 20000

    @property
    def exec_calls(self) -> int:
        """Iterations of the execute loops."""
        return 200 if self.quick else 2000

    @property
    def model_counts(self) -> tuple[int, int, int]:
        """Loaded model counts of the model-count latency figures."""
        return (1, 100, 1000) if self.quick else (1, 100, 10000)

    @property
    def copy_mib(self) -> int:
        """Size of the bandwidth copy in MiB."""
        return 16 if self.quick else 64

    @property
    def overhead_cases(self) -> int:
        """Cases run by the framework-overhead figure."""
        return 10 if self.quick else 60

    @property
    def rounds(self) -> int:
        """Interleaved rounds of the compared measurements (the ratios are medians over the rounds)."""
        return 1 if self.quick else 6


def per_call_us(body: Callable[[], None], calls: int, repeats: int = 5) -> float:
    """Median over repeats of the mean time of one call, in microseconds."""
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            body()
        samples.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(samples)


def _session():
    import aclcts.sim
    from aclcts.sim import acl

    aclcts.sim.reset()
    acl.init()
    acl.rt.set_device(0)
    acl.rt.create_context(0)
    stream, _ = acl.rt.create_stream()
    return acl, stream


def runtime_figures(settings: Settings) -> Iterator[Row]:
    """Small-call latencies and the host→device memcpy bandwidth against NumPy's copy."""
    acl, _ = _session()

    def desc_cycle() -> None:
        acl.destroy_tensor_desc(acl.create_tensor_desc(ACL_FLOAT16, [8, 16], ACL_ND))

    def malloc_cycle() -> None:
        ptr, _ = acl.rt.malloc(256, 2)
        acl.rt.free(ptr)

    yield Row("create_tensor_desc + destroy_tensor_desc", per_call_us(desc_cycle, settings.small_calls) / 2,
              "us/call", ("<=", 10))
    yield Row("rt.malloc(256) + rt.free", per_call_us(malloc_cycle, settings.small_calls) / 2, "us/call", ("<=", 10))
    size = settings.copy_mib * MIB
    source = np.random.default_rng(0).integers(0, 255, size, dtype=np.uint8).tobytes()
    device, _ = acl.rt.malloc(size, 2)
    host_ptr = acl.util.bytes_to_ptr(source)
    copy_s = per_call_us(lambda: acl.rt.memcpy(device, size, host_ptr, size, 1), 3) / 1e6
    src_array = np.frombuffer(source, np.uint8)
    dst_array = np.empty(size, np.uint8)
    numpy_s = per_call_us(lambda: np.copyto(dst_array, src_array), 3) / 1e6
    acl.rt.free(device)
    yield Row(f"memcpy {settings.copy_mib} MiB host->device", size / copy_s / 1e9, "GB/s")
    yield Row(f"numpy copy {settings.copy_mib} MiB", size / numpy_s / 1e9, "GB/s")
    yield Row("memcpy / numpy copy bandwidth", numpy_s / copy_s, "ratio", (">=", 0.5))


def _add_model(rows: int) -> OpModel:
    spec = TensorSpec(ACL_INT32, ACL_ND, (rows, 16), ((rows, rows), (16, 16)), ACL_ND, (rows, 16))
    return OpModel("Add", (spec, spec), (spec,), (), "Ascend910B1")


def _load_models(acl, count: int) -> None:
    for rows in range(1, count + 1):
        image = _add_model(rows).to_bytes()
        acl.op.load(acl.util.bytes_to_ptr(image), len(image))


#: A tiny int32 Add [1, 16] + [1, 16], the case of the execute latency figures.
TINY_ADD = Case("bench-tiny-add", "Add", "elementwise", "", "aclcts.tools.bench", "Add",
                (TensorCase("x1", ACL_INT32, (1, 16)), TensorCase("x2", ACL_INT32, (1, 16))),
                (TensorCase("y", ACL_INT32, (1, 16)),), (), ("execute_v2", "handle"), {})


def _execute_us(acl, stream, calls: int, by_handle: bool = False) -> float:
    """Mean microseconds of queueing one execution of TINY_ADD through the executor (execute_v2, or a handle)."""
    inputs = [np.zeros(t.shape, t.np_dtype) for t in TINY_ADD.inputs]
    with flow.resources(acl) as res:
        staged = executor.stage(acl, res, TINY_ADD, inputs)
        handle = executor.create_handle(acl, res, TINY_ADD, staged) if by_handle else 0
        result = per_call_us(lambda: executor.launch(acl, stream, TINY_ADD, staged, handle), calls)
        flow.check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")
    return result


def ops_figures(settings: Settings) -> Iterator[Row]:
    """execute_v2 against execute_with_handle for a tiny Add, and execute_v2 latency by loaded model count."""
    acl, stream = _session()
    _load_models(acl, 1)
    v2 = _execute_us(acl, stream, settings.exec_calls)
    with_handle = _execute_us(acl, stream, settings.exec_calls, by_handle=True)
    yield Row("execute_v2 tiny Add", v2, "us/call")
    yield Row("execute_with_handle tiny Add", with_handle, "us/call")
    yield Row("execute_v2 / execute_with_handle", v2 / with_handle, "ratio", (">", 1))
    # The model counts take turns for several rounds, so a drift of the host's speed reaches every count alike.
    rounds: list[dict[int, float]] = []
    for _ in range(settings.rounds):
        latencies = {}
        for count in settings.model_counts:
            acl, stream = _session()
            _load_models(acl, count)
            latencies[count] = _execute_us(acl, stream, settings.exec_calls)
        rounds.append(latencies)
    for count in settings.model_counts:
        yield Row(f"execute_v2 with {count:,} loaded model(s)", statistics.median(r[count] for r in rounds), "us/call")
    low, high = settings.model_counts[0], settings.model_counts[-1]
    yield Row(f"{high:,} models / {low:,} model", statistics.median(r[high] / r[low] for r in rounds), "ratio",
              ("<=", 1.5))


def kernel_figures(settings: Settings) -> Iterator[Row]:
    """Per op and shape: execute_v2 + synchronize against NumPy computing the same result (best of several), the
    handle path beside it; then the peak RSS of a process running one large Add over its tensors' bytes."""
    acl, stream = _session()
    try:
        for timing in bench_kernels.timings(acl, stream, settings.quick):
            yield Row(f"{timing.case.label} / numpy", timing.ratio, "ratio", ("<=", timing.case.target), timing.note())
    except RuntimeError as exc:
        raise BenchError(str(exc)) from None
    rows, cols = (2048, 2048) if settings.quick else (4096, 4096)
    try:
        ratio = bench_kernels.peak_rss_ratio(rows, cols)
    except RuntimeError as exc:
        raise BenchError(str(exc)) from None
    yield Row(f"peak RSS, Add float32 {rows}x{cols} / tensor bytes", ratio, "ratio", ("<=", 3))


def _overhead_cases(cases: list[Case], count: int) -> list[Case]:
    """Static cases without constant inputs, empty tensors or data-type attributes, taken round-robin by family."""
    simple = {"bool", "int", "float", "string", "list_bool", "list_int", "list_float", "list_string", "list_list_int"}
    by_family: dict[str, list[Case]] = {}
    for case in cases:
        if (not case.dynamic_input and all(t.const is None for t in case.inputs)
                and all(int(np.prod(t.shape)) > 0 for t in case.inputs + case.outputs)
                and all(a.type in simple for a in case.attrs)):
            by_family.setdefault(case.family, []).append(case)
    chosen: list[Case] = []
    while len(chosen) < count and any(by_family.values()):
        for family in list(by_family):
            if by_family[family] and len(chosen) < count:
                chosen.append(by_family[family].pop(0))
    return chosen


def _compiled_session(cases: list[Case], folder: str):
    acl, stream = _session()
    result = compile_elements(generate_singleop_json(list(dict.fromkeys(c.op_model("Ascend910B1") for c in cases))),
                              folder, "Ascend910B1")
    if not result.ok:
        raise BenchError("compiling the benchmark cases failed: " + "; ".join(result.errors))
    ret = acl.op.set_model_dir(str(Path(folder) / "models"))
    if ret:
        raise BenchError(f"acl.op.set_model_dir returned {ret}")
    return acl, stream


def overhead_figures(settings: Settings) -> Iterator[Row]:
    """Per-case time of executor.run + judge (through the tracking wrapper) against the same plain acl calls."""
    cases = _overhead_cases(_library(settings), settings.overhead_cases)
    if not cases:
        raise BenchError("no static case without constant inputs in the case library for the overhead figure")
    with tempfile.TemporaryDirectory(prefix="aclcts-bench-") as folder:
        acl, stream = _compiled_session(cases, folder)
        tracked = TrackingAcl(acl)
        inputs = [[draw_inputs(c, c.seed(SEED))] for c in cases]
        for case, sets in zip(cases, inputs):
            framework = executor.run(tracked, stream, case, sets, "execute_v2")[0].arrays
            try:
                bare = executor.run_plain(acl, stream, case, sets[0])
            except flow.AclCallError as exc:
                raise BenchError(str(exc)) from None
            if [a.tobytes() for a in framework] != bare:
                raise BenchError(f"{case.id}: the plain acl calls give other outputs than executor.run")

        def through_framework() -> None:
            for case, sets in zip(cases, inputs):
                judge(case, sets, executor.run(tracked, stream, case, sets, "execute_v2"))

        def executor_only() -> None:
            for case, sets in zip(cases, inputs):
                executor.run(tracked, stream, case, sets, "execute_v2")

        def bare_calls() -> None:
            for case, sets in zip(cases, inputs):
                executor.run_plain(acl, stream, case, sets[0])

        passes = [[per_call_us(body, 1, 1) / len(cases) for body in (through_framework, executor_only, bare_calls)]
                  for _ in range(5 * settings.rounds)]
    full, run_only, bare = (statistics.median(column) for column in zip(*passes))
    yield Row(f"executor.run + judge per case ({len(cases)} cases)", full, "us/case")
    yield Row("executor.run alone per case", run_only, "us/case")
    yield Row("plain acl calls per case", bare, "us/case")
    yield Row("executor.run alone / plain acl calls", statistics.median(r / b for _, r, b in passes), "ratio")
    yield Row("executor.run + judge / plain acl calls", statistics.median(f / b for f, _, b in passes), "ratio",
              ("<=", 2))


_SUMMARY = re.compile(r"(\d+) (passed|failed|skipped|xfailed|xpassed|errors?|deselected)")


def _pytest_command(settings: Settings, extra: list[str]) -> list[str]:
    """The child pytest command over conformance/ with the bench's case and quick settings."""
    command = [sys.executable, "-m", "pytest", "conformance/", "-q", "-p", "no:cacheprovider", *extra]
    if settings.quick:
        command += ["-m", "execute"]
    if settings.cases:
        command += ["--with-step-tests", "--cases", *settings.cases]
    return command


def _tests_run(command: list[str], returncode: int, stdout: str, stderr: str) -> int:
    """Tests run (passed + failed + xfailed + xpassed) from a finished child pytest's summary line."""
    lines = [line.strip("= ") for line in stdout.splitlines() if _SUMMARY.search(line) and " in " in line]
    if returncode not in (0, 1) or not lines:
        last = (stderr.strip() or stdout.strip() or "no output").splitlines()[-1]
        raise BenchError(f"{' '.join(command[2:])} exited {returncode}: {last}")
    counts = {kind.rstrip("s") if kind.startswith("error") else kind: int(n) for n, kind in _SUMMARY.findall(lines[-1])}
    if returncode == 1:
        print(f"note: {' '.join(command[2:])}: {lines[-1]}", file=sys.stderr)
    return sum(counts.get(k, 0) for k in ("passed", "failed", "xfailed", "xpassed"))


@dataclass(frozen=True)
class ChildRun:
    """One child pytest: tests run, wall seconds, and how the wall divides around the span of its tests."""

    tests: int
    wall: float
    startup: float
    testing: float

    @property
    def ending(self) -> float:
        """Seconds from the end of the last test to the child's exit."""
        return self.wall - self.startup - self.testing


def _child_pytests(settings: Settings, extra: list[str], copies: int = 1) -> list[ChildRun]:
    """Run `copies` identical child pytests at once; each one's wall ends when the last of them ends."""
    with contextlib.ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="aclcts-bench-")))
        outputs = [(stack.enter_context(tempfile.TemporaryFile("w+")), stack.enter_context(tempfile.TemporaryFile("w+")))
                   for _ in range(copies)]
        shown = _pytest_command(settings, extra)
        commands = [[*shown, "-p", "aclcts.pytest_plugin.bench_phases", f"--bench-phases={folder / str(n)}"] for n in range(copies)]
        launched = time.time()
        children = [subprocess.Popen(command, stdout=out, stderr=err, text=True)
                    for command, (out, err) in zip(commands, outputs)]
        codes = [child.wait() for child in children]
        wall = time.time() - launched
        runs = []
        for n, (code, (out, err)) in enumerate(zip(codes, outputs)):
            out.seek(0)
            err.seek(0)
            tests = _tests_run(shown, code, out.read(), err.read())
            spans = read_spans(folder / str(n))
            if not spans:
                raise BenchError(f"{' '.join(shown[2:])} ran no test (no span from -p aclcts.pytest_plugin.bench_phases)")
            first = min(span.first_start for span in spans)
            last = max(span.last_end for span in spans)
            runs.append(ChildRun(tests, wall, first - launched, last - first))
    return runs


def suite_figures(settings: Settings) -> Iterator[Row]:
    """Startup costs; conformance throughput serially and with -n 2 in interleaved rounds, split into phases."""
    if not Path("conformance").is_dir():
        raise BenchError(f"no conformance/ folder in {Path.cwd().name}/; run from the repository root")
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pytest", "conformance/", "-q", "-p", "no:cacheprovider", "--collect-only",
                    *(["--with-step-tests", "--cases", *settings.cases] if settings.cases else [])],
                   capture_output=True, check=False)
    yield Row("suite startup: pytest --collect-only", time.perf_counter() - start, "s")
    library = _library(settings)
    with tempfile.TemporaryDirectory(prefix="aclcts-bench-") as folder:
        start = time.perf_counter()
        models = list(dict.fromkeys(c.op_model("Ascend910B1") for c in library))
        compile_elements(generate_singleop_json(models), folder, "Ascend910B1")
        yield Row(f"suite startup: compiling {len(models):,} models", time.perf_counter() - start, "s")
    # Serial runs on both sides of every -n 2 run (S P S P ... S): each round compares one -n 2 run with the mean
    # of its two neighbours, so a host whose speed drifts during the benchmark biases no round either way.
    serial_runs, parallel_runs = _child_pytests(settings, []), []
    for _ in range(settings.rounds):
        parallel_runs += _child_pytests(settings, ["-n", "2"])
        serial_runs += _child_pytests(settings, [])
    tests = serial_runs[0].tests
    serial_wall = statistics.median(run.wall for run in serial_runs)
    yield Row(f"pytest conformance/ serial ({len(serial_runs)} runs): {tests:,} tests", serial_wall, "s")
    serial = tests / serial_wall
    yield Row("pytest conformance/ serial throughput", serial, "cases/s")
    runs = f" ({settings.rounds} runs)" if settings.rounds > 1 else ""
    parallel_wall = statistics.median(run.wall for run in parallel_runs)
    yield Row(f"pytest conformance/ -n 2{runs}: {parallel_runs[0].tests:,} tests", parallel_wall, "s")
    yield Row("pytest conformance/ -n 2 throughput", parallel_runs[0].tests / parallel_wall, "cases/s")
    ratios = _round_ratios(serial_runs, parallel_runs, lambda run: run.wall)
    rounds = f" (median of {settings.rounds} rounds)" if settings.rounds > 1 else ""
    yield Row(f"-n 2 / serial throughput{rounds}", statistics.median(ratios), "ratio", (">=", 1.6))
    yield Row("-n 2 / serial throughput, lowest round", min(ratios), "ratio")
    yield Row("-n 2 / serial throughput, highest round", max(ratios), "ratio")
    for name, group in (("serial", serial_runs), ("-n 2", parallel_runs)):
        yield Row(f"{name}: launch to first test", statistics.median(run.startup for run in group), "s")
        yield Row(f"{name}: first test start to last test end", statistics.median(run.testing for run in group), "s")
        yield Row(f"{name}: last test end to exit", statistics.median(run.ending for run in group), "s")
    testing = _round_ratios(serial_runs, parallel_runs, lambda run: run.testing)
    yield Row("-n 2 / serial throughput over the tests' span", statistics.median(testing), "ratio")
    pair = _child_pytests(settings, [], copies=2)
    pair_throughput = sum(run.tests for run in pair) / pair[0].wall
    yield Row("two serial runs at once: throughput", pair_throughput, "cases/s")
    yield Row("two serial runs at once / one serial run", pair_throughput / serial, "ratio")


def _round_ratios(serial_runs: list[ChildRun], parallel_runs: list[ChildRun],
                  seconds: Callable[[ChildRun], float]) -> list[float]:
    """Each round's -n 2 throughput over the mean throughput of the serial runs on either side, over `seconds`."""
    serial = [run.tests / seconds(run) for run in serial_runs]
    return [(run.tests / seconds(run)) / statistics.mean(serial[index:index + 2])
            for index, run in enumerate(parallel_runs)]


def atc_figures(settings: Settings) -> Iterator[Row]:
    """Wall time of `aclcts atc` compiling a single-op JSON file of --ops distinct operators (one Add per shape)."""
    with tempfile.TemporaryDirectory(prefix="aclcts-bench-atc-") as folder:
        source = Path(folder) / "ops.json"
        elements = generate_singleop_json([_add_model(rows) for rows in range(1, settings.ops + 1)])
        source.write_text(json.dumps(elements, indent=2), encoding="utf-8")
        command = [sys.executable, "-m", "aclcts.atc", f"--singleop={source}", f"--output={Path(folder) / 'models'}",
                   "--soc_version=Ascend910B1"]
        before = _children_cpu()
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - start
        cpu = _children_cpu() - before
        if done.returncode != 0:
            raise BenchError(f"aclcts atc failed on {settings.ops:,} operators: {done.stderr.strip()[-300:]}")
    yield Row(f"aclcts atc: {settings.ops:,} operators", seconds, "s", ("<=", 60.0) if settings.ops <= 100_000 else None)
    yield Row("aclcts atc: CPU time (user + system)", cpu, "s", note="wall time less any wait for a busy host")
    yield Row("aclcts atc: per operator", seconds / settings.ops * 1e6, "us")


def _children_cpu() -> float:
    """User plus system seconds of the child processes waited for so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _library(settings: Settings) -> list[Case]:
    """The case library's own cases (value-profile cases left out, so figures stay comparable across releases)."""
    return [case for case in load_cases(list(settings.cases) or ["cases"]) if not case.profile]


SUITES: dict[str, Callable[[Settings], Iterator[Row]]] = {
    "runtime": runtime_figures, "ops": ops_figures, "kernels": kernel_figures, "overhead": overhead_figures,
    "suite": suite_figures,
}
#: The most operators `bench atc --ops` generates.
MAX_OPS = 1_000_000


def ci_figures(settings: Settings) -> Iterator[Row]:
    """.ci/run on a fresh clone of this checkout's HEAD: each part's wall time and the slowest tests."""
    try:
        keep = Path(settings.keep) if settings.keep else None
        for figure, value, unit in bench_ci.ci_rows(bench_ci.repository_root(Path.cwd()), settings.clone_ops, keep):
            yield Row(figure, value, unit)
    except bench_ci.CiRunError as exc:
        raise BenchError(str(exc)) from None


#: Suites run only when named (`all` leaves them out): `ci` runs all of CI (minutes).
ON_DEMAND: dict[str, Callable[[Settings], Iterator[Row]]] = {"atc": atc_figures, "ci": ci_figures}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__)
    parser.add_argument("suites", nargs="*", metavar="SUITE",
                        help=f"{', '.join(SUITES)} or all (default all); {', '.join(ON_DEMAND)} only when named "
                             "(ci: .ci/run on a fresh clone of HEAD, by part, with its slowest tests)")
    parser.add_argument("--quick", action="store_true",
                        help="CI smoke: fewer calls, 1,000 models instead of 10,000, the suite with -m execute")
    parser.add_argument("--cases", nargs="+", default=[], help="case files or folders (default cases/)")
    parser.add_argument("--ops", type=int, default=100_000, metavar="N",
                        help=f"operators in the single-op JSON of the atc suite (1..{MAX_OPS:,}; default 100,000)")
    parser.add_argument("--clone-ops", type=int, default=0, metavar="N",
                        help="ci: add N op types to the clone's library, each a copy of an existing op's prototype, "
                             "reference, kernel and case file (a scale experiment)")
    parser.add_argument("--keep", default="", metavar="DIR",
                        help="ci: a new folder to keep the run's JUnit XML files and its output (ci.log) in")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Print the figures of the chosen benchmark suites as one table, each row as soon as it is measured."""
    args = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    chosen = list(SUITES) if args.suites in ([], ["all"]) else args.suites
    suites = {**SUITES, **ON_DEMAND}
    unknown = [n for n in chosen if n not in suites]
    if unknown:
        print(f"{PROG}: error: unknown suite {', '.join(unknown)}; expected "
              f"{', '.join(suites)} or all", file=sys.stderr)
        return 2
    if not 1 <= args.ops <= MAX_OPS:
        print(f"{PROG}: error: --ops={args.ops}: expected 1..{MAX_OPS:,}", file=sys.stderr)
        return 2
    if args.clone_ops < 0 or (args.clone_ops and "ci" not in chosen):
        print(f"{PROG}: error: --clone-ops={args.clone_ops}: expected a count of 0 or more, with the ci benchmark",
              file=sys.stderr)
        return 2
    settings = Settings(args.quick, tuple(args.cases), args.clone_ops, args.ops, args.keep)
    try:
        _library(settings)
    except CaseFileError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    print(f"{'figure':<{FIGURE_WIDTH}}  {'value':>10}  {'unit':<10}  {'target':<8}  verdict", flush=True)
    try:
        for name in chosen:
            for row in suites[name](settings):
                print(row.line(), flush=True)
    except BenchError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
