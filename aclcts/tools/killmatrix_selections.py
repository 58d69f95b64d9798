"""For each simulator fault, the conformance tests expected to catch it; for each deviation, the tests it must pass."""

from __future__ import annotations

from aclcts.sim.faults.kernels import TRANSCENDENTAL
from aclcts.sim.faults.random import STATELESS_OPS

#: The conformance modules that compare op outputs with the reference.
NUMERIC = ["conformance/test_execute.py", "conformance/test_handle.py", "conformance/test_golden.py"]
#: A -k expression selecting the tests of the ops the transcendental deviations change.
TRANSCENDENTAL_K = " or ".join(TRANSCENDENTAL)
#: The case-library narrowing (--ops) to the ops the transcendental deviations change, and the matrix-multiply ops.
TRANSCENDENTAL_OPS = f"--ops={','.join(TRANSCENDENTAL)}"
MATMULS = "MatMul,MatMulV2,BatchMatMul,BatchMatMulV2"
#: The event, stream and callback tests: the state machine of issue 40 and the example-based tests before it. The
#: machine's file comes first: it catches most of the event faults, and a run that stops at the first failure (-x,
#: the self-tests) then skips test_sync.py's hundred tests.
EVENTS = ["conformance/test_event_states.py", "conformance/test_sync.py"]
#: For each fault, the conformance tests that catch it (pytest paths and options, relative to the repository root);
#: --ops narrows the case library to the ops a selection's -k names, so that a child run collects and compiles only
#: those ops' cases whatever the library's size.
FAULT_SELECTIONS = {
    "memcpy_one_byte_short": ["conformance/test_memory.py", "-k", "memcpy_copies_count_bytes"],
    "memcpy_async_one_byte_short": ["conformance/test_memory.py", "conformance/test_sync.py"],
    "gemm_ignores_beta": ["conformance/test_blas.py", "--ops=GEMM"],
    "matmul_ignores_transpose": ["conformance/test_blas.py", "--ops=GEMM"],
    "cast_truncates_to_float16": ["conformance/test_golden.py", "conformance/test_cast.py", "--ops=Cast"],
    "broadcast_wrong_axis": ["conformance/test_execute.py", "--ops=Add,Mul,Sub", "-k", "Add or Mul or Sub"],
    "malloc_size_zero_succeeds": ["conformance/test_memory.py", "-k", "size_0"],
    "unmatched_op_wrong_code": ["conformance/test_negative.py", "conformance/test_dynamic_shapes.py"],
    "memcpy_null_code_swapped": ["conformance/test_memory.py", "-k", "documented_order"],
    "destroy_handle_leaks_memory": ["conformance/test_leaks.py", "-k", "handle"],
    "destroy_handle_keeps_object": ["conformance/test_negative.py", "-k", "destroyed_handle"],
    "async_h2d_lands_late": ["conformance/test_sync.py"],
    "synchronize_stream_no_drain": ["conformance/test_sync.py"],
    "work_on_default_stream": ["conformance/test_sync.py"],
    "infer_shape_ranges_narrowed": ["conformance/test_data_dependent.py", "conformance/test_dynamic_shapes.py"],
    "no_output_shape_write_back": ["conformance/test_dynamic_shapes.py"],
    "bf16_size_wrong": ["conformance/test_descriptors.py", "-k", "data_type_size"],
    "model_dir_no_recurse": ["conformance/test_load.py", "-k", "three_folder_levels"],
    "model_dir_repeat_accepted": ["conformance/test_load.py", "-k", "100002"],
    "execute_overwrites_output": ["conformance/test_execute.py", "--ops=Add", "-k", "Add"],
    "free_accepts_null": ["conformance/test_negative.py", "-k", "rt.free.null"],
    "double_free_succeeds": ["conformance/test_negative.py", "-k", "double_free"],
    "double_free_crashes": ["conformance/test_negative.py", "-k", "double_free", "--isolate"],
    "handle_input_count_unchecked": ["conformance/test_negative.py", "-k", "execute_with_handle"],
    "get_mem_info_frozen": ["conformance/test_leaks.py", "-k", "moves"],
    "memcpy_keeps_host_copies": ["conformance/test_leaks.py", "-k", "host_memory"],
    "dynamic_element_count_wrong": ["conformance/test_dynamic_shapes.py", "-k", "count"],
    "kernel_hangs": ["conformance/test_execute.py", "--ops=LogicalAnd", "-k", "LogicalAnd"],
    "callback_before_prior_work": ["conformance/test_sync.py", "-k", "callback"],
    "event_elapsed_time_negative": ["conformance/test_sync.py", "-k", "elapsed_time"],
    "event_elapsed_time_zero": ["conformance/test_sync.py", "-k", "elapsed_time"],
    "event_status_complete_too_early": ["conformance/test_sync.py", "-k", "event_status"],
    "unrecorded_event_status_complete": EVENTS,
    "record_event_completes_at_once": EVENTS,
    "record_event_again_ignored": EVENTS,
    "reset_event_ignored": EVENTS,
    "stream_wait_event_ignored": EVENTS,
    "synchronize_event_returns_at_once": EVENTS,
    "stream_sync_timeout_as_success": EVENTS,
    "recorded_status_numbered_as_event_status": EVENTS,
    "stream_query_ignores_blocking_callbacks": EVENTS,
    "blocking_callback_does_not_block": EVENTS,
    "callback_args_dropped": EVENTS,
    "callback_runs_at_launch": EVENTS,
    "elapsed_time_of_unrecorded_is_zero": EVENTS,
    "event_ids_all_zero": EVENTS,
    "second_subscription_accepted": EVENTS,
    "unsubscribe_report_ignored": EVENTS,
    "negative_index_read_as_python_index": ["conformance/test_descriptors.py", "-k", "negative_or_far"],
    "int64_attrs_truncated": ["conformance/test_handle.py", "-k", "int64_attr"],
    "handle_reads_caller_descs": ["conformance/test_handle.py", "-k", "expectation"],
    "round_half_away_from_zero": ["conformance/test_execute.py", "--ops=Round,Rint", "-k", "Round or Rint"],
    "accumulator_narrowed": ["conformance/test_execute.py", "conformance/test_golden.py",
                             f"--ops={MATMULS}", "-k",
                             "(MatMul and int32 and wide_sums) or (test_golden and matmul)"],
    "subnormals_flushed_float32": ["conformance/test_execute.py", "conformance/test_golden.py", "--ops=Add,Mul,Neg", "-k",
                                   "float32 and subnormal"],
    "softmax_without_max_subtraction": ["conformance/test_execute.py", "conformance/test_golden.py", "--ops=SoftmaxV2",
                                        "-k",
                                        "(SoftmaxV2 and large) or (test_golden and softmax_v2)"],
    "sparse_duplicates_last_wins": ["conformance/test_execute.py", "--ops=SparseTensorDenseMatMul", "-k",
                                    "SparseTensorDenseMatMul"],
    "floor_mod_truncates": ["conformance/test_execute.py", "--ops=FloorMod", "-k", "FloorMod"],
    "lerp_weight_on_wrong_end": ["conformance/test_execute.py", "--ops=Lerp", "-k", "Lerp"],
    "bessel_i1e_drops_sign": ["conformance/test_execute.py", "--ops=BesselI1e", "-k", "BesselI1e"],
    "right_shift_logical_for_signed": ["conformance/test_execute.py", "--ops=RightShift", "-k", "RightShift"],
    "scan_ignores_exclusive": ["conformance/test_execute.py", "--ops=Cumsum,CumsumD,Cumprod,CumprodD", "-k",
                               "Cumsum or Cumprod"],
    "arg_extreme_last_of_ties": ["conformance/test_execute.py", "--ops=ArgMin,ArgMinWithValue,ArgMaxD,ArgMaxWithValue",
                                 "-k", "ArgMin or ArgMaxD or WithValue"],
    "layer_norm_unbiased_variance": ["conformance/test_execute.py", "--ops=LayerNorm", "-k", "LayerNorm"],
    "bn_update_uses_biased_variance": ["conformance/test_execute.py",
                                       "--ops=BNTrainingUpdate,BNTrainingUpdateV3,BN3DTrainingUpdate", "-k",
                                       "BNTrainingUpdate or BN3DTrainingUpdate"],
    "optimizer_uses_old_moment": ["conformance/test_execute.py", "--ops=ApplyAdam,ApplyAdamD,ApplyMomentumD,ApplyRMSPropD",
                                  "-k", "ApplyAdam or ApplyMomentumD or ApplyRMSPropD"],
    "assign_sub_operands_swapped": ["conformance/test_execute.py", "--ops=AssignSub", "-k", "AssignSub"],
    "quant_round_half_up": ["conformance/test_execute.py", "--ops=AscendQuant", "-k", "AscendQuant"],
    "mse_loss_grad_sign_flipped": ["conformance/test_execute.py", "--ops=MseLossGrad", "-k", "MseLossGrad"],
    "avg_pool_counts_padding": ["conformance/test_execute.py", "--ops=AvgPool,AdaptiveAvgPool2d", "-k", "AvgPool"],
    "gelu_erf_form": ["conformance/test_execute.py", "--ops=Gelu", "-k", "Gelu and not FastGelu"],
    "leaky_relu_slope_on_positive": ["conformance/test_execute.py", "--ops=LeakyRelu", "-k", "LeakyRelu"],
    "random_ignores_key": ["conformance/test_random.py", "--ops=" + ",".join(STATELESS_OPS), "-k", "key"],
    "random_normal_mean_shifted": ["conformance/test_execute.py", "--ops=StatelessRandomNormalV2", "-k",
                                   "StatelessRandomNormalV2"],
    "grad_sign_flipped": ["conformance/test_gradients.py", "--ops=SigmoidGrad,TanhGrad", "-k", "SigmoidGrad or TanhGrad"],
    "resize_ignores_half_pixel_centers": ["conformance/test_execute.py", "--ops=ResizeBilinearV2,ResizeNearestNeighborV2",
                                          "-k", "Resize"],
    "cast_float_to_int_wraps": ["conformance/test_golden.py", "--ops=Cast", "-k", "boundaries"],
    "cast_int_to_int_saturates": ["conformance/test_golden.py", "--ops=Cast", "-k", "wraps and cast"],
    "cast_flushes_subnormals": ["conformance/test_golden.py", "--ops=Cast", "-k", "cast and subnormals"],
    "subnormals_flushed_bfloat16": ["conformance/test_golden.py", "--ops=Add,Mul,Neg,Cast", "-k",
                                    "bfloat16 and subnormals"],
    "log_softmax_without_max_subtraction": ["conformance/test_golden.py", "--ops=LogSoftmaxV2", "-k", "log_softmax"],
    "mirror_pad_reflect_as_symmetric": ["conformance/test_execute.py", "--ops=MirrorPad", "-k", "MirrorPad"],
    "strided_slice_ignores_end_mask": ["conformance/test_execute.py", "--ops=StridedSlice", "-k", "StridedSlice"],
    "scatter_add_last_duplicate_only": ["conformance/test_execute.py", "--ops=ScatterAdd,UnsortedSegmentSum", "-k",
                                       "ScatterAdd or UnsortedSegmentSum"],
    "scatter_max_keeps_first_duplicate": ["conformance/test_execute.py",
                                          "--ops=ScatterMax,ScatterMin,UnsortedSegmentMax,UnsortedSegmentMin", "-k",
                                          "ScatterMax or ScatterMin or UnsortedSegmentMax or UnsortedSegmentMin"],
    "sort_unstable": ["conformance/test_execute.py", "--ops=Sort,SearchSorted", "-k", "Sort"],
    "fractal_nz_read_as_nd": ["conformance/test_execute.py", "--ops=MatMul,GEMM,LayerNorm", "-k", "FRACTAL_NZ"],
    "c0_blocks_read_as_plain": ["conformance/test_execute.py", "--ops=Add", "-k", "NC1HWC0"],
}


