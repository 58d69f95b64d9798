"""The kill matrix: the conformance suite run once per named simulator fault, and which tests catch each."""

from __future__ import annotations

import argparse
import datetime
import os
import shlex
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from aclcts.judge.golden import write_atomically
from aclcts.sim import faults
from aclcts.tools.killmatrix_selections import DEVIATION_SELECTIONS, FAULT_SELECTIONS

FAULTS_ENV = "ACLCTS_SIM_FAULTS"
#: Killing test ids shown per fault.
SHOWN = 5
#: Seconds after which one child run of the whole suite is stopped.
RUN_TIMEOUT = 3600
#: Most pytest-xdist workers -n may ask for (each is a process; far more than any host has cores for).
MAX_WORKERS = 256
#: Per-test timeout (seconds, test bodies only) of a run with a fault that hangs: the timeout is what fails the hung
#: tests. Every conformance test body takes well under a second on the simulator; the session set-up of each
#: process (compiling the case library) takes several and is left out (pytest-timeout's timeout_func_only).
HANG_TIMEOUT = 10
#: The stored-golden test: the matrix lists each of its cases (the edge cases) with the faults that fail it.
GOLDEN_TEST = "test_golden.py::test_golden_case_matches_the_stored_result["


@dataclass
class Run:
    """One child pytest run with one injection on (None: the baseline) and each test's outcome."""

    name: str | None
    returncode: int | None = None
    seconds: float = 0.0
    outcomes: dict[str, str] = field(default_factory=dict)
    tail: str = ""

    def failing(self) -> list[str]:
        """Ids of the tests that failed or errored, in run order."""
        return [nodeid for nodeid, outcome in self.outcomes.items() if outcome in ("failed", "error")]

    def aborted(self) -> bool:
        """Whether pytest ended without test results (timeout, usage or internal error, nothing collected)."""
        return self.returncode not in (0, 1) or not self.outcomes


def _nodeid(classname: str, name: str, root: Path) -> str:
    """A pytest node id from a JUnit classname (dotted module path under root, then classes) and test name."""
    parts = classname.split(".")
    for cut in range(len(parts), 0, -1):
        path = "/".join(parts[:cut]) + ".py"
        if (root / path).exists():
            return "::".join([path, *parts[cut:], name])
    return "::".join([classname, name])


def junit_outcomes(xml_path: Path, root: Path = Path(".")) -> dict[str, str]:
    """Per-test outcome ("passed", "failed", "error", "skipped") from a pytest JUnit XML file written in root."""
    if not xml_path.exists():
        return {}
    result: dict[str, str] = {}
    for case in ET.parse(xml_path).iter("testcase"):
        nodeid = _nodeid(case.get("classname", ""), case.get("name", ""), root)
        tags = {child.tag for child in case}
        outcome = "failed" if "failure" in tags else "error" if "error" in tags else "skipped" if "skipped" in tags else "passed"
        if result.get(nodeid) not in ("failed", "error"):
            result[nodeid] = outcome
    return result


