"""Records of the dropout family: DropOutDoMask (a bit mask, one bit per element) and DropOutDoMaskV3D (one byte per
element), each scaling the kept elements of x by 1 / keep_prob and zeroing the others.

Source: dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/nn_norm_ops.h REG_OP(DropOutDoMask) and
REG_OP(DropOutDoMaskV3D): "scale_x = x * (1 / keep_prob); output = select(mask == 1, scale_x, 0)". DropOutDoMask's
mask is 1-D uint8 of (size(x) + 127) // 128 * 128 // 8 bytes; element i of x (row-major) is kept when bit i % 8 of
byte i // 8 is set, counting bits from the least significant: ops/built-in/tbe/impl/dynamic/drop_out_do_mask.py loads
the 16 mask bytes of each 128 elements into the vector unit's compare mask (mov_tensor_to_cmpmask) and vsel takes
element i where that mask's bit i is set, bit 0 being the lowest bit of the first byte. DropOutDoMaskV3D's mask has
x's shape, one uint8 0 or 1 per element (tbe/impl/drop_out_do_mask_v3_d.py casts it to x's type and multiplies).
"""

from __future__ import annotations

from aclcts.core.prototypes.spec import Attr, Prototype, Sample, op

POLICY = "elementwise"
SHAPE_RULE = "given"

_NN_NORM = "dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/nn_norm_ops.h"
_TYPES = ("float16", "float32")
_KEEP_PROB = Sample(0.1, 1.0, "a probability of keeping an element: positive, at most 1")

PROTOTYPES: tuple[Prototype, ...] = (
    op("DropOutDoMask", "x:T, mask:M, keep_prob:T", "y:T", {"T": _TYPES, "M": ("uint8",)},
       source=f"{_NN_NORM} REG_OP(DropOutDoMask): the bit of element i is bit i % 8 (least significant first) of "
              "mask byte i // 8 (tbe/impl/dynamic/drop_out_do_mask.py: vsel over the compare mask)",
       samples={"mask": Sample(0, 255, "random bits: every byte value"), "keep_prob": _KEEP_PROB},
       sample_shapes=(((4, 32), (16,), (1,)), ((3, 50), (32,), (1,)), ((2, 3, 128), (96,), (1,)))),
    op("DropOutDoMaskV3D", "x:T, mask:M", "y:T", {"T": _TYPES, "M": ("uint8",)}, (Attr("keep_prob", "float"),),
       source=f"{_NN_NORM} REG_OP(DropOutDoMaskV3D): mask of x's shape, one byte 0 or 1 per element "
              "(tbe/impl/drop_out_do_mask_v3_d.py: x * mask * (1 / keep_prob))",
       samples={"mask": Sample(0, 1, "kept (1) or dropped (0)")},
       sample_shapes=(((4, 32), (4, 32)), ((2, 3, 5), (2, 3, 5))), sample_attrs={"keep_prob": 0.25}),
)
