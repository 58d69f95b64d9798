"""Which SoC an msopst case file is meant for, by the end of its name (`Sort_static_case_310.json`, `_ascend910`).

CANN's system-test files of one op are split per SoC by a last `_` word naming the chip: `910`, `ascend910`,
`ascend310p3`, `case910`. The tag is the chip number (310, 610, 710 or 910) with its model letters (`310p3`, `910b`);
a file runs on a SoC whose name without `Ascend` starts with the tag (`910` runs on Ascend910 and Ascend910B1, `310p3`
on Ascend310P3 only). A file without a tag runs on every SoC.
"""

from __future__ import annotations

import os
import re

#: The last `_` word of a file's stem that names a chip: any letters, the chip number, its model letter and digits.
SOC_TAG = re.compile(r"_[A-Za-z]*?((?:310|610|710|910)(?:[A-Za-z]\d*)?)$")
#: --msopst-soc's value that keeps every file whatever its tag.
EVERY_SOC = "all"


def soc_tag(source: str) -> str | None:
    """The SoC tag of an msopst file's name, lower case (e.g. "910", "310p3"), or None if its name has none."""
    found = SOC_TAG.search(os.path.splitext(os.path.basename(source))[0])
    return found.group(1).lower() if found else None


def meant_for(source: str, soc_name: str) -> bool:
    """Whether the msopst file at source runs on the SoC soc_name (e.g. "Ascend910B1"; EVERY_SOC: every file)."""
    tag = soc_tag(source)
    if tag is None or soc_name == EVERY_SOC:
        return True
    chip = soc_name.lower()
    return (chip[len("ascend"):] if chip.startswith("ascend") else chip).startswith(tag)
