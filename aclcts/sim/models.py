"""The single-op model registry: loading simulator .om files and matching executions to models
(docs/contract/single-op-json.md#loading-models, #matching-and-the-wrapper-ops)."""

from __future__ import annotations

import logging
import os
from collections import OrderedDict
from dataclasses import dataclass

from aclcts.core.inputs import MAX_MODEL_BYTES, InputFileError, read_bytes
from aclcts.core.opmodel import Attr, ModelFormatError, OpModel, TensorSpec, attrs_key
from aclcts.sim.seams import Seam

log = logging.getLogger("aclcts.sim")

#: set_model_dir reads the directory itself and at most this many levels below it.
MODEL_DIR_MAX_DEPTH = 3
#: How set_model_dir walks a model folder (os.walk, top down).
walk = Seam("model dir walk", os.walk)


@dataclass(frozen=True, slots=True)
class RuntimeTensor:
    """What matching needs from one runtime tensor desc."""

    dtype: int
    format: int
    dims: tuple[int, ...]
    storage_format: int | None
    storage_dims: tuple[int, ...] | None
    shape_range: tuple[tuple[int, int], ...]
    const_data: bytes | None

    def static_key(self) -> tuple:
        """Hash key of this tensor for a static model lookup."""
        return (self.dtype, self.format, self.storage_format, self.storage_dims, self.dims, self.shape_range, self.const_data)

    def kind_key(self) -> tuple:
        """Hash key of everything but the dims, for a dynamic model lookup."""
        return (self.dtype, self.format, self.storage_format, self.const_data)


def _spec_static_key(spec: TensorSpec) -> tuple:
    return (spec.dtype, spec.format, None, None, spec.shape, (), spec.const_data if spec.is_const else None)


def _spec_kind_key(spec: TensorSpec) -> tuple:
    return (spec.dtype, spec.format, None, spec.const_data if spec.is_const else None)


@dataclass(frozen=True)
class LoadedModel:
    """One registered model and where it came from."""

    model: OpModel
    source: str


#: Decoded models kept at once; the registry itself holds only bytes and plain tuples, which the cyclic
#: garbage collector does not track, so a process with 10,000 models pays nothing for them at run time.
DECODED_CACHE = 256


def _ranges(specs: tuple[TensorSpec, ...]) -> tuple:
    return tuple((s.shape, s.shape_range) for s in specs)


def _fits_all(ranges: tuple, tensors: list[RuntimeTensor]) -> bool:
    for (shape, shape_range), tensor in zip(ranges, tensors):
        if shape == (-2,):
            continue
        dims = tensor.dims
        if len(dims) != len(shape):
            return False
        for dim, (low, high) in zip(dims, shape_range):
            if dim < low or (high != -1 and dim > high):
                return False
    return True