def run_pytest(name: str | None, args: list[str], workers: int = 1, timeout: float = RUN_TIMEOUT,
               cwd: Path | None = None) -> Run:
    """Run pytest on args in a child process (in cwd) with the named injection on (none for None)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_ADDOPTS"))}
    env[FAULTS_ENV] = name or ""
    parallel = ["-n", str(workers)] if workers > 1 else ["-p", "no:xdist"]
    args = [*args, *timeout_args(name)]
    run = Run(name)
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="aclcts-killmatrix-") as workdir:
        xml_path = Path(workdir) / "junit.xml"
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={xml_path}", *args, *parallel]
        try:
            done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
            run.returncode, run.tail = done.returncode, (done.stdout + done.stderr)[-2000:]
        except subprocess.TimeoutExpired:
            run.tail = f"stopped after {timeout} s"
        run.outcomes = junit_outcomes(xml_path, cwd or Path("."))
    run.seconds = time.monotonic() - start
    return run


def killers(run: Run, baseline: Run) -> list[str]:
    """Tests failing in run that did not fail in the baseline."""
    broken = set(baseline.failing())
    return [nodeid for nodeid in run.failing() if nodeid not in broken]


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _ids(nodeids: list[str]) -> str:
    return "<br>".join(f"`{_cell(n)}`" for n in nodeids[:SHOWN])


def _baseline_line(baseline: Run | None) -> str:
    if baseline is None:
        return "Baseline (no fault): pending."
    failing = baseline.failing()
    line = f"Baseline (no fault): {len(baseline.outcomes)} tests, {len(failing)} failing"
    if baseline.aborted():
        line += f" (aborted, exit code {baseline.returncode})"
    return line + (": " + ", ".join(f"`{_cell(n)}`" for n in failing[:SHOWN]) if failing else "") + "."


def _run_over(name: str, selections: dict[str, list[str]] | None) -> str:
    """The cell naming the tests an injection ran over (empty when every injection ran the baseline's tests)."""
    return f" `{_cell(shlex.join(selections[name]))}` |" if selections else ""


def _fault_cells(run: Run, baseline: Run) -> str:
    """A fault row's verdict, killing-test count and first killing tests."""
    killing = killers(run, baseline)
    verdict = "yes" if killing else (f"no (aborted, exit code {run.returncode})" if run.aborted() else "**no**")
    return f"{verdict} | {len(killing)} | {_ids(killing)}"


def _deviation_cells(run: Run, baseline: Run) -> str:
    """A deviation row's verdict, passed-test count and failing tests."""
    failing = killers(run, baseline)
    verdict = "**no** (aborted)" if run.aborted() else ("yes" if not failing else "**no**")
    passed = sum(outcome == "passed" for outcome in run.outcomes.values())
    return f"{verdict} | {passed} | {_ids(failing)}"


def _rows(kind: str, selected: list[str], runs: dict[str | None, Run], selections: dict[str, list[str]] | None,
          cells: Callable[[Run, Run], str]) -> list[str]:
    """The table rows of the selected injections of one kind ('pending' until both it and the baseline ran)."""
    baseline, rows = runs.get(None), []
    for name in (n for n in selected if faults.REGISTRY[n].kind == kind):
        run = runs.get(name)
        row = f"| `{name}` | {_cell(faults.REGISTRY[name].description)} |{_run_over(name, selections)}"
        rows.append(f"{row} pending | | |" if run is None or baseline is None else f"{row} {cells(run, baseline)} |")
    return rows


def _golden_rows(runs: dict[str | None, Run]) -> list[str]:
    """A table of the baseline's stored golden cases, each with the faults that fail it (empty before the baseline)."""
    baseline = runs.get(None)
    cases = [nodeid for nodeid in (baseline.outcomes if baseline else {}) if GOLDEN_TEST in nodeid]
    if not cases:
        return []
    failed_by: dict[str, list[str]] = {nodeid: [] for nodeid in cases}
    for name, run in runs.items():
        if name is not None and faults.REGISTRY[name].kind == faults.FAULT:
            for nodeid in (n for n in killers(run, baseline) if n in failed_by):
                failed_by[nodeid].append(name)
    lines = ["", "## Stored golden cases and the faults that fail them", "",
             "A fault shows here when its run included the case (every run of `--whole-suite` does).", "",
             "| golden case | failed by |", "|---|---|"]
    for nodeid in cases:
        case = nodeid.split(GOLDEN_TEST, 1)[1].rstrip("]")
        lines.append(f"| `{_cell(case)}` | {', '.join(f'`{n}`' for n in failed_by[nodeid]) or 'none'} |")
    return lines


def render(command: str, selected: list[str], runs: dict[str | None, Run],
           selections: dict[str, list[str]] | None = None) -> str:
    """The Markdown kill matrix for the runs so far (injections not yet run are 'pending').

    selections: each injection's own tests, when it ran those rather than the baseline's selection.
    """
    scope = ("one run of that injection's own tests (`aclcts/tools/killmatrix_selections.py`, shown in the *tests "
             "run* column; `--whole-suite` runs the whole suite instead), the baseline one run of the whole suite"
             if selections else "one run of the conformance suite (or the `--select`ion shown in the command)")
    column, rule = (" tests run |", "---|") if selections else ("", "")
    lines = [
        "# Kill matrix: which conformance tests catch which simulator fault",
        "",
        f"Generated by `{command}` on {datetime.date.today().isoformat()}.",
        "",
        f"Each row is {scope}, with `ACLCTS_SIM_FAULTS=<name>` (faults are defined in `aclcts/sim/faults/`). A fault "
        "is killed when some test fails or errors that passes without it. A fault that hangs runs with a per-test "
        f"timeout (`--timeout={HANG_TIMEOUT} -o timeout_func_only=true`): its hung tests fail as timeouts and the run "
        "goes on.",
        "",
        _baseline_line(runs.get(None)),
        "",
        "## Faults",
        "",
        f"| fault | defect modelled |{column} killed | killing tests | first killing tests |",
        f"|---|---|{rule}---|---|---|",
    ]
    lines += _rows(faults.FAULT, selected, runs, selections, _fault_cells)
    lines += ["", "## Tolerable deviations (a sound precision policy must pass them)", "",
              f"| deviation | what differs |{column} passes | tests passed | failing tests |",
              f"|---|---|{rule}---|---|---|"]
    lines += _rows(faults.DEVIATION, selected, runs, selections, _deviation_cells)
    return "\n".join(lines + _golden_rows(runs)) + "\n"


def sound(run: Run, baseline: Run) -> bool:
    """A fault run is sound when some test kills it; a deviation run when it completed and nothing failed."""
    failing = killers(run, baseline)
    if faults.REGISTRY[run.name].kind == faults.DEVIATION:
        return not failing and not run.aborted()
    return bool(failing)


def _verdict(run: Run, baseline: Run) -> str:
    if run.name is None:
        return f"{len(run.outcomes)} tests, {len(run.failing())} failing" + (" (aborted)" if run.aborted() else "")
    failing = killers(run, baseline)
    if faults.REGISTRY[run.name].kind == faults.DEVIATION:
        return "passes" if sound(run, baseline) else f"FAILS {len(failing)} tests"
    if not failing:
        return f"NOT KILLED{' (aborted)' if run.aborted() else ''}"
    return f"killed by {len(failing)} test{'s' * (len(failing) != 1)}"


def _pytest_args(select: str | None, tests: str) -> list[str]:
    """The child's selection: --select's paths and options as given, or -k EXPR over the suite folder."""
    if not select:
        return [tests]
    tokens = shlex.split(select)
    paths = [t for t in tokens if not t.startswith("-") and Path(t.split("::")[0]).exists()]
    if paths or tokens[0].startswith("-"):
        return tokens if paths else [tests, *tokens]
    return [tests, "-k", select]


def own_selection(name: str, tests: str) -> list[str]:
    """An injection's own tests (killmatrix_selections), with the suite folder put in place of conformance/."""
    selection = FAULT_SELECTIONS.get(name) or DEVIATION_SELECTIONS[name]
    return [f"{tests}/{token[len('conformance/'):]}" if token.startswith("conformance/") else token
            for token in selection]


def workers_for(name: str | None, workers: int) -> int:
    """pytest-xdist workers for one child run: a fault that crashes the process gets at least 2, so that a worker
    dies and its test fails instead of the whole run."""
    return max(workers, 2) if name is not None and faults.REGISTRY[name].crashes else workers


def timeout_args(name: str | None) -> list[str]:
    """pytest options for one child run: a fault that hangs gets a per-test timeout of HANG_TIMEOUT seconds, so that
    its hung tests fail and the run goes on."""
    if name is not None and faults.REGISTRY[name].hangs:
        return [f"--timeout={HANG_TIMEOUT}", "-o", "timeout_func_only=true"]
    return []


def _program() -> str:
    return "aclcts kill-matrix" if os.path.basename(sys.argv[0]) == "aclcts" else "python -m aclcts.tools.killmatrix"


def main(argv: list[str] | None = None) -> int:
    """Run `aclcts kill-matrix`: 0 when every fault is killed and every deviation passes, 1 otherwise, 2 on bad usage."""
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog=_program(), description="Run the conformance suite once per simulator "
                                     "fault and write which tests catch which fault.")
    parser.add_argument("--faults", help="comma-separated injection names (default: all): " + ", ".join(faults.names()))
    parser.add_argument("-n", dest="workers", type=int, default=1, help="pytest-xdist workers per child run (default 1)")
    parser.add_argument("--output", default="docs/kill-matrix.md", help="the Markdown file (default docs/kill-matrix.md)")
    parser.add_argument("--select", help="one selection for every injection: pytest paths and options, e.g. "
                        "'conformance/test_blas.py -m blas', or a -k expression (default: each injection's own tests)")
    parser.add_argument("--whole-suite", action="store_true",
                        help="run every injection over the whole suite instead of its own tests")
    parser.add_argument("--tests", default="conformance", help="the suite folder (default conformance)")
    args = parser.parse_args(argv)
    requested = list(dict.fromkeys(part.strip() for part in (args.faults or "").split(",") if part.strip()))
    try:
        faults.validate(frozenset(requested))
    except ValueError as exc:
        parser.error(f"--faults: {exc}")
    selected = requested or list(faults.names())
    if not 1 <= args.workers <= MAX_WORKERS:
        parser.error(f"-n: expected 1 to {MAX_WORKERS} workers, got {args.workers}")
    if not args.select and not Path(args.tests).exists():
        parser.error(f"--tests: {args.tests} not found; run from the repository root or pass --tests DIR")
    if args.select and args.whole_suite:
        parser.error("--select and --whole-suite: give one of them")
    pytest_args = _pytest_args(args.select, args.tests)
    own = not (args.select or args.whole_suite)
    command = " ".join([_program(), *map(shlex.quote, argv)])
    output = Path(args.output)
    output.parent.mkdir(parents=True, exist_ok=True)
    runs: dict[str | None, Run] = {}
    print(f"baseline: pytest {' '.join(pytest_args)}" + (f" -n {args.workers}" if args.workers > 1 else ""), flush=True)
    selections = {name: own_selection(name, args.tests) if own else pytest_args for name in selected}
    for name in [None, *selected]:
        run = runs[name] = run_pytest(name, pytest_args if name is None else selections[name],
                                      workers_for(name, args.workers))
        write_atomically(output, render(command, selected, runs, selections if own else None).encode("utf-8"))
        print(f"{name or 'baseline'}: {_verdict(run, runs[None])} ({run.seconds:.0f} s)", flush=True)
        if run.aborted():
            print(run.tail, file=sys.stderr)
    print(f"wrote {output}")
    return 0 if not runs[None].aborted() and all(sound(runs[n], runs[None]) for n in selected) else 1


if __name__ == "__main__":
    sys.exit(main())
