"""`aclcts report expectations`: a run report's failing cases written as an expectations file (a baseline).

One entry per failing test id, except where every case of an op in a test function failed the same way: then one
pattern entry `FILE::TEST[OP-*]`. Failures become xfail entries (`raises: error` for setup errors); crashed and
timed-out tests, which may take a device down, become `action: skip` entries. An error after the test body (a leak
found at teardown) cannot be waived by an entry: such cases are listed as comments for a person to decide.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from aclcts.core.dates import iso_date
from aclcts.core.files import refuse_special
from aclcts.core.outputs import same_path, target_problem
from aclcts.report.completeness import incomplete_reason
from aclcts.report.ops import op_of
from aclcts.report.records import FAILING, Report, ReportError, read_report

EXIT_OK, EXIT_USAGE = 0, 2
PROG = "aclcts report expectations"
#: Pytest options that run a selection of the suite: a pattern entry then also covers cases the run did not select.
SELECTING = ("-k", "-m", "--deselect", "--lf", "--last-failed", "--sw", "--stepwise")
_DAYS = re.compile(r"\+\d{1,5}")
#: Characters a YAML file cannot hold as they are (YAML 1.1's printable set, which PyYAML checks, is the rest).
_NOT_PRINTABLE = re.compile("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")

EPILOG = f"""exit status:
  {EXIT_OK}  the expectations file was written
  {EXIT_USAGE}  usage error, an unreadable or unfinished run report, or FILE exists (give --force)

entries: xfail for failed cases, `raises: error` for setup errors, `action: skip` for crashed and timed-out ones;
one pattern FILE::TEST[OP-*] where all of an op's cases in a test function failed the same way."""


class UsageProblem(Exception):
    """A bad option or input; the message is one line naming it and what was expected."""


@dataclass(frozen=True)
class Entry:
    """One entry to write: its id pattern, what it does and the comment above it."""

    id: str
    kind: str
    comment: str


#: Entry kinds: the YAML lines each adds after the common fields.
KIND_LINES = {"failed": (), "error": ("raises: error",), "skip": ("action: skip",)}


def kind_of(case: dict) -> str | None:
    """How an entry should treat a failing case: "failed", "error" (in setup), "skip"; None if no entry can."""
    status, category = case["status"], case.get("category")
    if status == "crashed" or category in ("crash", "timeout"):
        return "skip"
    if status == "failed":
        return "failed"
    return "error" if category == "setup" else None


def _group(test: str) -> tuple[str, str | None]:
    """The test function of an id and the op of its case (None when it runs no op case)."""
    return test.split("[", 1)[0], op_of(test)


def entries_of(report: Report) -> tuple[list[Entry], list[dict]]:
    """The entries for a report's failing cases (sorted by id), and the failing cases no entry can waive."""
    failing = {case_id: case for case_id, case in report.cases.items() if case["status"] in FAILING}
    kinds = {case_id: kind_of(case) for case_id, case in failing.items()}
    unwaivable = [failing[case_id] for case_id, kind in sorted(kinds.items()) if kind is None]
    members: dict[tuple[str, str], list[str]] = {}
    for case_id in report.cases:
        function, op = _group(case_id)
        if op is not None:
            members.setdefault((function, op), []).append(case_id)
    entries, grouped = [], set()
    for (function, op), ids in members.items():
        found = {kinds.get(case_id) for case_id in ids}
        if len(ids) < 2 or len(found) != 1 or None in found:
            continue
        prefix = f"{function}[{op}-"
        if sum(case_id.startswith(prefix) for case_id in report.cases) != len(ids):
            continue
        kind = found.pop()
        first = failing[min(ids)]
        entries.append(Entry(f"{function}[{op}-*]", kind,
                             f"all {len(ids)} cases of {op} failed; first: {_said(first)}: {first.get('message', '')}"))
        grouped.update(ids)
    entries += [Entry(case_id, kinds[case_id], f"{_said(failing[case_id])}: {failing[case_id].get('message', '')}")
                for case_id in failing if case_id not in grouped and kinds[case_id] is not None]
    return sorted(entries, key=lambda entry: entry.id), unwaivable


def _said(case: dict) -> str:
    category = case.get("category")
    return case["status"] + (f" ({category})" if category else "")


def _text(value: str) -> str:
    """A YAML double-quoted scalar: JSON's string syntax, characters YAML cannot hold raw written as \\uXXXX."""
    return _NOT_PRINTABLE.sub(lambda found: f"\\u{ord(found.group()):04x}", json.dumps(value, ensure_ascii=False))


def _comment(text: str) -> str:
    return "# " + _NOT_PRINTABLE.sub("?", " ".join(text.split()))


def render(entries: list[Entry], unwaivable: list[dict], args: argparse.Namespace, release: str,
           header: list[str]) -> str:
    """The expectations file's text."""
    lines = [_comment(line) for line in header]
    lines += [f"release: {_text(release)}", "entries:" if entries else "entries: []"]
    for entry in entries:
        lines += ["  " + _comment(entry.comment), f"  - id: {_text(entry.id)}", f"    reason: {_text(args.reason)}"]
        lines += [f"    {key}: {_text(value)}" for key, value in (("issue", args.issue), ("owner", args.owner),
                                                                  ("soc", args.soc), ("cann", args.cann)) if value]
        lines += [f"    expires: {args.expires.isoformat()}"] + [f"    {line}" for line in KIND_LINES[entry.kind]]
    if unwaivable:
        lines += ["", _comment(f"{len(unwaivable)} case(s) errored after the test body (e.g. a leak found at "
                               "teardown); an entry cannot waive that, fix or skip (action: skip) them:")]
        lines += [_comment(f"{case['id']} - {_said(case)}: {case.get('message', '')}") for case in unwaivable]
    return "\n".join(lines) + "\n"