class ModelRegistry:
    """All models of the process (set_model_dir and load share it); lookups are hashed."""

    def __init__(self, soc_name: str | None = None, foreign_soc_models: str = "accept") -> None:
        self.soc_name, self.foreign_soc_models = soc_name, foreign_soc_models
        self.model_dir_set = False
        self.images: list[bytes] = []
        self.sources: list[str] = []
        self.static: dict[tuple, int] = {}
        self.dynamic: dict[tuple, list[tuple[int, tuple, tuple]]] = {}
        self.op_attr_names: dict[str, set[str]] = {}
        self.decoded: OrderedDict[int, LoadedModel] = OrderedDict()

    @property
    def count(self) -> int:
        """Number of registered models."""
        return len(self.images)

    def add(self, model: OpModel, source: str) -> bool:
        """Register a model; an identical description already registered wins (returns False)."""
        key_attrs = attrs_key(model.attrs)
        image = model.to_bytes()
        index = len(self.images)
        if model.is_dynamic:
            key = (model.op_type, tuple(_spec_kind_key(s) for s in model.inputs),
                   tuple(_spec_kind_key(s) for s in model.outputs), key_attrs)
            bucket = self.dynamic.setdefault(key, [])
            if any(self.images[i] == image for i, _, _ in bucket):
                return False
            bucket.append((index, _ranges(model.inputs), _ranges(model.outputs)))
        else:
            key = (model.op_type, tuple(_spec_static_key(s) for s in model.inputs),
                   tuple(_spec_static_key(s) for s in model.outputs), key_attrs)
            if key in self.static:
                return False
            self.static[key] = index
        self.images.append(image)
        self.sources.append(source)
        self.op_attr_names.setdefault(model.op_type, set()).update(a.name for a in model.attrs)
        return True

    def entry(self, index: int) -> LoadedModel:
        """The decoded model registered at index."""
        found = self.decoded.get(index)
        if found is not None:
            self.decoded.move_to_end(index)
            return found
        found = LoadedModel(OpModel.from_bytes(self.images[index]), self.sources[index])
        self.decoded[index] = found
        if len(self.decoded) > DECODED_CACHE:
            self.decoded.popitem(last=False)
        return found

    def load_bytes(self, data: bytes, source: str) -> bool:
        """Parse and register one model image; whether it was registered (a model built for another SoC is skipped
        with a log line unless foreign_soc_models is "accept"; one that names no SoC fits any). ModelFormatError if it
        is not a simulator model."""
        model = OpModel.from_bytes(data)
        foreign = bool(self.soc_name and model.soc_version) and model.soc_version != self.soc_name
        if foreign and self.foreign_soc_models == "skip":
            log.warning("%s: skipped: a model built for SoC %s, not this device's %s (it never matches)", source,
                        model.soc_version, self.soc_name)
            return False
        self.add(model, source)
        return True

    def load_dir(self, root: str) -> tuple[int, list[str]]:
        """Register every *.om under root, at most MODEL_DIR_MAX_DEPTH levels deep; return (count, skipped).

        A file that cannot be used is skipped with a warning: not a simulator model, unreadable, larger than
        MAX_MODEL_BYTES, or not a regular file (a FIFO named *.om is never opened, so it cannot block the call).
        """
        loaded, skipped = 0, []
        for folder, subfolders, files in walk(root):
            depth = os.path.relpath(folder, root).count(os.sep) + (folder != root)
            if depth >= MODEL_DIR_MAX_DEPTH - 1:
                subfolders.clear()
            subfolders.sort()
            for name in sorted(files):
                if not name.endswith(".om"):
                    continue
                path = os.path.join(folder, name)
                try:
                    loaded += self.load_bytes(read_bytes(path, "model", MAX_MODEL_BYTES), path)
                except ModelFormatError as exc:
                    self._skip(skipped, path, exc.reason)
                except InputFileError as exc:
                    self._skip(skipped, path, str(exc).removeprefix(f"{path}: "))
        return loaded, skipped

    @staticmethod
    def _skip(skipped: list[str], path: str, reason: str) -> None:
        skipped.append(f"{path}: {reason}")
        log.warning("acl.op.set_model_dir: skipped %s: %s", path, reason)

    def has_attr(self, op_type: str, name: str) -> bool:
        """Whether any loaded model of op_type carries an attribute of that name."""
        return name in self.op_attr_names.get(op_type, ())

    def match(self, op_type: str, inputs: list[RuntimeTensor], outputs: list[RuntimeTensor],
              attrs: list[Attr]) -> LoadedModel | None:
        """Static models first, then dynamic ones whose ranges contain the runtime dims (all of them static: a -1 or
        -2 left in a runtime desc matches no dynamic model, and the caller then answers 100000)."""
        key_attrs = attrs_key(attrs)
        index = self.static.get((op_type, tuple(t.static_key() for t in inputs),
                                 tuple(t.static_key() for t in outputs), key_attrs))
        if index is not None:
            return self.entry(index)
        if any(d < 0 for t in inputs + outputs for d in t.dims):
            return None  # a dynamic model takes static runtime descs only, even where its own tensor is [-2]
        bucket = self.dynamic.get((op_type, tuple(t.kind_key() for t in inputs),
                                   tuple(t.kind_key() for t in outputs), key_attrs))
        for index, in_ranges, out_ranges in bucket or ():
            if _fits_all(in_ranges, inputs) and _fits_all(out_ranges, outputs):
                return self.entry(index)
        return None
