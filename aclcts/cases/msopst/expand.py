"""msopst's sub-case expansion: a sub-case per combination of a case's field alternatives, named as msopst does."""

from __future__ import annotations

import itertools
from typing import Any

from aclcts.cases.msopst.read import INPUT_FIELDS, OMITTED_TYPES, OUTPUT_FIELDS, field_alternatives, with_defaults


def _combinations(tensor: dict, keys: tuple[str, ...]) -> list[dict]:
    """A tensor's combinations in msopst's order: format (zipped with ori_format) x shape (zipped with ori_shape and
    typical_shape) x type x data_distribute x value_range; shape_range, value and is_const taken as they are."""
    formats = field_alternatives(tensor, "format")
    if "ori_format" in tensor:
        origin = field_alternatives(tensor, "ori_format")
        formats = [(f, origin[i] if len(origin) == len(formats) else origin[0]) for i, f in enumerate(formats)]
    else:
        formats = [(f, f) for f in formats]
    shapes = field_alternatives(tensor, "shape")
    paired = []
    for i, s in enumerate(shapes):
        entry = {"shape": s, "ori_shape": s}
        for key in ("ori_shape", "typical_shape"):
            if key in tensor:
                given = field_alternatives(tensor, key)
                entry[key] = given[i] if len(given) == len(shapes) else given[0]
        paired.append(entry)
    pools: list[list[Any]] = [formats, paired]
    pools += [field_alternatives(tensor, k) for k in keys[2:]]
    ranges = field_alternatives(tensor, "shape_range") if "shape_range" in tensor else [None]
    result = []
    for combo, shape_range in zip(itertools.product(*pools), itertools.cycle(ranges)):
        (fmt, ori_fmt), shape_entry, *rest = combo
        one = {"format": fmt, "ori_format": ori_fmt, **shape_entry, **dict(zip(keys[2:], rest))}
        if one["format"] in OMITTED_TYPES or one["type"] == "UNDEFINED":  # msopst's _check_cur_params_undefined
            one.update(format="UNDEFINED", ori_format="UNDEFINED", type="UNDEFINED")
        for key in ("name", "value", "is_const", "const_value"):
            if key in tensor:
                one[key] = tensor[key]
        if shape_range is not None:
            one["shape_range"] = shape_range
        result.append(one)
    return result


def expand_msopst_case(case: dict) -> list[tuple[str, dict]]:
    """The sub-cases of one checked msopst case: (name, params) with one concrete alternative per field."""
    ins = [_combinations(with_defaults(t, True), INPUT_FIELDS) for t in case["input_desc"]]
    outs = [_combinations(t, OUTPUT_FIELDS) for t in case["output_desc"]]
    count = max(len(c) for c in ins + outs)
    multiple = count > 1
    base = case["case_name"].replace("/", "_")
    subs = []
    for i in range(count):
        inputs = [c[i % len(c)] for c in ins]
        outputs = [c[i % len(c)] for c in outs]
        infix = "_sub_case_" if multiple else "_case_"
        name = f"{base}{infix}{i + 1:03d}_{outputs[0]['format']}_{outputs[0]['type']}"
        params = {"op": case["op"], "input_desc": inputs, "output_desc": outputs, "case_name": name}
        if "attr" in case:
            params["attr"] = case["attr"]
        subs.append((name, params))
    return subs
