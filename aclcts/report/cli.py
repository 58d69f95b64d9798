"""The `aclcts report` command: `diff OLD NEW`, `merge SHARD... -o OUT` and `expectations RUN ...`."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from pathlib import Path

from aclcts.core.outputs import same_path, target_problem
from aclcts.report.diff import (
    DEFAULT_FLOOR,
    DEFAULT_THRESHOLD,
    DEFAULT_ULP_FLOOR,
    DRIFT_METRICS,
    as_data,
    diff,
    render,
)
from aclcts.report.junit import merge_junit, write_junit
from aclcts.report.merge import merge_allure, merge_reports
from aclcts.report.records import ReportError, read_report, write_report

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
#: The module whose main(argv) runs `aclcts report expectations`, imported only when that command runs.
EXPECTATIONS_MODULE = "aclcts.report.baseline"

DIFF_EPILOG = f"""exit status:
  {EXIT_OK}  no new failures (fixes, added or missing cases, environment changes and drift are only reported)
  {EXIT_FINDINGS}  new failures: cases failed, in error or crashed in NEW that passed in OLD (also flaky);
     with --fail-on-lost-coverage also cases passing in OLD and skipped or missing in NEW
  {EXIT_ERROR}  usage error, or a report that cannot be read (file:line says what was expected)

drift: a case passing in both whose metric of an output grew to more than THRESHOLD x its OLD value
and by more than the floor (--floor; --ulp-floor for max_ulp)."""

MERGE_EPILOG = f"""exit status:
  {EXIT_OK}  merged
  {EXIT_ERROR}  refused: an output exists (without --force), a shard of the split is missing, a report was
     interrupted or did not finish (unless --allow-partial), the shards differ in suite version, seed, backend or expectations files, a case or JUnit
     test case is in two files, an output is also an input, allure result names clash with different content,
     or a file cannot be read"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="aclcts report",
                                     description="compare and merge aclcts run reports; turn one into expectations")
    commands = parser.add_subparsers(dest="command", required=True, metavar="{diff,merge,expectations}")
    compare = commands.add_parser("diff", help="compare two run reports", epilog=DIFF_EPILOG,
                                  formatter_class=argparse.RawDescriptionHelpFormatter,
                                  description="compare the run report NEW with OLD")
    compare.add_argument("old", metavar="OLD", help="the reference run report (--report's JSON Lines), e.g. the "
                                                   "previous release's or a clean run's")
    compare.add_argument("new", metavar="NEW", help="the run report judged against OLD, e.g. the release under test's")
    compare.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD, metavar="R",
                         help=f"drift when NEW/OLD of a metric exceeds R (default {DEFAULT_THRESHOLD:g})")
    compare.add_argument("--metric", nargs="+", choices=DRIFT_METRICS, default=None, metavar="NAME",
                         help=f"metrics to look for drift in (default all: {', '.join(DRIFT_METRICS)})")
    compare.add_argument("--floor", type=float, default=DEFAULT_FLOOR, metavar="F",
                         help=f"smallest absolute increase counted as drift (default {DEFAULT_FLOOR:g})")
    compare.add_argument("--ulp-floor", type=float, default=DEFAULT_ULP_FLOOR, metavar="U",
                         help=f"the same for max_ulp (default {DEFAULT_ULP_FLOOR:g})")
    compare.add_argument("--json", action="store_true", help="print the whole difference as one JSON document")
    compare.add_argument("--fail-on-lost-coverage", action="store_true",
                         help=f"exit {EXIT_FINDINGS} also when a case passing in OLD is skipped or missing in NEW")
    combine = commands.add_parser("merge", help="merge shard reports into one", epilog=MERGE_EPILOG,
                                  formatter_class=argparse.RawDescriptionHelpFormatter,
                                  description="merge the run reports of the shards of one qualification run")
    combine.add_argument("reports", nargs="+", metavar="REPORT")
    combine.add_argument("-o", "--output", required=True, metavar="OUT",
                         help="the merged report to write (a file that exists needs --force)")
    combine.add_argument("--force", action="store_true", help="overwrite OUT and --junit-out if they exist")
    combine.add_argument("--allow-partial", action="store_true",
                         help="merge even if shards are missing or a report was interrupted; the merged report "
                              "says what it lacks")
    combine.add_argument("--junit", nargs="+", default=[], metavar="XML", help="JUnit XML files to merge")
    combine.add_argument("--junit-out", default=None, metavar="XML", help="the merged JUnit XML file to write")
    combine.add_argument("--allure", nargs="+", default=[], metavar="DIR", help="allure-results folders to merge")
    combine.add_argument("--allure-out", default=None, metavar="DIR", help="folder receiving the merged allure results")
    commands.add_parser("expectations", add_help=False,
                        help="turn a run's failures into an expectations file (see `aclcts report expectations "
                             "--help`)")
    return parser


