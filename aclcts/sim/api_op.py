"""acl.op model loading and execution: set_model_dir, load, execute_v2, handles, infer_shape, cast
(docs/contract/op-load-execute.md, docs/contract/handles-blas-cast.md)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from aclcts.core.constants import ErrorCode
from aclcts.core.dtypes import has_numpy_dtype, numpy_dtype
from aclcts.core.opmodel import Attr, ModelFormatError
from aclcts.sim import core
from aclcts.sim.api_attr import attr as attr_object
from aclcts.sim.api_stream import resolve_stream
from aclcts.sim.api_tensor import DataBuffer, TensorDesc, buffer, desc
from aclcts.sim.binding import require_int_list, require_list
from aclcts.sim.core import INVALID_PARAM, OK, export, fail, not_initialized, reject
from aclcts.sim.errors import SimMisuseError
from aclcts.sim.kernels import InferredShape, Kernel, KernelError, TensorInfo, get_kernel
from aclcts.sim.launch import (
    find_model,
    gather_inputs,
    gather_outputs,
    host_inputs,
    launch,
    no_match_code,
    registry,
)
from aclcts.sim.memory import read_bytes
from aclcts.sim.models import LoadedModel
from aclcts.sim.seams import Seam
from aclcts.sim.state import SimState

REPEAT_INITIALIZE = int(ErrorCode.ACL_ERROR_REPEAT_INITIALIZE)
READ_MODEL_FAILURE = int(ErrorCode.ACL_ERROR_READ_MODEL_FAILURE)
API_NOT_SUPPORT = int(ErrorCode.ACL_ERROR_API_NOT_SUPPORT)
INPUT_NOT_MATCH = int(ErrorCode.ACL_ERROR_OP_INPUT_NOT_MATCH)
OUTPUT_NOT_MATCH = int(ErrorCode.ACL_ERROR_OP_OUTPUT_NOT_MATCH)
UNSUPPORTED_DYNAMIC = int(ErrorCode.ACL_ERROR_OP_UNSUPPORTED_DYNAMIC)
GE_FAILURE = int(ErrorCode.ACL_ERROR_GE_FAILURE)
INVALID_OPP_PATH = int(ErrorCode.ACL_ERROR_INVALID_OPP_PATH)
BIN_SELECTOR_ALREADY_REGISTERED = int(ErrorCode.ACL_ERROR_BIN_SELECTOR_ALREADY_REGISTERED)
_EXEC_LISTS = "argument 2, 3, 4, or 5 is not list"
_NOT_INT = "the list argument is not list of int"


@export("op", "set_model_dir", "s")
def set_model_dir(model_dir: str) -> int:
    """aclopSetModelDir: load every *.om up to 3 levels deep; only one successful call per process."""
    api = "acl.op.set_model_dir"
    code = not_initialized(api)
    if code:
        return code
    models = registry()
    if models.model_dir_set:
        code = reject("acl.op.set_model_dir repeated", REPEAT_INITIALIZE, f"{api}: repeatedly set model dir")
        if code:
            return code
    root = os.path.realpath(model_dir)
    if not model_dir or not os.path.isdir(root):
        return fail(READ_MODEL_FAILURE, f"{api}: cannot resolve model dir {model_dir!r}")
    models.model_dir_set = True
    loaded, skipped = models.load_dir(root)
    if skipped:
        core.STATE.set_error(f"{api}: skipped {len(skipped)} file(s): " + "; ".join(skipped))
    return OK


@export("op", "load", "kk")
def load(model_ptr: int, model_size: int) -> int:
    """aclopLoad: copy one model image from memory and register it."""
    api = "acl.op.load"
    code = not_initialized(api)
    if code:
        return code
    if model_ptr == 0 or model_size == 0:
        return fail(INVALID_PARAM, f"{api}: {'model pointer is null' if model_ptr == 0 else 'model size is 0'}")
    st = core.STATE
    real, _ = st.memory.resolve(api, model_ptr, model_size, "model", st.settings.run_mode == "host")
    try:
        registry().load_bytes(read_bytes(real, model_size), f"acl.op.load({model_ptr:#x}, {model_size})")
    except ModelFormatError as exc:
        return fail(exc.code, f"{api}: {exc.reason}")
    return OK


def _attrs(handle: int, api: str) -> list[Attr]:
    return list(attr_object(handle, api).values()) if handle else []


def _descs(handles: list[int], api: str) -> list[TensorDesc] | None:
    if any(h == 0 for h in handles):
        return None
    return [desc(h, api) for h in handles]


def _execute(api: str, op_type: str, in_handles: list[int], in_bufs: list[int], out_handles: list[int],
             out_bufs: list[int], attrs: list[Attr], stream_handle: int, write_back: bool) -> int:
    code = not_initialized(api)
    if code:
        return code
    if len(in_handles) != len(in_bufs) or len(out_handles) != len(out_bufs):
        return fail(INVALID_PARAM, f"{api}: {len(in_handles)} input descs for {len(in_bufs)} inputs, "
                                   f"{len(out_handles)} output descs for {len(out_bufs)} outputs")
    in_descs = _descs(in_handles, api)
    out_descs = _descs(out_handles, api)
    if in_descs is None or out_descs is None:
        return fail(INVALID_PARAM, f"{api}: a tensor desc is null")
    if out_descs and all(0 in d.dims for d in out_descs):
        return OK
    if any(b == 0 for b in in_bufs + out_bufs):
        return fail(INVALID_PARAM, f"{api}: a data buffer is null")
    inputs = [buffer(b, api) for b in in_bufs]
    outputs = [buffer(b, api) for b in out_bufs]
    if any(b.data == 0 and b.size > 0 for b in inputs + outputs):
        return fail(INVALID_PARAM, f"{api}: a data buffer has a null address and a non-zero size")
    host_data = host_inputs(api, in_descs, inputs)
    entry = find_model(op_type, in_descs, out_descs, attrs, host_data)
    if entry is None:
        return no_match_code(api, op_type, in_descs + out_descs)
    stream = resolve_stream(api, stream_handle)
    if isinstance(stream, int):
        return stream
    sources = gather_inputs(api, in_descs, inputs, host_data)
    targets = gather_outputs(api, out_descs, outputs, write_back and entry.model.is_dynamic)
    return launch(api, stream, entry, sources, targets, attrs)


def _exec_lists(*values: object) -> list[list[int]]:
    for value in values:
        require_list(value, _EXEC_LISTS)
    return [require_int_list(v, _EXEC_LISTS, _NOT_INT) for v in values]


@export("op", "execute_v2", "sOOOOkk")
def execute_v2(op_type: str, input_desc: object, inputs: object, output_desc: object, outputs: object,
               attr_handle: int, stream_handle: int) -> int:
    """aclopExecuteV2: match a loaded model and queue the op; dynamic models write the real output dims back."""
    api = "acl.op.execute_v2"
    in_d, in_b, out_d, out_b = _exec_lists(input_desc, inputs, output_desc, outputs)
    return _execute(api, op_type, in_d, in_b, out_d, out_b, _attrs(attr_handle, api), stream_handle, True)


@export("op", "execute", "sOOOOkk")
def execute(op_type: str, input_desc: object, inputs: object, output_desc: object, outputs: object,
            attr_handle: int, stream_handle: int) -> int:
    """aclopExecute (deprecated): as execute_v2 but output descs are never updated."""
    api = "acl.op.execute"
    in_d, in_b, out_d, out_b = _exec_lists(input_desc, inputs, output_desc, outputs)
    return _execute(api, op_type, in_d, in_b, out_d, out_b, _attrs(attr_handle, api), stream_handle, False)


@dataclass(eq=False)
class OpHandle:
    """What an aclopHandle caches: the matched model and copies of the descs it was created with."""

    op_type: str
    entry: LoadedModel
    in_descs: list[TensorDesc]
    out_descs: list[TensorDesc]
    attrs: list[Attr]


def _copy_desc(original: TensorDesc) -> TensorDesc:
    return TensorDesc(original.dtype, original.format, list(original.dims), original.storage_format,
                      None if original.storage_dims is None else list(original.storage_dims),
                      list(original.shape_range), list(original.value_range), original.name,
                      original.const_data, original.memtype, original.dynamic_input)


def make_handle(api: str, op_type: str, in_handles: list[int], out_handles: list[int], attrs: list[Attr]) -> tuple[int, int]:
    """Match now and return (handle, ret) for create_handle and its packaged forms."""
    code = not_initialized(api)
    if code:
        return 0, code
    in_descs = _descs(in_handles, api)
    out_descs = _descs(out_handles, api)
    if in_descs is None or out_descs is None:
        return 0, fail(INVALID_PARAM, f"{api}: a tensor desc is null")
    if any(d.memtype and d.const_data is None for d in in_descs + out_descs):
        return 0, fail(API_NOT_SUPPORT, f"{api}: host-placed non-const tensors are not supported in handle mode")
    entry = find_model(op_type, in_descs, out_descs, attrs, {})
    if entry is None:
        return 0, no_match_code(api, op_type, in_descs + out_descs)
    if entry.model.is_dynamic:
        return 0, fail(UNSUPPORTED_DYNAMIC, f"{api}: {op_type} matched only a dynamic-shape model; handle mode "
                                            "does not support dynamic-shape operators (use execute_v2)")
    handle = OpHandle(op_type, entry, [_copy_desc(d) for d in in_descs], [_copy_desc(d) for d in out_descs], attrs)
    return core.STATE.register("handle", handle, api), OK


@export("op", "create_handle", "sOOk")
def create_handle(op_type: str, input_desc: object, output_desc: object, attr_handle: int) -> tuple[int, int]:
    """aclopCreateHandle: the model is matched now (100024 without one)."""
    api = "acl.op.create_handle"
    in_d = require_int_list(input_desc, "argument 2 or 3 is not list", _NOT_INT)
    out_d = require_int_list(output_desc, "argument 2 or 3 is not list", _NOT_INT)
    return make_handle(api, op_type, in_d, out_d, _attrs(attr_handle, api))


@export("op", "execute_with_handle", "kOOk")
def execute_with_handle(handle: int, inputs: object, outputs: object, stream_handle: int) -> int:
    """aclopExecWithHandle: only buffer counts are checked against the handle's model."""
    api = "acl.op.execute_with_handle"
    in_b = require_int_list(inputs, "argument 2 or 3 is not list", _NOT_INT)
    out_b = require_int_list(outputs, "argument 2 or 3 is not list", _NOT_INT)
    code = not_initialized(api)
    if code:
        return code
    if handle == 0:
        return fail(INVALID_PARAM, f"{api}: handle is null")
    op = core.STATE.lookup("handle", handle, api)
    if any(b == 0 for b in in_b + out_b):
        return fail(INVALID_PARAM, f"{api}: a data buffer is null")
    in_bufs = [buffer(b, api) for b in in_b]
    out_bufs = [buffer(b, api) for b in out_b]
    if out_bufs and all(b.size == 0 for b in out_bufs):
        return OK
    if len(in_bufs) != len(op.in_descs):
        return reject(f"{api} input count", INPUT_NOT_MATCH,
                      f"{api}: {len(in_bufs)} inputs, the handle's model has {len(op.in_descs)}")
    if len(out_bufs) != len(op.out_descs):
        return fail(OUTPUT_NOT_MATCH, f"{api}: {len(out_bufs)} outputs, the handle's model has {len(op.out_descs)}")
    stream = resolve_stream(api, stream_handle)
    if isinstance(stream, int):
        return stream
    sources = gather_inputs(api, op.in_descs, in_bufs, {})
    targets = gather_outputs(api, op.out_descs, out_bufs, False)
    return launch(api, stream, op.entry, sources, targets, op.attrs)


