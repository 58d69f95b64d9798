"""MatMul's `offset_x` attr (issue 34): CANN's MatMul kernel takes it (default 0) and its own MatMul system tests set
it; ATC and the reference accept it, and it leaves MatMul's result unchanged (MatMul has no int8 input)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from aclcts.cases.msopst import load_msopst_cases
from aclcts.core.prototypes import prototype
from aclcts.core.prototypes.check import JSON_ATTR_TYPE, attr_problems
from aclcts.reference import reference


def test_matmul_record_has_offset_x_int_defaulting_to_0() -> None:
    attr = {a.name: a for a in prototype("MatMul").attrs}["offset_x"]
    assert (attr.type, attr.default) == ("int", 0)
    assert attr_problems(prototype("MatMul"), {"offset_x": "int"}) == []


def test_matmul_reference_accepts_offset_x_and_it_does_not_change_the_product() -> None:
    x1 = np.arange(6, dtype=np.float32).reshape(2, 3)
    x2 = np.arange(12, dtype=np.float32).reshape(3, 4)
    plain = reference("MatMul").compute([x1, x2, None], {}, [np.dtype(np.float32)])[0]
    for offset in (0, 5):
        got = reference("MatMul").compute([x1, x2, None], {"offset_x": offset}, [np.dtype(np.float32)])[0]
        np.testing.assert_array_equal(got, plain)
    np.testing.assert_array_equal(plain, x1 @ x2)


def test_an_msopst_matmul_case_with_offset_x_keeps_the_attr(tmp_path: Path) -> None:
    def tensor(name: str, shape: list[int]) -> dict:
        return {"name": name, "format": "ND", "ori_format": "ND", "type": "float16", "shape": shape,
                "ori_shape": shape}
    case = {"case_name": "mm", "op": "MatMul", "input_desc": [tensor("x1", [16, 32]), tensor("x2", [32, 16])],
            "output_desc": [tensor("y", [16, 16])],
            "attr": [{"name": "transpose_x1", "type": "bool", "value": False},
                     {"name": "transpose_x2", "type": "bool", "value": False},
                     {"name": "offset_x", "type": "int", "value": 0}]}
    path = tmp_path / "mm.json"
    path.write_text(json.dumps([case]))
    (loaded,) = load_msopst_cases(str(path))
    attrs = {a.name: a.value for a in loaded.attrs}
    assert attrs["offset_x"] == 0
    assert attr_problems(prototype("MatMul"), {a.name: JSON_ATTR_TYPE[a.type] for a in loaded.attrs}) == []
