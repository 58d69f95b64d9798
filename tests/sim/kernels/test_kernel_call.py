"""OpCall reads tensor names and dtypes from the op record: its checks take input indices, never names."""

from __future__ import annotations

import numpy as np
import pytest

from aclcts.sim.kernels import KernelError
from aclcts.sim.kernels.call import OpCall
from aclcts.sim.kernels.shapes import broadcast


def _gather() -> OpCall:
    return OpCall("GatherV2", [np.zeros(2, np.float32), np.zeros(1, np.int32), np.array(0, np.int32)], {})


def test_checks_take_input_indices_not_names():
    call = _gather()
    with pytest.raises(TypeError, match="takes an input index"):
        call.require_dtype("x", np.dtype(np.float32))
    with pytest.raises(KernelError, match=r"input 'indices' has dtype float32, expected int32 \(the dtype of 'x'\)"):
        call.require_same_dtype([0, 1], [np.dtype(np.int32), np.dtype(np.float32)])
    with pytest.raises(KernelError, match=r"input 2 'axis' must be a scalar or 1-D"):
        call.index_values(2, np.zeros((1, 1), np.int32))
    with pytest.raises(KernelError, match=r"input 'axis' must hold one value, got \[0, 1\]"):
        call.one_value(2, np.array([0, 1], np.int32))


def test_broadcast_names_inputs_by_index_and_labels_as_given():
    call = _gather()
    with pytest.raises(KernelError, match=r"'x' \[2\], 'indices' \[3\]"):
        broadcast(call, [0, 1], [(2,), (3,)])
    with pytest.raises(KernelError, match=r"'x batch dims' \[2\]"):
        broadcast(call, ["x batch dims", 1], [(2,), (3,)])


def test_output_types_come_from_the_record():
    call = OpCall("ResizeBilinearV2", [], {})
    assert sorted(call.output_types(0)) == [0, 1, 4]  # float32, float16, uint8


def test_the_number_of_inputs_comes_from_the_record():
    one = [np.zeros(2, np.float32)]
    with pytest.raises(KernelError, match="SearchSorted: expected 2 to 3 inputs, got 1"):
        OpCall("SearchSorted", one, {}).require_inputs()
    with pytest.raises(KernelError, match="ConcatV2: expected 2 inputs, got 1"):
        OpCall("ConcatV2", one, {}).require_inputs()
    OpCall("ConcatV2", one * 4, {}).require_inputs()
    with pytest.raises(KernelError, match="GatherV2: expected 3 inputs, got 4"):
        OpCall("GatherV2", one * 4, {}).require_inputs()


def test_same_dtype_check_refuses_names():
    with pytest.raises(TypeError, match="takes input indices"):
        _gather().require_same_dtype(["x", "indices"], [np.dtype(np.int32), np.dtype(np.int32)])
