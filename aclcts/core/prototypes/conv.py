"""Prototypes of Conv2D, its gradients and transposes.

Source: mindspore-ai/graphengine 910 op_proto/inc/nn_calculation_ops.h REG_OP(Conv2D). x and filter share one
dtype; bias shares y's (float16/bfloat16/float32 with a float output, int8 x with an int32 bias and output); the
header also allows a bfloat16 bias in the current specification.
The gradients (Conv2DBackpropInput/Filter and their D forms: the size a constant input or an attribute) and the
transposes (Conv2DTranspose(D), Deconvolution) are CANN's snapshot's nn_calculation_ops.h; their private storage
(FRACTAL_Z filters, NC1HWC0 feature maps) is the AI Core op info's (ops/built-in/tbe/op_info_cfg/ai_core/ascend910/
aic-ascend910-ops-info.ini). Their case files give the sizes as constants and the dtype pairs.
"""

from __future__ import annotations

import math

from aclcts.core.prototypes.spec import Attr, Prototype, op

POLICY = "conv"
SHAPE_RULE = "each"

_CALC_H = "dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/nn_calculation_ops.h"
_WINDOW = (Attr("strides", "list_int"), Attr("pads", "list_int"), Attr("dilations", "list_int", (1, 1, 1, 1)),
           Attr("groups", "int", 1), Attr("data_format", "str", "NHWC"))
#: The header types y apart from the inputs; the op info pairs float16 inputs with a float16 or float32 y (fp32 only for
#: the filter gradient).
_GRAD_TYPES = {"T": ("float16", "float32", "float64"), "Y": ("float16", "float32", "float64")}
_TRANSPOSE_ATTRS = (Attr("output_padding", "list_int", (0, 0, 0, 0)), Attr("offset_x", "int", 0))
_TRANSPOSE_TYPES = {"T": ("float16", "int8"), "B": ("float16", "int32", "float32"), "W": ("int8",),
                    "Y": ("float16", "int32", "float32")}
_FMAP = ("NC1HWC0",)
_FILTER = ("FRACTAL_Z",)
#: Where the input gradient is open: a device runs it as a convolution of out_backprop spread with zeros (strides,
#: padding), so an infinite or NaN filter tap meets those zeros (0 * inf is NaN) where the direct sum never multiplies
#: them.
_SPREAD_OPEN = (math.inf, -math.inf, math.nan)
#: The gradients' inputs index one another (out_backprop's shape follows input_size and the attributes): their dynamic
#: cases run at their given shapes only.
_INPUT_GRAD = {"shape_rule": "given", "open_points": _SPREAD_OPEN,
               "formats": {"filter": _FILTER, "out_backprop": _FMAP, "y": _FMAP}}
_FILTER_GRAD = {"shape_rule": "given", "formats": {"x": _FMAP, "out_backprop": _FMAP, "y": _FILTER}}
_TRANSPOSED = {"shape_rule": "given", "open_points": _SPREAD_OPEN,
               "formats": {"x": _FMAP, "filter": _FILTER, "y": _FMAP}}
#: Out_backprop [1, 4, 3, 3] of a 3x3 convolution, stride 2, pads 1, of x [1, 2, 5, 5] (NCHW) by a [4, 2, 3, 3] filter.
_GRAD_ATTRS = {"strides": (1, 1, 2, 2), "pads": (1, 1, 1, 1), "data_format": "NCHW"}

PROTOTYPES: tuple[Prototype, ...] = (
    op("Conv2D", "x:T, filter:T, bias?:Y, offset_w?:W", "y:Y",
       {"T": ("float16", "float32", "int8", "bfloat16"), "Y": ("float16", "float32", "int32", "bfloat16"),
        "W": ("int8",)},
       (Attr("strides", "list_int"), Attr("pads", "list_int"), Attr("dilations", "list_int", (1, 1, 1, 1)),
        Attr("groups", "int", 1), Attr("data_format", "str", "NHWC"), Attr("offset_x", "int", 0)),
       source="graphengine 910 op_proto/inc/nn_calculation_ops.h REG_OP(Conv2D); the same inputs and attributes in "
              "the current CANN operator specification"),
    op("Conv2DBackpropInput", "input_size:I, filter:T, out_backprop:T", "y:Y", {"I": ("int32",), **_GRAD_TYPES},
       _WINDOW,
       source=f"{_CALC_H} REG_OP(Conv2DBackpropInput); tf.raw_ops.Conv2DBackpropInput", **_INPUT_GRAD,
       sample_attrs=_GRAD_ATTRS),
    op("Conv2DBackpropInputD", "filter:T, out_backprop:T", "y:Y",
       {"T": ("float16", "int8", "bfloat16"), "Y": ("float16", "int32", "float32", "bfloat16")},
       (Attr("input_size", "list_int"),) + _WINDOW, source=f"{_CALC_H} REG_OP(Conv2DBackpropInputD)", **_INPUT_GRAD,
       sample_attrs={**_GRAD_ATTRS, "input_size": (1, 2, 5, 5)}),
    op("Conv2DBackpropFilter", "x:T, filter_size:I, out_backprop:T", "y:Y", {"I": ("int32",), **_GRAD_TYPES},
       _WINDOW,
       source=f"{_CALC_H} REG_OP(Conv2DBackpropFilter); tf.raw_ops.Conv2DBackpropFilter", **_FILTER_GRAD,
       sample_attrs=_GRAD_ATTRS),
    op("Conv2DBackpropFilterD", "x:T, out_backprop:T", "y:Y", {"T": ("float16",), "Y": ("float32",)},
       (Attr("filter_size", "list_int"),) + _WINDOW, source=f"{_CALC_H} REG_OP(Conv2DBackpropFilterD)",
       **_FILTER_GRAD, sample_attrs={**_GRAD_ATTRS, "filter_size": (4, 2, 3, 3)}),
    op("Conv2DTranspose", "input_size:I, x:T, filter:T, bias?:B, offset_w?:W", "y:Y",
       {"I": ("int32", "int64"), **_TRANSPOSE_TYPES}, _WINDOW + _TRANSPOSE_ATTRS,
       source=f"{_CALC_H} REG_OP(Conv2DTranspose): the input gradient of a Conv2D by filter, plus bias",
       **_TRANSPOSED, sample_attrs=_GRAD_ATTRS),
    op("Conv2DTransposeD", "x:T, filter:T, bias?:B, offset_w?:W", "y:Y", _TRANSPOSE_TYPES,
       (Attr("input_size", "list_int"),) + _WINDOW + _TRANSPOSE_ATTRS, source=f"{_CALC_H} REG_OP(Conv2DTransposeD)",
       **_TRANSPOSED, sample_attrs={**_GRAD_ATTRS, "input_size": (1, 2, 5, 5)}),
    op("Deconvolution", "x:T, filter:T, bias?:B, offset_w?:W", "y:Y",
       {"T": ("float16", "int8"), "B": ("float16", "int32"), "W": ("int8",), "Y": ("float16", "int32")},
       (Attr("strides", "list_int", (1, 1)), Attr("pads", "list_int", (0, 0, 0, 0)),
        Attr("dilations", "list_int", (1, 1, 1, 1)), Attr("groups", "int", 1), Attr("data_format", "str", "NCHW"),
        Attr("offset_x", "int", 0)),
       source=f"{_CALC_H} REG_OP(Deconvolution) (Caffe's): a Conv2DTranspose whose y size follows x's", **_TRANSPOSED),
)
