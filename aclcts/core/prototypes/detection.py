"""Records of the detection family: box overlaps (Iou, GIoU, DIoU, CIoU), box encoding and box coordinate scaling.

Sources: CANN's op_proto header nn_detect_ops.h (dengguojie/vue-element-admin@7d77ce32d
ops/built-in/op_proto/inc/nn_detect_ops.h), with the box layouts and offsets its TBE implementations use
(ops/built-in/tbe/impl/<op>.py of the same repository): a box is [x1, y1, x2, y2] unless `trans` says [x, y, w, h];
Iou's eps is the legacy "+1" pixel offset (MMDetection's bbox_overlaps) when >= 1, else added to each box's width and
height only. The default cases keep boxes well formed (a positive width and height), where the ratios are well
conditioned: corners in [0, 1] where the op adds 1 to widths, else [x, y, w, h] boxes (trans) with every value in
[1, 3]; CANN's own cases cover the corner layout.
"""

from __future__ import annotations

from aclcts.core.prototypes.spec import Attr, OneOf, Prototype, Sample, op

POLICY = "nn"
SHAPE_RULE = "each"

_HEADER = "dengguojie/vue-element-admin@7d77ce32d ops/built-in/op_proto/inc/nn_detect_ops.h REG_OP({})"
_FLOATS = {"T": ("float16", "float32")}
_MODE = Attr("mode", "str", "iou", domain=OneOf(("iou", "iof")))
_TRANS = (Attr("trans", "bool", False), Attr("is_cross", "bool", True), _MODE)
#: Corners where the op adds 1 to each width and height: every such box has a positive width and height.
_CORNERS = Sample(0.0, 1.0, "corners of boxes whose width and height get +1")
_HALF_CORNERS = Sample(0.0, 0.5, "corners of boxes whose width and height get +1, ratios of widths within 3")
#: [x, y, w, h] boxes (trans): centres and sizes in [1, 3], boxes that overlap.
_CENTRED = Sample(1.0, 3.0, "[x, y, w, h] boxes (trans)")
#: DIoU and CIoU support is_cross false only (their header's constraints): the only value their cases take. Their
#: generated cases keep trans true: the samples are [x, y, w, h] boxes (_CENTRED), which read as corners (trans false)
#: give boxes with negative sides, where the ops are not defined; CANN's own cases run trans false.
_PAIRWISE = {"is_cross": False, "trans": True}
_PAIRWISE_ATTRS = (Attr("trans", "bool", False, domain=OneOf((True,))),
                   Attr("is_cross", "bool", True, domain=OneOf((False,))), _MODE)

