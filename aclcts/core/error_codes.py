"""Documented outcomes of invalid calls per CANN release: loading, validating and checking an error-code file."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aclcts.core.yamlpos import Path as YamlPath
from aclcts.core.yamlschema import SchemaChecker, read_yaml
from aclcts.core.constants import ErrorCode, error_name

#: Top-level keys of an error-code file and whether they are required.
FILE_KEYS = {"release": True, "document": True, "scenarios": True}
#: Keys of one scenario; exactly one of OUTCOME_KEYS must be present.
SCENARIO_KEYS = ("api", "code", "value", "exception", "message", "returns", "rejected", "condition", "section", "skip")
OUTCOME_KEYS = ("code", "exception", "returns", "rejected")
#: A scenario's section: a Markdown page of the file's `document` folder and a heading anchor in it.
SECTION = re.compile(r"[\w.-]+\.md#[\w-]+")
#: Exceptions the pyacl binding raises for arguments it cannot parse
#: (docs/contract/binding-conventions.md#two-error-channels).
BINDING_EXCEPTIONS = ("TypeError", "ValueError", "RuntimeError")
#: Exceptions that mean the probe itself is broken; they never count as the backend rejecting a call.
PROBE_BUGS = ("AttributeError", "NameError", "KeyError", "IndexError", "AssertionError", "UnboundLocalError")
_NO_VALUE = object()


class ErrorCodesError(Exception):
    """An error-code file is missing or breaks the schema; the message is `file:line: field: what was expected`."""


class ErrorCodeMismatch(AssertionError):
    """A call's outcome differs from the documented one."""


@dataclass(frozen=True)
class Outcome:
    """What one call did: the value it returned (tuples as lists) or the exception it raised."""

    result: Any = None
    error_type: str | None = None
    error_message: str | None = None

    @classmethod
    def capture(cls, call: Callable[[], Any]) -> Outcome:
        """Run call and record its result or the Exception it raised."""
        try:
            return cls(result=plain(call()))
        except Exception as exc:  # noqa: BLE001 (the outcome under test may be any exception the backend raises)
            return cls(error_type=type(exc).__name__, error_message=str(exc))

    def to_json(self) -> dict[str, Any]:
        """A JSON-serialisable form (for outcomes produced in a child process)."""
        return {"result": self.result, "error_type": self.error_type, "error_message": self.error_message}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Outcome:
        """The outcome to_json produced."""
        return cls(data.get("result"), data.get("error_type"), data.get("error_message"))

    def code(self) -> int | None:
        """The aclError of the result: a bare int, or the last element of a (values..., ret) result."""
        if self.error_type is not None:
            return None
        result = self.result
        if isinstance(result, list) and result:
            result = result[-1]
        return result if isinstance(result, int) and not isinstance(result, bool) else None

    def values(self) -> Any:
        """The out-values before ret: the single value of (value, ret), a list for longer tuples."""
        if not isinstance(self.result, list) or len(self.result) < 2:
            return _NO_VALUE
        head = self.result[:-1]
        return head[0] if len(head) == 1 else head

    def __str__(self) -> str:
        if self.error_type is not None:
            return f"raised {self.error_type}({self.error_message!r})"
        code = self.code()
        if code is not None and self.values() is _NO_VALUE:
            return f"returned {code} ({error_name(code)})"
        if code is not None:
            return f"returned {self.result!r} (ret {code}, {error_name(code)})"
        return f"returned {self.result!r}"


def plain(value: Any) -> Any:
    """Tuples as lists and int subclasses as int, recursively, so in-process and child outcomes compare alike."""
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    if isinstance(value, int) and not isinstance(value, bool):
        return int(value)
    return value


@dataclass(frozen=True)
class DocumentedOutcome:
    """The documented outcome of one scenario."""

    id: str
    api: str
    condition: str
    section: str
    source: str
    codes: tuple[int, ...] = ()
    value: Any = _NO_VALUE
    exception: str | None = None
    message: str | None = None
    returns: Any = _NO_VALUE
    rejected: bool = False
    skip: str | None = None

    def describe(self) -> str:
        """The expected outcome in words."""
        if self.codes:
            codes = " or ".join(f"{c} ({error_name(c)})" for c in self.codes)
            return f"ret {codes}" + ("" if self.value is _NO_VALUE else f" with value {self.value!r}")
        if self.exception:
            return self.exception + (f"({self.message!r})" if self.message is not None else "")
        if self.returns is not _NO_VALUE:
            return f"the return value {self.returns!r}"
        return "a rejection (a non-zero code or an exception; the exact code is UNCONFIRMED)"

    def mismatch(self, outcome: Outcome, lenient: bool) -> str | None:
        """Why outcome breaks this documented outcome, or None if it meets it."""
        if self.codes:
            return self._code_mismatch(outcome, lenient)
        if self.exception:
            if outcome.error_type != self.exception:
                return f"expected {self.describe()}"
            if not lenient and self.message is not None and outcome.error_message != self.message:
                return f"expected the message {self.message!r}"
            return None
        if self.returns is not _NO_VALUE:
            return None if outcome.error_type is None and outcome.result == plain(self.returns) else \
                f"expected {self.describe()}"
        if outcome.error_type is not None:
            return f"the probe itself failed with {outcome.error_type}" if outcome.error_type in PROBE_BUGS else None
        code = outcome.code()
        return None if code not in (None, 0) else f"expected {self.describe()}"

    def _code_mismatch(self, outcome: Outcome, lenient: bool) -> str | None:
        code = outcome.code()
        if code is None:
            return f"expected {self.describe()}, which is an aclError result"
        wanted_success = self.codes == (0,)
        if lenient and not wanted_success:
            if code == 0:
                return "expected a non-zero code (lenient mode)"
        elif code not in self.codes:
            return f"expected {self.describe()}"
        if self.value is not _NO_VALUE and outcome.values() != plain(self.value):
            return f"expected {self.describe()}"
        return None


