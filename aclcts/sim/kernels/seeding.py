"""Seeding kernels: StatelessRandomGetAlg, StatelessRandomGetKeyCounter, StatelessRandomGetKeyCounterAlg.

Record: aclcts/core/prototypes/seeding.py. The seed's two 64-bit words, taken as the 128-bit counter of one
Philox4x32-10 block under the key 0x02461e29_3ec8f720, give the key (the block's first 64 bits) and the counter's
high word (its last 64 bits; the low word is 0), as TensorFlow scrambles a seed; the alg is Philox.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.core.dtypes import acl_data_type
from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.random import PHILOX_ALGS, read_seed
from aclcts.sim.kernels.registry import builtin
from aclcts.sim.kernels.shapes import inferred

_UINT64, _INT32 = acl_data_type(np.dtype(np.uint64)), acl_data_type(np.dtype(np.int32))


def _kernel(op_type: str, with_key: bool, with_alg: bool) -> None:
    """Register op_type: the key and counter of its seed and/or the alg."""
    shapes = ([(1,), (2,)] if with_key else []) + ([()] if with_alg else [])
    types = ([_UINT64, _UINT64] if with_key else []) + ([_INT32] if with_alg else [])

    def compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
        call = OpCall(op_type, inputs, attrs)
        call.require_count(1 if with_key else 0)
        out = Outputs(call, outputs)
        values: list[np.ndarray] = []
        if with_key:
            key, counter = read_seed(call, 0)
            values += [np.array([key], np.uint64), np.array(counter, np.uint64)]
        if with_alg:
            values.append(np.array(PHILOX_ALGS[0], np.int32))
        return [out.emit(i, v) for i, v in enumerate(values)]

    def infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        OpCall(op_type, inputs, attrs).require_count(1 if with_key else 0)
        return [inferred(t, s) for t, s in zip(types, shapes)]

    builtin(op_type, compute, infer)


_kernel("StatelessRandomGetAlg", with_key=False, with_alg=True)
_kernel("StatelessRandomGetKeyCounter", with_key=True, with_alg=False)
_kernel("StatelessRandomGetKeyCounterAlg", with_key=True, with_alg=True)