PROTOTYPES: tuple[Prototype, ...] = (
    op("Iou", "bboxes:T, gtboxes:T", "overlap:T", _FLOATS, (_MODE, Attr("eps", "float", 1.0)),
       source=f"{_HEADER.format('Iou')}: overlap[m, n] of bboxes (N, 4) and gtboxes (M, 4), boxes [x1, y1, x2, y2]; "
              "MMDetection's bbox_overlaps with its legacy +1 offset (iou: inter / union, iof: inter / gt area)",
       samples={"bboxes": _CORNERS, "gtboxes": _CORNERS}, sample_shapes=(((5, 4), (3, 4)), ((1, 4), (16, 4))),
       profiles=()),
    op("GIoU", "bboxes:T, gtboxes:T", "overlap:T", _FLOATS, _TRANS,
       source=f"{_HEADER.format('GIoU')}: generalized IoU (Rezatofighi et al. 2019, MMDetection's "
              "bbox_overlaps mode giou) of bboxes (N, 4) and gtboxes (M, 4): [M, N] with is_cross, else [1, N]",
       samples={"bboxes": _CENTRED, "gtboxes": _CENTRED}, sample_shapes=(((5, 4), (3, 4)),),
       sample_attrs={"trans": True}, profiles=()),
    op("DIoU", "bboxes:T, gtboxes:T", "overlap:T", _FLOATS, _PAIRWISE_ATTRS,
       source=f"{_HEADER.format('DIoU')}: distance IoU (Zheng et al. 2020) of boxes (4, N) and (4, N), [1, N]; "
              "is_cross false only",
       samples={"bboxes": _CENTRED, "gtboxes": _CENTRED}, sample_shapes=(((4, 6), (4, 6)),), sample_attrs=_PAIRWISE,
       profiles=()),
    op("CIoU", "bboxes:T, gtboxes:T", "overlap:T, atan_sub:T", _FLOATS,
       (*_PAIRWISE_ATTRS, Attr("atan_sub_flag", "bool", False)),
       source=f"{_HEADER.format('CIoU')}: complete IoU (Zheng et al. 2020) of boxes (4, N) and (4, N), [1, N], and "
              "atan_sub = atan(w_gt / h_gt) - atan(w / h); is_cross false only",
       samples={"bboxes": _CENTRED, "gtboxes": _CENTRED}, sample_shapes=(((4, 6), (4, 6)),),
       sample_attrs={**_PAIRWISE, "atan_sub_flag": True}, profiles=()),
    op("BoundingBoxEncode", "anchor_box:T, ground_truth_box:T", "delats:T", _FLOATS,
       (Attr("means", "list_float", [0.0, 0.0, 0.0, 0.0]), Attr("stds", "list_float", [1.0, 1.0, 1.0, 1.0])),
       source=f"{_HEADER.format('BoundingBoxEncode')}: the deltas of boxes [x1, y1, x2, y2] (last dim 4) from their "
              "anchors, MMDetection's bbox2delta with the +1 width offset of the TBE impl, (delta - means) / stds; "
              "computed in float16",
       samples={"anchor_box": _HALF_CORNERS, "ground_truth_box": _HALF_CORNERS}, sample_shapes=(((6, 4), (6, 4)),),
       sample_attrs={"means": [0.5, -0.25, 0.0, 0.125], "stds": [0.5, 2.0, 1.0, 4.0]}, profiles=()),
    op("ClipBoxesD", "boxes_input:T", "boxes_output:T", {"T": ("float16",)}, (Attr("img_size", "list_int"),),
       source=f"{_HEADER.format('ClipBoxesD')}: boxes [x1, y1, x2, y2] (N, 4) clipped to [0, W] (x) and [0, H] "
              "(y), img_size = [H, W]",
       samples={"boxes_input": Sample(-8.0, 24.0, "around and beyond the 16 x 12 image")},
       sample_shapes=(((7, 4),),), sample_attrs={"img_size": [16, 12]}, profiles=()),
    op("NormalizeBBox", "boxes:T, shape_hw:S", "y:T", {"T": ("float16", "float32"), "S": ("int32",)},
       (Attr("reversed_box", "bool", False),),
       source=f"{_HEADER.format('NormalizeBBox')}: boxes [y1, x1, y2, x2] of each image divided by its height and "
              "width, shape_hw (batch, 3) = [H, W, C]; boxes (batch, N, 4), or (batch, 4, N) with reversed_box",
       samples={"boxes": Sample(0.0, 64.0, "pixel coordinates"), "shape_hw": Sample(1, 64, "image sizes")},
       sample_shapes=(((2, 5, 4), (2, 3)),), profiles=()),
    op("ToAbsoluteBBox", "normalized_boxes:T, shape_hw:S", "y:T", {"T": ("float16", "float32"), "S": ("int32",)},
       (Attr("reversed_box", "bool", False),),
       source=f"{_HEADER.format('ToAbsoluteBBox')}: normalized boxes [y1, x1, y2, x2] times the image height and "
              "width, shape_hw (4,) = [N, H, W, C] (TensorFlow object detection's to_absolute_coordinates); boxes "
              "(batch, N, 4), or (batch, 4, N) with reversed_box",
       samples={"normalized_boxes": Sample(0.0, 1.0, "normalized coordinates"),
                "shape_hw": Sample(1, 64, "image sizes")},
       sample_shapes=(((2, 5, 4), (4,)),), profiles=()),
    op("DecodeBboxV2", "boxes:T, anchors:T", "y:T", _FLOATS,
       (Attr("scales", "list_float", [1.0, 1.0, 1.0, 1.0]), Attr("decode_clip", "float", 0.0),
        Attr("reversed_box", "bool", False)),
       source=f"{_HEADER.format('DecodeBboxV2')}: TensorFlow object detection's FasterRcnnBoxCoder decode: codes "
              "[ty, tx, th, tw] divided by scales, th and tw capped at decode_clip when it is not 0, applied to "
              "anchors [ymin, xmin, ymax, xmax]; boxes (N, 4), or (4, N) with reversed_box (the TBE impl requires "
              "boxes and anchors of one dtype)",
       samples={"boxes": Sample(-1.0, 1.0, "box codes"), "anchors": _CORNERS},
       sample_shapes=(((6, 4), (6, 4)),), sample_attrs={"scales": [10.0, 10.0, 5.0, 5.0], "decode_clip": 0.5},
       profiles=()),
    op("YoloBoxesEncode", "anchor_boxes:T, gt_bboxes:T, stride:S", "encoded_bboxes:T",
       {"T": ("float16", "float32"), "S": ("int32",)},
       (Attr("performance_mode", "str", "high_precision", domain=OneOf(("high_precision", "high_performance"))),),
       source=f"{_HEADER.format('YoloBoxesEncode')}: MMDetection's YOLOBBoxCoder.encode of boxes [x1, y1, x2, y2]: "
              "[(gt centre - anchor centre) / stride + 0.5 clamped to [1e-6, 1 - 1e-6], log of the width and height "
              "ratios clamped below at 1e-6]; computed in float32",
       samples={"anchor_boxes": _CORNERS, "gt_bboxes": _CORNERS, "stride": Sample(1, 4, "strides of 1 to 4")},
       sample_shapes=(((6, 4), (6, 4), (6,)),), profiles=()),
    op("YoloxBoundingBoxDecode", "priors:T, bboxes:T", "decoded_bboxes:T", _FLOATS,
       source=f"{_HEADER.format('YoloxBoundingBoxDecode')}: MMDetection's YOLOX decode: priors (N, 4) [x, y, "
              "stride_w, stride_h], bboxes (B, N, 4) [dx, dy, dw, dh]: centre = d * stride + prior, size = exp(dw, dh) "
              "* stride, as corners [x1, y1, x2, y2]",
       samples={"priors": Sample(16.0, 17.0, "prior centres and strides"),
                "bboxes": Sample(-0.1, 0.1, "offsets and log sizes: corners away from 0, where float16's "
                                            "cancellation of centre and half size would dominate")},
       sample_shapes=(((5, 4), (2, 5, 4)),), profiles=()),
    op("AnchorResponseFlags", "gt_bboxes:T", "flags:U", {"T": ("float32",), "U": ("uint8",)},
       (Attr("featmap_size", "list_int"), Attr("strides", "list_int"), Attr("num_base_anchors", "int")),
       source=f"{_HEADER.format('AnchorResponseFlags')}: MMDetection's YOLOAnchorGenerator.responsible_flags: 1 for "
              "the num_base_anchors anchors of each grid cell [floor(cy / strides[1]), floor(cx / strides[0])] of a "
              "box centre, feature map featmap_size [H, W], flattened",
       samples={"gt_bboxes": Sample(0.0, 31.0, "boxes inside the 4 x 5 grid of stride 8")},
       sample_shapes=(((6, 4),),), sample_attrs={"featmap_size": [5, 4], "strides": [8, 8], "num_base_anchors": 3},
       policy="movement", profiles=()),
)
