"""Expected-failure files (--expectations): load them, turn matching failures into xfails or skip matching tests,
report entry usage."""

from __future__ import annotations

import argparse
import datetime
import functools
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import pytest

from aclcts.drive.backends import BackendError, load_backend
from aclcts.core.dates import iso_date
from aclcts.core.yamlpos import Path as YamlPath
from aclcts.core.yamlschema import SchemaChecker, read_yaml

#: Top-level keys of an expectations file and whether they are required.
FILE_KEYS = {"release": True, "entries": True}
#: Keys of one entry and whether they are required (issue or owner: at least one of them).
ENTRY_KEYS = {"id": True, "soc": False, "cann": False, "reason": True, "issue": False, "owner": False,
              "expires": True, "raises": False, "action": False}
#: What a matched test is expected to do: fail in its call phase, or error in its setup.
RAISES = ("failed", "error")
#: What an entry does to a matched test: expect it to fail (xfail), or not run it at all (skip).
ACTIONS = ("xfail", "skip")
#: aclCANNPackageName ACL_PKG_NAME_CANN: acl.get_cann_version(ACL_PKG_NAME_CANN) asks for the CANN version.
ACL_PKG_NAME_CANN = 0


class ExpectationsError(Exception):
    """An expectations file is unreadable or breaks the schema; the message is `file:line: field 'x': ...`."""


@dataclass(frozen=True)
class Expectation:
    """One expected-failure entry, with the file and line it was written at."""

    source: str
    line: int
    release: str
    id: str
    reason: str
    expires: datetime.date
    soc: str | None = None
    cann: str | None = None
    issue: str | None = None
    owner: str | None = None
    raises: str = "failed"
    action: str = "xfail"

    @property
    def location(self) -> str:
        """file:line of the entry."""
        return f"{self.source}:{self.line}"

    @property
    def file_pattern(self) -> str:
        """The test-file part of the id pattern (before the first '::')."""
        return self.id.split("::", 1)[0]

    def matches(self, nodeid: str) -> bool:
        """Whether the id pattern matches a pytest node id."""
        return glob_match(self.id, nodeid)

    def expired(self, today: datetime.date) -> bool:
        """Whether the entry is past its expiry date (it still holds on that date)."""
        return today > self.expires


@functools.cache
def _glob(pattern: str) -> re.Pattern[str]:
    return re.compile("".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern), re.DOTALL)


def glob_match(pattern: str, text: str) -> bool:
    """Whether text matches pattern in whole; `*` is any characters, `?` one, brackets are literal (node ids)."""
    return _glob(pattern).fullmatch(text) is not None


class _Checker(SchemaChecker):
    """The expectations file's checks; a field is named by its own key: field 'reason'."""

    error = ExpectationsError
    field_format = "field '{}'"

    def name(self, path: YamlPath) -> str:
        """The last key of path."""
        return str(path[-1]) if path else "(file)"

    def missing(self, path: YamlPath, key: str) -> NoReturn:
        """Fail for the required key that the mapping at path lacks, naming the key."""
        self.fail(path, "a value (the field is required)", field=key)

    def text(self, data: dict, key: str, path: YamlPath) -> str | None:
        if key not in data:
            return None
        value = data[key]
        if not isinstance(value, str) or not value.strip():
            hint = " (quote it)" if isinstance(value, (int, float)) and not isinstance(value, bool) else ""
            self.fail(path + (key,), "a non-empty string" + hint, value)
        return value

    def date(self, data: dict, path: YamlPath) -> datetime.date:
        value = data["expires"]
        if isinstance(value, str) and iso_date(value) is not None:
            return iso_date(value)
        if isinstance(value, datetime.date) and not isinstance(value, datetime.datetime):
            return value
        self.fail(path + ("expires",), "an ISO date (YYYY-MM-DD)", str(value))

    def entry(self, index: int, data: Any, release: str) -> Expectation:
        path = ("entries", index)
        if not isinstance(data, dict):
            self.fail(path, "a mapping with id, reason, expires and issue or owner", data, field=f"entries[{index}]")
        self.keys(data, path, ENTRY_KEYS)
        if "issue" not in data and "owner" not in data:
            self.fail(path, "an issue link or an owner (at least one of the two)", field="issue")
        fields = {key: self.text(data, key, path) for key in ("id", "soc", "cann", "reason", "issue", "owner")}
        if "::" not in fields["id"]:
            self.fail(path + ("id",), "a test-id pattern PATH::NAME ('*' and '?' as wildcards)", fields["id"])
        raises = data.get("raises", "failed")
        if raises not in RAISES:
            self.fail(path + ("raises",), " or ".join(RAISES), raises)
        action = data.get("action", "xfail")
        if action not in ACTIONS:
            self.fail(path + ("action",), " or ".join(ACTIONS), action)
        if action == "skip" and "raises" in data:
            self.fail(path + ("raises",), "no raises with action: skip (a skipped test does not run)", raises)
        return Expectation(self.source, self.line(path), release, expires=self.date(data, path),
                           raises=raises, action=action, **fields)


