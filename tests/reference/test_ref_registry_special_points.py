"""The reference gives every documented special-point result of docs/special-points.md."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

from aclcts.core.prototypes import prototype
from aclcts.reference import reference

TABLE = Path(__file__).resolve().parents[2] / "docs" / "special-points.md"
#: How the table spells its numbers.
WORDS = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan, "pi": math.pi, "-pi": -math.pi, "pi/2": math.pi / 2,
         "-pi/2": -math.pi / 2, "true": True, "false": False}


def number(text: str) -> float | bool:
    """A table value: a word of WORDS or a decimal number (-0 keeps its sign)."""
    return WORDS[text] if text in WORDS else float(text)


def rows() -> list[tuple[str, dict[str, float], float | bool, str]]:
    """(op, inputs by name, result, documentation line) of every row of the table."""
    found = []
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not re.fullmatch(r"[A-Z][A-Za-z0-9]*", cells[0]) or cells[0] == "op":
            continue
        inputs = {name.strip(): number(value.strip()) for name, value in
                  (part.split("=") for part in cells[1].split(","))}
        found.append((cells[0], inputs, number(cells[2]), cells[3]))
    return found


def test_the_table_has_a_documentation_line_for_every_row():
    table = rows()
    assert len(table) >= 40
    assert all(re.match(r"(C11 F\.10|IEEE 754-2019)", doc) for *_, doc in table)


@pytest.mark.parametrize(("op", "inputs", "expected", "doc"), rows(), ids=lambda v: str(v)[:30])
def test_reference_gives_the_documented_result(op, inputs, expected, doc):
    ref = reference(op)
    arrays = [np.asarray([inputs[name]], dtype=np.float32) for name in prototype(op).input_names() if name in inputs]
    out = np.dtype(bool) if isinstance(expected, bool) else np.dtype(np.float32)
    (y,) = ref.compute(arrays, {}, [out])
    got = np.asarray(y).astype(np.float64)[0] if out != bool else bool(np.asarray(y)[0])
    if isinstance(expected, bool):
        assert got is expected or got == expected, doc
    elif math.isnan(expected):
        assert math.isnan(got), doc
    else:
        assert got == pytest.approx(expected, rel=1e-6) and math.copysign(1, got) == math.copysign(1, expected), doc