@export("op", "destroy_handle", "k")
def destroy_handle(handle: int) -> None:
    """aclopDestroyHandle."""
    if handle:
        core.STATE.lookup("handle", handle, "acl.op.destroy_handle")
        release_handle(core.STATE, handle)


def _release_handle(state: SimState, handle: int) -> None:
    """Release an op handle and what it holds."""
    state.release(handle, "acl.op.destroy_handle")


#: The release of a destroyed op handle.
release_handle = Seam("handle release", _release_handle)


@export("op", "update_params", "sOOk")
def update_params(op_type: str, input_desc: object, output_desc: object, attr_handle: int) -> int:
    """aclopUpdateParams: accepted (the operator-selector flow is not modelled)."""
    api = "acl.op.update_params"
    require_int_list(input_desc, "argument 2 or 3 is not list", _NOT_INT)
    require_int_list(output_desc, "argument 2 or 3 is not list", _NOT_INT)
    return not_initialized(api)


@export("op", "set_max_op_queue_num", "K")
def set_max_op_queue_num(count: int) -> int:
    """aclopSetMaxOpQueueNum: 0 → 100000."""
    if count == 0:
        return fail(INVALID_PARAM, "acl.op.set_max_op_queue_num: 0 is not a valid queue size")
    return OK


@export("op", "infer_shape", "sOOiOk")
def infer_shape(op_type: str, in_desc_list: object, in_list: object, num_outputs: int, out_desc_list: object,
                attr_handle: int) -> int:
    """aclopInferShape: host-side shape inference from input descs and host data into the output descs."""
    api = "acl.op.infer_shape"
    in_d = require_int_list(in_desc_list, "argument 2, 3 or 5 is not list", _NOT_INT)
    in_b = require_int_list(in_list, "argument 2, 3 or 5 is not list", _NOT_INT)
    out_d = require_int_list(out_desc_list, "argument 2, 3 or 5 is not list", _NOT_INT)
    code = not_initialized(api)
    if code:
        return code
    if core.STATE.settings.require_opp_path and not os.environ.get("ASCEND_OPP_PATH"):
        return fail(INVALID_OPP_PATH, f"{api}: ASCEND_OPP_PATH is not set (source CANN's set_env.sh)")
    if num_outputs != len(out_d) or len(in_d) < len(in_b):
        raise SimMisuseError(f"{api}: num_outputs {num_outputs} with {len(out_d)} output descs, "
                          f"{len(in_d)} input descs for {len(in_b)} inputs (the real call reads past the lists)")
    in_descs = _descs(in_d[: len(in_b)], api)
    out_descs = _descs(out_d, api)
    if in_descs is None or out_descs is None or any(b == 0 for b in in_b):
        return fail(INVALID_PARAM, f"{api}: a tensor desc or data buffer is null")
    bufs = [buffer(b, api) for b in in_b]
    st = core.STATE
    values = []
    for index, (d, b) in enumerate(zip(in_descs, bufs)):
        if b.size == 0 or b.data == 0:
            return fail(INVALID_PARAM, f"{api}: input {index} buffer is empty; infer_shape reads input data")
        values.append(_host_value(api, st, d, b, index))
    kernel = get_kernel(op_type)
    if kernel is None or kernel.infer_shape is None:
        return fail(GE_FAILURE, f"{api}: no shape function for op {op_type} in the simulator")
    infos = [TensorInfo(d.dtype, tuple(d.dims), d.format) for d in in_descs]
    try:
        inferred = infer_host_shapes(kernel, infos, values, {a.name: a.value for a in _attrs(attr_handle, api)})
    except KernelError as exc:
        return fail(GE_FAILURE, f"{api}: {op_type} shape inference failed: {exc}")
    for out, result in zip(out_descs, inferred):
        out.dtype = result.dtype
        out.format = in_descs[0].format if in_descs else out.format
        out.dims = list(result.shape)
        out.shape_range = [tuple(r) for r in result.shape_range]
    return OK