def executed(*ops: str) -> list[str]:
    """The execute tests of the named ops' cases, the library narrowed to them."""
    return ["conformance/test_execute.py", f"--ops={','.join(ops)}", "-k", " or ".join(ops)]


#: The attribute-domain, special-point and shape-corner faults of issue 40: each op's execute tests.
FAULT_SELECTIONS.update({
    "softmax_negative_axes_off_by_one": executed("SoftmaxV2", "LogSoftmaxV2"),
    "reduce_d_negative_axes_from_front": executed("ReduceSumD", "ReduceMeanD", "ReduceMaxD", "ReduceMinD",
                                                  "ReduceProdD"),
    "scan_d_axis_forced_last": executed("CumsumD", "CumprodD"),
    "concat_d_negative_dim_as_zero": executed("ConcatD"),
    "pack_negative_axis_input_rank": executed("Pack"),
    "unpack_negative_axis_as_zero": executed("Unpack"),
    "gather_elements_negative_dim_as_zero": executed("GatherElements"),
    "split_d_negative_dim_as_zero": executed("SplitD"),
    "sort_axis_forced_last": executed("Sort"),
    "flatten_negative_axis_magnitude": executed("Flatten"),
    "roll_negative_dims_one_low": executed("Roll"),
    "mirror_pad_symmetric_as_reflect": executed("MirrorPad"),
    "depth_to_space_crd_as_dcr": executed("DepthToSpace"),
    "scatter_elements_mul_as_add": executed("ScatterElements"),
    "pad_v3_edge_as_reflect": executed("PadV3"),
    "tile_d_reads_multiples_reversed": executed("TileD"),
    "one_hot_d_on_off_swapped": executed("OneHotD"),
    "matrix_band_part_swaps_bands": executed("MatrixBandPart"),
    "reciprocal_neg_zero_positive_inf": executed("Reciprocal"),
    "log_zero_finite": executed("Log"),
    "rsqrt_neg_zero_positive_inf": executed("Rsqrt"),
    "maximum_minimum_drop_nan": executed("Maximum", "Minimum"),
    "realdiv_neg_zero_divisor_sign_lost": executed("RealDiv"),
    "atan2_neg_zero_y_positive_pi": executed("Atan2"),
    "sign_nan_as_zero": executed("Sign"),
    "sqrt_negative_as_zero": executed("Sqrt"),
    "exp_neg_inf_nan": executed("Exp"),
    "tanh_inf_nan": executed("Tanh"),
    "isinf_negative_missed": executed("IsInf"),
    "max_reduction_skips_nan": executed("ReduceMax", "ReduceMaxD"),
})

