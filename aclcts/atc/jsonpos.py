"""JSON loading that remembers the line on which every object and array starts.

Stricter than JSON itself: a key given twice in one object (DuplicateJsonKey) and nesting deeper than
core.inputs.MAX_NESTING_DEPTH (JsonTooDeep) are errors, each with the line where it happens.
"""

from __future__ import annotations

import json
import json.scanner

from aclcts.core.inputs import MAX_NESTING_DEPTH


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not valid JSON")


class DuplicateJsonKey(ValueError):
    """An object gives a key twice; `key`, and the lines of its first and second values."""

    def __init__(self, key: str, first_line: int, line: int) -> None:
        super().__init__(f"duplicate key {key!r} (first given on line {first_line})")
        self.key, self.first_line, self.line = key, first_line, line


class JsonTooDeep(ValueError):
    """Objects and arrays nest deeper than MAX_NESTING_DEPTH; `line` is where the limit is crossed."""

    def __init__(self, line: int) -> None:
        super().__init__(f"expected at most {MAX_NESTING_DEPTH} levels of nesting, got more")
        self.line = line


class _Repeated(Exception):
    """Raised by _unique_pairs: the positions of a key's first and second value in its object."""

    def __init__(self, key: str, first: int, second: int) -> None:
        super().__init__(key)
        self.key, self.first, self.second = key, first, second


def _unique_pairs(pairs: list[tuple[str, object]]) -> dict[str, object]:
    positions: dict[str, int] = {}
    for position, (key, _) in enumerate(pairs):
        if key in positions:
            raise _Repeated(key, positions[key], position)
        positions[key] = position
    return dict(pairs)


class LocatedJson:
    """A decoded JSON document plus the source line of each of its objects and arrays."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._offsets: dict[int, int] = {}
        self._depth = 0
        decoder = json.JSONDecoder(parse_constant=_reject_constant, object_pairs_hook=_unique_pairs)
        base_object, base_array = decoder.parse_object, decoder.parse_array

        def parse_object(s_and_end, strict, scan_once, *args):
            starts: list[int] = []

            def scan_value(string: str, index: int):
                starts.append(index)
                return scan_once(string, index)

            self._enter(s_and_end[1] - 1)
            try:
                obj, end = base_object(s_and_end, strict, scan_value, *args)
            except _Repeated as exc:
                raise DuplicateJsonKey(exc.key, self._key_line(starts[exc.first]),
                                       self._key_line(starts[exc.second])) from None
            finally:
                self._depth -= 1
            self._offsets[id(obj)] = s_and_end[1] - 1
            return obj, end

        def parse_array(s_and_end, *args):
            self._enter(s_and_end[1] - 1)
            try:
                arr, end = base_array(s_and_end, *args)
            finally:
                self._depth -= 1
            self._offsets[id(arr)] = s_and_end[1] - 1
            return arr, end

        decoder.parse_object = parse_object
        decoder.parse_array = parse_array
        decoder.scan_once = json.scanner.py_make_scanner(decoder)
        self.value = decoder.decode(text)

    def _enter(self, offset: int) -> None:
        self._depth += 1
        if self._depth > MAX_NESTING_DEPTH:
            self._depth -= 1
            raise JsonTooDeep(self._line_at(offset))

    def _key_line(self, value_start: int) -> int:
        """The line of the key whose value starts at value_start (the line of the ':' before it)."""
        return self._line_at(self._text.rindex(":", 0, value_start))

    def _line_at(self, offset: int) -> int:
        return self._text.count("\n", 0, offset) + 1

    def line(self, node: object) -> int | None:
        """Return the 1-based line where a decoded object or array starts, None for other values."""
        offset = self._offsets.get(id(node))
        return None if offset is None else self._text.count("\n", 0, offset) + 1