def _infer_host_shapes(kernel: Kernel, infos: list[TensorInfo], values: list[np.ndarray | None],
                       attrs: dict[str, Any]) -> list[InferredShape]:
    """The output shapes and dim ranges acl.op.infer_shape writes, from the op kernel's shape function."""
    return kernel.infer_shape(infos, values, attrs)


#: The shape inference behind acl.op.infer_shape.
infer_host_shapes = Seam("host shape inference", _infer_host_shapes)


def _host_value(api: str, st: SimState, d: TensorDesc, b: DataBuffer, index: int) -> np.ndarray | None:
    size = min(b.size, d.size()) if d.is_static() else b.size
    real, _ = st.memory.resolve(api, b.data, size, f"input {index}", st.settings.run_mode == "host")
    if not has_numpy_dtype(d.dtype) or not d.is_static():
        return None
    dtype = numpy_dtype(d.dtype)
    count = size // dtype.itemsize
    return np.frombuffer(read_bytes(real, count * dtype.itemsize), dtype).reshape(d.dims) if count == d.element_count() else None


def _cast_attrs(dst: TensorDesc, truncate: int) -> list[Attr]:
    attrs = [Attr("dst_type", "int", dst.dtype)]
    if registry().has_attr("Cast", "truncate"):
        attrs.append(Attr("truncate", "bool", truncate != 0))
    return attrs


