"""Small dynamic msopst cases run by conformance/test_dynamic_shapes.py: what a failure says, which values run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_dynamic(tmp_path: Path, case: dict | list[dict], selection: str, *options: str) -> subprocess.CompletedProcess:
    """Run the dynamic-shape tests matching `selection` (-k) over an msopst file of one case (or of a list)."""
    (tmp_path / "case.json").write_text(json.dumps(case if isinstance(case, list) else [case]))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_ADDOPTS"))}
    env.pop("PYTEST_CURRENT_TEST", None)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:xdist",
               "conformance/test_dynamic_shapes.py", "-k", selection, "--cases", str(tmp_path / "case.json"),
               "--model-cache=off", *options]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)


def gather_v2_case(name: str, **x: object) -> dict:
    """A GatherV2 case over a dynamic x (typical shape [20]) whose axis input is given as the value [0] and whose
    indices are drawn in [0, 20), as CANN's GatherV2_000 gives them."""
    return {"case_name": name, "op": "GatherV2",
            "input_desc": [{"name": "x", "format": "ND", "type": "float16", "typical_shape": [20], **x},
                           {"name": "indices", "format": "ND", "type": "int32", "shape": [10],
                            "data_distribute": "uniform", "value_range": [0, 20]},
                           {"name": "axis", "format": "ND", "type": "int32", "shape": [1], "value": [0]}],
            "output_desc": [{"name": "y", "format": "ND", "type": "float16", "shape": [10]}]}


def test_a_case_declaring_outputs_the_reference_does_not_give_fails_naming_the_output_and_its_shapes(tmp_path):
    x = {"format": "ND", "type": "float32", "shape": [-1], "shape_range": [[1, 4]], "typical_shape": [3]}
    y = {"name": "y", "format": "ND", "type": "float32", "shape": [-1], "shape_range": [[1, 2]]}
    case = {"case_name": "Test_Add_narrow", "op": "Add", "input_desc": [{"name": "x1", **x}, {"name": "x2", **x}],
            "output_desc": [y]}
    done = run_dynamic(tmp_path, case, "at_the_runtime_shapes_of_the_case_file_matches")
    assert done.returncode == 1, done.stdout[-3000:]
    assert ("returned 100024 (the reference gives output y [3] outside the declared [-1] with shape_range [[1, 2]]: "
            "no model of the case has it)") in done.stdout, done.stdout[-3000:]


def test_an_unknown_rank_model_runs_with_the_values_the_case_gives(tmp_path):
    """CANN's GatherV2_000: an axis input given at run time with value [0]; filled with 1.5 instead, the axis was 1,
    outside x's rank 1."""
    done = run_dynamic(tmp_path, gather_v2_case("Test_GatherV2_rank", shape=[-2]),
                       "unknown_rank_model_accepts_every_rank")
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout[-3000:]


def test_a_shape_outside_a_ranged_model_is_not_asked_for_where_a_sibling_unknown_rank_model_takes_it(tmp_path):
    """CANN's BitwiseAnd file gives one op, dtype and format a [-1, 8, 375] model and a [-2] one: execute_v2 finds the
    [-2] model for any shape outside the ranged one, so 'not found' is skipped, naming that model, not failed."""
    def case(name: str, shape: list[int], **ranges: object) -> dict:
        x = {"format": "ND", "type": "int16", "shape": shape, "typical_shape": [2, 3], **ranges}
        return {"case_name": name, "op": "BitwiseAnd", "input_desc": [{"name": "x1", **x}, {"name": "x2", **x}],
                "output_desc": [{"name": "y", "format": "ND", "type": "int16", "shape": [2, 3]}]}
    ranged = case("Test_ranged", [-1, 3], shape_range=[[1, 4]])
    done = run_dynamic(tmp_path, [ranged], "outside_the_range or other_than_the_models")
    assert done.returncode == 0 and "2 passed" in done.stdout, done.stdout[-3000:]
    both = tmp_path / "both"
    both.mkdir()
    done = run_dynamic(both, [ranged, case("Test_any_rank", [-2])],
                       "Test_ranged and (outside_the_range or other_than_the_models)", "-rs")
    assert done.returncode == 0 and "2 skipped" in done.stdout, done.stdout[-3000:]
    assert "case.Test_any_rank_case_001_ND_int16 has a [-2] model" in done.stdout, done.stdout[-3000:]


def test_a_shape_outside_the_range_is_not_found_when_an_output_dim_is_unbounded(tmp_path):
    """CANN's AvgPool test_avg_pool_002 declares y [-1, 49, -1, 17] with a range [3, -1]: the not-found test sized the
    output buffers at the range maximum, -1, and asked acl.rt.memset for 2**64 bytes less a few."""
    x = {"name": "x", "format": "ND", "type": "float32", "shape": [-1], "shape_range": [[1, 4]], "typical_shape": [3]}
    y = {"name": "y", "format": "ND", "type": "float32", "shape": [-1], "shape_range": [[1, -1]]}
    done = run_dynamic(tmp_path, {"case_name": "Test_Abs_open_output", "op": "Abs", "input_desc": [x],
                                  "output_desc": [y]}, "outside_the_range")
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout[-3000:]


def test_the_minus_one_in_a_desc_test_runs_the_values_the_case_gives(tmp_path):
    """CANN's MirrorPad and ReverseV2 dynamic cases: filled with ones, paddings or axes became values the op refuses
    (an axis given twice), and the reference raised before the test reached its point."""
    done = run_dynamic(tmp_path, gather_v2_case("Test_GatherV2_minus_one", shape=[-1], shape_range=[[1, 20]]),
                       "minus_one_left_in_a_desc")
    assert done.returncode == 0 and "2 passed" in done.stdout, done.stdout[-3000:]