def load_expectations(path: str | Path) -> list[Expectation]:
    """Load and validate one expectations file; its entries in file order."""
    data, lines = read_yaml(path, "expectations", ExpectationsError)
    c = _Checker(str(path), lines)
    c.kind(data, dict, (), "a mapping with keys " + ", ".join(FILE_KEYS))
    c.keys(data, (), FILE_KEYS)
    release = c.text(data, "release", ())
    c.kind(data["entries"], list, ("entries",), "a list of entries")
    return [c.entry(index, item, release) for index, item in enumerate(data["entries"])]


def parse_today(value: str | None) -> datetime.date:
    """The run's date: --expectations-today (YYYY-MM-DD) or the clock."""
    if value is None:
        return datetime.date.today()
    date = iso_date(value)
    if date is None:
        raise pytest.UsageError(f"--expectations-today: expected an ISO date (YYYY-MM-DD), got {value!r}")
    return date


class RunFacts:
    """The soc and CANN version of the backend under test, resolved once on first need."""

    def __init__(self, backend_spec: str, cann_option: str | None) -> None:
        self.backend_spec, self.cann_option = backend_spec, cann_option
        self.resolved = False
        self.soc: str | None = None
        self.cann: str | None = None
        self.soc_note = self.cann_note = ""

    def resolve(self, item: pytest.Item) -> None:
        """Ask the backend's acl module (the test's aclcts_backend, else --backend) for soc and CANN version."""
        if self.resolved:
            return
        self.resolved = True
        backend = getattr(item, "funcargs", {}).get("aclcts_backend")
        try:
            acl = backend.acl if backend is not None else load_backend(self.backend_spec).acl
        except BackendError as exc:
            self.soc_note = self.cann_note = str(exc)
            self.cann = self.cann_option
            return
        try:
            self.soc = acl.get_soc_name() or None
            self.soc_note = "" if self.soc else "acl.get_soc_name() returned None"
        except Exception as exc:  # noqa: BLE001 (any backend failure leaves the soc unknown, reported)
            self.soc_note = f"acl.get_soc_name() raised {type(exc).__name__}: {exc}"
        self.cann, self.cann_note = _cann_version(acl, self.cann_option)

    def applicability(self, entry: Expectation, item: pytest.Item) -> tuple[str, str]:
        """("applies", "") or ("not-applicable", why) for an unexpired entry and this run's soc and CANN."""
        for name, pattern in (("soc", entry.soc), ("cann", entry.cann)):
            if pattern is None:
                continue
            self.resolve(item)
            value, note = (self.soc, self.soc_note) if name == "soc" else (self.cann, self.cann_note)
            what = "soc" if name == "soc" else "CANN version"
            if value is None:
                return "not-applicable", f"{name} filter '{pattern}' but the run's {what} is unknown ({note})"
            if not glob_match(pattern, value):
                return "not-applicable", f"{name} filter '{pattern}' does not match the run's {what} {value}"
        return "applies", ""


def _cann_version(acl: Any, option: str | None) -> tuple[str | None, str]:
    query = getattr(acl, "get_cann_version", None)
    note = "the backend has no acl.get_cann_version"
    if callable(query):
        try:
            info, ret = query(ACL_PKG_NAME_CANN)
            if ret == 0 and isinstance(info, dict) and info.get("version"):
                return str(info["version"]), "from acl.get_cann_version"
            note = f"acl.get_cann_version returned {ret}"
        except Exception as exc:  # noqa: BLE001 (a failing query falls back to --cann-version)
            note = f"acl.get_cann_version raised {type(exc).__name__}: {exc}"
    if option:
        return option, "from --cann-version"
    return None, note + "; give --cann-version"


#: Collection status of an entry, weakest first (xdist workers' statuses merge to the strongest).
STATUSES = ("not-collected", "unmatched", "deselected", "selected")
#: The `action: skip` entry that kept a test from running.
_SKIPPED_BY = pytest.StashKey[Expectation]()