#: For each deviation, every numeric conformance test of the ops (and dtypes) it affects, run in full.
DEVIATION_SELECTIONS = {
    "transcendental_float32_one_ulp": NUMERIC + [TRANSCENDENTAL_OPS, "-k", f"({TRANSCENDENTAL_K}) and float32"],
    "matmul_reversed_accumulation": NUMERIC + ["conformance/test_blas.py", f"--ops={MATMULS},GEMM", "-k", "MatMul or GEMM or gemm"],
    "reduce_sequential_sum": NUMERIC + ["--ops=ReduceSum,ReduceMean", "-k", "ReduceSum or ReduceMean"],
    "transcendental_float16_one_ulp": NUMERIC + [TRANSCENDENTAL_OPS, "-k", f"({TRANSCENDENTAL_K}) and float16"],
    "work_completes_eagerly": ["conformance/test_sync.py", "conformance/test_memory.py", "conformance/test_free.py",
                               "conformance/test_handle.py", "-k", "not matches_reference"],
    "last_block_written": NUMERIC + ["conformance/test_cast.py", "conformance/test_dynamic_shapes.py"],
    "handle_values_recycled": ["conformance/test_handle.py", "conformance/test_negative.py",
                               "conformance/test_leaks.py", "conformance/test_cast.py"],
    "streams_synchronised_in_another_order": ["conformance/test_sync.py"],
    "bfloat16_add_mul_one_ulp_at_subnormals": NUMERIC + ["--ops=Add,Mul", "-k", "bfloat16 and (Add or Mul or add or mul)"],
}
