"""Records of the quantization family: AscendQuant, AscendDequant and TensorFlow's FakeQuantWithMinMax* ops.

Sources: canndev's op_proto headers (dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/quantize_ops.h
and elewise_calculation_ops.h). AscendQuant's y and AscendDequant's deq_scale list types the suite cannot hold
(int4; a deq_scale of uint64 packs more than the scale) next to the ones it runs; the records keep the header's
lists. The quantized rounding is the header's: round_mode "Round" rounds to nearest with ties to even (C's rint),
"Floor", "Ceil" and "Trunc" as C's floor, ceil and trunc, and the result saturates to the int8 range. The
FakeQuant ops follow tf.raw_ops.FakeQuantWithMinMax* (nudged min and max, num_bits, narrow_range).
"""

from __future__ import annotations

from aclcts.core.prototypes.spec import Attr, OneOf, Prototype, Sample, op

POLICY = "nn"
SHAPE_RULE = "same"

_HEADER = "dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/{} REG_OP({})"
_FLOAT = ("float32",)
#: TensorFlow's attributes of every FakeQuant op: the number of bits and whether the lowest level is left out.
_BITS = (Attr("num_bits", "int", 8), Attr("narrow_range", "bool", False))
#: Every element spread over [-8, 8]: inside, below and above the default ranges' [-6, 6] and the samples' [-3, 5].
_SPREAD = Sample(-8.0, 8.0, "inside and outside the clamping range")
_TF = "mirrors tf.raw_ops.{} (https://www.tensorflow.org/api_docs/python/tf/raw_ops/{})"


def _fake_quant(op_type: str, inputs: str, outputs: str, mirrors: str, *, attrs: tuple[Attr, ...] = _BITS,
                samples: dict[str, Sample] | None = None,
                sample_shapes: tuple[tuple[tuple[int, ...], ...], ...] = ()) -> Prototype:
    """One of the FakeQuant records: every tensor float32, TensorFlow's attributes."""
    types = {"T": _FLOAT}
    return op(op_type, inputs, outputs, types, attrs,
              source=f"{_HEADER.format('elewise_calculation_ops.h', op_type)}; {_TF.format(mirrors, mirrors)}",
              samples=samples or {"x": _SPREAD}, sample_shapes=sample_shapes,
              shape_rule="given" if "min:" in inputs else "same")


#: min and max of the Vars ops: one value each, a range that does not hold 0 on a level (nudging moves it).
_VARS = {"x": _SPREAD, "min": Sample(-3.2, -2.9), "max": Sample(4.9, 5.3)}
_VARS_GRAD = {**_VARS, "gradients": Sample(-2.0, 2.0)}
_VARS_SHAPES = (((4, 16), (1,), (1,)), ((2, 3, 5), (1,), (1,)))
_VARS_GRAD_SHAPES = (((4, 16), (4, 16), (1,), (1,)), ((2, 3, 5), (2, 3, 5), (1,), (1,)))
_CHANNEL_SHAPES = (((4, 16), (16,), (16,)), ((2, 3, 5), (5,), (5,)))
_CHANNEL_GRAD_SHAPES = (((4, 16), (4, 16), (16,), (16,)), ((2, 3, 5), (2, 3, 5), (5,), (5,)))

PROTOTYPES: tuple[Prototype, ...] = (
    op("AscendQuant", "x:T", "y:Q", {"T": ("float16", "float32"), "Q": ("int8", "int4")},
       (Attr("scale", "float"), Attr("offset", "float"), Attr("sqrt_mode", "bool", False),
        Attr("round_mode", "str", "Round", domain=OneOf(("Round", "Floor", "Ceil", "Trunc"))),
        Attr("dst_type", "int", 2)),
       source=f"{_HEADER.format('quantize_ops.h', 'AscendQuant')}: y = saturate(round(x * scale + offset)) in "
              "float16 (the header's float16-to-int8 cast; offset a float16), scale applied twice when sqrt_mode",
       dtype_from={"y": "dst_type"},
       # x in +-1100: float16 there is a multiple of 0.5 or 1, so x * 0.125 + 3 lands on exact .5 ties often and
       # saturates at both ends of int8
       samples={"x": Sample(-1100.0, 1100.0, "float16 ties after scaling by 1/8, saturation at both ends")},
       sample_shapes=(((8, 32),), ((3, 20),)), sample_attrs={"scale": 0.125, "offset": 3.0},
       sample_ranges={"x": ((1, 8), (1, 32)), "y": ((1, 8), (1, 32))}),
    op("AscendDequant", "x:X, deq_scale:S", "y:Y", {"X": ("int32",), "S": ("float16", "uint64"),
                                                    "Y": ("float16", "float32")},
       (Attr("sqrt_mode", "bool", False), Attr("relu_flag", "bool", False), Attr("dtype", "int", 0)),
       source=f"{_HEADER.format('quantize_ops.h', 'AscendDequant')}: y = x * deq_scale (twice when sqrt_mode), "
              "then max(y, 0) when relu_flag; deq_scale broadcasts to x (one value, or one per channel of NCHW); "
              "a uint64 deq_scale carries the float32 scale in its low 32 bits",
       dtype_from={"y": "dtype"}, shape_rule="given", samples={"x": Sample(-2000.0, 2000.0, "exact in float16")},
       sample_shapes=(((1, 16, 4, 4), (1, 16, 1, 1)), ((2, 3, 2, 2), (1, 1, 1, 1))), sample_attrs={"dtype": 1}),
    _fake_quant("FakeQuantWithMinMaxArgs", "x:T", "y:T", "FakeQuantWithMinMaxArgs",
                attrs=(Attr("min", "float", -6.0), Attr("max", "float", 6.0)) + _BITS),
    _fake_quant("FakeQuantWithMinMaxArgsGradient", "gradients:T, x:T", "y:T", "FakeQuantWithMinMaxArgsGradient",
                attrs=(Attr("min", "float", -6.0), Attr("max", "float", 6.0)) + _BITS,
                samples={"x": _SPREAD, "gradients": Sample(-2.0, 2.0)}),
    _fake_quant("FakeQuantWithMinMaxVars", "x:T, min:T, max:T", "y:T", "FakeQuantWithMinMaxVars",
                samples=_VARS, sample_shapes=_VARS_SHAPES),
    _fake_quant("FakeQuantWithMinMaxVarsGradient", "gradients:T, x:T, min:T, max:T",
                "backprops_wrt_x:T, backprops_wrt_min:T, backprops_wrt_max:T", "FakeQuantWithMinMaxVarsGradient",
                samples=_VARS_GRAD, sample_shapes=_VARS_GRAD_SHAPES),
    _fake_quant("FakeQuantWithMinMaxVarsPerChannel", "x:T, min:T, max:T", "y:T",
                "FakeQuantWithMinMaxVarsPerChannel", samples=_VARS, sample_shapes=_CHANNEL_SHAPES),
    _fake_quant("FakeQuantWithMinMaxVarsPerChannelGradient", "gradients:T, x:T, min:T, max:T",
                "backprops_wrt_x:T, backprops_wrt_min:T, backprops_wrt_max:T",
                "FakeQuantWithMinMaxVarsPerChannelGradient", samples=_VARS_GRAD, sample_shapes=_CHANNEL_GRAD_SHAPES),
)