def collection_status(entry: Expectation, collected: list[str], selected: list[str],
                      complete_files: set[str]) -> tuple[str, str]:
    """Whether the run selected, only collected, provably lacks, or never looked at the entry's tests."""
    chosen = sum(entry.matches(n) for n in selected)
    if chosen:
        return "selected", f"its {chosen} selected test(s) did not report (the run stopped early?)"
    if any(entry.matches(n) for n in collected):
        return "deselected", "its tests were collected but not selected (-k, -m, --deselect or another shard)"
    files = {n.split("::", 1)[0] for n in collected}
    candidates = sorted(f for f in files & complete_files if glob_match(entry.file_pattern, f))
    if candidates and not any(glob_match(entry.file_pattern, f) for f in files - complete_files):
        return "unmatched", "no test collected from " + ", ".join(candidates[:3]) + " matches it"
    return "not-collected", "its test file was not collected in whole in this run"


class ExpectationsPlugin:
    """The hooks of a run with --expectations: xfail, unexpected pass, and the summary of entry usage."""

    def __init__(self, config: pytest.Config, entries: list[Expectation], today: datetime.date) -> None:
        self.config, self.entries, self.today = config, entries, today
        self.facts = RunFacts(config.getoption("--backend"), config.getoption("--cann-version"))
        self.collected: list[str] = []
        self.complete_files: set[str] = set()
        self.status: dict[str, tuple[str, str]] = {}
        self.usage: dict[str, Counter] = {e.location: Counter() for e in entries}
        self.details: dict[str, dict[str, str]] = {e.location: {} for e in entries}

    def covers(self, nodeid: str) -> bool:
        """Whether an unexpired entry matches the test (its failures are known, not new; soc and CANN filters
        aside)."""
        return any(e.matches(nodeid) and not e.expired(self.today) for e in self.entries)

    def pytest_itemcollected(self, item: pytest.Item) -> None:
        """Remember every collected test, deselected ones included."""
        self.collected.append(item.nodeid)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        """Remember test files collected in whole (not narrowed to some node ids)."""
        if report.passed and "::" not in report.nodeid:
            self.complete_files.add(report.nodeid)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Work out each entry's collection status (sent to the xdist controller by workers)."""
        selected = [item.nodeid for item in session.items]
        found = {e.location: collection_status(e, self.collected, selected, self.complete_files)
                 for e in self.entries}
        self._merge_status(found)
        workeroutput = getattr(self.config, "workeroutput", None)
        if workeroutput is not None:
            workeroutput["aclcts_expectations"] = {loc: list(value) for loc, value in found.items()}

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """On the xdist controller: take over a worker's collection statuses."""
        found = getattr(node, "workeroutput", {}).get("aclcts_expectations", {})
        self._merge_status({loc: (value[0], value[1]) for loc, value in found.items()})

    def _merge_status(self, found: dict[str, tuple[str, str]]) -> None:
        for loc, value in found.items():
            known = self.status.get(loc)
            if known is None or STATUSES.index(value[0]) > STATUSES.index(known[0]):
                self.status[loc] = value

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
        """Mark a test that an applicable `action: skip` entry matches as skipped, so none of it runs."""
        entry = self._skipping(item)
        if entry is not None:
            item.stash[_SKIPPED_BY] = entry
            item.add_marker(pytest.mark.skip(reason=f"{entry.reason} [{entry.location}]"))
        yield

    def _skipping(self, item: pytest.Item) -> Expectation | None:
        for entry in self.entries:
            if entry.action == "skip" and entry.matches(item.nodeid) and not entry.expired(self.today) \
                    and self.facts.applicability(entry, item)[0] == "applies":
                return entry
        return None

    @pytest.hookimpl(hookwrapper=True, trylast=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
        """Turn a matched failure into an xfail and a matched pass into a failure; record entry usage."""
        outcome = yield
        report = outcome.get_result()
        if call.when not in ("setup", "call") or (call.when == "setup" and report.passed):
            return
        matching = [e for e in self.entries if e.matches(item.nodeid)]
        if not matching:
            return
        rows, applied = [], None
        skipped_by = item.stash.get(_SKIPPED_BY, None)
        for entry in matching:
            if entry is skipped_by:
                report.aclcts_waiver = entry.location
                rows.append([entry.location, "skip", ""])
                continue
            state, detail = ("expired", f"expired {entry.expires}") if entry.expired(self.today) \
                else self.facts.applicability(entry, item)
            if state == "applies":
                state, detail = _effect(entry, report)
                applied = applied or (entry if state in ("xfailed", "unexpected-pass") else None)
            rows.append([entry.location, state, detail])
        if applied is not None:
            _apply(applied, report)
        report.aclcts_expectations = rows

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Count entry usage from reports (on the xdist controller, the workers' reports)."""
        for loc, state, detail in getattr(report, "aclcts_expectations", ()):
            if loc in self.usage:
                self.usage[loc][state] += 1
                self.details[loc].setdefault(state, detail)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """The "aclcts expectations" section: what each entry did in this run."""
        terminalreporter.section("aclcts expectations")
        for line in summary_lines(self.entries, self.today, self.usage, self.details, self.status):
            terminalreporter.write_line(line)


def _effect(entry: Expectation, report: pytest.TestReport) -> tuple[str, str]:
    if getattr(report, "wasxfail", None) is not None or report.skipped:
        return "skipped", "its tests were skipped"
    expected_phase = "setup" if entry.raises == "error" else "call"
    if report.failed:
        if report.when == expected_phase:
            return "xfailed", ""
        return "other", (f"a test {'errored in setup' if report.when == 'setup' else 'failed'} "
                         f"but the entry says raises: {entry.raises}")
    return "unexpected-pass", ""


def _apply(entry: Expectation, report: pytest.TestReport) -> None:
    report.aclcts_waiver = entry.location
    if report.failed:
        report.outcome = "skipped"
        report.wasxfail = f"{entry.reason} [{entry.location}]"
        return
    said = "fails" if entry.raises == "failed" else "errors in setup"
    tracker = ", ".join(x for x in (entry.issue, entry.owner) if x)
    report.outcome = "failed"
    report.longrepr = (f"unexpected pass: expectations {entry.location} says this test {said} "
                       f"({entry.reason}; {tracker}); remove the entry")


#: Summary headings in the order they are printed.
HEADINGS = {
    "unexpected-pass": "unexpected pass (remove the entry)",
    "xfailed": "xfailed",
    "skip": "skipped, not run (action: skip)",
    "expired": "expired, not applied (renew or remove)",
    "not-applicable": "not applicable in this run",
    "other": "matched, but not as the entry expects",
    "unmatched": "unmatched: no collected test matches (renamed or removed?)",
    "not-exercised": "not exercised in this run",
}


def _category(entry: Expectation, today: datetime.date, used: Counter, details: dict[str, str],
              status: tuple[str, str]) -> tuple[str, str]:
    if entry.expired(today):
        matched = f"; {used['expired']} matching test result(s) left as they were" if used["expired"] else ""
        return "expired", f"expired {entry.expires}{matched}"
    if used["unexpected-pass"]:
        also = f", {used['xfailed']} xfailed" if used["xfailed"] else ""
        return "unexpected-pass", f"{used['unexpected-pass']} test(s) passed{also}"
    if used["xfailed"]:
        return "xfailed", f"{used['xfailed']} test(s)"
    if used["skip"]:
        return "skip", f"{used['skip']} test(s)"
    for state in ("not-applicable", "other"):
        if used[state]:
            return state, details[state]
    if used["skipped"]:
        return "not-exercised", f"its {used['skipped']} matching test(s) were skipped"
    name, detail = status
    return ("unmatched" if name == "unmatched" else "not-exercised"), detail


def summary_lines(entries: list[Expectation], today: datetime.date, usage: dict[str, Counter],
                  details: dict[str, dict[str, str]], status: dict[str, tuple[str, str]]) -> list[str]:
    """The summary text: per file its release, then entries grouped by what they did."""
    files = Counter(e.source for e in entries)
    releases = {e.source: e.release for e in entries}
    lines = [f"{source}: {releases[source]}, {count} entr{'y' if count == 1 else 'ies'}"
             for source, count in files.items()]
    groups: dict[str, list[str]] = {name: [] for name in HEADINGS}
    for entry in entries:
        name, detail = _category(entry, today, usage[entry.location], details[entry.location],
                                 status.get(entry.location, ("not-collected", "no test collection was seen")))
        groups[name].append(f"  {entry.location} {entry.id} - {detail}")
    for name, heading in HEADINGS.items():
        if groups[name]:
            lines += [f"{heading}: {len(groups[name])}", *groups[name]]
    return lines


def add_options(group: Any) -> None:
    """--expectations FILE (repeatable), --cann-version, and the hidden --expectations-today."""
    group.addoption("--expectations", action="append", default=[], metavar="FILE",
                    help="expected-failure file of the release under test (may be given several times)")
    group.addoption("--cann-version", default=None,
                    help="CANN version of the run for expectation filters when the backend has no "
                         "acl.get_cann_version")
    group.addoption("--expectations-today", default=None, help=argparse.SUPPRESS)


def configure(config: pytest.Config) -> None:
    """Load the expectations files (a usage error names file:line:field) and register the hooks."""
    today = parse_today(config.getoption("--expectations-today"))
    paths = config.getoption("--expectations")
    if not paths:
        return
    entries: list[Expectation] = []
    for path in paths:
        try:
            entries += load_expectations(path)
        except ExpectationsError as exc:
            raise pytest.UsageError(str(exc)) from None
    config.pluginmanager.register(ExpectationsPlugin(config, entries, today), "aclcts-waivers")
