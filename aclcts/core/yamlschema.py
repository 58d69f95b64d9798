"""Reading a YAML file with the line of every value, and checking its fields with errors naming file, line and field."""

from __future__ import annotations

from pathlib import Path as FilePath
from typing import Any, ClassVar, NoReturn

from aclcts.core.inputs import MAX_YAML_BYTES, one_line, read_text
from aclcts.core.yamlpos import Path, YamlSyntaxError, line_of, load_with_lines

#: The `got` of SchemaChecker.fail when there is no value to quote.
_MISSING: Any = object()


def parse_yaml(text: str, source: str, error: type[Exception]) -> tuple[Any, dict[Path, int]]:
    """The data of YAML text and the line of every value; invalid YAML raises error with the syntax message."""
    try:
        return load_with_lines(text, source)
    except YamlSyntaxError as exc:
        raise error(str(exc)) from None


def read_yaml(path: str | FilePath, what: str, error: type[Exception]) -> tuple[Any, dict[Path, int]]:
    """parse_yaml of a file; an unreadable one raises error `<file>: cannot read the <what> file: <reason>`.

    The file must be a regular file (a FIFO or device is refused, not opened) of UTF-8 text, at most MAX_YAML_BYTES.
    """
    return parse_yaml(read_text(path, what, MAX_YAML_BYTES, error), str(path), error)


def field_name(path: Path) -> str:
    """A value's path written as in the file: dtypes[1].y, shapes[0]."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(file)"


class SchemaChecker:
    """Checks of loaded YAML data; a failure raises `error` with the message `file:line: field: expected ...`."""

    #: The exception a failure raises.
    error: ClassVar[type[Exception]]
    #: How a field's name is written in a message.
    field_format: ClassVar[str] = "{}"
    #: Whether a `got` of None is quoted (", got None") or left out.
    shows_none: ClassVar[bool] = True

    def __init__(self, source: str, lines: dict[Path, int]) -> None:
        self.source, self.lines = source, lines

    def line(self, path: Path) -> int:
        """The line of path, or of its nearest enclosing value that has one."""
        return line_of(self.lines, path)

    def name(self, path: Path) -> str:
        """The name of the field at path in a message."""
        return field_name(path)

    def problem(self, path: Path, message: str, field: str | None = None) -> Exception:
        """The error `file:line: field: message` for the value at path (field names it instead of its path)."""
        name = self.name(path) if field is None else field
        return self.error(one_line(f"{self.source}:{self.line(path)}: {self.field_format.format(name)}: {message}"))

    def fail(self, path: Path, expected: str, got: Any = _MISSING, field: str | None = None) -> NoReturn:
        """Raise `file:line: field: expected <expected>, got <got>` (without the got part if there is none)."""
        quoted = got is not _MISSING and (got is not None or self.shows_none)
        raise self.problem(path, f"expected {expected}" + (f", got {got!r}" if quoted else ""), field)

    def kind(self, value: Any, kinds: type | tuple[type, ...], path: Path, expected: str) -> None:
        """Fail unless value is an instance of kinds."""
        if not isinstance(value, kinds):
            self.fail(path, expected, value)

    def one_of(self, value: Any, allowed: tuple[str, ...], path: Path) -> None:
        """Fail unless value is one of allowed."""
        if value not in allowed:
            self.fail(path, "one of " + ", ".join(allowed), value)

    def keys(self, data: dict, path: Path, keys: dict[str, bool] | tuple[str, ...]) -> None:
        """Fail at a key of the mapping data that is not one of keys, then at a required one (True) it lacks."""
        for key in data:
            if key not in keys:
                self.fail(path + (key,), "one of the keys " + ", ".join(keys), key)
        required = [key for key, needed in keys.items() if needed] if isinstance(keys, dict) else []
        for key in required:
            if key not in data:
                self.missing(path, key)

    def missing(self, path: Path, key: str) -> NoReturn:
        """Fail for the required key that the mapping at path lacks."""
        self.fail(path, f"the required key {key!r}")
