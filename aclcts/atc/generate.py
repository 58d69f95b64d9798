"""The inverse of the parser: single-op JSON elements that compile back to given OpModels."""

from __future__ import annotations

import math

from aclcts.atc.constdata import CONST_TYPES, const_values
from aclcts.atc.tables import data_type_attr_name, json_format_name, json_type_name
from aclcts.core.opmodel import Attr, OpModel, TensorSpec


def _tensor_json(t: TensorSpec, where: str) -> dict:
    try:
        desc: dict = {"format": json_format_name(t.format), "shape": list(t.shape),
                      "type": json_type_name(t.dtype)}
        if t.origin_format != t.format:
            desc["origin_format"] = json_format_name(t.origin_format)
    except KeyError as exc:
        raise ValueError(f"{where}: value {exc} has no single-op JSON spelling") from None
    if t.origin_shape != t.shape:
        if not t.origin_shape:
            raise ValueError(f"{where}: an empty origin_shape with a non-empty shape cannot be written in JSON")
        desc["origin_shape"] = list(t.origin_shape)
    ranges = [list(r) for d, r in zip(t.shape, t.shape_range) if d == -1]
    if ranges:
        desc["shape_range"] = ranges
    if t.name:
        desc["name"] = t.name
    if t.is_const:
        desc["is_const"] = True
        if t.const_data:
            if t.dtype not in CONST_TYPES:
                raise ValueError(f"{where}: constant data of dtype {t.dtype} cannot be written as const_value")
            desc["const_value"] = const_values(t.dtype, t.const_data)
    return desc


def _attr_json(a: Attr, where: str) -> dict:
    value = a.value
    if a.type == "data_type":
        value = data_type_attr_name(a.value)
    elif a.type == "list_data_type":
        raise ValueError(f"{where}: attribute type list_data_type cannot be written in single-op JSON")
    elif a.type in ("float", "list_float"):
        numbers = [value] if a.type == "float" else list(value)
        if not all(math.isfinite(v) for v in numbers):
            raise ValueError(f"{where}: NaN and infinite floats cannot be written in JSON")
    if isinstance(value, tuple):
        value = [list(v) if isinstance(v, tuple) else v for v in value]
    return {"name": a.name, "type": a.type, "value": value}


def generate_singleop_json(models: list[OpModel]) -> list[dict]:
    """Return the single-op JSON array describing `models` in order; ValueError if one cannot be written.

    Fuzzy models follow one {"compile_flag": 1} element, which applies to every later element, so a
    non-fuzzy model cannot follow a fuzzy one.
    """
    elements: list[dict] = []
    fuzzy = False
    for k, model in enumerate(models):
        if model.fuzzy and not fuzzy:
            elements.append({"compile_flag": 1})
            fuzzy = True
        elif fuzzy and not model.fuzzy:
            raise ValueError(f"model {k}: a non-fuzzy model cannot follow a fuzzy one (compile_flag applies "
                             "to every later element)")
        try:
            elements.append({
                "op": model.op_type,
                "input_desc": [_tensor_json(t, f"input_desc[{i}]") for i, t in enumerate(model.inputs)],
                "output_desc": [_tensor_json(t, f"output_desc[{i}]") for i, t in enumerate(model.outputs)],
                "attr": [_attr_json(a, f"attr[{i}]") for i, a in enumerate(model.attrs)],
            })
        except (ValueError, KeyError) as exc:
            raise ValueError(f"model {k} (op \"{model.op_type}\"): {exc}") from None
    return elements
