"""Assign and in-place kernels: the update lands in the output, the ref input stays, bad indices refused."""

from __future__ import annotations

import numpy as np
import pytest

from aclcts.sim import isolated
from aclcts.sim.kernels import KernelError

F16, F32 = np.float16, np.float32


def test_assign_add_rounds_once_in_float16_and_leaves_the_ref_input(run):
    ref, value = np.array([2048.0], F16), np.array([1.0], F16)  # 2049 is a tie in float16: to even, 2048
    (out,) = run("AssignAdd", [ref, value], [(F16, (1,))])
    assert out.tolist() == [2048.0] and out is not ref
    (out,) = run("AssignAdd", [ref, np.array([3.0], F16)], [(F16, (1,))])
    assert out.tolist() == [2052.0] and ref.tolist() == [2048.0]


def test_assign_sub_operands_swapped_fault_computes_value_minus_var(run):
    var, value = np.array([5.0], F32), np.array([2.0], F32)
    assert run("AssignSub", [var, value], [(F32, (1,))])[0].tolist() == [3.0]
    with isolated(faults="assign_sub_operands_swapped"):
        assert run("AssignSub", [var, value], [(F32, (1,))])[0].tolist() == [-3.0]


def test_inplace_update_d_wraps_indices_as_the_tbe_kernel(run):
    (y,) = run("InplaceUpdateD", [np.zeros((1, 2), F32), np.array([[1, 2]], F32)], [(F32, (1, 2))], {"indices": [16]})
    assert y.tolist() == [[1, 2]]


def test_inplace_update_refuses_a_row_outside_x(run):
    with pytest.raises(KernelError, match=r"index 4 is outside \[0, 4\)"):
        run("InplaceUpdate", [np.zeros((4, 2), F32), np.array([4], np.int32), np.ones((1, 2), F32)], [(F32, (4, 2))])


def test_inplace_add_d_needs_one_slice_per_index(run):
    with pytest.raises(KernelError, match=r"expected \[2\] \+ \[3\]"):
        run("InplaceAddD", [np.zeros((4, 3), F32), np.ones((1, 3), F32)], [(F32, (4, 3))], {"indices": [0, 1]})


def test_scatter_non_aliasing_add_sums_float16_in_float32(run):
    # 2048 + 1 + 1: float16 step by step stays at 2048 (each 2049 a tie to even); summed in float32 it is 2050
    x, indices = np.array([2048.0], F16), np.array([[0], [0]], np.int32)
    (y,) = run("ScatterNonAliasingAdd", [x, indices, np.array([1.0, 1.0], F16)], [(F16, (1,))])
    assert y.tolist() == [2050.0]


def test_scatter_non_aliasing_add_refuses_an_index_outside_x(run):
    with pytest.raises(KernelError, match=r"holds \[3\], outside the dims \[3\]"):
        run("ScatterNonAliasingAdd", [np.zeros((3, 2), F32), np.array([[3]], np.int32), np.ones((1, 2), F32)],
            [(F32, (3, 2))])