def _diff(args: argparse.Namespace) -> int:
    if args.threshold <= 1:
        raise ReportError(f"--threshold {args.threshold:g}: expected a ratio above 1")
    old, new = read_report(args.old), read_report(args.new)
    metrics = tuple(args.metric) if args.metric else DRIFT_METRICS
    result = diff(old, new, metrics, args.threshold, args.floor, args.ulp_floor)
    failing = bool(result.new_failures) or (args.fail_on_lost_coverage and bool(result.lost_coverage))
    status = EXIT_FINDINGS if failing else EXIT_OK
    if args.json:
        print(json.dumps({**as_data(result, old, new), "exit_status": status}, indent=1, allow_nan=False))
    else:
        print("\n".join(render(result, old, new, args.threshold)))
    return status


def _check_paths(args: argparse.Namespace) -> None:
    """Raise ReportError if an output is also an input, or an input is given twice."""
    if bool(args.allure) != bool(args.allure_out):
        raise ReportError("--allure DIR... and --allure-out DIR go together")
    if bool(args.junit) != bool(args.junit_out):
        raise ReportError("--junit XML... and --junit-out XML go together")
    for option, out, kind in (("-o", args.output, "file"), ("--junit-out", args.junit_out, "file"),
                              ("--allure-out", args.allure_out, "folder")):
        problem = target_problem(Path(out), kind) if out is not None else None
        if problem:
            raise ReportError(f"{option} {out}: {problem}")
    for option, out, inputs in (("-o", args.output, args.reports), ("--junit-out", args.junit_out, args.junit)):
        for index, path in enumerate(inputs):
            if out is not None and same_path(Path(out), Path(path)):
                raise ReportError(f"{option} {out} is also the input {path}; expected a new file (the inputs are "
                                  "left as they are)")
            if any(same_path(Path(path), Path(earlier)) for earlier in inputs[:index]):
                raise ReportError(f"{path} is given twice")
        if out is not None and os.path.exists(out) and not args.force:
            raise ReportError(f"{option} {out}: the file exists; give --force to overwrite it")


def _merge(args: argparse.Namespace) -> int:
    _check_paths(args)
    records = merge_reports([read_report(path) for path in args.reports], args.allow_partial)
    junit = merge_junit(args.junit) if args.junit else None
    copied = merge_allure(args.allure, args.allure_out) if args.allure else None
    if junit is not None:
        write_junit(junit, args.junit_out)
    write_report(args.output, records)
    summary, partial = records[-1], records[0]["partial"]
    counts = ", ".join(f"{n} {status}" for status, n in summary["counts"].items() if n)
    print(f"merged {len(args.reports)} report(s) into {args.output}: {summary['total']} case(s)"
          + (f" ({counts})" if counts else ""))
    if partial:
        print(f"warning: {args.output} is a partial merge: {partial}", file=sys.stderr)
    if junit is not None:
        print(f"merged {len(args.junit)} JUnit XML file(s) into {args.junit_out}: {junit.tests} test case(s)")
    if copied is not None:
        print(f"merged {copied} allure result file(s) into {args.allure_out}")
    return EXIT_OK


def _expectations(argv: list[str]) -> int:
    try:
        module = importlib.import_module(EXPECTATIONS_MODULE)
    except ModuleNotFoundError as exc:
        if exc.name != EXPECTATIONS_MODULE:
            raise
        print(f"aclcts report expectations: error: this installation has no {EXPECTATIONS_MODULE}", file=sys.stderr)
        return EXIT_ERROR
    return module.main(argv)


def main(argv: list[str]) -> int:
    """Run `aclcts report diff|merge|expectations ...`; return the exit status."""
    if argv[:1] == ["expectations"]:
        return _expectations(argv[1:])
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else EXIT_ERROR
    try:
        return _diff(args) if args.command == "diff" else _merge(args)
    except ReportError as exc:
        print(f"aclcts report {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:  # the reader of stdout (e.g. `| head`) went away: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
