"""Cumsum/Cumprod and ArgMin/ArgMaxD/ArgMaxWithValue/ArgMinWithValue references against hand-worked values."""

from __future__ import annotations

import numpy as np
import pytest

from aclcts.reference import reference

I32, F32 = np.int32, np.float32
X = np.array([[1, 2, 3], [4, 5, 6]], F32)


def run(op, inputs, outs, attrs=None):
    return reference(op).compute([np.asarray(x) for x in inputs], attrs or {}, outs)


@pytest.mark.parametrize("attrs, expected", [
    ({}, [[1, 3, 6], [4, 9, 15]]),
    ({"exclusive": True}, [[0, 1, 3], [0, 4, 9]]),
    ({"reverse": True}, [[6, 5, 3], [15, 11, 6]]),
    ({"exclusive": True, "reverse": True}, [[5, 3, 0], [11, 6, 0]]),
])
def test_cumsum_inclusive_exclusive_forward_and_reverse(attrs, expected):
    assert run("Cumsum", [X, np.array(1, I32)], [F32], attrs)[0].tolist() == expected


def test_cumprod_and_the_d_forms():
    assert run("Cumprod", [X, np.array(-1, I32)], [F32], {"exclusive": True})[0].tolist() == [[1, 1, 2], [1, 4, 20]]
    assert run("CumsumD", [X], [F32], {"axis": 0})[0].tolist() == [[1, 2, 3], [5, 7, 9]]
    assert run("CumprodD", [X], [F32], {"axis": 0, "reverse": True})[0].tolist() == [[4, 10, 18], [4, 5, 6]]


def test_cumsum_of_int8_wraps():
    assert run("Cumsum", [np.array([100, 100, -50], np.int8), np.array(0, I32)], [np.int8])[0].tolist() == [100, -56, -106]


def test_arg_min_takes_the_first_minimum_and_a_nan_wins():
    x = np.array([[3, 1, 1, 0.5], [2, np.nan, 0, np.nan]], F32)
    assert run("ArgMin", [x, np.array(1, I32)], [np.int64])[0].tolist() == [3, 1]
    assert run("ArgMin", [np.array([[2, 1, 1]], I32), np.array(1, I32)], [I32])[0].tolist() == [1]


def test_arg_max_d_takes_the_first_maximum():
    assert run("ArgMaxD", [np.array([[1, 5, 5], [7, 0, 7]], F32)], [I32], {"dimension": -1})[0].tolist() == [1, 0]


def test_arg_max_and_min_with_value_give_index_and_value():
    x = np.array([[4, 9, 9], [2, 2, -1]], I32)
    index, value = run("ArgMaxWithValue", [x], [I32, I32], {"dimension": 1})
    assert index.tolist() == [1, 0] and value.tolist() == [9, 2]
    index, value = run("ArgMinWithValue", [x], [np.int64, I32], {"dimension": 0, "keep_dims": True})
    assert index.tolist() == [[1, 1, 1]] and value.tolist() == [[2, 2, -1]]
    assert reference("ArgMinWithValue").shape([(2, 3)], [None], {"dimension": 0, "keep_dims": True}) == [(1, 3)] * 2
