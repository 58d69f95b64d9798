"""The `aclcts report` command: `diff OLD NEW` and `merge SHARD... -o OUT`."""

from __future__ import annotations

import argparse
import sys

from aclcts.report.diff import (
    DEFAULT_FLOOR,
    DEFAULT_THRESHOLD,
    DEFAULT_ULP_FLOOR,
    DRIFT_METRICS,
    diff,
    render,
)
from aclcts.report.merge import merge_allure, merge_reports
from aclcts.report.records import ReportError, read_report, write_report

EXIT_OK, EXIT_NEW_FAILURES, EXIT_ERROR = 0, 1, 2

DIFF_EPILOG = f"""exit status:
  {EXIT_OK}  no new failures (fixes, added or missing cases, environment changes and drift are only reported)
  {EXIT_NEW_FAILURES}  new failures: cases failed or in error in NEW that passed in OLD
  {EXIT_ERROR}  usage error, or a report that cannot be read (file:line says what was expected)

drift: a case passing in both whose metric of an output grew to more than THRESHOLD x its OLD value
and by more than the floor (--floor; --ulp-floor for max_ulp)."""

MERGE_EPILOG = f"""exit status:
  {EXIT_OK}  merged
  {EXIT_ERROR}  refused: the shards differ in suite version, seed or backend, a case is in two shards,
     a shard did not finish, allure result names clash with different content, or a file cannot be read"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="aclcts report", description="compare and merge aclcts run reports")
    commands = parser.add_subparsers(dest="command", required=True, metavar="{diff,merge}")
    compare = commands.add_parser("diff", help="compare two run reports", epilog=DIFF_EPILOG,
                                  formatter_class=argparse.RawDescriptionHelpFormatter,
                                  description="compare the run report NEW with OLD")
    compare.add_argument("old", metavar="OLD")
    compare.add_argument("new", metavar="NEW")
    compare.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD, metavar="R",
                         help=f"drift when NEW/OLD of a metric exceeds R (default {DEFAULT_THRESHOLD:g})")
    compare.add_argument("--metric", nargs="+", choices=DRIFT_METRICS, default=None, metavar="NAME",
                         help=f"metrics to look for drift in (default all: {', '.join(DRIFT_METRICS)})")
    compare.add_argument("--floor", type=float, default=DEFAULT_FLOOR, metavar="F",
                         help=f"smallest absolute increase counted as drift (default {DEFAULT_FLOOR:g})")
    compare.add_argument("--ulp-floor", type=float, default=DEFAULT_ULP_FLOOR, metavar="U",
                         help=f"the same for max_ulp (default {DEFAULT_ULP_FLOOR:g})")
    combine = commands.add_parser("merge", help="merge shard reports into one", epilog=MERGE_EPILOG,
                                  formatter_class=argparse.RawDescriptionHelpFormatter,
                                  description="merge the run reports of shards of one qualification run")
    combine.add_argument("reports", nargs="+", metavar="REPORT")
    combine.add_argument("-o", "--output", required=True, metavar="OUT", help="the merged report to write")
    combine.add_argument("--allure", nargs="+", default=[], metavar="DIR", help="allure-results folders to merge")
    combine.add_argument("--allure-out", default=None, metavar="DIR", help="folder receiving the merged allure results")
    return parser


def _diff(args: argparse.Namespace) -> int:
    if args.threshold <= 1:
        print(f"aclcts report diff: error: --threshold {args.threshold:g}: expected a ratio above 1", file=sys.stderr)
        return EXIT_ERROR
    old, new = read_report(args.old), read_report(args.new)
    metrics = tuple(args.metric) if args.metric else DRIFT_METRICS
    result = diff(old, new, metrics, args.threshold, args.floor, args.ulp_floor)
    print("\n".join(render(result, old, new, args.threshold)))
    return EXIT_NEW_FAILURES if result.new_failures else EXIT_OK


def _merge(args: argparse.Namespace) -> int:
    if bool(args.allure) != bool(args.allure_out):
        print("aclcts report merge: error: --allure DIR... and --allure-out DIR go together", file=sys.stderr)
        return EXIT_ERROR
    records = merge_reports([read_report(path) for path in args.reports])
    copied = merge_allure(args.allure, args.allure_out) if args.allure else None
    write_report(args.output, records)
    summary = records[-1]
    counts = ", ".join(f"{n} {status}" for status, n in summary["counts"].items() if n)
    print(f"merged {len(args.reports)} report(s) into {args.output}: {summary['total']} case(s)"
          + (f" ({counts})" if counts else ""))
    if copied is not None:
        print(f"merged {copied} allure result file(s) into {args.allure_out}")
    return EXIT_OK


def main(argv: list[str]) -> int:
    """Run `aclcts report diff|merge ...`; return the exit status."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else EXIT_ERROR
    try:
        return _diff(args) if args.command == "diff" else _merge(args)
    except ReportError as exc:
        print(f"aclcts report {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
