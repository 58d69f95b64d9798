"""Faults of the const-folded twins of other families' ops: OneHotD with its on and off values swapped."""

from __future__ import annotations

from aclcts.sim.faults.kernels import inputs_swapped

#: OneHotD binding its on-value and off-value inputs (1 and 2) the wrong way round.
on_off_swapped = inputs_swapped(1, 2)
