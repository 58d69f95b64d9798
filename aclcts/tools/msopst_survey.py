"""`aclcts msopst survey FOLDER`: one suite run over a folder of msopst case files, counted per op type and stage.

The folder's cases are loaded here (to know each case's file, op type and whether it was refused at load) and run by
`pytest conformance/ --cases FOLDER --report=...` in a child process (under the `survey` hypothesis profile unless
ACLCTS_HYPOTHESIS_PROFILE names another: a failing example is reported unshrunk); each case's outcome is read from the report: it
passed when every test of it passed (an `expect: "failed"` case: failed as expected), else it failed at the stage of
its first failing test (aclcts.cases.schema.STAGES). Printed: per op type the files, the sub-cases loaded (not refused
at load), ran, passed and failed per stage, a total line, a line counting the op types aclcts knows (has a record of)
and their sub-cases, then the distinct failure reasons of each stage with their
counts and one case of each, so that a person can check them against the case.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aclcts
from aclcts.cases import Case, CaseFileError, load_cases
from aclcts.cases.msopst.soc import EVERY_SOC, meant_for
from aclcts.cases.schema import STAGES
from aclcts.cases.strategies import PROFILE_ENV, SURVEY_PROFILE
from aclcts.core.prototypes import prototype
from aclcts.report.records import ReportError, read_report

#: Test outcomes that count as the case passing (an expected failure is how an `expect: "failed"` case passes).
PASSING = ("passed", "xfailed")
#: Test outcomes that mean the test did not run the case.
NOT_RUN = ("skipped",)
#: The `<file>: case <name>: ` (or `<file>: `) a reason starts with, left out when reasons are grouped.
_WHERE = re.compile(r"\S+\.json: (?:case \S+: )?")
#: The `CaseRefused: <stage>: ` a refused case's test failure starts with, left out (the stage heads the list).
_REFUSED = re.compile(r"CaseRefused: \w+: ")
#: The op type of a file that names none a case could be read from.
UNKNOWN_OP = "(unknown)"
#: pytest's exit statuses of a run that stopped before running its tests: interrupted, internal error, usage error.
STOPPED = (2, 3, 4)
#: The seconds a survey run may take before it is stopped.
RUN_TIMEOUT = 6 * 3600


@dataclass
class OpCount:
    """The counts of one op type (or of the whole survey)."""

    files: set[str] = field(default_factory=set)
    loaded: int = 0
    ran: int = 0
    passed: int = 0
    failed: Counter = field(default_factory=Counter)

    def add(self, other: OpCount) -> None:
        """Add another op type's counts to these."""
        self.files |= other.files
        self.loaded += other.loaded
        self.ran += other.ran
        self.passed += other.passed
        self.failed.update(other.failed)

    def as_dict(self) -> dict[str, Any]:
        """The counts as JSON."""
        return {"files": len(self.files), "loaded": self.loaded, "ran": self.ran, "passed": self.passed,
                "failed": {stage: self.failed[stage] for stage in STAGES}}


@dataclass
class Outcome:
    """What became of one case: passed, not run, or failed at a stage for a reason."""

    ran: bool
    passed: bool
    stage: str | None = None
    reason: str = ""


def suite_folder() -> Path:
    """The conformance folder the survey runs: the repository's beside the aclcts package, else ./conformance."""
    beside = Path(aclcts.__file__).resolve().parents[1] / "conformance"
    return beside if beside.is_dir() else Path("conformance").resolve()


