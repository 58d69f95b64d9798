"""Assign and in-place row-update references: the updated tensor, wrapped D-form indices, duplicates refused."""

from __future__ import annotations

import numpy as np
import pytest

from aclcts.reference import reference

F32 = np.float32


def run(op, inputs, attrs=None, out=F32):
    return reference(op).compute([np.asarray(x) for x in inputs], attrs or {}, [out])[0]


def test_assign_sub_subtracts_the_value_from_the_tensor():
    assert run("AssignSub", [np.array([5, 1], np.int8), np.array([2, 3], np.int8)], out=np.int8).tolist() == [3, -2]


def test_assign_add_wraps_integers():
    assert run("AssignAdd", [np.array([2**31 - 1], np.int32), np.array([1], np.int32)], out=np.int32).tolist() == \
        [-2**31]


def test_assign_checks_the_shape_unless_told_not_to():
    with pytest.raises(ValueError, match="validate_shape"):
        run("Assign", [np.zeros(3, F32), np.ones(2, F32)])
    assert run("Assign", [np.zeros(3, F32), np.ones(2, F32)], {"validate_shape": False}).tolist() == [1, 1]


def test_inplace_add_d_adds_into_the_named_rows():
    x, v = np.arange(6, dtype=F32).reshape(3, 2), np.ones((2, 2), F32)
    assert run("InplaceAddD", [x, v], {"indices": [2, 0]}).tolist() == [[1, 2], [2, 3], [5, 6]]


def test_inplace_d_indices_wrap_around_the_first_dim():
    x, v = np.zeros((2, 2), F32), np.array([[7, 8]], F32)
    assert run("InplaceUpdateD", [x, v], {"indices": [3]}).tolist() == [[0, 0], [7, 8]]
    assert run("InplaceSubD", [x, v], {"indices": [-2]}).tolist() == [[-7, -8], [0, 0]]


def test_inplace_update_refuses_duplicates_and_rows_outside_x():
    x, v = np.zeros((3, 2), F32), np.ones((2, 2), F32)
    with pytest.raises(ValueError, match="duplicate"):
        run("InplaceUpdate", [x, np.array([1, 1], np.int32), v])
    with pytest.raises(ValueError, match=r"outside \[0, 3\)"):
        run("InplaceUpdate", [x, np.array([0, 3], np.int32), v])
    assert run("InplaceUpdate", [x, np.array([2, 0], np.int32), v]).tolist() == [[1, 1], [0, 0], [1, 1]]


def test_scatter_non_aliasing_add_adds_repeated_indices_up():
    x, indices, updates = np.zeros((3, 2), F32), np.array([[2], [0], [2]], np.int32), np.ones((3, 2), F32)
    assert run("ScatterNonAliasingAdd", [x, indices, updates]).tolist() == [[1, 1], [0, 0], [2, 2]]


def test_scatter_non_aliasing_add_takes_a_scalar_update_as_shape_one():
    x, indices = np.array([1.0, 2.0], F32), np.array([1], np.int32)
    assert run("ScatterNonAliasingAdd", [x, indices, np.array([5.0], F32)]).tolist() == [1.0, 7.0]
    with pytest.raises(ValueError, match="updates"):
        run("ScatterNonAliasingAdd", [x, indices, np.array([5.0, 6.0], F32)])
