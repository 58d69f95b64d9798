"""Special-function kernels: BesselI0e and BesselI1e as CANN's TBE implementations compute them.

Prototypes: aclcts.core.prototypes.special_math. The kernels follow dengguojie/vue-element-admin@7d77ce32d
ops/built-in/tbe/impl/bessel_i0e.py and bessel_i1e.py: float16 widened to float32, every step in float32, the result
rounded once. Both evaluate the Abramowitz and Stegun polynomials (Handbook of Mathematical Functions, 9.8.1-9.8.4)
by Horner's rule: below |x| = 3.75 in t^2 = (|x| / 3.75)^2, divided by exp(|x|) (and multiplied by |x| for I1e);
from 3.75 on in 3.75 / |x|, divided by sqrt(|x|). I0e takes the smaller of the two branches (each overshoots on the
other's side), I1e selects by |x| < 3.75 and multiplies by sign(x). float64 is not simulated: the op info gives the
TBE kernels float16 and float32 only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclcts.sim.kernels.call import OpCall
from aclcts.sim.kernels.numerics import FLOAT32, FLOAT64
from aclcts.sim.kernels.registry import builtin, not_simulated
from aclcts.sim.kernels.unary_math import unary_functions

#: Where the kernels switch polynomials.
LIMIT = np.float32(3.75)
#: Coefficients, lowest power first (bessel_i0e.py / bessel_i1e.py ITR_BEFORE and ITR_AFTER).
I0_NEAR = (1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.0360768, 0.0045813)
I0_FAR = (0.39894228, 0.01328592, 0.00225319, -0.00157565, 0.00916281, -0.02057706, 0.02635537, -0.01647633,
          0.00392377)
I1_NEAR = (0.5, 0.87890594, 0.51498869, 0.15084934, 0.02658773, 0.00301532, 0.00032411)
I1_FAR = (0.39894228, -0.03988024, -0.00362018, 0.00163801, -0.01031555, 0.02282967, -0.02895312, 0.01787654,
          -0.00420059)


def horner(t: np.ndarray, coefficients: tuple[float, ...]) -> np.ndarray:
    """sum c_k t^k in float32, the highest coefficient first (vmuls, then vadds and vmul per step)."""
    result = t * np.float32(coefficients[-1]) + np.float32(coefficients[-2])
    for c in reversed(coefficients[:-2]):
        result = result * t + np.float32(c)
    return result


def _i0e(x: np.ndarray) -> np.ndarray:
    a = np.abs(x)
    clipped = np.minimum(a, LIMIT)
    t = clipped / LIMIT
    near = horner(t * t, I0_NEAR) / np.exp(clipped)
    far = horner(LIMIT / a, I0_FAR) / np.sqrt(a)
    return np.minimum(near, far)


def _i1e(x: np.ndarray) -> np.ndarray:
    a = np.abs(x)
    t = a / LIMIT
    near = horner(t * t, I1_NEAR) / np.exp(a) * a
    far = horner(LIMIT / a, I1_FAR) / np.sqrt(a)
    return np.where(a < LIMIT, near, far) * np.sign(x)


def _special(op_type: str, fn: Any) -> None:
    """Register a one-input special function computed in float32 and rounded once to x's type."""
    def body(call: OpCall, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        np.copyto(y, fn(x.astype(FLOAT32)), casting="unsafe")
        return y

    builtin(op_type, *unary_functions(op_type, body))
    not_simulated(op_type, 0, (FLOAT64,))


_special("BesselI0e", _i0e)
_special("BesselI1e", _i1e)