@dataclass(frozen=True)
class ErrorCodeTable:
    """One release's error-code file: scenario id → documented outcome, checked strictly or leniently."""

    path: str
    release: str
    document: str
    lenient: bool
    scenarios: dict[str, DocumentedOutcome]

    def __getitem__(self, scenario: str) -> DocumentedOutcome:
        try:
            return self.scenarios[scenario]
        except KeyError:
            raise ErrorCodeMismatch(f"{self.path}: no documented outcome for scenario {scenario!r}; add it to the "
                                     "release's error-code file") from None

    def check(self, scenario: str, outcome: Outcome) -> None:
        """Raise ErrorCodeMismatch, quoting the documented condition, unless outcome is the documented one."""
        __tracebackhide__ = True
        expected = self[scenario]
        problem = expected.mismatch(outcome, self.lenient)
        if problem is None:
            return
        mode = "lenient" if self.lenient else "strict"
        raise ErrorCodeMismatch(
            f"{expected.api} [{scenario}]: {problem}, but it {outcome}\n"
            f"  documented ({self.document}/{expected.section}): \"{expected.condition}\"\n"
            f"  documented: {expected.source} ({self.release}, {mode})"
        )


class _Checker(SchemaChecker):
    """The error-code file's checks; fields are written dotted: scenarios.<id>.code."""

    error = ErrorCodesError

    def name(self, path: YamlPath) -> str:
        """The path joined with dots."""
        return ".".join(str(p) for p in path) or "(file)"

    def text(self, data: dict, key: str, path: YamlPath) -> str:
        value = data.get(key)
        if not isinstance(value, str) or not value.strip():
            self.fail(path + (key,), "a non-empty string", value)
        return value

    def code(self, value: Any, path: YamlPath) -> int:
        if isinstance(value, str):
            try:
                return int(ErrorCode[value])
            except KeyError:
                self.fail(path, "an aclError name from aclcts.core.constants.ErrorCode or an int", value)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            self.fail(path, "an aclError (int >= 0 or a name such as ACL_ERROR_INVALID_PARAM)", value)
        return value

    def scenario(self, sid: Any, data: Any) -> DocumentedOutcome:
        path = ("scenarios", sid)
        if not isinstance(sid, str) or not sid:
            self.fail(path, "a scenario id (non-empty string)", sid)
        if not isinstance(data, dict):
            self.fail(path, "a mapping with api, an outcome (" + ", ".join(OUTCOME_KEYS) + "), condition and section")
        self.keys(data, path, SCENARIO_KEYS)
        outcomes = [k for k in OUTCOME_KEYS if k in data]
        if len(outcomes) != 1:
            self.fail(path, "exactly one of " + ", ".join(OUTCOME_KEYS), outcomes or None)
        fields: dict[str, Any] = {"id": sid, "api": self.text(data, "api", path),
                                  "condition": self.text(data, "condition", path),
                                  "section": self.text(data, "section", path),
                                  "source": f"{self.source}:{self.line(path)}"}
        if not SECTION.fullmatch(fields["section"]):
            self.fail(path + ("section",), "a page and heading anchor of the document such as 'memory.md#memcpy'",
                      fields["section"])
        if "message" in data and "exception" not in data:
            self.fail(path + ("message",), "message only together with exception")
        if "value" in data and "code" not in data:
            self.fail(path + ("value",), "value only together with code")
        if "skip" in data:
            fields["skip"] = self.text(data, "skip", path)
        kind = outcomes[0]
        if kind == "code":
            raw = data["code"]
            items = raw if isinstance(raw, list) else [raw]
            if not items:
                self.fail(path + ("code",), "an aclError or a non-empty list of them", raw)
            fields["codes"] = tuple(self.code(v, path + ("code",)) for v in items)
            if "value" in data:
                fields["value"] = data["value"]
        elif kind == "exception":
            self.one_of(data["exception"], BINDING_EXCEPTIONS, path + ("exception",))
            fields["exception"] = data["exception"]
            if "message" in data:
                fields["message"] = self.text(data, "message", path)
        elif kind == "returns":
            fields["returns"] = data["returns"]
        else:
            if data["rejected"] is not True:
                self.fail(path + ("rejected",), "true", data["rejected"])
            fields["rejected"] = True
        return DocumentedOutcome(**fields)


def load_error_codes(path: str | Path, lenient: bool = False) -> ErrorCodeTable:
    """Load and validate an error-code file; lenient accepts any non-zero code where a failure is documented."""
    source = str(path)
    data, lines = read_yaml(path, "error-code", ErrorCodesError)
    c = _Checker(source, lines)
    c.kind(data, dict, (), "a mapping with keys " + ", ".join(FILE_KEYS))
    c.keys(data, (), FILE_KEYS)
    release, document = c.text(data, "release", ()), c.text(data, "document", ())
    if not isinstance(data["scenarios"], dict) or not data["scenarios"]:
        c.fail(("scenarios",), "a non-empty mapping of scenario id to documented outcome", data["scenarios"])
    scenarios = {sid: c.scenario(sid, item) for sid, item in data["scenarios"].items()}
    return ErrorCodeTable(source, release, document, lenient, scenarios)