@export("op", "cast", "kkkkBk")
def cast(src_desc: int, src_buffer: int, dst_desc: int, dst_buffer: int, truncate: int, stream_handle: int) -> int:
    """aclopCast: execute the Cast model with dst_type (and truncate if a loaded Cast model has it)."""
    api = "acl.op.cast"
    if dst_desc == 0:
        return fail(INVALID_PARAM, f"{api}: dst desc is null")
    attrs = _cast_attrs(desc(dst_desc, api), truncate)
    return _execute(api, "Cast", [src_desc], [src_buffer], [dst_desc], [dst_buffer], attrs, stream_handle, True)


@export("op", "create_handle_for_cast", "kkB")
def create_handle_for_cast(src_desc: int, dst_desc: int, truncate: int) -> tuple[int, int]:
    """aclopCreateHandleForCast: create_handle("Cast", ...) with the cast attributes."""
    api = "acl.op.create_handle_for_cast"
    if dst_desc == 0 or src_desc == 0:
        return 0, fail(INVALID_PARAM, f"{api}: a tensor desc is null")
    return make_handle(api, "Cast", [src_desc], [dst_desc], _cast_attrs(desc(dst_desc, api), truncate))


@export("op", "register_compile_func", "sO")
def register_compile_func(op_type: str, func: object) -> int:
    """aclopRegisterCompileFunc: one operator-selector callback per op type (not called by the simulator)."""
    api = "acl.op.register_compile_func"
    if not callable(func):
        raise TypeError("argument 2 must be a callback function.")  # the binding's own words
    selectors = core.STATE.extensions.setdefault("compile_funcs", {})
    if op_type in selectors:
        return fail(BIN_SELECTOR_ALREADY_REGISTERED, f"{api}: a compile function is already registered for {op_type}")
    selectors[op_type] = func
    return OK


@export("op", "unregister_compile_func", "s")
def unregister_compile_func(op_type: str) -> int:
    """aclopUnregisterCompileFunc."""
    core.STATE.extensions.setdefault("compile_funcs", {}).pop(op_type, None)
    return OK