def release_of(report: Report) -> str:
    """A release line from the run: SoC, CANN version and backend of its first environment record."""
    env = report.environments[0] if report.environments else {}
    return (f"{env.get('soc_name') or 'unknown soc'}, CANN {env.get('cann_version') or 'unknown'} "
            f"({env.get('backend') or report.run.get('backend') or 'unknown backend'})")


def _selection_note(report: Report) -> str | None:
    args = [str(arg) for arg in report.run.get("pytest_args") or []]
    used = sorted({option for option in SELECTING for arg in args if arg == option or arg.startswith(option + "=")
                   or (len(option) == 2 and arg.startswith(option) and len(arg) > 2)})
    if report.run.get("shard"):
        used.append(f"--shard={report.run['shard']}")
    if not used:
        return None
    return (f"note: {report.path} ran a selection ({', '.join(used)}): a pattern entry OP-* also covers the op's cases "
            "it did not run; make the baseline from a whole run (or the merge of all its shards)")


def _expiry(value: str) -> datetime.date | int:
    """--expires: a date, or +DAYS (a number of days from today)."""
    if _DAYS.fullmatch(value):
        return int(value[1:])
    date = iso_date(value)
    if date is None:
        raise argparse.ArgumentTypeError(f"expected an ISO date (YYYY-MM-DD) or +DAYS, got {value!r}")
    return date


def _nonempty(value: str) -> str:
    if not value.strip():
        raise argparse.ArgumentTypeError("expected a non-empty text")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
                                     description="write a run report's failing cases as an expectations file "
                                                 "(for pytest --expectations)")
    parser.add_argument("run", metavar="RUN.jsonl", help="the run report (pytest --report)")
    parser.add_argument("-o", "--output", required=True, metavar="FILE", help="the expectations file to write")
    parser.add_argument("--owner", required=True, type=_nonempty, metavar="WHO",
                        help="who removes the entries when the failures are fixed")
    parser.add_argument("--expires", required=True, type=_expiry, metavar="YYYY-MM-DD|+DAYS",
                        help="the entries hold through this day (+90: 90 days from today)")
    parser.add_argument("--reason", required=True, type=_nonempty, metavar="TEXT", help="every entry's reason")
    parser.add_argument("--issue", type=_nonempty, metavar="URL", help="a tracker link for every entry")
    parser.add_argument("--soc", type=_nonempty, metavar="PATTERN",
                        help="apply the entries only on SoCs matching PATTERN (e.g. 'Ascend910B*')")
    parser.add_argument("--cann", type=_nonempty, metavar="PATTERN",
                        help="apply the entries only on CANN versions matching PATTERN (e.g. '9.0.*')")
    parser.add_argument("--release", type=_nonempty, metavar="TEXT",
                        help="the file's release line (default: SoC, CANN version and backend of the run)")
    parser.add_argument("--force", action="store_true", help="overwrite FILE if it exists")
    return parser


def _write(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        refuse_special(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    except OSError as exc:
        if temporary.is_file():
            temporary.unlink()
        raise UsageProblem(f"{path}: cannot write the expectations file: {exc.strerror or exc}") from None


def run(args: argparse.Namespace, today: datetime.date) -> str:
    """Write the expectations file args ask for; return the line saying what was written."""
    if isinstance(args.expires, int):
        args.expires = today + datetime.timedelta(days=args.expires)
    if args.expires < today:
        raise UsageProblem(f"--expires {args.expires}: expected today ({today}) or a later date")
    output = Path(args.output)
    if same_path(output, Path(args.run)):
        raise UsageProblem(f"-o {output}: is the run report itself, expected another file")
    problem = target_problem(output)
    if problem:
        raise UsageProblem(f"-o {output}: {problem}")
    if output.exists() and not args.force:
        raise UsageProblem(f"-o {output}: the file exists; give --force to overwrite it")
    report = read_report(args.run)
    unfinished = incomplete_reason(report)
    if unfinished:
        raise UsageProblem(f"{args.run}: {unfinished}; a baseline needs a whole run")
    entries, unwaivable = entries_of(report)
    failing = sum(case["status"] in FAILING for case in report.cases.values())
    header = [f"Expected failures of the run {args.run} ({PROG}, {today}): {failing} failing case(s) of "
              f"{len(report.cases)}, {len(entries)} entr{'y' if len(entries) == 1 else 'ies'}.",
              f"Run: started {report.run.get('start', '?')}, seed {report.run.get('seed')}, "
              f"pytest {shlex.join(map(str, report.run.get('pytest_args') or []))}"]
    _write(output, render(entries, unwaivable, args, args.release or release_of(report), header))
    patterns = sum(entry.id.endswith("-*]") for entry in entries)
    note = _selection_note(report) if patterns else None
    if note:
        print(note, file=sys.stderr)
    skips = sum(entry.kind == "skip" for entry in entries)
    return (f"wrote {output}: {len(entries)} entries ({patterns} op pattern(s), {skips} action: skip) for {failing} "
            f"failing case(s)" + (f"; {len(unwaivable)} error(s) after the test body listed as comments"
                                  if unwaivable else ""))


def main(argv: list[str]) -> int:
    """Run `aclcts report expectations ...`; return the exit status."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    try:
        print(run(args, datetime.date.today()))
    except (UsageProblem, ReportError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK
