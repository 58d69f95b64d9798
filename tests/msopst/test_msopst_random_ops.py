"""An msopst case of a random op is judged as a sample of its distribution, not by msopst's element ratio."""

from __future__ import annotations

import json

from aclcts.cases.msopst.convert import load_msopst_cases
from aclcts.judge.decorator import policy_for
from aclcts.judge.policies import Distribution


def _tensor(dtype: str, shape: list[int], **extra) -> dict:
    return {"format": ["ND"], "type": [dtype], "shape": shape, **extra}


def test_a_stateless_random_msopst_case_is_judged_by_the_distribution_policy(tmp_path):
    case = {"case_name": "uniform_4k", "op": "StatelessRandomUniformV2",
            "input_desc": [_tensor("int32", [2], is_const=True, value=[64, 64]), _tensor("uint64", [1]),
                           _tensor("uint64", [2]), _tensor("int32", [], is_const=True, value=[1])],
            "output_desc": [_tensor("float", [64, 64])],
            "attr": [{"name": "dtype", "type": "data_type", "value": "float"}]}
    path = tmp_path / "StatelessRandomUniformV2_case.json"
    path.write_text(json.dumps([case]), encoding="utf-8")
    [loaded] = load_msopst_cases(str(path))
    assert loaded.refusal is None and loaded.precision is None
    assert isinstance(policy_for(loaded, loaded.outputs[0]), Distribution)
