"""The finite-difference oracle of gradient ops (aclcts.judge.gradients): it accepts the true gradient, and it
rejects a gradient that agrees with a wrong gradient reference, which the reference comparison alone would pass."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from aclcts.core.prototypes import op_types, prototype
from aclcts.judge.gradients import STEP, derivative, gradient_points, mismatches
from aclcts.reference import reference

GRADIENT_OPS = [t for t in op_types() if prototype(t).gradient_of is not None]
FLOAT32 = np.dtype(np.float32)
SHAPE = (8, 16)


def points_of(op_type: str, seed: int = 7):
    """The oracle's points at SHAPE, or at the record's first sample shapes for an op of several forward inputs."""
    record = prototype(op_type)
    if not record.gradient_of.wrt:
        return record, gradient_points(record, {}, SHAPE, FLOAT32, seed)
    shapes = dict(zip(record.input_names(), record.sample_shapes[0]))
    return record, gradient_points(record, {}, shapes[record.gradient_of.dy], FLOAT32, seed, shapes)


def gradient_reference(op_type: str, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """The gradient op's own reference at the oracle's inputs, each output rounded to float32 as a correct device's."""
    return reference(op_type).compute(inputs, {}, [FLOAT32] * len(prototype(op_type).outputs))


def test_the_gradient_ops_with_a_forward_op_are_the_elementwise_grads():
    assert {"ReluGrad", "SigmoidGrad", "TanhGrad", "SqrtGrad", "RsqrtGrad", "ReciprocalGrad", "GeluGrad",
            "SwishGrad", "AcoshGrad"} <= set(GRADIENT_OPS)


@pytest.mark.parametrize("op_type", GRADIENT_OPS)
def test_each_gradient_reference_agrees_with_the_central_differences_of_its_forward_reference(op_type):
    _, points = points_of(op_type)
    assert mismatches(points, gradient_reference(op_type, points.inputs)) == []


@pytest.mark.parametrize("op_type", GRADIENT_OPS)
def test_a_kernel_agreeing_with_a_sign_flipped_gradient_reference_is_caught(op_type):
    _, points = points_of(op_type)
    flipped_reference = [-output for output in gradient_reference(op_type, points.inputs)]
    assert mismatches(points, flipped_reference)


def test_a_wrong_sigmoid_gradient_formula_is_caught():
    _, points = points_of("SigmoidGrad")
    y, dy = (a.astype(np.float64) for a in points.inputs)
    wrong = (dy * y * (1.0 + y)).astype(np.float32)
    found = mismatches(points, wrong)
    assert found and "by central differences" in found[0]


def test_an_elu_gradient_with_the_wrong_slope_on_one_side_is_caught():
    _, points = points_of("EluGrad")
    grads, activations = (a.astype(np.float64) for a in points.inputs)
    wrong = np.where(activations < 0, grads * (activations + 1.0), 2.0 * grads).astype(np.float32)
    assert mismatches(points, wrong)


def test_a_domain_of_kinks_only_says_the_check_cannot_tell():
    record = prototype("ReluGrad")
    narrow = replace(record, gradient_of=replace(record.gradient_of, domain=(-STEP, STEP)))
    points = gradient_points(narrow, {}, SHAPE, FLOAT32, 7)
    (found,) = mismatches(points, gradient_reference("ReluGrad", points.inputs)[0])
    assert "points are smooth at the step" in found


def test_the_central_difference_of_a_cubic_is_its_derivative_and_a_kink_near_or_at_x_shows_in_the_estimate():
    x = np.array([-2.0, 0.5, 3.0])
    slope, error = derivative(lambda t: t ** 3, x)
    np.testing.assert_allclose(slope, 3 * x ** 2, rtol=1e-6)
    assert np.all(error < 1e-6)
    _, near = derivative(np.abs, np.array([STEP / 2]))
    _, at = derivative(lambda t: np.minimum(t, 6.0), np.array([6.0]))
    assert near[0] > 0.01 and at[0] > 0.5


def test_the_points_place_x_y_and_dy_where_the_record_says():
    record, points = points_of("SwishGrad")
    grad, x, y = points.inputs
    np.testing.assert_allclose(y, reference("Swish").compute([x.astype(np.float64)], {"scale": 1.0},
                                                             [np.dtype(np.float64)])[0], rtol=1e-6)
    assert record.gradient_of.dy == "grad" and np.any(grad < 0) and np.any(grad > 0)


@pytest.mark.parametrize("op_type", ["MaximumGrad", "PReluGrad"])
def test_a_gradient_of_two_inputs_with_the_second_output_wrong_is_caught_on_that_output(op_type):
    _, points = points_of(op_type)
    first, second = gradient_reference(op_type, points.inputs)
    found = mismatches(points, [first, (second * 2.0 + 1.0).astype(np.float32)])
    assert found and all(line.startswith("output 1: ") for line in found)


def test_the_gradient_of_an_input_broadcast_along_a_dim_is_summed_over_it():
    record = prototype("MaximumGrad")
    shapes = dict(zip(record.input_names(), record.sample_shapes[1]))
    points = gradient_points(record, {}, shapes["grads"], FLOAT32, 7, shapes)
    grads, x1, x2 = (a.astype(np.float64) for a in points.inputs)
    routed = np.where(x1 >= x2, grads, 0.0)
    np.testing.assert_allclose(points.expected[0], routed.sum(axis=1, keepdims=True), atol=1e-6)
    assert points.expected[1].shape == x2.shape
