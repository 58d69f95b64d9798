"""Detection references: box overlaps (Iou, GIoU, DIoU, CIoU), BoundingBoxEncode and box coordinate scaling.

Written from the operators' documentation (records: aclcts/core/prototypes/detection.py): IoU = |A n B| / |A u B|
(iof: |A n B| / |B|, B the ground truth); GIoU = IoU - (|C| - |A u B|) / |C| with C the smallest enclosing box;
DIoU = IoU - d^2 / c^2 with d the distance of the centres and c the diagonal of C; CIoU = DIoU - alpha v with
v = 4 / pi^2 (atan(w_gt / h_gt) - atan(w / h))^2 and alpha = v / (1 - IoU + v). Everything in float64, rounded once.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from aclcts.reference.base import InputError, RefOp, define
from aclcts.reference.numeric import round_to, widen


class Boxes(NamedTuple):
    """Corner coordinates of a set of boxes, each an array of the same shape."""

    left: np.ndarray
    top: np.ndarray
    right: np.ndarray
    bottom: np.ndarray

    @property
    def width(self) -> np.ndarray:
        """right - left."""
        return self.right - self.left

    @property
    def height(self) -> np.ndarray:
        """bottom - top."""
        return self.bottom - self.top


def _boxes(columns: np.ndarray, centred: bool) -> Boxes:
    """Boxes from four rows of values: [x1, y1, x2, y2], or [x, y, w, h] when centred."""
    a, b, c, d = (widen(columns[i]).astype(np.float64) for i in range(4))
    if centred:
        return Boxes(a - c / 2, b - d / 2, a + c / 2, b + d / 2)
    return Boxes(a, b, c, d)


def _rows_of(xs: list[Any], index: int) -> np.ndarray:
    """The four coordinate rows of input index, a (N, 4) box tensor."""
    x = xs[index]
    if x.ndim != 2 or x.shape[1] != 4:
        raise InputError(index, lambda name: f"{name} must have shape (N, 4), got {list(x.shape)}")
    return x.T


def _columns_of(xs: list[Any], index: int) -> np.ndarray:
    """The four coordinate rows of input index, a (4, N) box tensor."""
    x = xs[index]
    if x.ndim != 2 or x.shape[0] != 4:
        raise InputError(index, lambda name: f"{name} must have shape (4, N), got {list(x.shape)}")
    return x


def _pairs(boxes: Boxes, gt: Boxes, cross: bool) -> tuple[Boxes, Boxes]:
    """Both sets broadcast to the output's [M, N] (cross) or [1, N] (element by element)."""
    if cross:
        return (Boxes(*(c[None, :] for c in boxes)), Boxes(*(c[:, None] for c in gt)))
    if boxes.left.shape != gt.left.shape:
        raise InputError((0, 1), lambda first, second: f"with is_cross false {first} and {second} must hold as many "
                                                       f"boxes, got {boxes.left.size} and {gt.left.size}")
    return (Boxes(*(c[None, :] for c in boxes)), Boxes(*(c[None, :] for c in gt)))


def _overlap(a: Boxes, b: Boxes, offset: float = 0.0) -> np.ndarray:
    """Area of the intersection (0 where the boxes are apart), widths taken + offset."""
    w = np.maximum(np.minimum(a.right, b.right) - np.maximum(a.left, b.left) + offset, 0.0)
    h = np.maximum(np.minimum(a.bottom, b.bottom) - np.maximum(a.top, b.top) + offset, 0.0)
    return w * h


def _enclosing(a: Boxes, b: Boxes) -> Boxes:
    """The smallest box holding both."""
    return Boxes(np.minimum(a.left, b.left), np.minimum(a.top, b.top), np.maximum(a.right, b.right),
                 np.maximum(a.bottom, b.bottom))


def _ratio_parts(a: Boxes, b: Boxes, mode: str) -> tuple[np.ndarray, np.ndarray]:
    """(IoU or IoF, the denominator: union or the ground-truth area) of boxes a against ground truth b."""
    inter = _overlap(a, b)
    gt_area = b.width * b.height
    if mode == "iof":
        return inter / gt_area, gt_area
    if mode != "iou":
        raise ValueError(f"mode must be 'iou' or 'iof', got {mode!r}")
    union = a.width * a.height + gt_area - inter
    return inter / union, union


