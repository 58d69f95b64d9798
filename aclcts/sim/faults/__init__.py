"""Named injected faults: realistic driver/runtime defects and tolerable deviations, off unless a setting names them.

Each entry is applied by substituting at seams (aclcts.sim.seams): a built-in kernel registry entry, a numeric
routine, the copy routine, the error-code table, a stream's queue, an acl entry point. Simulator code calls its
seams without knowing about faults; install() puts the named entries' substitutes in and every other seam back.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from aclcts.core.constants import ErrorCode
from aclcts.core.formats import FORMAT_VALUES
from aclcts.sim import seams
from aclcts.sim.faults import activation as act
from aclcts.sim.faults import activation_grad as ag
from aclcts.sim.faults import batch_norm as bn
from aclcts.sim.faults import binary_math as bm
from aclcts.sim.faults import const_folded as cf
from aclcts.sim.faults import contract as c
from aclcts.sim.faults import conv as cv
from aclcts.sim.faults import detection as det
from aclcts.sim.faults import domains as dm
from aclcts.sim.faults import dropout as do
from aclcts.sim.faults import events as ev
from aclcts.sim.faults import gather_scatter as gs
from aclcts.sim.faults import golden_edges as g
from aclcts.sim.faults import inplace as inp
from aclcts.sim.faults import kernels as k
from aclcts.sim.faults import linalg as la
from aclcts.sim.faults import matrix_structure as ms
from aclcts.sim.faults import loss as ls
from aclcts.sim.faults import reduction as rd
from aclcts.sim.faults import reshaping as rsh
from aclcts.sim.faults import norm as nm
from aclcts.sim.faults import optimizer as opt
from aclcts.sim.faults import pooling as pl
from aclcts.sim.faults import random as rnd
from aclcts.sim.faults import sequence as seq
from aclcts.sim.faults import quantize as qz
from aclcts.sim.faults import resize as rs
from aclcts.sim.faults import runtime as r
from aclcts.sim.faults import shape as shp
from aclcts.sim.faults import sparse as sp
from aclcts.sim.faults import special_math as sm
from aclcts.sim.faults import unary_math as um
from aclcts.sim.faults import values as v
from aclcts.sim.kernels.binary_math import BINARY_MATH_OP_TYPES
from aclcts.sim.kernels.elementwise import BINARY_OP_TYPES
from aclcts.sim.kernels.logic import BINARY_LOGIC_OP_TYPES

FAULT = "fault"
DEVIATION = "deviation"
#: Seams most entries substitute at: the built-in kernel registry, the error-code table, the copy routine.
KERNELS = "built-in kernels"
ERROR_CODES = "error codes"
COPY = "copy"
PRIVATE_LAYOUT_READ = "private layout read"
OP_TYPE_NOT_MATCH = int(ErrorCode.ACL_ERROR_OP_TYPE_NOT_MATCH)
RT_PARAM_INVALID = int(ErrorCode.ACL_ERROR_RT_PARAM_INVALID)
#: Shared state of the injections whose substitutes at several seams work together.
_CALLER_DESCS = c.CallerDescs()
_RECYCLED = c.Recycled()
_EAGER = c.Eager()


@dataclass(frozen=True)
class Injection:
    """One named injection: the real defect (or tolerable deviation) it models, its kind and its substitutes.

    substitutes pairs a seam name with what replaces it; crashes says the defect kills the process (the suite
    catches it only where crashes are contained: in pytest-xdist workers or --isolate children); hangs says it
    blocks forever (the suite catches it only with a per-test timeout, --timeout); eager says queued work runs as
    soon as it is queued, so the simulator no longer declares deferred execution (aclcts.drive.backends).
    """

    name: str
    kind: str
    description: str
    substitutes: tuple[tuple[str, seams.Substitute], ...]
    crashes: bool = False
    hangs: bool = False
    eager: bool = False


_ENTRIES = (
    Injection("memcpy_one_byte_short", FAULT,
              "acl.rt.memcpy copies count - 1 bytes (an off-by-one in the copy length)",
              ((COPY, r.copy_one_byte_short("acl.rt.memcpy")),)),
    Injection("memcpy_async_one_byte_short", FAULT,
              "acl.rt.memcpy_async host-to-device copies count - 1 bytes (off-by-one in the DMA descriptor)",
              ((COPY, r.copy_one_byte_short("acl.rt.memcpy_async", r.H2D)),)),
    Injection("gemm_ignores_beta", FAULT,
              "GEMM (acl.blas.gemm_ex, hgemm, ...) treats beta as 0, dropping beta * C",
              ((KERNELS, k.kernel_entries(["GEMM"], k.gemm_ignores_beta)),)),
    Injection("matmul_ignores_transpose", FAULT,
              "MatMul/GEMM ignore the transpose flags and read a transposed operand's memory as if untransposed",
              ((KERNELS, k.matmul_ignores_transpose_everywhere),)),
    Injection("cast_truncates_to_float16", FAULT,
              "Cast float32 -> float16 rounds toward zero instead of to nearest even",
              ((KERNELS, k.kernel_entries(["Cast"], k.cast_truncates_to_float16)),)),
    Injection("broadcast_wrong_axis", FAULT,
              "elementwise binary ops repeat a broadcast input along the wrong axis",
              ((KERNELS, k.kernel_entries(BINARY_OP_TYPES + BINARY_MATH_OP_TYPES + BINARY_LOGIC_OP_TYPES,
                                          k.broadcast_wrong_axis)),)),
    Injection("malloc_size_zero_succeeds", FAULT,
              "acl.rt.malloc of size 0 returns a pointer and 0 instead of 100000",
              ((ERROR_CODES, r.check_code("acl.rt.malloc size 0", 0)),)),
    Injection("unmatched_op_wrong_code", FAULT,
              "execute with no matching op model returns 100020 (op type not match) instead of 100024",
              ((ERROR_CODES, r.check_code("no matching op model", OP_TYPE_NOT_MATCH)),)),
    Injection("memcpy_null_code_swapped", FAULT,
              "acl.rt.memcpy with a null dst or src returns 107000 (rt param invalid) instead of 100000",
              ((ERROR_CODES, r.check_code("acl.rt.memcpy null pointer", RT_PARAM_INVALID)),)),
    Injection("destroy_handle_leaks_memory", FAULT,
              "acl.op.destroy_handle does not release the handle's device workspace (visible in get_mem_info)",
              (("handle release", r.release_leaks_workspace),)),
    Injection("destroy_handle_keeps_object", FAULT,
              "acl.op.destroy_handle returns but the handle object stays alive (never released)",
              (("handle release", r.skip),)),
    Injection("async_h2d_lands_late", FAULT,
              "memcpy_async host-to-device lands after work queued behind it on the stream (ordering broken)",
              (("stream queue", r.h2d_lands_late),)),
    Injection("synchronize_stream_no_drain", FAULT,
              "acl.rt.synchronize_stream returns 0 without waiting for the stream's queued work",
              (("stream synchronisation", r.synchronize_stream_no_drain),)),
    Injection("work_on_default_stream", FAULT,
              "work given an explicit stream is queued on the context's default stream instead",
              (("stream resolution", r.work_on_default_stream),)),
    Injection("infer_shape_ranges_narrowed", FAULT,
              "acl.op.infer_shape writes output dim ranges narrowed to their lower bound",
              (("host shape inference", k.narrowed_ranges),)),
    Injection("no_output_shape_write_back", FAULT,
              "execute_v2 of a dynamic-shape model does not write the real output dims back into the output desc",
              (("output shape write-back", r.skip),)),
    Injection("bf16_size_wrong", FAULT,
              "acl.data_type_size(ACL_BF16) and bf16 desc sizes use 4 bytes per element (bf16 treated as float)",
              (("data type sizes", r.bf16_size_wrong),)),
    Injection("model_dir_no_recurse", FAULT,
              "acl.op.set_model_dir loads only the folder's own *.om files, not its subfolders",
              (("model dir walk", r.walk_top_only),)),
    Injection("model_dir_repeat_accepted", FAULT,
              "a second acl.op.set_model_dir is accepted (0, models loaded) instead of returning 100002",
              ((ERROR_CODES, r.check_code("acl.op.set_model_dir repeated", 0)),)),
    Injection("execute_overwrites_output", FAULT,
              "acl.op.execute_v2 and execute_with_handle overwrite the first byte of the first output after the op",
              (("acl.op.execute_v2", r.execute_v2_changes_output),
               ("acl.op.execute_with_handle", r.execute_with_handle_changes_output))),
    Injection("free_accepts_null", FAULT,
              "acl.rt.free(0) returns 0 instead of 100000",
              ((ERROR_CODES, r.check_code("acl.rt.free null pointer", 0)),)),
    Injection("double_free_succeeds", FAULT,
              "acl.rt.free of a pointer already freed returns 0",
              ((ERROR_CODES, r.check_code("acl.rt.free double free", 0)),)),
    Injection("double_free_crashes", FAULT,
              "a second acl.rt.free of the same pointer kills the process with SIGSEGV, as a real driver may",
              ((ERROR_CODES, r.check_crashes("acl.rt.free double free")),), crashes=True),
    Injection("handle_input_count_unchecked", FAULT,
              "acl.op.execute_with_handle with fewer or more inputs than the handle's model returns 0 and runs nothing",
              ((ERROR_CODES, r.check_code("acl.op.execute_with_handle input count", 0)),)),
    Injection("get_mem_info_frozen", FAULT,
              "acl.rt.get_mem_info reports its first answer for each attribute forever",
              (("acl.rt.get_mem_info", r.frozen_mem_info),)),
    Injection("memcpy_keeps_host_copies", FAULT,
              "every host-to-device acl.rt.memcpy keeps a host copy of the bytes it copied (a host-memory leak)",
              ((COPY, r.copy_keeps_host_bytes),)),
    Injection("dynamic_element_count_wrong", FAULT,
              "acl.get_tensor_desc_element_count with -1 dims multiplies their magnitudes instead of returning 0",
              (("acl.get_tensor_desc_element_count", r.dynamic_element_count),)),
    Injection("kernel_hangs", FAULT,
              f"the {k.HANGING_OP} kernel never finishes: the synchronisation that runs it blocks forever (a device "
              "hang)",
              ((KERNELS, k.kernel_entries([k.HANGING_OP], k.never_finishes)),), hangs=True),
    Injection("callback_before_prior_work", FAULT,
              "acl.rt.launch_callback's callback runs before the work queued ahead of it on the stream has finished",
              (("stream queue", r.callback_jumps_queue),)),
    Injection("event_elapsed_time_negative", FAULT,
              "acl.rt.event_elapsed_time measures from the end event to the start event (negative milliseconds)",
              (("acl.rt.event_elapsed_time", r.elapsed_time_reversed),)),
    Injection("event_elapsed_time_zero", FAULT,
              "acl.rt.event_elapsed_time answers 0.0 milliseconds even with work queued between the two records",
              (("acl.rt.event_elapsed_time", r.elapsed_time_zero),)),
    Injection("event_status_complete_too_early", FAULT,
              "acl.rt.query_event_status reports COMPLETE before the event's record (and the work before it) ran",
              (("acl.rt.query_event_status", r.event_status_complete_at_once),)),
    Injection("negative_index_read_as_python_index", FAULT,
              "the indexed desc getters (get_tensor_desc_dim, _dim_v2, _dim_range) read index -1 (2**64 - 1 after the "
              "binding's size_t mask) as Python indexing does, from the end, instead of rejecting it as out of range",
              tuple((f"acl.get_tensor_desc_{getter}", c.python_index) for getter in ("dim", "dim_v2", "dim_range"))),
    Injection("int64_attrs_truncated", FAULT,
              "acl.op.set_attr_int and set_attr_list_int keep only the low 32 bits of each int64 value",
              (("acl.op.set_attr_int", c.truncated_int), ("acl.op.set_attr_list_int", c.truncated_list_int))),
    Injection("handle_reads_caller_descs", FAULT,
              "an op handle keeps the caller's desc and attr handles and reads them again at every execute_with_handle "
              "instead of what create_handle read",
              (("acl.op.create_handle", _CALLER_DESCS.create_handle),
               ("acl.op.execute_with_handle", _CALLER_DESCS.execute_with_handle))),
    Injection("unrecorded_event_status_complete", FAULT,
              "acl.rt.query_event_status answers COMPLETE for an event never recorded or reset",
              (("acl.rt.query_event_status", ev.unrecorded_status_complete),)),
    Injection("record_event_completes_at_once", FAULT,
              "acl.rt.record_event marks the event complete at the call instead of when the work before it has run",
              (("acl.rt.record_event", ev.record_completes_at_once),)),
    Injection("record_event_again_ignored", FAULT,
              "acl.rt.record_event of an event already recorded returns 0 and keeps the first record",
              (("acl.rt.record_event", ev.rerecord_ignored),)),
    Injection("reset_event_ignored", FAULT,
              "acl.rt.reset_event returns 0 and leaves the event in its recorded state",
              (("acl.rt.reset_event", ev.returns_zero),)),
    Injection("stream_wait_event_ignored", FAULT,
              "acl.rt.stream_wait_event returns 0 and queues nothing: the stream does not wait for the record",
              (("acl.rt.stream_wait_event", ev.returns_zero),)),
    Injection("synchronize_event_returns_at_once", FAULT,
              "acl.rt.synchronize_event returns 0 at once without waiting for the event's record",
              (("acl.rt.synchronize_event", ev.returns_zero),)),
    Injection("stream_sync_timeout_as_success", FAULT,
              "acl.rt.synchronize_stream_with_timeout returns 0 when the time ran out with work still queued",
              (("acl.rt.synchronize_stream_with_timeout", ev.timeout_reported_as_success),)),
    Injection("recorded_status_numbered_as_event_status", FAULT,
              "acl.rt.query_event_status numbers its answer as aclrtEventStatus (COMPLETE 0) instead of "
              "aclrtEventRecordedStatus (COMPLETE 1)",
              (("acl.rt.query_event_status", ev.recorded_status_numbered_as_event_status),)),
    Injection("stream_query_ignores_blocking_callbacks", FAULT,
              "acl.rt.stream_query answers COMPLETE while a blocking callback the stream reached has not run",
              (("acl.rt.stream_query", ev.stream_query_ignores_blocking_callbacks),)),
    Injection("blocking_callback_does_not_block", FAULT,
              "acl.rt.launch_callback with ACL_CALLBACK_BLOCK lets the stream's later work go on before the callback ran",
              (("acl.rt.launch_callback", ev.blocking_callbacks_do_not_block),)),
    Injection("callback_args_dropped", FAULT,
              "acl.rt.launch_callback calls the callback with None instead of the args given",
              (("acl.rt.launch_callback", ev.callback_args_dropped),)),
    Injection("callback_runs_at_launch", FAULT,
              "acl.rt.launch_callback runs the callback at once in the launching thread, not in the report thread",
              (("acl.rt.launch_callback", ev.callback_runs_at_launch),)),
    Injection("elapsed_time_of_unrecorded_is_zero", FAULT,
              "acl.rt.event_elapsed_time answers (0.0, 0) for an event whose record has not run or that has none",
              (("acl.rt.event_elapsed_time", ev.elapsed_time_of_unrecorded_is_zero),)),
    Injection("event_ids_all_zero", FAULT,
              "acl.rt.get_event_id gives every event the id 0",
              (("acl.rt.get_event_id", ev.event_ids_all_zero),)),
    Injection("second_subscription_accepted", FAULT,
              "acl.rt.subscribe_report of a stream already subscribed returns 0 instead of 107011",
              (("acl.rt.subscribe_report", ev.second_subscription_accepted),)),
    Injection("unsubscribe_report_ignored", FAULT,
              "acl.rt.unsubscribe_report returns 0 and the stream stays subscribed",
              (("acl.rt.unsubscribe_report", ev.returns_zero),)),
    Injection("transcendental_float32_one_ulp", DEVIATION,
              "float32 Exp, Log, Tanh and Sigmoid are 1 ulp off (away from zero) on every third element",
              ((KERNELS, k.kernel_entries(k.TRANSCENDENTAL, k.transcendental_one_ulp)),)),
    Injection("matmul_reversed_accumulation", DEVIATION,
              "floating-point MatMul/GEMM accumulate the K products in reverse order (last-bit differences)",
              (("accumulation order", k.reversed_order),)),
    Injection("reduce_sequential_sum", DEVIATION,
              "floating-point ReduceSum/ReduceMean add left to right instead of in a pairwise tree",
              (("float sum", k.sequential_sum),)),
    Injection("transcendental_float16_one_ulp", DEVIATION,
              "float16 Exp, Log, Tanh and Sigmoid are 1 ulp off (away from zero) on every third element",
              ((KERNELS, k.kernel_entries(k.TRANSCENDENTAL, k.one_ulp_off_in(np.float16))),)),
    Injection("work_completes_eagerly", DEVIATION,
              "queued work runs as soon as it is queued (a device that finishes before the host looks); results are "
              "visible before any synchronisation",
              (("stream resolution", _EAGER.resolve), ("stream queue", _EAGER.place)), eager=True),
    Injection("last_block_written", DEVIATION,
              "execute_v2 and execute_with_handle also write the bytes from each output's size to its 32-byte aligned "
              "end (zeros and garbage), as a kernel moving whole 32-byte blocks to global memory does",
              (("acl.op.execute_v2", c.execute_v2_writes_tail),
               ("acl.op.execute_with_handle", c.execute_with_handle_writes_tail))),
    Injection("handle_values_recycled", DEVIATION,
              "acl.op.create_handle and create_handle_for_cast give out the value of the last destroyed op handle "
              "again",
              (("acl.op.create_handle", _RECYCLED.create), ("acl.op.create_handle_for_cast", _RECYCLED.create),
               ("acl.op.execute_with_handle", _RECYCLED.execute_with_handle),
               ("acl.op.destroy_handle", _RECYCLED.destroy_handle))),
    Injection("streams_synchronised_in_another_order", DEVIATION,
              "acl.rt.synchronize_device runs the device's streams last-created first (independent streams finish in "
              "another order)",
              (("stream synchronisation", c.device_streams_reversed),)),
    Injection("bfloat16_add_mul_one_ulp_at_subnormals", DEVIATION,
              "bfloat16 Add and Mul give subnormal results one ulp further from zero (the last bit rounded outwards)",
              ((KERNELS, k.kernel_entries(["Add", "Mul"], g.bfloat16_subnormals_one_ulp)),)),
    Injection("round_half_away_from_zero", FAULT,
              "Round (decimals 0) and Rint round halves away from zero (2.5 -> 3, -0.5 -> -1) instead of to even",
              ((KERNELS, k.kernel_entries(um.ROUNDING_OPS, um.round_half_away_from_zero)),)),
    Injection("accumulator_narrowed", FAULT,
              "integer MatMul/MatMulV2/BatchMatMul/BatchMatMulV2 add the K products in a float32 accumulator "
              "(exact only below 2^24), then convert to int32",
              ((KERNELS, v.narrowed_accumulator),)),
    Injection("subnormals_flushed_float32", FAULT,
              "the elementwise and arithmetic kernels read float32 subnormal inputs as zero and write float32 "
              "subnormal results as zero",
              ((KERNELS, v.elementwise_flush_subnormals),)),
    Injection("softmax_without_max_subtraction", FAULT,
              "SoftmaxV2 computes exp(x) / sum(exp(x)) in float32 without subtracting the maximum (inf/NaN on large "
              "logits)",
              ((KERNELS, k.kernel_entries(["SoftmaxV2"], v.softmax_without_max)),)),
    Injection("sparse_duplicates_last_wins", FAULT,
              "SparseTensorDenseMatMul keeps only the last entry of an index given more than once instead of adding "
              "them up",
              (("sparse accumulation", sp.duplicates_last_wins),)),
    Injection("dropout_mask_bit_order_reversed", FAULT,
              "DropOutDoMask reads each mask byte's bits from the most significant end (bit 7 of byte 0 for element "
              "0) instead of the least significant",
              (("dropout mask bits", do.bit_order_reversed),)),
    Injection("floor_mod_truncates", FAULT,
              "FloorMod gives the remainder the sign of the dividend x1 (C fmod, as Mod) instead of the divisor x2",
              ((KERNELS, k.kernel_entries(["FloorMod"], bm.floor_mod_truncates)),)),
    Injection("lerp_weight_on_wrong_end", FAULT,
              "Lerp computes start + (1 - weight) * (end - start), measuring the weight from the end instead of the "
              "start",
              ((KERNELS, k.kernel_entries(["Lerp"], bm.lerp_weight_on_wrong_end)),)),
    Injection("bessel_i1e_drops_sign", FAULT,
              "BesselI1e returns |I1e(x)|, leaving out the final multiplication by sign(x), so negative x give "
              "positive results",
              ((KERNELS, k.kernel_entries(["BesselI1e"], sm.bessel_i1e_drops_sign)),)),
    Injection("determinant_sign_dropped", FAULT,
              "MatrixDeterminant returns |det(x)|: the row swaps of its pivoting and the pivots' signs are not "
              "counted, so matrices with a negative determinant give a positive one",
              ((KERNELS, k.kernel_entries(["MatrixDeterminant"], la.determinant_sign_dropped)),)),
    Injection("right_shift_logical_for_signed", FAULT,
              "RightShift of signed integers shifts in zeros (logical shift) instead of copies of the sign bit",
              ((KERNELS, k.kernel_entries(["RightShift"], bm.right_shift_logical_for_signed)),)),
    Injection("scan_ignores_exclusive", FAULT,
              "Cumsum/Cumprod (and their D forms) include the current element even when exclusive is true",
              ((KERNELS, k.kernel_entries(rd.SCAN_OPS, rd.scan_ignores_exclusive)),)),
    Injection("arg_extreme_last_of_ties", FAULT,
              "ArgMin, ArgMaxD, ArgMaxWithValue and ArgMinWithValue return the last of equal extremes instead of the "
              "first",
              ((KERNELS, k.kernel_entries(rd.ARG_OPS, rd.last_of_ties)),)),
    Injection("layer_norm_unbiased_variance", FAULT,
              "LayerNorm divides the squared deviations by n - 1 (the sample variance) instead of n",
              (("layer norm variance divisor", nm.unbiased_variance),)),
    Injection("bn_update_uses_biased_variance", FAULT,
              "BNTrainingUpdate and BN3DTrainingUpdate update the moving variance with the biased batch variance "
              "(divided by n) instead of the unbiased one (n - 1), and BNTrainingUpdateV3 outputs it as its unbiased batch variance",
              (("batch norm unbiased variance scale", bn.biased_variance),)),
    Injection("optimizer_uses_old_moment", FAULT,
              "the optimizer updates (ApplyAdam, ApplyMomentumD, ApplyAdagradD, ApplyRMSPropD ...) step var with the "
              "old value of an accumulator (m, v, accum, ms, mom ...) where the documented formula uses the updated one",
              (("optimizer step moment", opt.uses_old_moment),)),
    Injection("assign_sub_operands_swapped", FAULT,
              "AssignSub computes value - var instead of var - value (its two operands swapped)",
              ((KERNELS, k.kernel_entries(["AssignSub"], inp.operands_swapped)),)),
    Injection("quant_round_half_up", FAULT,
              "AscendQuant's round_mode \"Round\" rounds ties upwards (floor(v + 0.5)) instead of to even",
              (("quantize round to nearest", qz.half_up),)),
    Injection("mse_loss_grad_sign_flipped", FAULT,
              "MseLossGrad differentiates with label - predict: every gradient has the wrong sign",
              (("mse loss grad residual", ls.flipped_residual),)),
    Injection("iou_union_drops_intersection", FAULT,
              "Iou, GIoU, DIoU and CIoU take the union of two boxes as the sum of their areas, without subtracting "
              "the intersection",
              (("box union", det.intersection_kept),)),
    Injection("avg_pool_counts_padding", FAULT,
              "AvgPool divides every window by kh * kw, counting the SAME padding as elements",
              (("average pool divisor", pl.padding_counted),)),
    Injection("conv_backprop_input_kernel_not_flipped", FAULT,
              "Conv2DBackpropInput(D), Conv2DTranspose(D) and Deconvolution correlate the spread incoming gradient with the "
              "filter's taps in their forward order instead of turned round (rot180) in H and W",
              (("conv input gradient filter", cv.not_flipped),)),
    Injection("gelu_erf_form", FAULT,
              "Gelu computes the exact x * Phi(x) (erf form) where CANN's Gelu computes the tanh approximation "
              "0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))",
              ((KERNELS, k.kernel_entries(["Gelu"], act.gelu_erf_form)),)),
    Injection("leaky_relu_slope_on_positive", FAULT,
              "LeakyRelu multiplies the positive inputs by negative_slope and passes the negative ones through",
              ((KERNELS, k.kernel_entries(["LeakyRelu"], act.leaky_relu_slope_on_positive)),)),
    Injection("random_ignores_key", FAULT,
              "the stateless random ops seed their generator from the counter only: every key gives key 0's values",
              ((KERNELS, k.kernel_entries(rnd.STATELESS_OPS, rnd.ignores_key)),)),
    Injection("random_normal_mean_shifted", FAULT,
              "StatelessRandomNormalV2 adds a tenth of a standard deviation to every value (a biased transform)",
              ((KERNELS, k.kernel_entries(["StatelessRandomNormalV2"], rnd.mean_shifted)),)),
    Injection("uniform_int_maxval_included", FAULT,
              "StatelessRandomUniformIntV2 draws from [minval, maxval], reading the exclusive maxval as inclusive",
              ((KERNELS, k.kernel_entries(["StatelessRandomUniformIntV2"], rnd.maxval_included)),)),
    Injection("rnn_mask_includes_length", FAULT,
              "RnnGenMask marks step t valid while t <= its length, one step beyond each entry's length",
              ((KERNELS, k.kernel_entries(["RnnGenMask"], seq.mask_includes_length)),)),
    Injection("exponential_rate_as_scale", FAULT,
              "Exponential reads its rate lambda as the scale 1 / lambda: the values' mean is lambda, not 1 / lambda",
              ((KERNELS, k.kernel_entries(["Exponential"], rnd.rate_as_scale)),)),
    Injection("grad_sign_flipped", FAULT,
              "SigmoidGrad and TanhGrad return -dy * f'(x): the derivative written y*y - y for y - y*y",
              ((KERNELS, k.kernel_entries(ag.SIGN_FLIPPED_OPS, ag.sign_flipped)),)),
    Injection("resize_ignores_half_pixel_centers", FAULT,
              "ResizeNearestNeighborV2 and ResizeBilinearV2 map coordinates as if half_pixel_centers were false",
              ((KERNELS, k.kernel_entries(rs.RESIZE_OPS, rs.half_pixel_ignored)),)),
    Injection("cast_float_to_int_wraps", FAULT,
              "Cast float -> integer wraps out-of-range values modulo 2^bits (through int64) instead of saturating "
              "(and inf/NaN come out as the int64 conversion leaves them)",
              ((KERNELS, k.kernel_entries(["Cast"], g.cast_float_to_int_wraps)),)),
    Injection("cast_int_to_int_saturates", FAULT,
              "Cast integer -> narrower integer clamps to the target range instead of keeping the low bits",
              ((KERNELS, k.kernel_entries(["Cast"], g.cast_int_to_int_saturates)),)),
    Injection("cast_flushes_subnormals", FAULT,
              "Cast between float16, bfloat16, float32 and double reads subnormal inputs as zero and writes subnormal "
              "results as zero",
              ((KERNELS, k.kernel_entries(["Cast"], g.cast_flushes_subnormals)),)),
    Injection("subnormals_flushed_bfloat16", FAULT,
              "the elementwise arithmetic kernels (Add, Sub, Mul, RealDiv, Neg, Abs, ...) read bfloat16 subnormal "
              "inputs as zero and write bfloat16 subnormal results as zero",
              ((KERNELS, k.kernel_entries(g.BFLOAT16_ARITHMETIC, g.bfloat16_flushed)),)),
    Injection("log_softmax_without_max_subtraction", FAULT,
              "LogSoftmaxV2 computes x - log(sum(exp(x))) in float32 without subtracting the maximum (inf/NaN on "
              "large logits)",
              ((KERNELS, k.kernel_entries(["LogSoftmaxV2"], g.log_softmax_without_max)),)),
    Injection("mirror_pad_reflect_as_symmetric", FAULT,
              "MirrorPad in REFLECT mode repeats the border element in the padding (as SYMMETRIC does)",
              ((KERNELS, k.kernel_entries(["MirrorPad"], rsh.mirror_pad_reflect_as_symmetric)),)),
    Injection("strided_slice_ignores_end_mask", FAULT,
              "StridedSlice reads end where end_mask says to run to the end of the dim",
              ((KERNELS, k.kernel_entries(["StridedSlice"], rsh.strided_slice_ignores_end_mask)),)),
    Injection("scatter_add_last_duplicate_only", FAULT,
              "ScatterAdd and UnsortedSegmentSum apply only the last update of an index given more than once instead "
              "of adding them all",
              ((KERNELS, k.kernel_entries(["ScatterAdd"], gs.one_duplicate_only(2))),
               (KERNELS, k.kernel_entries(["UnsortedSegmentSum"], gs.one_duplicate_only(0))))),
    Injection("scatter_max_keeps_first_duplicate", FAULT,
              "ScatterMax, ScatterMin, UnsortedSegmentMax and UnsortedSegmentMin keep only the first update of an "
              "index given more than once instead of combining them all",
              ((KERNELS, k.kernel_entries(["ScatterMax", "ScatterMin"], gs.one_duplicate_only(2, last=False))),
               (KERNELS, k.kernel_entries(["UnsortedSegmentMax", "UnsortedSegmentMin"],
                                          gs.one_duplicate_only(0, last=False))))),
    Injection("sort_unstable", FAULT,
              "Sort puts equal values in reverse order of position (an unstable sort) even when stable is true",
              ((KERNELS, k.kernel_entries(["Sort"], gs.sort_ties_reversed)),)),
    Injection("fractal_nz_read_as_nd", FAULT,
              "a kernel reads a FRACTAL_NZ input as if it were ND (row-major), ignoring the fractal layout",
              ((PRIVATE_LAYOUT_READ, r.layout_read_as_nd(FORMAT_VALUES["FRACTAL_NZ"])),)),
    Injection("c0_blocks_read_as_plain", FAULT,
              "a kernel reads an NC1HWC0 or NDC1HWC0 input as if it were its plain origin layout, ignoring the C0 "
              "blocks",
              ((PRIVATE_LAYOUT_READ, r.layout_read_as_nd(FORMAT_VALUES["NC1HWC0"], FORMAT_VALUES["NDC1HWC0"])),)),
)

#: Attribute-domain faults (issue 40): (name, description, op types, kernel wrapper).
_ATTRIBUTE_FAULTS = (
    ("softmax_negative_axes_off_by_one", "SoftmaxV2 and LogSoftmaxV2 read a negative axis other than -1 one dim too "
     "far right (-2 as -1)", ("SoftmaxV2", "LogSoftmaxV2"), dm.attr_rewritten("axes", dm.each_axis(dm.negative_off_by_one))),
    ("reduce_d_negative_axes_from_front", "the D-form reductions mirror a negative axis other than -1 to the front "
     "(-2 read as 1)", ("ReduceSumD", "ReduceMeanD", "ReduceMaxD", "ReduceMinD", "ReduceProdD"),
     dm.attr_rewritten("axes", dm.each_axis(dm.negative_from_front))),
    ("scan_d_axis_forced_last", "CumsumD and CumprodD scan along the last axis whatever `axis` says",
     ("CumsumD", "CumprodD"), dm.attr_rewritten("axis", dm.each_axis(dm.always_last))),
    ("concat_d_negative_dim_as_zero", "ConcatD reads a negative concat_dim as 0", ("ConcatD",),
     dm.attr_rewritten("concat_dim", dm.each_axis(dm.negative_as_zero))),
    ("pack_negative_axis_input_rank", "Pack resolves a negative axis against the inputs' rank instead of the output's "
     "(-1 inserts before the last input dim)", ("Pack",),
     dm.attr_rewritten("axis", dm.each_axis(dm.negative_against_input_rank))),
    ("unpack_negative_axis_as_zero", "Unpack reads a negative axis as 0", ("Unpack",),
     dm.attr_rewritten("axis", dm.each_axis(dm.negative_as_zero))),
    ("gather_elements_negative_dim_as_zero", "GatherElements reads a negative dim as 0", ("GatherElements",),
     dm.attr_rewritten("dim", dm.each_axis(dm.negative_as_zero))),
    ("split_d_negative_dim_as_zero", "SplitD reads a negative split_dim as 0", ("SplitD",),
     dm.attr_rewritten("split_dim", dm.each_axis(dm.negative_as_zero))),
    ("sort_axis_forced_last", "Sort sorts along the last axis whatever `axis` says", ("Sort",),
     dm.attr_rewritten("axis", dm.each_axis(dm.always_last))),
    ("flatten_negative_axis_magnitude", "Flatten reads a negative axis as its magnitude (-1 as 1)", ("Flatten",),
     dm.attr_rewritten("axis", dm.negative_from_front_flat)),
    ("roll_negative_dims_one_low", "Roll resolves a negative dim one dim too low (rank + dim - 1)", ("Roll",),
     dm.attr_rewritten("dims", dm.each_axis(dm.negative_minus_one))),
    ("mirror_pad_symmetric_as_reflect", "MirrorPad in SYMMETRIC mode takes the REFLECT branch", ("MirrorPad",),
     dm.attr_rewritten("mode", dm.replaced({"SYMMETRIC": "REFLECT"}))),
    ("depth_to_space_crd_as_dcr", "DepthToSpace in CRD mode takes the DCR branch", ("DepthToSpace",),
     dm.attr_rewritten("mode", dm.replaced({"CRD": "DCR"}))),
    ("scatter_elements_mul_as_add", "ScatterElements with reduction mul adds the updates", ("ScatterElements",),
     dm.attr_rewritten("reduction", dm.replaced({"mul": "add"}))),
    ("pad_v3_edge_as_reflect", "PadV3 in edge mode takes the reflect branch", ("PadV3",),
     dm.attr_rewritten("mode", dm.replaced({"edge": "reflect"}))),
    ("tile_d_reads_multiples_reversed", "TileD reads its multiples attribute last dim first", ("TileD",),
     shp.multiples_reversed),
    ("one_hot_d_on_off_swapped", "OneHotD writes its off value at the hot position and its on value elsewhere", ("OneHotD",),
     cf.on_off_swapped),
    ("matrix_band_part_swaps_bands", "MatrixBandPart keeps as many diagonals below the main one as it should above, and the other way round",
     ("MatrixBandPart",), ms.band_widths_swapped),
)
#: Special-point faults (issue 40): (name, description).
_SPECIAL_POINT_DESCRIPTIONS = (
    ("reciprocal_neg_zero_positive_inf", "Reciprocal(-0) gives +inf instead of -inf"),
    ("log_zero_finite", "Log(0) gives -65504 (float16's lowest) instead of -inf"),
    ("rsqrt_neg_zero_positive_inf", "Rsqrt(-0) gives +inf instead of -inf"),
    ("maximum_minimum_drop_nan", "Maximum and Minimum return the other operand where one is NaN (fmax/fmin)"),
    ("realdiv_neg_zero_divisor_sign_lost", "RealDiv x / -0 gives the infinity of x's sign (the zero's sign lost)"),
    ("atan2_neg_zero_y_positive_pi", "Atan2(-0, x < 0) gives +pi instead of -pi"),
    ("sign_nan_as_zero", "Sign(NaN) gives 0 instead of NaN"),
    ("sqrt_negative_as_zero", "Sqrt of a negative number gives 0 instead of NaN"),
    ("exp_neg_inf_nan", "Exp(-inf) gives NaN instead of 0"),
    ("tanh_inf_nan", "Tanh(+-inf) gives NaN instead of +-1"),
    ("isinf_negative_missed", "IsInf(-inf) gives false"),
)
_DOMAIN_ENTRIES = tuple(
    Injection(name, FAULT, description, ((KERNELS, k.kernel_entries(ops, wrap)),))
    for name, description, ops, wrap in _ATTRIBUTE_FAULTS
) + tuple(
    Injection(name, FAULT, description, ((KERNELS, k.kernel_entries(*dm.SPECIAL_POINT_FAULTS[name])),))
    for name, description in _SPECIAL_POINT_DESCRIPTIONS
) + (
    Injection("max_reduction_skips_nan", FAULT, "ReduceMax and ReduceMaxD skip NaN (nanmax) instead of propagating it",
              ((KERNELS, k.kernel_entries(["ReduceMax", "ReduceMaxD"], dm.nan_ignored_in_max)),)),
)

#: Every injection by name.
_ALL = _ENTRIES + _DOMAIN_ENTRIES
REGISTRY: dict[str, Injection] = {entry.name: entry for entry in _ALL}


def names(kind: str | None = None) -> tuple[str, ...]:
    """Names of all injections, or of one kind ("fault" or "deviation"), in registry order."""
    return tuple(e.name for e in _ALL if kind is None or e.kind == kind)


def validate(requested: frozenset[str]) -> frozenset[str]:
    """Return requested if every name is known, else raise ValueError listing the known names."""
    unknown = sorted(requested - REGISTRY.keys())
    if unknown:
        raise ValueError(f"unknown fault name(s) {', '.join(unknown)}; known: {', '.join(names())}")
    return requested


_installed: frozenset[str] = frozenset()


def install(requested: Iterable[str]) -> None:
    """Install the substitutes of the named injections (validated), and put every other seam back to its original."""
    global _installed
    chosen = validate(frozenset(requested))
    substitutes: dict[str, list[seams.Substitute]] = {}
    for entry in _ALL:
        if entry.name in chosen:
            for seam, substitute in entry.substitutes:
                substitutes.setdefault(seam, []).append(substitute)
    _CALLER_DESCS.forget()
    _RECYCLED.forget()
    seams.install(substitutes)
    _installed = chosen


def installed() -> frozenset[str]:
    """The names of the injections whose substitutes are in place."""
    return _installed


def defers_execution() -> bool:
    """Whether the simulator defers queued work until something synchronises (no installed injection runs it
    eagerly)."""
    return not any(REGISTRY[name].eager for name in _installed)
