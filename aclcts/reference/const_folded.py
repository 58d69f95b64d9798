"""References of GatherV2D, FillD and OneHotD: the references of GatherV2, Fill and OneHot with the D op's attributes
as the const inputs."""

from __future__ import annotations

import numpy as np

from aclcts.reference.base import RefOp
from aclcts.reference.folded import folded, twin_of
from aclcts.reference.gather_scatter import OPS as GATHER_OPS
from aclcts.reference.unary_math import OPS as UNARY_OPS

OPS: tuple[RefOp, ...] = (
    folded("GatherV2D", twin_of(GATHER_OPS, "GatherV2"), lambda a: {2: a["axis"]}),
    folded("FillD", twin_of(UNARY_OPS, "Fill"), lambda a: {0: a["dims"]}),
    folded("OneHotD", twin_of(GATHER_OPS, "OneHot"), lambda a: {1: np.array(a["depth"], dtype=np.int32)}),
)