def test_a_const_first_input_does_not_make_an_unknown_rank_model_ranked(tmp_path):
    """CANN's Fill_case_ascend910 test_Fill: dims is const [4, 4] and value [-2]. The not-found tests took the const
    dims for the model's first input: one drew outside a value with no range ('no bounded dim in ranges []'), the
    other gave dims a rank the [-2] value model takes anyway (0, not 100024); it is an unknown-rank model, run as
    one."""
    case = {"case_name": "Test_Fill_any_rank", "op": "Fill",
            "input_desc": [{"name": "dims", "format": "ND", "type": "int32", "shape": [2], "value": [4, 4],
                            "is_const": True},
                           {"name": "value", "format": "ND", "type": "float", "shape": [-2], "typical_shape": [1],
                            "value": [3]}],
            "output_desc": [{"name": "y", "format": "ND", "type": "float", "shape": [4, 4]}]}
    done = run_dynamic(tmp_path, case, "unknown_rank_model_accepts_every_rank or outside_the_range or "
                                       "other_than_the_models")
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout[-3000:]


def test_a_shape_outside_the_range_is_drawn_for_a_ranged_input_beside_an_unknown_rank_one(tmp_path):
    """A ranged x1 beside a [-2] x2: the not-found test goes outside x1's range, never x2's (which has none)."""
    x = {"format": "ND", "type": "float32", "typical_shape": [3]}
    case = {"case_name": "Test_Add_ranged_and_any", "op": "Add",
            "input_desc": [{"name": "x1", "shape": [-1], "shape_range": [[1, 4]], **x},
                           {"name": "x2", "shape": [-2], **x}],
            "output_desc": [{"name": "y", "format": "ND", "type": "float32", "shape": [-1], "shape_range": [[1, 4]]}]}
    done = run_dynamic(tmp_path, case, "outside_the_range")
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout[-3000:]


def arg_case(name: str, op: str, y_shape: list[int], attrs: list[dict]) -> dict:
    """An ArgMaxV2 / ArgMin case over a dynamic rank-1 x whose dimension is given as the value [0]."""
    y = {"name": "y", "format": "ND", "type": "int32", "shape": y_shape}
    if -1 in y_shape:
        y["shape_range"] = [[1, 8]]
    return {"case_name": name, "op": op, "attr": attrs,
            "input_desc": [{"name": "x", "format": "ND", "type": "float16", "shape": [-1], "shape_range": [[1, 8]],
                            "typical_shape": [4]},
                           {"name": "dimension", "format": "ND", "type": "int32", "shape": [1], "value": [0]}],
            "output_desc": [y]}


INT32_DTYPE = {"name": "dtype", "type": "data_type", "value": "int32"}


def test_the_minus_one_in_an_output_desc_test_needs_an_output_with_a_dim(tmp_path):
    """CANN's ArgMin_dynamic_shape_argmin_case_ascend910a: the output side set dim 0 of a rank-0 output (IndexError).
    A rank-0 output has no dim to leave -1 in: skipped with that reason, or, where the case declares a ranked output
    the op does not give, failed naming it."""
    done = run_dynamic(tmp_path, arg_case("Test_ArgMin_scalar", "ArgMin", [], [INT32_DTYPE]),
                       "minus_one_left_in_a_desc", "-rs")
    assert done.returncode == 0 and "1 passed, 1 skipped" in done.stdout, done.stdout[-3000:]
    assert "every output is rank 0 at the input shapes [(4,), (1,)]: no dim to leave -1 in" in done.stdout
    declared = tmp_path / "declared"
    declared.mkdir()
    done = run_dynamic(declared, arg_case("Test_ArgMin_ranked", "ArgMin", [-1], [INT32_DTYPE]),
                       "minus_one_left_in_a_desc and output")
    assert done.returncode == 1, done.stdout[-3000:]
    assert ("no output dim to leave -1 in at input shapes [(4,), (1,)] (the reference gives output y [] outside the "
            "declared [-1] with shape_range [[1, 8]]: no model of the case has it)") in done.stdout, done.stdout[-3000:]


def test_an_infer_shape_failure_says_what_infer_shape_gave_and_why(tmp_path):
    """CANN's ArgMaxV2 cases: infer_shape failed with only 'returned 500002' or 'output y'. The line now carries the
    backend's error message, or the dims and dtype infer_shape gave beside the reference's dims and the case's dtype."""
    cases = [arg_case("Test_ArgMaxV2_fp16_attr", "ArgMaxV2", [], [{"name": "dtype", "type": "data_type",
                                                                   "value": "float16"}]),
             arg_case("Test_ArgMaxV2_no_attr", "ArgMaxV2", [], [])]
    done = run_dynamic(tmp_path, cases, "infer_shape_at_the_runtime_shapes")
    assert done.returncode == 1 and "2 failed" in done.stdout, done.stdout[-3000:]
    assert ("returned 500002; the backend says: [500002] acl.op.infer_shape: ArgMaxV2 shape inference failed: "
            "ArgMaxV2: attr 'dtype' is float16, expected one of: int32, int64") in done.stdout, done.stdout[-3000:]
    assert ("output y: infer_shape gave dims [] and dtype int64, the reference gives dims [] and the case declares "
            "dtype int32 (input shapes [(4,), (1,)])") in done.stdout, done.stdout[-3000:]
