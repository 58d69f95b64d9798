"""Scan and extreme-index kernels: fp16 running sums in fp32, integer wrap, ties, index dtypes and attr checks."""

from __future__ import annotations

import numpy as np
import pytest

from aclcts.sim.kernels import KernelError

F16, F32, I32, I64 = np.float16, np.float32, np.int32, np.int64


def test_cumsum_float16_runs_in_float32_and_rounds_each_element_once(run):
    # float16 steps: 2048 + 1 ties back to 2048 every time; float32 running sums 2049, 2050 round to 2048, 2050.
    x = np.array([2048, 1, 1], F16)
    (y,) = run("Cumsum", [x, np.array(0, I32)], [(F16, (3,))])
    assert y.tolist() == [2048.0, 2048.0, 2050.0]


def test_cumsum_exclusive_reverse_and_int8_wrap(run):
    (y,) = run("Cumsum", [np.array([1, 2, 3], I32), np.array(0, I32)], [(I32, (3,))],
               {"exclusive": True, "reverse": True})
    assert y.tolist() == [5, 3, 0]
    (y,) = run("CumsumD", [np.array([100, 100], np.int8)], [(np.int8, (2,))], {"axis": 0})
    assert y.tolist() == [100, -56]


def test_cumprod_with_an_empty_axis(run):
    (y,) = run("Cumprod", [np.zeros((2, 0), F32), np.array(1, I32)], [(F32, (2, 0))], {"exclusive": True})
    assert y.shape == (2, 0)


def test_arg_min_ties_and_nan(run):
    x = np.array([[3, 1, 1], [0, np.nan, np.nan]], F32)
    (y,) = run("ArgMin", [x, np.array(1, I32)], [(I64, (2,))])
    assert y.tolist() == [1, 1]


def test_arg_max_d_gives_int32_only(run):
    x = np.array([[1, 5, 5]], F16)
    (y,) = run("ArgMaxD", [x], [(I32, (1,))], {"dimension": 1})
    assert y.tolist() == [1]
    with pytest.raises(KernelError, match="int32"):
        run("ArgMaxD", [x], [(I64, (1,))], {"dimension": 1})


def test_arg_max_with_value_follows_indice_dtype_and_keep_dims(run):
    x = np.array([[4, 9, 9], [2, 2, -1]], I64)
    index, value = run("ArgMaxWithValue", [x], [(I64, (2, 1)), (I64, (2, 1))],
                       {"dimension": 1, "keep_dims": True, "indice_dtype": 9})
    assert index.tolist() == [[1], [0]] and value.tolist() == [[9], [2]]
    with pytest.raises(KernelError, match="indice_dtype"):
        run("ArgMinWithValue", [x], [(I32, (3,)), (I64, (3,))], {"dimension": 0, "indice_dtype": 9})
