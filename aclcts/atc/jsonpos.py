"""JSON loading that remembers the line on which every object and array starts."""

from __future__ import annotations

import json
import json.scanner


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not valid JSON")


class LocatedJson:
    """A decoded JSON document plus the source line of each of its objects and arrays."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._offsets: dict[int, int] = {}
        decoder = json.JSONDecoder(parse_constant=_reject_constant)
        base_object, base_array = decoder.parse_object, decoder.parse_array

        def parse_object(s_and_end, *args):
            obj, end = base_object(s_and_end, *args)
            self._offsets[id(obj)] = s_and_end[1] - 1
            return obj, end

        def parse_array(s_and_end, *args):
            arr, end = base_array(s_and_end, *args)
            self._offsets[id(arr)] = s_and_end[1] - 1
            return arr, end

        decoder.parse_object = parse_object
        decoder.parse_array = parse_array
        decoder.scan_once = json.scanner.py_make_scanner(decoder)
        self.value = decoder.decode(text)

    def line(self, node: object) -> int | None:
        """Return the 1-based line where a decoded object or array starts, None for other values."""
        offset = self._offsets.get(id(node))
        return None if offset is None else self._text.count("\n", 0, offset) + 1
