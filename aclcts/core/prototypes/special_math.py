"""Records of the special-function family: the exponentially scaled modified Bessel functions BesselI0e and BesselI1e.

Source: dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/elewise_calculation_ops.h (REG_OP of each,
x -> y of TensorType::FloatingDataType: double, float, float16). CANN's op info
(ops/built-in/tbe/op_info_cfg/ai_core/<soc>/aic-<soc>-ops-info.ini) gives the TBE kernels float16 and float32 only:
the simulator does not implement float64 (registry.not_simulated).
"""

from __future__ import annotations

from aclcts.core.prototypes.spec import Prototype, Sample, op

POLICY = "elementwise"
SHAPE_RULE = "same"

_ELEWISE = "dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/elewise_calculation_ops.h"
#: TensorType::FloatingDataType of CANN's headers.
FLOATING = ("float16", "float32", "float64")
#: Both sides of |x| = 3.75, where CANN's kernels switch from one polynomial to the other.
_BOTH_BRANCHES = Sample(-20, 20, "both polynomial branches of the TBE kernel (|x| below and above 3.75)")


def _bessel(op_type: str, order: int) -> Prototype:
    """x -> y, the modified Bessel function of the first kind of the given order scaled by exp(-|x|)."""
    return op(op_type, "x:T", "y:T", {"T": FLOATING}, samples={"x": _BOTH_BRANCHES}, specials=(3.75, -3.75),
              source=f"{_ELEWISE} REG_OP({op_type}): y = exp(-|x|) * I{order}(x), the exponentially scaled modified "
                     f"Bessel function of order {order} (TensorFlow bessel_i{order}e)")


PROTOTYPES: tuple[Prototype, ...] = (
    _bessel("BesselI0e", 0),
    _bessel("BesselI1e", 1),
)