def _centre_term(a: Boxes, b: Boxes) -> np.ndarray:
    """Squared distance of the centres over the squared diagonal of the enclosing box."""
    outer = _enclosing(a, b)
    dx = (a.left + a.right - b.left - b.right) / 2
    dy = (a.top + a.bottom - b.top - b.bottom) / 2
    return (dx ** 2 + dy ** 2) / (outer.width ** 2 + outer.height ** 2)


def _iou(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    boxes = _boxes(_rows_of(xs, 0), False)
    gt = _boxes(_rows_of(xs, 1), False)
    a, b = _pairs(boxes, gt, True)
    eps, mode = float(attrs["eps"]), attrs["mode"]
    # eps >= 1: the +1 pixel convention everywhere; below 1, eps widens each box (not the intersection)
    offset, inter_offset = (1.0, 1.0) if eps >= 1.0 else (eps, 0.0)
    inter = _overlap(a, b, inter_offset)
    gt_area = (b.width + offset) * (b.height + offset)
    if mode == "iof":
        return [round_to(inter / gt_area, out[0])]
    if mode != "iou":
        raise ValueError(f"mode must be 'iou' or 'iof', got {mode!r}")
    union = (a.width + offset) * (a.height + offset) + gt_area - inter
    return [round_to(inter / union, out[0])]


def _giou(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    centred = bool(attrs["trans"])
    a, b = _pairs(_boxes(_rows_of(xs, 0), centred), _boxes(_rows_of(xs, 1), centred),
                  bool(attrs["is_cross"]))
    ratio, denominator = _ratio_parts(a, b, attrs["mode"])
    outer = _enclosing(a, b)
    outer_area = outer.width * outer.height
    return [round_to(ratio - (outer_area - denominator) / outer_area, out[0])]


def _pairwise(xs: list[Any], attrs: dict[str, Any]) -> tuple[Boxes, Boxes]:
    if attrs["is_cross"]:
        raise ValueError("is_cross true is not supported (the operator computes box pairs only)")
    centred = bool(attrs["trans"])
    return _pairs(_boxes(_columns_of(xs, 0), centred), _boxes(_columns_of(xs, 1), centred),
                  False)


def _diou(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    a, b = _pairwise(xs, attrs)
    ratio, _ = _ratio_parts(a, b, attrs["mode"])
    return [round_to(ratio - _centre_term(a, b), out[0])]


def _ciou(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    a, b = _pairwise(xs, attrs)
    ratio, _ = _ratio_parts(a, b, attrs["mode"])
    angle = np.arctan(b.width / b.height) - np.arctan(a.width / a.height)
    v = 4 / np.pi ** 2 * angle ** 2
    alpha = v / (1 - ratio + v)
    return [round_to(ratio - _centre_term(a, b) - alpha * v, out[0]), round_to(angle, out[1])]


def _pair_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    boxes, gt = shapes[0], shapes[1]
    if len(boxes) != 2 or len(gt) != 2:
        raise InputError((0, 1), lambda first, second: f"{first} and {second} must be 2-D, got {list(boxes)} and "
                                                       f"{list(gt)}")
    return [(gt[0], boxes[0]) if attrs.get("is_cross", True) else (1, boxes[0])]


def _column_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    boxes = shapes[0]
    if len(boxes) != 2 or boxes[0] != 4:
        raise InputError(0, lambda name: f"{name} must have shape (4, N), got {list(boxes)}")
    return [(1, boxes[1])] * (2 if "atan_sub_flag" in attrs else 1)


def _encode(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    anchors, truth = widen(xs[0]).astype(np.float64), widen(xs[1]).astype(np.float64)
    if anchors.shape != truth.shape or anchors.shape[-1:] != (4,):
        raise InputError((0, 1), lambda first, second: f"{first} and {second} must have one shape ending in 4, got "
                                                       f"{list(anchors.shape)} and {list(truth.shape)}")
    means, stds = (np.asarray(attrs[k], dtype=np.float64) for k in ("means", "stds"))
    if means.shape != (4,) or stds.shape != (4,):
        raise ValueError(f"means and stds must hold 4 values, got {list(means)} and {list(stds)}")
    a, g = _boxes(np.moveaxis(anchors, -1, 0), False), _boxes(np.moveaxis(truth, -1, 0), False)
    aw, ah, gw, gh = a.width + 1, a.height + 1, g.width + 1, g.height + 1
    deltas = np.stack([((g.left + g.right) - (a.left + a.right)) / 2 / aw,
                       ((g.top + g.bottom) - (a.top + a.bottom)) / 2 / ah,
                       np.log(gw / aw), np.log(gh / ah)], axis=-1)
    return [round_to((deltas - means) / stds, out[0])]


def _clip(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    boxes = widen(xs[0]).astype(np.float64)
    size = [int(v) for v in attrs["img_size"]]
    if len(size) != 2:
        raise ValueError(f"img_size must be [H, W], got {size}")
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise InputError(0, lambda name: f"{name} must have shape (N, 4), got {list(boxes.shape)}")
    height, width = size
    limits = np.array([width, height, width, height], dtype=np.float64)
    return [round_to(np.minimum(np.maximum(boxes, 0.0), limits), out[0])]


def _by_image_size(boxes: np.ndarray, heights: np.ndarray, widths: np.ndarray, reversed_box: bool,
                   divide: bool) -> np.ndarray:
    """Boxes [y1, x1, y2, x2] of each image (batch first) divided or multiplied by its height and width."""
    if boxes.ndim != 3 or (boxes.shape[1] if reversed_box else boxes.shape[2]) != 4:
        layout = "(batch, 4, N)" if reversed_box else "(batch, N, 4)"
        raise InputError(0, lambda name: f"{name} must have shape {layout}, got {list(boxes.shape)}")
    scale = np.stack([heights, widths, heights, widths], axis=-1)[:, None, :]  # (batch, 1, 4)
    if reversed_box:
        scale = np.swapaxes(scale, 1, 2)
    return boxes / scale if divide else boxes * scale


def _normalize(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    boxes, hw = widen(xs[0]).astype(np.float64), widen(xs[1]).astype(np.float64)
    if hw.ndim != 2 or hw.shape[1] < 2 or hw.shape[0] != boxes.shape[0]:
        raise InputError(1, lambda name: f"{name} must have shape (batch, 3) with batch {boxes.shape[0]}, got "
                                         f"{list(hw.shape)}")
    return [round_to(_by_image_size(boxes, hw[:, 0], hw[:, 1], bool(attrs["reversed_box"]), True), out[0])]


def _to_absolute(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    boxes, hw = widen(xs[0]).astype(np.float64), widen(xs[1]).astype(np.float64).reshape(-1)
    if hw.size != 4:
        raise InputError(1, lambda name: f"{name} must hold 4 values [N, H, W, C], got {hw.size}")
    heights, widths = np.full(boxes.shape[0], hw[1]), np.full(boxes.shape[0], hw[2])
    return [round_to(_by_image_size(boxes, heights, widths, bool(attrs["reversed_box"]), False), out[0])]


def _decode_v2(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    codes, anchors = (widen(x).astype(np.float64) for x in xs[:2])
    by_rows = bool(attrs["reversed_box"])
    axis = 0 if by_rows else 1
    for index, array in ((0, codes), (1, anchors)):
        if array.ndim != 2 or array.shape[axis] != 4:
            layout = "(4, N)" if by_rows else "(N, 4)"
            raise InputError(index, lambda name: f"{name} must have shape {layout}, got {list(array.shape)}")
    ty, tx, th, tw = (row / float(scale) for row, scale in zip(codes if by_rows else codes.T, attrs["scales"]))
    clip = float(attrs["decode_clip"])
    if clip != 0.0:
        th, tw = np.minimum(th, clip), np.minimum(tw, clip)
    ymin, xmin, ymax, xmax = anchors if by_rows else anchors.T
    height, width = ymax - ymin, xmax - xmin
    centre_y, centre_x = ty * height + ymin + height / 2, tx * width + xmin + width / 2
    half_h, half_w = np.exp(th) * height / 2, np.exp(tw) * width / 2
    decoded = np.stack([centre_y - half_h, centre_x - half_w, centre_y + half_h, centre_x + half_w])
    return [round_to(decoded if by_rows else decoded.T, out[0])]


def _yolo_encode(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    anchors, truth = (widen(x).astype(np.float64) for x in xs[:2])
    stride = widen(xs[2]).astype(np.float64).reshape(-1)
    for index, boxes in ((0, anchors), (1, truth)):
        if boxes.ndim != 2 or boxes.shape[1] != 4 or boxes.shape[0] != stride.size:
            raise InputError(index, lambda name: f"{name} must have shape (N, 4) with N the stride count "
                                                 f"{stride.size}, got {list(boxes.shape)}")
    a, g = _boxes(anchors.T, False), _boxes(truth.T, False)
    eps = 1e-6
    centre_x = np.clip(((g.left + g.right) - (a.left + a.right)) / 2 / stride + 0.5, eps, 1 - eps)
    centre_y = np.clip(((g.top + g.bottom) - (a.top + a.bottom)) / 2 / stride + 0.5, eps, 1 - eps)
    width = np.log(np.maximum(g.width / a.width, eps))
    height = np.log(np.maximum(g.height / a.height, eps))
    return [round_to(np.stack([centre_x, centre_y, width, height], axis=-1), out[0])]


def _yolox_decode(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    priors, deltas = (widen(x).astype(np.float64) for x in xs[:2])
    if priors.ndim != 2 or priors.shape[1] != 4 or deltas.ndim != 3 or deltas.shape[1:] != priors.shape:
        raise InputError((0, 1), lambda first, second: f"{first} must have shape (N, 4) and {second} (B, N, 4), got "
                                                       f"{list(priors.shape)} and {list(deltas.shape)}")
    centre = deltas[..., :2] * priors[:, 2:] + priors[:, :2]
    size = np.exp(deltas[..., 2:]) * priors[:, 2:]
    return [round_to(np.concatenate([centre - size / 2, centre + size / 2], axis=-1), out[0])]


def _anchor_flags(xs: list[Any], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    boxes = widen(xs[0]).astype(np.float64)
    height, width = (int(v) for v in attrs["featmap_size"])
    stride_x, stride_y = (int(v) for v in attrs["strides"])
    anchors = int(attrs["num_base_anchors"])
    flags = np.zeros((height * width, anchors))
    for left, top, right, bottom in boxes:
        cell = int(np.floor((top + bottom) / 2 / stride_y)) * width + int(np.floor((left + right) / 2 / stride_x))
        if not -height * width <= cell < height * width:
            raise ValueError(f"a box centre falls in grid cell {cell}, outside the {height} x {width} feature map")
        flags[cell] = 1
    return [round_to(flags.reshape(-1), out[0])]


def _anchor_flags_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    if len(shapes[0]) != 2 or shapes[0][1] != 4:
        raise InputError(0, lambda name: f"{name} must have shape (N, 4), got {list(shapes[0])}")
    size = [int(v) for v in attrs["featmap_size"]]
    if len(size) != 2 or len(attrs["strides"]) != 2:
        raise ValueError(f"featmap_size and strides must hold 2 values, got {size} and {list(attrs['strides'])}")
    return [(size[0] * size[1] * int(attrs["num_base_anchors"]),)]


def _first_shape(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    return [tuple(shapes[0])]


OPS: tuple[RefOp, ...] = (
    define("Iou", _iou, _pair_shape),
    define("GIoU", _giou, _pair_shape),
    define("DIoU", _diou, _column_shape),
    define("CIoU", _ciou, _column_shape),
    define("BoundingBoxEncode", _encode, _first_shape),
    define("ClipBoxesD", _clip, _first_shape),
    define("NormalizeBBox", _normalize, _first_shape),
    define("ToAbsoluteBBox", _to_absolute, _first_shape),
    define("DecodeBboxV2", _decode_v2, _first_shape),
    define("YoloBoxesEncode", _yolo_encode, _first_shape),
    define("YoloxBoundingBoxDecode", _yolox_decode, lambda shapes, values, attrs: [tuple(shapes[1])]),
    define("AnchorResponseFlags", _anchor_flags, _anchor_flags_shape),
)
