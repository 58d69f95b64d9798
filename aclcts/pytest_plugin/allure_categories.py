"""Allure's categories.json for aclcts: which failed, broken or flaky results are precision, error-code, leak,
setup, crash or timeout failures, matched on aclcts' own exception class names and message prefixes; and the
grouping message of a failed result, by which Allure's Categories tab groups the results inside a category."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from aclcts.core.files import write_atomically

#: Message prefix of the result the xdist controller writes for a test whose worker died (allure_run).
CRASH_PREFIX = "crashed: "
#: Message prefix aclcts gives a result whose test failed while its fixtures were set up (allure_run).
SETUP_PREFIX = "setup failed: "
#: The failure pytest-timeout raises when a test runs out of time (its own text: this is run configuration that
#: follows the installed pytest-timeout, not something aclcts' self-tests assert).
TIMEOUT_TEXT = r"(?:Failed: )?Timeout\b"
#: Exception class names by category (the names of aclcts.judge.decorator.PrecisionMismatch, aclcts.drive.executor.
#: GuardBandError, aclcts.core.error_codes.ErrorCodeMismatch, aclcts.drive.flow.AclCallError and
#: aclcts.drive.resources.LeakedObjects; spelled out so that an xdist controller need not import the test side).
EXCEPTIONS: dict[str, tuple[str, ...]] = {
    "precision": ("PrecisionMismatch", "GuardBandError"),
    "error code": ("ErrorCodeMismatch", "AclCallError"),
    "leak": ("LeakedObjects",),
}
FILE_NAME = "categories.json"
#: A number standing alone (not part of a name such as float16 or execute_v2): what a grouping message leaves out.
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
FAILING = ["failed", "broken"]


def _raised(names: tuple[str, ...]) -> str:
    """A message that starts with one of these exception classes (module-qualified or not) and its text."""
    return rf"(?s)(?:[\w.]+\.)?(?:{'|'.join(names)}): .*"


def categories() -> list[dict[str, Any]]:
    """The categories, in Allure's categories.json form; no two of them match the same result."""
    return [
        {"name": "crash", "matchedStatuses": ["broken"], "messageRegex": rf"(?s){CRASH_PREFIX}.*"},
        {"name": "timeout", "matchedStatuses": FAILING, "messageRegex": rf"(?s)(?:{SETUP_PREFIX})?{TIMEOUT_TEXT}.*"},
        {"name": "setup", "matchedStatuses": FAILING, "messageRegex": rf"(?s){SETUP_PREFIX}(?!{TIMEOUT_TEXT}).*"},
        *({"name": name, "matchedStatuses": FAILING, "messageRegex": _raised(names)}
          for name, names in EXCEPTIONS.items()),
        {"name": "flaky", "matchedStatuses": ["passed"], "flaky": True},
    ]


def write_categories(folder: str | Path) -> Path:
    """Write categories.json into an allure-results folder; its path."""
    path = Path(folder) / FILE_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, (json.dumps(categories(), indent=2) + "\n").encode())
    return path


def grouping_message(message: str, op: str | None, case_id: str | None) -> str:
    """The message Allure groups a failed result by: the exception's name and the first line of its text with the
    case id replaced by its op (or the op added at the end) and the numbers by N, so that the failures of one kind in
    one op form one group; the category regexes still match it."""
    first = message.strip().splitlines()[0] if message.strip() else ""
    kind, sep, text = first.partition(": ")
    if not sep or " " in kind:
        kind, text = "", first
    if case_id and op:
        text = text.replace(case_id, op)
    pattern = _NUMBER.sub("N", text)
    if op and op not in pattern:
        pattern = f"{pattern} [{op}]"
    return f"{kind.rsplit('.', 1)[-1]}: {pattern}" if kind else pattern
