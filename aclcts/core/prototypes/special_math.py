"""Records of the special-function family: the exponentially scaled modified Bessel functions BesselI0e and BesselI1e,
the inverse error function Erfinv, the inverse normal distribution function Ndtri, Dawson's integral Dawsn, the
exponential integral Expint, the Fresnel integrals FresnelCos and FresnelSin and Spence's function (the dilogarithm).

Source: dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/elewise_calculation_ops.h (REG_OP of each:
BesselI0e and BesselI1e take TensorType::FloatingDataType (double, float, float16), Erfinv float and float16, the
others bfloat16, float16, float and double). CANN's op info
(ops/built-in/tbe/op_info_cfg/ai_core/<soc>/aic-<soc>-ops-info.ini) gives the TBE kernels float16 and float32 (Dawsn
and Expint float32) only: the simulator does not implement the others (registry.not_simulated).
"""

from __future__ import annotations

import math

from aclcts.core.prototypes.spec import Prototype, Sample, op

POLICY = "elementwise"
SHAPE_RULE = "same"

_ELEWISE = "dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/elewise_calculation_ops.h"
#: TensorType::FloatingDataType of CANN's headers.
FLOATING = ("float16", "float32", "float64")
#: Both sides of |x| = 3.75, where CANN's kernels switch from one polynomial to the other.
_BOTH_BRANCHES = Sample(-20, 20, "both polynomial branches of the TBE kernel (|x| below and above 3.75)")
#: TensorType({DT_BF16, DT_FLOAT16, DT_FLOAT, DT_DOUBLE}) of the newer special functions' REG_OPs, the op info's float32
#: first (the type a case that picks one runs).
WIDE = ("float32", "float16", "bfloat16", "float64")


def _bessel(op_type: str, order: int) -> Prototype:
    """x -> y, the modified Bessel function of the first kind of the given order scaled by exp(-|x|)."""
    return op(op_type, "x:T", "y:T", {"T": FLOATING}, samples={"x": _BOTH_BRANCHES}, specials=(3.75, -3.75),
              source=f"{_ELEWISE} REG_OP({op_type}): y = exp(-|x|) * I{order}(x), the exponentially scaled modified "
                     f"Bessel function of order {order} (TensorFlow bessel_i{order}e)")


def _special(op_type: str, inputs: str, outputs: str, types: tuple[str, ...], sample: Sample, meaning: str, *,
             specials: tuple[float, ...] = (), profiles: tuple[str, ...] | None = None,
             open_points: tuple[float, ...] = ()) -> Prototype:
    """A one-input special function of elewise_calculation_ops.h, mirroring the TensorFlow/PyTorch op named in meaning."""
    x = inputs.partition(":")[0]
    return op(op_type, inputs, outputs, {"T": types}, samples={x: sample}, specials=specials, profiles=profiles,
              open_points=open_points, source=f"{_ELEWISE} REG_OP({op_type}): {meaning}")


#: The functions defined only on part of the real line run no profile: its values are drawn over the whole line.
_DOMAIN_LIMITED: tuple[str, ...] = ()
#: The poles and infinite limits CANN's REG_OP comments do not state, where TensorFlow gives +-inf and the TBE kernels'
#: rational forms divide inf by inf or multiply it by 0 (NaN): left open (docs/special-points.md), never placed.
_ERFINV_POLES = (1.0, -1.0)
_NDTRI_POLES = (0.0, -0.0, 1.0)
#: Expint also at NaN: the kernel's comparisons (x > 0, x < 2, ...) are false for NaN, so it takes the x <= 0 branch
#: and writes 0, where IEEE 754 propagates the NaN.
_EXPINT_LIMITS = (0.0, -0.0, math.inf, math.nan)
_SPENCE_LIMITS = (math.inf,)

PROTOTYPES: tuple[Prototype, ...] = (
    _bessel("BesselI0e", 0),
    _bessel("BesselI1e", 1),
    _special("Erfinv", "input_x:T", "output_y:T", ("float32", "float16"),
             Sample(-0.99, 0.99, "inside erf's range (-1, 1), short of the poles at +-1"),
             "y = erf^-1(x), the inverse error function (PyTorch erfinv, DLMF 7.17)", specials=(0.7, -0.7),
             profiles=_DOMAIN_LIMITED, open_points=_ERFINV_POLES),
    _special("Ndtri", "x:T", "y:T", WIDE, Sample(0.01, 0.99, "probabilities inside (0, 1), both tails (bfloat16 rounds 0.999 to 1)"),
             "y = sqrt(2) erf^-1(2x - 1), the inverse of the standard normal distribution function (TensorFlow ndtri)",
             specials=(0.5,), profiles=_DOMAIN_LIMITED, open_points=_NDTRI_POLES),
    _special("Dawsn", "x:T", "y:T", WIDE, Sample(-10, 10, "every branch of the TBE kernel (|x| below 3.25, to 6.25, "
                                                          "beyond)"),
             "y = exp(-x^2) int_0^x exp(t^2) dt, Dawson's integral (TensorFlow dawsn, DLMF 7.2.5)",
             specials=(3.25, 6.25)),
    _special("Expint", "x:T", "y:T", WIDE, Sample(0.1, 11, "x > 0 up to float16's overflow (Ei(11) ~ 7e3), the "
                                                           "TBE kernel's intervals to 16"),
             "y = Ei(x), the exponential integral, for x > 0 (TensorFlow expint, DLMF 6.2.5)",
             profiles=_DOMAIN_LIMITED, open_points=_EXPINT_LIMITS),
    _special("FresnelCos", "x:T", "y:T", WIDE, Sample(-10, 10, "both branches of the TBE kernel (x^2 below and above "
                                                               "2.5625)"),
             "y = int_0^x cos(pi t^2 / 2) dt, the Fresnel cosine integral (TensorFlow fresnel_cos, DLMF 7.2.7)"),
    _special("FresnelSin", "x:T", "y:T", WIDE, Sample(-10, 10, "both branches of the TBE kernel (x^2 below and above "
                                                               "2.5625)"),
             "y = int_0^x sin(pi t^2 / 2) dt, the Fresnel sine integral (TensorFlow fresnel_sin, DLMF 7.2.8)"),
    _special("Spence", "x:T", "y:T", WIDE, Sample(0, 10, "x >= 0, every interval of the TBE kernel (0.5, 1.5, 2)"),
             "y = -int_1^x ln(t) / (t - 1) dt = Li2(1 - x), Spence's function, for x >= 0 (TensorFlow spence, "
             "DLMF 25.12.1)", specials=(1.0,), profiles=_DOMAIN_LIMITED, open_points=_SPENCE_LIMITS),
)
