"""Detection kernels: box overlaps (Iou, GIoU, DIoU, CIoU), BoundingBoxEncode and box coordinate scaling.

Prototypes: aclcts.core.prototypes.detection. Numerics follow the TBE implementations (ops/built-in/tbe/impl/
iou.py, giou.py, diou.py, ciou.py, bounding_box_encode.py, clip_boxes_d.py, normalize_bbox.py,
to_absolute_bbox.py): every step in the boxes' own dtype (float16 stays float16); Iou and GIoU scale each width and
height by 0.2 before multiplying (the TBE's guard against float16 overflow); Iou adds 1 to widths and heights when
eps >= 1, else eps to the boxes' (not the intersection's); the union is the two areas summed, less the intersection.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from aclcts.sim.kernels.base import InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.registry import builtin
from aclcts.sim.kernels.shapes import inferred, like_input
from aclcts.sim.seams import Seam

#: The TBE's scale of each width and height before an area is formed.
_AREA_SCALE = 0.2


def _union(area: np.ndarray, gt_area: np.ndarray, inter: np.ndarray) -> np.ndarray:
    """The union of two boxes: both areas, less the intersection counted twice."""
    return area + gt_area - inter


#: The denominator of IoU mode "iou" in every overlap kernel.
box_union = Seam("box union", _union)


class Corners(NamedTuple):
    """x0, y0, x1, y1 of a set of boxes, arrays of one shape and dtype."""

    x0: np.ndarray
    y0: np.ndarray
    x1: np.ndarray
    y1: np.ndarray


def _corners(rows: np.ndarray, trans: bool) -> Corners:
    """Corners from four rows [x0, y0, x1, y1], or [x, y, w, h] with trans."""
    a, b, c, d = rows[0], rows[1], rows[2], rows[3]
    if not trans:
        return Corners(a, b, c, d)
    half = a.dtype.type(2)
    return Corners(a - c / half, b - d / half, a + c / half, b + d / half)


def _boxes_2d(call: OpCall, index: int, rows_first: bool) -> np.ndarray:
    """Input index as its four coordinate rows: a (4, N) tensor as it is, a (N, 4) one transposed."""
    x = call.input(index)
    call.require_dtype(index, x.dtype)
    axis = 0 if rows_first else 1
    if x.ndim != 2 or x.shape[axis] != 4:
        layout = "(4, N)" if rows_first else "(N, 4)"
        raise call.fail(f"input {call.quoted(index)} must have shape {layout}, got {list(x.shape)}")
    return x if rows_first else x.T


def _paired(call: OpCall, boxes: Corners, gt: Corners, cross: bool) -> tuple[Corners, Corners]:
    if cross:
        return Corners(*(c[None, :] for c in boxes)), Corners(*(c[:, None] for c in gt))
    if boxes.x0.shape != gt.x0.shape:
        raise call.fail(f"with is_cross false inputs {call.quoted(0)} and {call.quoted(1)} must hold as many boxes, "
                        f"got {boxes.x0.size} and {gt.x0.size}")
    return Corners(*(c[None, :] for c in boxes)), Corners(*(c[None, :] for c in gt))


def _mode(call: OpCall) -> str:
    mode = call.attr_str("mode").lower()
    if mode not in ("iou", "iof"):
        raise call.fail(f"attr 'mode' must be 'iou' or 'iof', got {mode!r}")
    return mode


def _scaled_area(width: np.ndarray, height: np.ndarray, clamp: bool) -> np.ndarray:
    """Area from width and height each scaled by 0.2 (clamped at 0 for an intersection)."""
    scale = width.dtype.type(_AREA_SCALE)
    w, h = width * scale, height * scale
    if clamp:
        w, h = np.maximum(w, 0), np.maximum(h, 0)
    return w * h


def _inter(a: Corners, b: Corners) -> Corners:
    return Corners(np.maximum(a.x0, b.x0), np.maximum(a.y0, b.y0), np.minimum(a.x1, b.x1), np.minimum(a.y1, b.y1))


def _outer(a: Corners, b: Corners) -> Corners:
    return Corners(np.minimum(a.x0, b.x0), np.minimum(a.y0, b.y0), np.maximum(a.x1, b.x1), np.maximum(a.y1, b.y1))


def _iou(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("Iou", inputs, attrs)
    call.require_inputs()
    boxes, gt = _boxes_2d(call, 0, False), _boxes_2d(call, 1, False)
    call.require_same_dtype([0, 1], [boxes.dtype, gt.dtype])
    mode, eps = _mode(call), call.attr_float("eps")
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, boxes.dtype)
    t = boxes.dtype.type
    offset, inter_offset = (t(1), t(1)) if eps >= 1.0 else (t(eps), t(0))
    with np.errstate(all="ignore"):
        a, b = _paired(call, _corners(boxes, False), _corners(gt, False), True)
        area = _scaled_area(a.x1 - a.x0 + offset, a.y1 - a.y0 + offset, False)
        gt_area = _scaled_area(b.x1 - b.x0 + offset, b.y1 - b.y0 + offset, False)
        i = _inter(a, b)
        inter = _scaled_area(i.x1 - i.x0 + inter_offset, i.y1 - i.y0 + inter_offset, True)
        denominator = box_union(area, gt_area, inter) if mode == "iou" else np.broadcast_to(gt_area, inter.shape)
        y = inter / denominator
    return [out.emit(0, y.astype(boxes.dtype))]


def _giou(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("GIoU", inputs, attrs)
    call.require_inputs()
    boxes, gt = _boxes_2d(call, 0, False), _boxes_2d(call, 1, False)
    call.require_same_dtype([0, 1], [boxes.dtype, gt.dtype])
    mode, trans, cross = _mode(call), call.attr_bool("trans"), call.attr_bool("is_cross")
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, boxes.dtype)
    with np.errstate(all="ignore"):
        a, b = _paired(call, _corners(boxes, trans), _corners(gt, trans), cross)
        area = _scaled_area(a.x1 - a.x0, a.y1 - a.y0, False)
        gt_area = _scaled_area(b.x1 - b.x0, b.y1 - b.y0, False)
        i, o = _inter(a, b), _outer(a, b)
        inter = _scaled_area(i.x1 - i.x0, i.y1 - i.y0, True)
        outer = _scaled_area(o.x1 - o.x0, o.y1 - o.y0, False)
        denominator = box_union(area, gt_area, inter) if mode == "iou" else np.broadcast_to(gt_area, inter.shape)
        y = inter / denominator - (outer - denominator) / outer
    return [out.emit(0, y.astype(boxes.dtype))]


def _pairwise(call: OpCall) -> tuple[Corners, Corners, np.ndarray, np.ndarray, Corners]:
    """DIoU's and CIoU's box pairs, their IoU (or IoF), the centre term d^2 / c^2 and the inputs' corners."""
    call.require_inputs()
    boxes, gt = _boxes_2d(call, 0, True), _boxes_2d(call, 1, True)
    call.require_same_dtype([0, 1], [boxes.dtype, gt.dtype])
    if call.attr_bool("is_cross"):
        raise call.fail("attr 'is_cross' true is not supported (the operator computes box pairs only)")
    mode, trans = _mode(call), call.attr_bool("trans")
    a, b = _paired(call, _corners(boxes, trans), _corners(gt, trans), False)
    t = boxes.dtype.type
    area = (a.x1 - a.x0) * (a.y1 - a.y0)
    gt_area = (b.x1 - b.x0) * (b.y1 - b.y0)
    i, o = _inter(a, b), _outer(a, b)
    inter = np.maximum(i.x1 - i.x0, t(0)) * np.maximum(i.y1 - i.y0, t(0))
    ratio = inter / (box_union(area, gt_area, inter) if mode == "iou" else gt_area)
    diagonal = (o.x1 - o.x0) * (o.x1 - o.x0) + (o.y1 - o.y0) * (o.y1 - o.y0)
    dx, dy = a.x0 + a.x1 - b.x0 - b.x1, a.y0 + a.y1 - b.y0 - b.y1
    centre = (dx * dx + dy * dy) * t(0.25) / diagonal
    return a, b, ratio, centre, Corners(boxes[0], boxes[1], boxes[2], boxes[3])