def run_suite(folder: Path, report: Path, workers: int, soc: str, tests: Path) -> subprocess.CompletedProcess:
    """`pytest <tests> --cases folder --report=report` in a child process started in the suite's repository, under
    the `survey` hypothesis profile unless the environment names one."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_ADDOPTS"))}
    env.pop("PYTEST_CURRENT_TEST", None)
    env[PROFILE_ENV] = env.get(PROFILE_ENV) or SURVEY_PROFILE
    parallel = ["-n", str(workers)] if workers > 1 else ["-p", "no:xdist"]
    # --tb=no: the survey reads the report, not the tracebacks, and pytest's failure summary looks up each failure's
    # teardown among all reports (quadratic: 11,406 failures of CANN's tree held the run for over 5 minutes)
    command = [sys.executable, "-m", "pytest", "-q", "--tb=no", "-p", "no:cacheprovider", "-p", "no:randomly",
               *parallel, str(tests), f"--report={report}", f"--msopst-soc={soc}", "--cases", str(folder)]
    return subprocess.run(command, cwd=tests.parent, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT,
                          check=False)


def case_id_of(test_id: str, known: dict[str, Case]) -> str | None:
    """The case a test id runs: its brackets' content, or the part before a dynamic test's `-<shapes>`."""
    inside = test_id.partition("[")[2][:-1] if test_id.endswith("]") else ""
    if inside in known:
        return inside
    cuts = [m.start() for m in re.finditer("-", inside)]
    return next((inside[:cut] for cut in reversed(cuts) if inside[:cut] in known), None)


def outcomes(cases: list[Case], records: dict[str, dict[str, Any]]) -> dict[str, Outcome]:
    """Each case's outcome from the report's test records (a refused case: failed at its refusal's stage)."""
    by_id = {case.id: case for case in cases}
    tests: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for test_id, record in records.items():
        case_id = case_id_of(test_id, by_id)
        if case_id is not None:
            tests[case_id].append(record)
    found: dict[str, Outcome] = {}
    for case in cases:
        if case.refusal is not None:
            found[case.id] = Outcome(False, False, case.refusal.stage, case.refusal.reason)
            continue
        ran = [r for r in tests.get(case.id, []) if r["status"] not in NOT_RUN]
        failing = [r for r in ran if r["status"] not in PASSING]
        if not failing:
            found[case.id] = Outcome(bool(ran), bool(ran))
        else:
            first = failing[0]
            found[case.id] = Outcome(True, False, first.get("stage") or "run", first.get("message") or "")
    return found


def tally(cases: list[Case], found: dict[str, Outcome]) -> dict[str, OpCount]:
    """The counts per op type."""
    per_op: dict[str, OpCount] = defaultdict(OpCount)
    for case in cases:
        count, outcome = per_op[case.op or UNKNOWN_OP], found[case.id]
        count.files.add(case.file)
        count.loaded += case.refusal is None
        count.ran += outcome.ran
        count.passed += outcome.passed
        if outcome.stage is not None:
            count.failed[outcome.stage] += 1
    return dict(sorted(per_op.items()))


def reasons(found: dict[str, Outcome]) -> dict[str, list[dict[str, Any]]]:
    """Per stage, the distinct reasons (file and case left out) with how many cases and one of them, most first."""
    grouped: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for case_id, outcome in found.items():
        if outcome.stage is not None:
            grouped[outcome.stage][_WHERE.sub("", _REFUSED.sub("", outcome.reason, count=1), count=1)].append(case_id)
    return {stage: [{"reason": reason, "count": len(ids), "example": ids[0]}
                    for reason, ids in sorted(grouped[stage].items(), key=lambda kv: (-len(kv[1]), kv[0]))]
            for stage in STAGES if stage in grouped}


def known_ops(per_op: dict[str, OpCount]) -> dict[str, OpCount]:
    """The op types of the survey aclcts knows (has a record of), with their counts."""
    return {op: count for op, count in per_op.items() if prototype(op) is not None}


def known_line(per_op: dict[str, OpCount]) -> str:
    """One line: how many of the survey's op types aclcts knows, and how their sub-cases fared."""
    known = OpCount()
    for count in known_ops(per_op).values():
        known.add(count)
    named = [op for op in per_op if op != UNKNOWN_OP]
    return (f"op types known to aclcts: {len(known_ops(per_op))} of {len(named)}; their files: {len(known.files)}, "
            f"sub-cases loaded: {known.loaded}, ran: {known.ran}, passed: {known.passed}, "
            f"failed: {sum(known.failed.values())}")


def render(per_op: dict[str, OpCount], why: dict[str, list[dict[str, Any]]]) -> str:
    """The survey as text: one row per op type, the total, the known op types' line, then the reasons per stage."""
    head = ["op type", "files", "loaded", "ran", "passed", *(f"failed {s}" for s in STAGES)]
    total = OpCount()
    rows = []
    for op, count in per_op.items():
        total.add(count)
        rows.append([op, *_cells(count)])
    rows.append(["total", *_cells(total)])
    widths = [max(len(str(row[i])) for row in [head, *rows]) for i in range(len(head))]
    lines = ["  ".join(str(cell).ljust(w) if i == 0 else str(cell).rjust(w) for i, (cell, w) in
                       enumerate(zip(row, widths))) for row in [head, *rows]]
    lines += ["", known_line(per_op)]
    for stage, listed in why.items():
        lines += ["", f"failure reasons at stage {stage}:"]
        lines += [f"  {one['count']:5d}  {one['reason']}  (e.g. {one['example']})" for one in listed]
    return "\n".join(lines)


def _cells(count: OpCount) -> list[int]:
    return [len(count.files), count.loaded, count.ran, count.passed, *(count.failed[s] for s in STAGES)]


def survey(folder: Path, report: Path, workers: int, soc: str, tests: Path) -> tuple[dict[str, Any], str]:
    """Load and run the folder's cases; (the survey as JSON, as text). CaseFileError if the folder cannot be loaded,
    ReportError if the run stopped or wrote no complete report."""
    cases = [c for c in load_cases([str(folder)], kind="all") if soc == EVERY_SOC or meant_for(c.file, soc)]
    done = run_suite(folder, report, workers, soc, tests)
    if done.returncode in STOPPED:
        said = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
        raise ReportError(f"the run stopped (pytest exit status {done.returncode}): " + " | ".join(said[-3:]))
    try:
        read = read_report(report)
    except ReportError as exc:
        raise ReportError(f"{exc}; the run's last output: {(done.stdout + done.stderr)[-1500:]}") from None
    if read.summary is None:
        raise ReportError(f"{report}: the run ended before its summary; its last output: "
                          f"{(done.stdout + done.stderr)[-1500:]}")
    found = outcomes(cases, read.cases)
    per_op, why = tally(cases, found), reasons(found)
    total = OpCount()
    for count in per_op.values():
        total.add(count)
    data = {"folder": str(folder), "report": str(report), "soc": soc,
            "ops": {op: count.as_dict() for op, count in per_op.items()}, "total": total.as_dict(),
            "known_ops": sorted(known_ops(per_op)), "reasons": why}
    return data, render(per_op, why)


def add_parser(actions: Any) -> None:
    """Add the `survey` action to `aclcts msopst`."""
    survey_parser = actions.add_parser(
        "survey", help="run a folder of msopst case files and count per op type what loaded, ran, passed, failed",
        description="Run `pytest conformance/ --cases FOLDER` once and print per op type: files, sub-cases loaded, "
                    "ran, passed and failed per stage, a total line, the count of op types aclcts knows and the "
                    "distinct failure reasons per stage.")
    survey_parser.add_argument("folder", metavar="FOLDER", help="a folder (or file) of msopst case JSON")
    survey_parser.add_argument("--report-to", metavar="PATH", help="keep the run's --report JSON Lines file here")
    survey_parser.add_argument("-n", dest="workers", type=int, default=1, help="pytest-xdist workers (default 1)")
    survey_parser.add_argument("--soc", default=EVERY_SOC,
                               help="run only the files meant for this SoC, as --msopst-soc (default: all files)")
    survey_parser.add_argument("--json", action="store_true", help="print the survey as JSON")


def main(args: Any, prog: str) -> int:
    """Run the survey; 0 when it ran, 1 when the run stopped or gave no complete report, 2 on bad usage."""
    folder = Path(args.folder).resolve()
    tests = suite_folder()
    if not folder.exists():
        print(f"{prog}: {args.folder}: no such folder or file", file=sys.stderr)
        return 2
    if args.workers < 1:
        print(f"{prog}: -n: expected at least 1 worker, got {args.workers}", file=sys.stderr)
        return 2
    if not tests.is_dir():
        print(f"{prog}: no conformance/ folder beside aclcts or here; run from the repository root", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="aclcts-survey-") as scratch:
        report = Path(args.report_to).resolve() if args.report_to else Path(scratch) / "report.jsonl"
        try:
            data, text = survey(folder, report, args.workers, args.soc, tests)
        except CaseFileError as exc:
            print(f"{prog}: {exc}", file=sys.stderr)
            return 2
        except ReportError as exc:
            print(f"{prog}: {exc}", file=sys.stderr)
            return 1
    print(json.dumps(data, indent=2) if args.json else text)
    return 0
