"""Kernels of GatherV2D, FillD and OneHotD: the kernels of GatherV2, Fill and OneHot run with the D op's attributes
as the const inputs (aclcts/sim/kernels/folded.py)."""

from __future__ import annotations

import numpy as np

from aclcts.sim.kernels.folded import folded
from aclcts.sim.kernels.registry import builtin

builtin("GatherV2D", *folded("GatherV2D", "GatherV2", lambda call: {2: call.attr_int("axis")}))
builtin("FillD", *folded("FillD", "Fill", lambda call: {0: call.attr_list_int("dims")}))
builtin("OneHotD", *folded("OneHotD", "OneHot", lambda call: {1: np.array(call.attr_int("depth"), dtype=np.int32)}))