def _diou(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("DIoU", inputs, attrs)
    with np.errstate(all="ignore"):
        _, _, ratio, centre, raw = _pairwise(call)
        out = Outputs(call, outputs)
        out.require_input_dtype(0, 0, raw.x0.dtype)
        return [out.emit(0, (ratio - centre).astype(raw.x0.dtype))]


def _ciou(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("CIoU", inputs, attrs)
    with np.errstate(all="ignore"):
        a, b, ratio, centre, raw = _pairwise(call)
        dtype = raw.x0.dtype
        out = Outputs(call, outputs)
        out.require_input_dtype(0, 0, dtype)
        out.require_input_dtype(1, 0, dtype)
        t = dtype.type
        angle = (np.arctan((b.x1 - b.x0) / (b.y1 - b.y0)) - np.arctan((a.x1 - a.x0) / (a.y1 - a.y0))).astype(dtype)
        v = angle * angle * t(4 / np.pi ** 2)
        alpha = v / (v - ratio + t(1))
        y = ratio - centre - alpha * v
    return [out.emit(0, y.astype(dtype)), out.emit(1, angle)]


def _pair_infer(op_type: str, rows_first: bool, count: int) -> Any:
    def infer(inputs: list[TensorInfo], values: list[np.ndarray | None], attrs: dict[str, Any]) -> list[InferredShape]:
        call = OpCall(op_type, inputs, attrs)
        call.require_inputs()
        boxes, gt = call.input(0), call.input(1)
        if len(boxes.shape) != 2 or len(gt.shape) != 2:
            raise call.fail(f"inputs {call.quoted(0)} and {call.quoted(1)} must be 2-D, got {list(boxes.shape)} and "
                            f"{list(gt.shape)}")
        n = boxes.shape[1] if rows_first else boxes.shape[0]
        cross = not rows_first and (op_type == "Iou" or call.attr_bool("is_cross"))
        shape = (gt.shape[0], n) if cross else (1, n)
        return [inferred(boxes.dtype, shape)] * count
    return infer


def _same_typed_pair(op_type: str, inputs: list[np.ndarray | None],
                     attrs: dict[str, Any]) -> tuple[OpCall, np.ndarray, np.ndarray]:
    """The call of an op of two inputs sharing one dtype, and those inputs, their dtypes checked."""
    call = OpCall(op_type, inputs, attrs)
    call.require_inputs()
    first, second = call.input(0), call.input(1)
    call.require_dtype(0, first.dtype)
    call.require_same_dtype([0, 1], [first.dtype, second.dtype])
    return call, first, second


def _encode(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call, anchors, truth = _same_typed_pair("BoundingBoxEncode", inputs, attrs)
    if anchors.shape != truth.shape or anchors.shape[-1:] != (4,):
        raise call.fail(f"inputs {call.quoted(0)} and {call.quoted(1)} must have one shape ending in 4, got "
                        f"{list(anchors.shape)} and {list(truth.shape)}")
    means, stds = (call.attr_list_float(k) for k in ("means", "stds"))
    if len(means) != 4 or len(stds) != 4:
        raise call.fail(f"attrs 'means' and 'stds' must hold 4 values, got {means} and {stds}")
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, anchors.dtype)
    dtype = anchors.dtype
    t = dtype.type
    a, g = _corners(np.moveaxis(anchors, -1, 0), False), _corners(np.moveaxis(truth, -1, 0), False)
    with np.errstate(all="ignore"):
        aw, ah = a.x1 - a.x0 + t(1), a.y1 - a.y0 + t(1)
        gw, gh = g.x1 - g.x0 + t(1), g.y1 - g.y0 + t(1)
        parts = [((g.x0 + g.x1) * t(0.5) - (a.x0 + a.x1) * t(0.5)) / aw,
                 ((g.y0 + g.y1) * t(0.5) - (a.y0 + a.y1) * t(0.5)) / ah,
                 np.log(gw / aw), np.log(gh / ah)]
        deltas = [(p + t(-m)) * t(1 / s) for p, m, s in zip(parts, means, stds)]
    return [out.emit(0, np.stack(deltas, axis=-1).astype(dtype))]


def _clip(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("ClipBoxesD", inputs, attrs)
    call.require_inputs()
    boxes = call.input(0)
    call.require_dtype(0, boxes.dtype)
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise call.fail(f"input {call.quoted(0)} must have shape (N, 4), got {list(boxes.shape)}")
    size = call.attr_list_int("img_size")
    if len(size) != 2:
        raise call.fail(f"attr 'img_size' must be [H, W], got {size}")
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, boxes.dtype)
    limits = np.array([size[1], size[0], size[1], size[0]], dtype=boxes.dtype)
    return [out.emit(0, np.minimum(np.maximum(boxes, boxes.dtype.type(0)), limits))]


def _scale_boxes(call: OpCall, boxes: np.ndarray, heights: np.ndarray, widths: np.ndarray, divide: bool) -> np.ndarray:
    reversed_box = call.attr_bool("reversed_box")
    if boxes.ndim != 3 or (boxes.shape[1] if reversed_box else boxes.shape[2]) != 4:
        layout = "(batch, 4, N)" if reversed_box else "(batch, N, 4)"
        raise call.fail(f"input {call.quoted(0)} must have shape {layout}, got {list(boxes.shape)}")
    factors = np.stack([heights, widths, heights, widths], axis=-1).astype(boxes.dtype)[:, None, :]
    if reversed_box:
        factors = np.swapaxes(factors, 1, 2)
    with np.errstate(all="ignore"):
        return boxes / factors if divide else boxes * factors


def _normalize(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("NormalizeBBox", inputs, attrs)
    call.require_inputs()
    boxes, hw = call.input(0), call.input(1)
    call.require_dtype(0, boxes.dtype)
    call.require_dtype(1, hw.dtype)
    if hw.ndim != 2 or hw.shape[1] < 2 or boxes.ndim < 1 or hw.shape[0] != boxes.shape[0]:
        raise call.fail(f"input {call.quoted(1)} must have shape (batch, 3) with the batch of {call.quoted(0)}, got "
                        f"{list(hw.shape)}")
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, boxes.dtype)
    return [out.emit(0, _scale_boxes(call, boxes, hw[:, 0], hw[:, 1], True))]


def _to_absolute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("ToAbsoluteBBox", inputs, attrs)
    call.require_inputs()
    boxes, hw = call.input(0), call.input(1)
    call.require_dtype(0, boxes.dtype)
    call.require_dtype(1, hw.dtype)
    if hw.size != 4:
        raise call.fail(f"input {call.quoted(1)} must hold 4 values [N, H, W, C], got shape {list(hw.shape)}")
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, boxes.dtype)
    flat = hw.reshape(-1)
    batch = boxes.shape[0] if boxes.ndim else 0
    return [out.emit(0, _scale_boxes(call, boxes, np.full(batch, flat[1]), np.full(batch, flat[2]), False))]


def _decode_v2(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    call, codes, anchors = _same_typed_pair("DecodeBboxV2", inputs, attrs)
    by_rows = call.attr_bool("reversed_box")
    axis = 0 if by_rows else 1
    for index, array in ((0, codes), (1, anchors)):
        if array.ndim != 2 or array.shape[axis] != 4:
            layout = "(4, N)" if by_rows else "(N, 4)"
            raise call.fail(f"input {call.quoted(index)} must have shape {layout}, got {list(array.shape)}")
    scales, clip = call.attr_list_float("scales"), call.attr_float("decode_clip")
    if len(scales) != 4:
        raise call.fail(f"attr 'scales' must hold 4 values, got {scales}")
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, codes.dtype)
    t = codes.dtype.type
    rows, corners = (codes, anchors) if by_rows else (codes.T, anchors.T)
    with np.errstate(all="ignore"):
        ty, tx, th, tw = (row * t(1 / s) if s != 1.0 else row for row, s in zip(rows, scales))
        if clip != 0.0:
            th, tw = np.minimum(th, t(clip)), np.minimum(tw, t(clip))
        height, width = corners[2] - corners[0], corners[3] - corners[1]
        centre_y = ty * height + corners[0] + height * t(0.5)
        centre_x = tx * width + corners[1] + width * t(0.5)
        half_h, half_w = np.exp(th) * height * t(0.5), np.exp(tw) * width * t(0.5)
        decoded = np.stack([centre_y - half_h, centre_x - half_w, centre_y + half_h, centre_x + half_w])
    return [out.emit(0, (decoded if by_rows else decoded.T).astype(codes.dtype))]


def _yolo_encode(inputs: list[np.ndarray | None], attrs: dict[str, Any],
                 outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("YoloBoxesEncode", inputs, attrs)
    call.require_inputs()
    anchors, truth, stride = call.input(0), call.input(1), call.input(2)
    for index, array in enumerate((anchors, truth, stride)):
        call.require_dtype(index, array.dtype)
    call.require_same_dtype([0, 1], [anchors.dtype, truth.dtype])
    for index, boxes in ((0, anchors), (1, truth)):
        if boxes.ndim != 2 or boxes.shape[1] != 4 or boxes.shape[0] != stride.size:
            raise call.fail(f"input {call.quoted(index)} must have shape (N, 4) with N the size of {call.quoted(2)} "
                            f"({stride.size}), got {list(boxes.shape)}")
    call.attr_str("performance_mode")
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 0, anchors.dtype)
    f32 = np.float32
    a, g = _corners(anchors.astype(f32).T, False), _corners(truth.astype(f32).T, False)
    steps = stride.reshape(-1).astype(f32)
    eps, half = f32(1e-6), f32(0.5)
    with np.errstate(all="ignore"):
        offsets = [((g.x0 + g.x1) * half - (a.x0 + a.x1) * half) / steps + half,
                   ((g.y0 + g.y1) * half - (a.y0 + a.y1) * half) / steps + half]
        parts = [np.minimum(np.maximum(o, eps), f32(1) - eps) for o in offsets] + [
                 np.log(np.maximum((g.x1 - g.x0) / (a.x1 - a.x0), eps)),
                 np.log(np.maximum((g.y1 - g.y0) / (a.y1 - a.y0), eps))]
    return [out.emit(0, np.stack(parts, axis=-1).astype(anchors.dtype))]


def _yolox_decode(inputs: list[np.ndarray | None], attrs: dict[str, Any],
                  outputs: list[TensorInfo]) -> list[np.ndarray]:
    call, priors, deltas = _same_typed_pair("YoloxBoundingBoxDecode", inputs, attrs)
    if priors.ndim != 2 or priors.shape[1] != 4 or deltas.ndim != 3 or deltas.shape[1:] != priors.shape:
        raise call.fail(f"inputs {call.quoted(0)} and {call.quoted(1)} must have shapes (N, 4) and (B, N, 4), got "
                        f"{list(priors.shape)} and {list(deltas.shape)}")
    out = Outputs(call, outputs)
    out.require_input_dtype(0, 1, deltas.dtype)
    with np.errstate(all="ignore"):
        centre = deltas[..., :2] * priors[:, 2:] + priors[:, :2]
        half_size = np.exp(deltas[..., 2:]) * priors[:, 2:] * deltas.dtype.type(0.5)
        y = np.concatenate([centre - half_size, centre + half_size], axis=-1)
    return [out.emit(0, y.astype(deltas.dtype))]


def _feature_map(call: OpCall) -> tuple[int, int, int, int, int]:
    """featmap_size [H, W], strides [x, y] and num_base_anchors, checked."""
    size, strides = call.attr_list_int("featmap_size", required=True), call.attr_list_int("strides", required=True)
    anchors = call.attr_int("num_base_anchors", required=True)
    if len(size) != 2 or len(strides) != 2 or min(size + strides) <= 0 or anchors <= 0:
        raise call.fail(f"attrs 'featmap_size' and 'strides' must hold 2 positive values and 'num_base_anchors' be "
                        f"positive, got {size}, {strides} and {anchors}")
    return size[0], size[1], strides[0], strides[1], anchors


def _anchor_flags(inputs: list[np.ndarray | None], attrs: dict[str, Any],
                  outputs: list[TensorInfo]) -> list[np.ndarray]:
    call = OpCall("AnchorResponseFlags", inputs, attrs)
    call.require_inputs()
    boxes = call.input(0)
    call.require_dtype(0, boxes.dtype)
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise call.fail(f"input {call.quoted(0)} must have shape (N, 4), got {list(boxes.shape)}")
    height, width, stride_x, stride_y, anchors = _feature_map(call)
    out = Outputs(call, outputs)
    out.require_dtype(0, np.dtype(np.uint8), "uint8, the only type of flags")
    f32 = np.float32
    column = np.floor((boxes[:, 0] + boxes[:, 2]) * f32(0.5 / stride_x)).astype(np.int64)
    row = np.floor((boxes[:, 1] + boxes[:, 3]) * f32(0.5 / stride_y)).astype(np.int64)
    cells = row * width + column
    if np.any((cells < -height * width) | (cells >= height * width)):
        raise call.fail(f"a box centre falls outside the {height} x {width} feature map")
    flags = np.zeros((height * width, anchors), dtype=np.uint8)
    flags[cells] = 1
    return [out.emit(0, flags.reshape(-1))]


def _anchor_flags_infer(inputs: list[TensorInfo], values: list[np.ndarray | None],
                        attrs: dict[str, Any]) -> list[InferredShape]:
    call = OpCall("AnchorResponseFlags", inputs, attrs)
    call.require_inputs()
    height, width, _, _, anchors = _feature_map(call)
    return [inferred(call.output_types(0)[0], (height * width * anchors,))]


builtin("Iou", _iou, _pair_infer("Iou", False, 1))
builtin("GIoU", _giou, _pair_infer("GIoU", False, 1))
builtin("DIoU", _diou, _pair_infer("DIoU", True, 1))
builtin("CIoU", _ciou, _pair_infer("CIoU", True, 2))
builtin("BoundingBoxEncode", _encode, like_input("BoundingBoxEncode"))
builtin("ClipBoxesD", _clip, like_input("ClipBoxesD"))
builtin("NormalizeBBox", _normalize, like_input("NormalizeBBox"))
builtin("ToAbsoluteBBox", _to_absolute, like_input("ToAbsoluteBBox"))
builtin("DecodeBboxV2", _decode_v2, like_input("DecodeBboxV2"))
builtin("YoloBoxesEncode", _yolo_encode, like_input("YoloBoxesEncode"))
builtin("YoloxBoundingBoxDecode", _yolox_decode, like_input("YoloxBoundingBoxDecode", 1))
builtin("AnchorResponseFlags", _anchor_flags, _anchor_flags_infer)
