"""JSON loading that remembers the line on which every object and array starts.

Stricter than JSON itself: a key given twice in one object (DuplicateJsonKey) and nesting deeper than
core.inputs.MAX_NESTING_DEPTH (JsonTooDeep) are errors, each with the line where it happens.
"""

from __future__ import annotations

import bisect
import json
import json.scanner
import re

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
    """A decoded JSON document plus the source line of each of its objects and arrays.

    The document is decoded by the C scanner, noting where the top-level value and each element of a top-level array
    start; the first question about any other object or array decodes the text once more with the located decoder
    (pure Python, several times slower) and takes every position from it. A document the C scanner does not accept
    as it is (a repeated key, NaN, nesting past the limit, bad syntax) goes straight to the located decoder, which
    raises the error with its line.
    """

    def __init__(self, text: str) -> None:
        self._text = text
        self._newlines: list[int] | None = None
        self._offsets: dict[int, int] = {}
        self._depth = 0
        self._located = False
        fast = _scanned(text)
        if fast is None:
            self.value = self._decode_located(text)
            self._located = True
        else:
            self.value, offsets = fast
            self._offsets = {id(node): offset for node, offset in offsets if isinstance(node, (dict, list))}

    def _decode_located(self, text: str) -> object:
        """Decode text noting the offset of every object and array in self._offsets."""
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
        return decoder.decode(text)

    def _locate_all(self) -> None:
        """Take the offset of every object and array of self.value from a second, located decoding."""
        self._located = True
        self._offsets = {}
        twin = self._decode_located(self._text)
        found, self._offsets = self._offsets, {}
        pending = [(self.value, twin)]
        while pending:
            node, same = pending.pop()
            if isinstance(node, dict):
                self._offsets[id(node)] = found[id(same)]
                pending.extend(zip(node.values(), same.values()))
            elif isinstance(node, list):
                self._offsets[id(node)] = found[id(same)]
                pending.extend(zip(node, same))

    def _enter(self, offset: int) -> None:
        self._depth += 1
        if self._depth > MAX_NESTING_DEPTH:
            self._depth -= 1
            raise JsonTooDeep(self._line_at(offset))

    def _key_line(self, value_start: int) -> int:
        """The line of the key whose value starts at value_start (the line of the ':' before it)."""
        return self._line_at(self._text.rindex(":", 0, value_start))

    def _line_at(self, offset: int) -> int:
        """The 1-based line of a character offset: a binary search over the offsets of the text's newlines."""
        if self._newlines is None:
            self._newlines = [match.start() for match in re.finditer("\n", self._text)]
        return bisect.bisect_left(self._newlines, offset) + 1

    def line(self, node: object) -> int | None:
        """Return the 1-based line where a decoded object or array starts, None for other values."""
        offset = self._offsets.get(id(node))
        if offset is None and not self._located and isinstance(node, (dict, list)):
            self._locate_all()
            offset = self._offsets.get(id(node))
        return None if offset is None else self._line_at(offset)


_SPACE = re.compile(r"[ \t\n\r]*")


def _scanned(text: str) -> tuple[object, list[tuple[object, int]]] | None:
    """(value, [(node, offset)] of the top-level value and of a top-level array's elements) by the C scanner, or None
    when the text needs the located decoder: anything but a well-formed document within the limits."""
    decoder = json.JSONDecoder(parse_constant=_reject_constant, object_pairs_hook=_unique_pairs)
    scan = json.scanner.make_scanner(decoder)
    try:
        start = _SPACE.match(text).end()
        if text.startswith("[", start):
            value, elements, end = _scanned_array(text, start, scan)
        else:
            (value, end), elements = scan(text, start), []
    except (ValueError, StopIteration, RecursionError, _Repeated):
        return None
    if _SPACE.match(text, end).end() != len(text) or _depth(value) > MAX_NESTING_DEPTH:
        return None
    return value, [(value, start), *elements]


def _scanned_array(text: str, start: int, scan) -> tuple[list, list[tuple[object, int]], int]:
    """The top-level array at start, (element, offset) of each element, and the end; ValueError if not well formed."""
    array: list = []
    elements: list[tuple[object, int]] = []
    index = _SPACE.match(text, start + 1).end()
    if text.startswith("]", index):
        return array, elements, index + 1
    while True:
        element, end = scan(text, index)
        array.append(element)
        elements.append((element, index))
        index = _SPACE.match(text, end).end()
        if text.startswith("]", index):
            return array, elements, index + 1
        if not text.startswith(",", index):
            raise ValueError("expected ',' or ']'")
        index = _SPACE.match(text, index + 1).end()


def _depth(value: object) -> int:
    """How deep objects and arrays nest in value (0 for a scalar), counted up to one past MAX_NESTING_DEPTH."""
    depth, level = 0, [value]
    while depth <= MAX_NESTING_DEPTH:
        containers = [node for node in level if isinstance(node, (dict, list))]
        if not containers:
            break
        depth += 1
        level = []
        for node in containers:
            level.extend(node.values() if isinstance(node, dict) else node)
    return depth
