"""An op of an element-wise shape rule none of whose library cases is dynamic gets a dynamic twin of its base
(aclcts.cases.domains): the suite's dynamic-shape tests then compile and run a -1 model of every such op, not only of
those a dynamic case file names."""

from __future__ import annotations

from pathlib import Path

from aclcts.cases import load_cases
from aclcts.cases.domains import TWIN_RANGE_FLOOR, generated, is_generated

SEED = 20261202


def twins(tmp_path: Path, *texts: str) -> list:
    """The dynamic twins generated from a folder of case files holding texts."""
    folder = tmp_path / "cases"
    folder.mkdir(parents=True)
    for index, text in enumerate(texts):
        (folder / f"case{index}.yaml").write_text(text, encoding="utf-8")
    return [case for case in generated(load_cases([str(folder)], kind="all"), SEED) if "-domain-dynamic-" in case.id]


def test_a_static_elementwise_op_runs_a_minus_one_model_at_its_base_shapes_and_every_dim_one(tmp_path):
    (twin,) = twins(tmp_path, "op: Exp\ndtypes: [float32]\nshapes: [[[2, 12]]]\nvalues: {x: {uniform: [-2, 2]}}\n")
    assert [(t.shape, t.shape_range) for t in twin.inputs + twin.outputs] == \
        [((-1, -1), ((1, TWIN_RANGE_FLOOR), (1, 24)))] * 2
    assert twin.runtime_shapes == (((2, 12),), ((1, 1),))
    assert twin.modes == ("execute_v2",) and is_generated(twin)
    assert twin.values == {"x": {"uniform": [-2, 2]}}


def test_an_op_with_a_dynamic_case_gets_none(tmp_path):
    text = ("op: Exp\ndtypes: [float32]\nshapes: [{x: [-1], y: [-1]}]\nshape_range: {x: [[1, 4]], y: [[1, 4]]}\n"
            "runtime_shapes: [[[3]]]\n")
    static = "op: Exp\ndtypes: [float32]\nshapes: [[[2, 3]]]\n"
    assert twins(tmp_path, static, text) == []
    assert len(twins(tmp_path / "alone", static)) == 1


def test_an_output_not_at_the_broadcast_input_shape_ranges_unbounded(tmp_path):
    """SoftMarginLoss (shape rule `same`) reduced by mean gives (1,) for inputs [2, 3]: its dims do not follow x's, so
    the twin (shape rule `given`) leaves them unbounded; reduced by none, the output ranges as x."""
    (twin,) = twins(tmp_path, "op: SoftMarginLoss\ndtypes: [float32]\nshapes: [[[2, 3], [2, 3]]]\n"
                              "attrs: [{reduction: {type: string, value: mean}}]\n")
    assert (twin.shape_rule, twin.outputs[0].shape_range) == ("given", ((1, -1),))
    (twin,) = twins(tmp_path / "none", "op: SoftMarginLoss\ndtypes: [float32]\nshapes: [[[2, 3], [2, 3]]]\n"
                                       "attrs: [{reduction: {type: string, value: none}}]\n")
    assert (twin.shape_rule, twin.outputs[0].shape_range) == ("same", ((1, TWIN_RANGE_FLOOR), (1, 8)))


def test_shapes_the_reference_refuses_are_left_out(tmp_path):
    """Cross needs a dim of 3 at its axis: the range minimum [1, 1] does not run."""
    (twin,) = twins(tmp_path, "op: Cross\ndtypes: [float32]\nshapes: [[[4, 3], [4, 3]]]\n")
    assert twin.runtime_shapes == (((4, 3), (4, 3)),)


def test_three_inputs_of_one_shape_are_drawn_alike_and_of_different_shapes_run_as_given(tmp_path):
    (twin,) = twins(tmp_path, "op: SmoothL1LossGradV2\ndtypes: [float32]\nshapes: [[[2, 3], [2, 3], [2, 3]]]\n")
    assert twin.shape_rule == "same"
    (twin,) = twins(tmp_path / "other", "op: SmoothL1LossGradV2\ndtypes: [float32]\n"
                                        "shapes: [[[2, 3], [1, 3], [2, 3]]]\n")
    assert twin.shape_rule == "given" and twin.outputs[0].shape_range == ((1, -1), (1, -1))


def test_an_element_wise_twin_is_preferred_to_an_earlier_base_of_another_form(tmp_path):
    """Pow's base with a scalar exponent would make a `given` twin; the later base of two matrices makes the twin."""
    (twin,) = twins(tmp_path, "op: Pow\ndtypes: [float32]\nshapes: [[[3, 4], []], [[3, 4], [3, 4]]]\n")
    assert twin.shape_rule == "broadcast" and [t.shape for t in twin.inputs] == [(-1, -1)] * 2


def test_a_scalar_runtime_input_stays_a_scalar(tmp_path):
    (twin,) = twins(tmp_path, "op: Pow\ndtypes: [float32]\nshapes: [[[3, 4], []]]\n")
    assert [t.shape for t in twin.inputs] == [(-1, -1), ()] and twin.shape_rule == "given"


def test_an_op_of_another_shape_rule_runs_its_inputs_ranged_and_its_outputs_unbounded(tmp_path):
    """ReduceMax (shape rule `each`) over the constant axes [1]: its output's dims do not follow x's, so they range
    over [1, unbounded] while x's range as an element-wise twin's."""
    (twin,) = twins(tmp_path, "op: ReduceMax\ndtypes: [{'*': float32, axes: int32}]\nshapes: [[[4, 6]]]\n"
                              "const: {axes: [1]}\nattrs: [{keep_dims: {type: bool, value: false}}]\n")
    x, axes = twin.inputs
    assert (x.shape, x.shape_range, axes.shape) == ((-1, -1), ((1, TWIN_RANGE_FLOOR), (1, 12)), (1,))
    assert [(t.shape, t.shape_range) for t in twin.outputs] == [((-1,), ((1, -1),))]
    assert twin.shape_rule == "given" and twin.runtime_shapes == (((4, 6),), ((1, 1),))


def test_a_dim_of_0_ranges_from_0(tmp_path):
    (twin,) = twins(tmp_path, "op: ConcatV2D\ninputs: [x0, x1]\ndynamic_input: x\ndtypes: [float32]\n"
                              "shapes: [[[2, 3], [2, 0]]]\nattrs: [{concat_dim: {type: int, value: 1}, "
                              "N: {type: int, value: 2}}]\n")
    assert [t.shape_range for t in twin.inputs] == [((1, TWIN_RANGE_FLOOR), (1, 8)), ((1, TWIN_RANGE_FLOOR), (0, 8))]
    assert twin.runtime_shapes[0] == ((2, 3), (2, 0))
