"""`aclcts msopst convert` refuses in one line what its loader refuses: a value_range with NaN, and a `value` .bin
outside the case file's folder, which it never copies (issue 37)."""

import json
from pathlib import Path

import numpy as np
import pytest

from aclcts.tools.msopst import main as msopst_main


def add_case(x1: dict) -> list[dict]:
    base = {"format": "ND", "type": "float32", "shape": [2, 3]}
    return [{"case_name": "T", "op": "Add", "input_desc": [{"name": "x1", **base, **x1}, {"name": "x2", **base}],
             "output_desc": [{"name": "y", **base}]}]


def convert(tmp_path: Path, x1: dict, capsys: pytest.CaptureFixture) -> tuple[int, str, Path]:
    folder = tmp_path / "cases"
    folder.mkdir(exist_ok=True)
    (folder / "case.json").write_text(json.dumps(add_case(x1)))
    out = tmp_path / "out"
    code = msopst_main(["convert", str(folder / "case.json"), "-o", str(out)])
    return code, capsys.readouterr().err, out


@pytest.mark.parametrize("value_range", [[float("nan"), 1.0], [-1.0, float("nan")], [0.0, float("inf")]])
def test_a_value_range_that_is_not_finite_is_refused_in_one_line(tmp_path, capsys, value_range):
    code, err, out = convert(tmp_path, {"data_distribute": "uniform", "value_range": value_range}, capsys)
    assert code == 2 and not out.exists()
    assert err.strip().splitlines() == [err.strip()] and "input_desc[0].value_range: expected [min, max] of finite " \
                                                          "numbers" in err


@pytest.mark.parametrize("value", ["../secret.bin", "{secret}"])
def test_a_value_file_outside_the_case_folder_is_refused_and_not_copied(tmp_path, capsys, value):
    secret = tmp_path / "secret.bin"
    np.arange(6, dtype=np.float32).tofile(secret)
    code, err, out = convert(tmp_path, {"value": value.format(secret=secret)}, capsys)
    assert code == 2 and not out.exists()
    assert "input_desc[0].value: expected a .bin file inside the case file's folder" in err
    assert len(err.strip().splitlines()) == 1


def test_a_value_file_inside_the_case_folder_is_still_copied(tmp_path, capsys):
    (tmp_path / "cases").mkdir()
    np.arange(6, dtype=np.float32).tofile(tmp_path / "cases" / "x1.bin")
    code, err, out = convert(tmp_path, {"value": "x1.bin"}, capsys)
    assert code == 0, err
    copied = [p for p in out.rglob("*.bin")]
    assert len(copied) == 1 and np.array_equal(np.fromfile(copied[0], np.float32), np.arange(6, dtype=np.float32))
