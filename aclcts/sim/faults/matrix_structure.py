"""Faults of the matrix-structure ops: MatrixBandPart reading its two band widths the wrong way round."""

from __future__ import annotations

from aclcts.sim.faults.kernels import inputs_swapped

#: MatrixBandPart binding its lower and upper band-width inputs (1 and 2) the wrong way round.
band_widths_swapped = inputs_swapped(1, 2)
