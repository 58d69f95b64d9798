"""Named injected faults: realistic driver/runtime defects and tolerable deviations, off unless a setting names them."""

from __future__ import annotations

from dataclasses import dataclass

from aclcts.sim import core

FAULT = "fault"
DEVIATION = "deviation"


@dataclass(frozen=True)
class Injection:
    """One named injection: the real defect (or tolerable deviation) it models and its kind."""

    name: str
    kind: str
    description: str


_ENTRIES = (
    Injection("memcpy_one_byte_short", FAULT,
              "acl.rt.memcpy copies count - 1 bytes (an off-by-one in the copy length)"),
    Injection("memcpy_async_one_byte_short", FAULT,
              "acl.rt.memcpy_async host-to-device copies count - 1 bytes (off-by-one in the DMA descriptor)"),
    Injection("gemm_ignores_beta", FAULT,
              "GEMM (acl.blas.gemm_ex, hgemm, ...) treats beta as 0, dropping beta * C"),
    Injection("matmul_ignores_transpose", FAULT,
              "MatMul/GEMM ignore the transpose flags and read a transposed operand's memory as if untransposed"),
    Injection("cast_truncates_to_float16", FAULT,
              "Cast float32 -> float16 rounds toward zero instead of to nearest even"),
    Injection("broadcast_wrong_axis", FAULT,
              "elementwise binary ops repeat a broadcast input along the wrong axis"),
    Injection("malloc_size_zero_succeeds", FAULT,
              "acl.rt.malloc of size 0 returns a pointer and 0 instead of 100000"),
    Injection("unmatched_op_wrong_code", FAULT,
              "execute with no matching op model returns 100020 (op type not match) instead of 100024"),
    Injection("memcpy_null_code_swapped", FAULT,
              "acl.rt.memcpy with a null dst or src returns 107000 (rt param invalid) instead of 100000"),
    Injection("destroy_handle_leaks_memory", FAULT,
              "acl.op.destroy_handle does not release the handle's device workspace (visible in get_mem_info)"),
    Injection("destroy_handle_keeps_object", FAULT,
              "acl.op.destroy_handle returns but the handle object stays alive (never released)"),
    Injection("async_h2d_lands_late", FAULT,
              "memcpy_async host-to-device lands after work queued behind it on the stream (ordering broken)"),
    Injection("synchronize_stream_no_drain", FAULT,
              "acl.rt.synchronize_stream returns 0 without waiting for the stream's queued work"),
    Injection("work_on_default_stream", FAULT,
              "work given an explicit stream is queued on the context's default stream instead"),
    Injection("infer_shape_ranges_narrowed", FAULT,
              "acl.op.infer_shape writes output dim ranges narrowed to their lower bound"),
    Injection("no_output_shape_write_back", FAULT,
              "execute_v2 of a dynamic-shape model does not write the real output dims back into the output desc"),
    Injection("bf16_size_wrong", FAULT,
              "acl.data_type_size(ACL_BF16) and bf16 desc sizes use 4 bytes per element (bf16 treated as float)"),
    Injection("model_dir_no_recurse", FAULT,
              "acl.op.set_model_dir loads only the folder's own *.om files, not its subfolders"),
    Injection("model_dir_repeat_accepted", FAULT,
              "a second acl.op.set_model_dir is accepted (0, models loaded) instead of returning 100002"),
    Injection("transcendental_float32_one_ulp", DEVIATION,
              "float32 Exp, Log, Tanh and Sigmoid are 1 ulp off (away from zero) on every third element"),
    Injection("matmul_reversed_accumulation", DEVIATION,
              "floating-point MatMul/GEMM accumulate the K products in reverse order (last-bit differences)"),
    Injection("reduce_sequential_sum", DEVIATION,
              "floating-point ReduceSum/ReduceMean add left to right instead of in a pairwise tree"),
)

#: Every injection by name.
REGISTRY: dict[str, Injection] = {entry.name: entry for entry in _ENTRIES}


def names(kind: str | None = None) -> tuple[str, ...]:
    """Names of all injections, or of one kind ("fault" or "deviation"), in registry order."""
    return tuple(e.name for e in _ENTRIES if kind is None or e.kind == kind)


def validate(requested: frozenset[str]) -> frozenset[str]:
    """Return requested if every name is known, else raise ValueError listing the known names."""
    unknown = sorted(requested - REGISTRY.keys())
    if unknown:
        raise ValueError(f"unknown fault name(s) {', '.join(unknown)}; known: {', '.join(names())}")
    return requested


def active(name: str) -> bool:
    """Whether the named injection is switched on in the current simulated process."""
    return name in core.STATE.settings.faults
