"""acl.blas GEMM wrappers (docs/contract/handles-blas-cast.md#gemm-wrappers): gemm_ex, hgemm, s8gemm and their handle
forms over the GEMM cases."""

from __future__ import annotations

import pytest

from aclcts.cases import Case
from aclcts.core.constants import ComputeType, DataType, ErrorCode, TransType
from aclcts.drive import executor, flow
from aclcts.drive.executor import Gemm, Operands
from aclcts.judge.decorator import compares_with_reference

pytestmark = [pytest.mark.blas]

N, T, NZ, NZ_T = (int(t) for t in TransType)
HIGH_PRECISION = int(ComputeType.ACL_COMPUTE_HIGH_PRECISION)
FP16, INT8, INT32 = (int(d) for d in (DataType.ACL_FLOAT16, DataType.ACL_INT8, DataType.ACL_INT32))
INVALID_PARAM = int(ErrorCode.ACL_ERROR_INVALID_PARAM)
OP_NOT_FOUND = int(ErrorCode.ACL_ERROR_OP_NOT_FOUND)
#: The typed wrappers and the (A, B, C) data types each one fixes.
TYPED = {(FP16, FP16, FP16): "hgemm", (INT8, INT8, INT32): "s8gemm"}


def is_row_major(case: Case) -> bool:
    """A GEMM case whose matrices are plain row-major arrays, as the acl.blas wrappers take them (with lda, ldb, ldc):
    not stored in a private format (docs/formats.md)."""
    return all(t.storage_format is None for t in case.inputs + case.outputs)


def has_typed_gemm(case: Case) -> bool:
    """A row-major GEMM case whose data types hgemm or s8gemm fix."""
    return is_row_major(case) and Gemm.of(case).dtypes in TYPED


def _typed(case: Case) -> str:
    return TYPED[Gemm.of(case).dtypes]


@pytest.mark.cases(ops=["GEMM"], where=is_row_major)
@compares_with_reference
def test_gemm_ex_matches_reference(acl, stream, op_case, case_inputs):
    return executor.run_gemm(acl, stream, op_case, case_inputs, "gemm_ex")


@pytest.mark.cases(ops=["GEMM"], where=is_row_major, executions=2)
@compares_with_reference
def test_gemm_ex_handle_matches_reference_on_every_execution(acl, stream, op_case, case_inputs):
    return executor.run_gemm(acl, stream, op_case, case_inputs, "create_handle_for_gemm_ex")


@pytest.mark.cases(ops=["GEMM"], where=has_typed_gemm)
@compares_with_reference
def test_hgemm_and_s8gemm_match_reference(acl, stream, op_case, case_inputs):
    return executor.run_gemm(acl, stream, op_case, case_inputs, _typed(op_case))


@pytest.mark.cases(ops=["GEMM"], where=has_typed_gemm, executions=2)
@compares_with_reference
def test_hgemm_and_s8gemm_handles_match_reference_on_every_execution(acl, stream, op_case, case_inputs):
    return executor.run_gemm(acl, stream, op_case, case_inputs, "create_handle_for_" + _typed(op_case))


#: A GEMM no case file compiles (fp16 A [61, 29], B [29, 3], C [61, 3]) and one that gemm.yaml compiles, a suite model
#: (aclcts/pytest_plugin/library.py SUITE_MODEL_CASES) that every run's model folder holds whatever --cases selects.
UNCOMPILED = Gemm(N, N, 61, 3, 29, (FP16, FP16, FP16))
COMPILED = Gemm(N, N, 16, 16, 16, (FP16, FP16, FP16))
#: Invalid gemm_ex arguments, listed in the documented check order (docs/contract/handles-blas-cast.md#gemm_ex-checks):
#: null pointers, sizes,
#: trans_a/trans_b, trans_c, leading dimensions, compute type. All give 100000, and all come before the model lookup.
NULL_POINTERS = {f"{name}=0": {name: 0} for name in ("alpha", "beta", "a", "b", "c")}
INVALID_VALUES = {
    "m=0": {"m": 0}, "n=-1": {"n": -1}, "k=0": {"k": 0},
    "trans_a=NZ_T": {"trans_a": NZ_T}, "trans_a=-1": {"trans_a": -1}, "trans_b=NZ_T": {"trans_b": NZ_T},
    "trans_b=7": {"trans_b": 7},
    "trans_c=T": {"trans_c": T}, "trans_c=NZ_T": {"trans_c": NZ_T},
    "lda=16": {"lda": 16}, "ldb=16": {"ldb": 16}, "ldc=16": {"ldc": 16}, "lda=0": {"lda": 0},
    "compute_type=LOW_PRECISION": {"compute_type": int(ComputeType.ACL_COMPUTE_LOW_PRECISION)},
}


def _gemm_ex_args(g: Gemm, ops: Operands, **override: int) -> list[int]:
    """gemm_ex's positional arguments up to the stream, valid for g except for the overridden ones."""
    dta, dtb, dtc = g.dtypes
    args = {"trans_a": g.trans_a, "trans_b": g.trans_b, "trans_c": N, "m": g.m, "n": g.n, "k": g.k,
            "alpha": ops.alpha, "a": ops.a, "lda": -1, "dta": dta, "b": ops.b, "ldb": -1, "dtb": dtb,
            "beta": ops.beta, "c": ops.c, "ldc": -1, "dtc": dtc, "compute_type": HIGH_PRECISION}
    return executor.blas_arguments(args, override, "gemm_ex")


@pytest.mark.negative
@pytest.mark.parametrize("override", [*NULL_POINTERS.values(), *INVALID_VALUES.values()],
                         ids=[*NULL_POINTERS, *INVALID_VALUES])
def test_gemm_ex_rejects_invalid_arguments_before_looking_for_a_model(acl, stream, uncompiled_gemm, override):
    ret = acl.blas.gemm_ex(*_gemm_ex_args(UNCOMPILED, uncompiled_gemm, **override), stream)
    assert ret == INVALID_PARAM, f"gemm_ex with {override}: expected 100000 (ACL_ERROR_INVALID_PARAM), got {ret}"


@pytest.mark.negative
@pytest.mark.parametrize("override", INVALID_VALUES.values(), ids=INVALID_VALUES)
def test_gemm_ex_rejects_invalid_arguments_even_when_a_model_matches(acl, stream, compiled_gemm, override):
    ret = acl.blas.gemm_ex(*_gemm_ex_args(COMPILED, compiled_gemm, **override), stream)
    flow.check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")
    assert ret == INVALID_PARAM, f"gemm_ex with {override}: expected 100000 (ACL_ERROR_INVALID_PARAM), got {ret}"


@pytest.mark.negative
def test_gemm_ex_with_valid_arguments_but_no_model_is_op_not_found(acl, stream, uncompiled_gemm):
    ret = acl.blas.gemm_ex(*_gemm_ex_args(UNCOMPILED, uncompiled_gemm), stream)
    assert ret == OP_NOT_FOUND, f"gemm_ex of an uncompiled shape: expected 100024 (ACL_ERROR_OP_NOT_FOUND), got {ret}"


@pytest.mark.negative
@pytest.mark.parametrize("override", [{"trans_a": NZ}, {"trans_b": NZ}, {"trans_c": NZ}],
                         ids=["trans_a=NZ", "trans_b=NZ", "trans_c=NZ"])
def test_gemm_ex_accepts_nz_but_finds_no_nz_model(acl, stream, compiled_gemm, override):
    ret = acl.blas.gemm_ex(*_gemm_ex_args(COMPILED, compiled_gemm, **override), stream)
    flow.check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")
    assert ret == OP_NOT_FOUND, f"gemm_ex with {override} and only ND models: expected 100024, got {ret}"


@pytest.mark.negative
@pytest.mark.parametrize("api", ["hgemm", "s8gemm"])
def test_typed_gemm_with_valid_arguments_but_no_model_is_op_not_found(acl, stream, uncompiled_gemm, api):
    ops, g = uncompiled_gemm, UNCOMPILED
    ret = getattr(acl.blas, api)(N, N, N, g.m, g.n, g.k, ops.alpha, ops.a, -1, ops.b, -1, ops.beta, ops.c, -1,
                                 HIGH_PRECISION, stream)
    assert ret == OP_NOT_FOUND, f"{api} of an uncompiled shape: expected 100024, got {ret}"


@pytest.mark.negative
@pytest.mark.parametrize("api", ["hgemm", "s8gemm"])
def test_typed_gemm_rejects_a_null_alpha(acl, stream, uncompiled_gemm, api):
    ops, g = uncompiled_gemm, UNCOMPILED
    ret = getattr(acl.blas, api)(N, N, N, g.m, g.n, g.k, 0, ops.a, -1, ops.b, -1, ops.beta, ops.c, -1,
                                 HIGH_PRECISION, stream)
    assert ret == INVALID_PARAM, f"{api} with alpha 0: expected 100000, got {ret}"


#: Invalid create_handle_for_gemm_ex arguments (the gemm_ex checks that do not involve pointers or ld*).
HANDLE_INVALID = {"m=0": {"m": 0}, "k=-3": {"k": -3}, "trans_b=NZ_T": {"trans_b": NZ_T}, "trans_c=T": {"trans_c": T},
                  "compute_type=LOW_PRECISION": {"compute_type": int(ComputeType.ACL_COMPUTE_LOW_PRECISION)}}


def _handle_args(g: Gemm, **override: int) -> list[int]:
    """create_handle_for_gemm_ex's arguments, valid for g except for the overridden ones."""
    args = {"trans_a": g.trans_a, "trans_b": g.trans_b, "trans_c": N, "m": g.m, "n": g.n, "k": g.k,
            "dta": g.dtypes[0], "dtb": g.dtypes[1], "dtc": g.dtypes[2], "compute_type": HIGH_PRECISION}
    return executor.blas_arguments(args, override, "create_handle_for_gemm_ex")


@pytest.mark.negative
@pytest.mark.parametrize("override", HANDLE_INVALID.values(), ids=HANDLE_INVALID)
def test_create_handle_for_gemm_ex_rejects_invalid_arguments(acl, override):
    handle, ret = acl.blas.create_handle_for_gemm_ex(*_handle_args(COMPILED, **override))
    if ret == 0:
        acl.op.destroy_handle(handle)
    assert (handle, ret) == (0, INVALID_PARAM), f"with {override}: expected (0, 100000), got {(handle, ret)}"


@pytest.mark.negative
@pytest.mark.parametrize("api", ["create_handle_for_gemm_ex", "create_handle_for_hgemm", "create_handle_for_s8gemm"])
def test_create_handle_without_a_model_is_op_not_found(acl, api):
    g = UNCOMPILED
    extra = g.dtypes if api == "create_handle_for_gemm_ex" else ()
    handle, ret = getattr(acl.blas, api)(N, N, N, g.m, g.n, g.k, *extra, HIGH_PRECISION)
    if ret == 0:
        acl.op.destroy_handle(handle)
    assert (handle, ret) == (0, OP_NOT_FOUND), f"{api}, no model: expected (0, 100024), got {(handle, ret)}"


# ------------------------------------------------------- more out-of-range values (handles-blas-cast.md#gemm_ex-checks)


#: gemm_ex values outside the documented ranges beyond INVALID_VALUES: every one is 100000 before the model lookup.
MORE_INVALID_VALUES = {
    "n=0": {"n": 0}, "m=-1": {"m": -1}, "n=-4": {"n": -4}, "k=-16": {"k": -16},
    "trans_a=4": {"trans_a": 4}, "trans_a=100": {"trans_a": 100}, "trans_b=-1": {"trans_b": -1},
    "trans_b=4": {"trans_b": 4}, "trans_c=-1": {"trans_c": -1}, "trans_c=7": {"trans_c": 7},
    "lda=1": {"lda": 1}, "ldb=0": {"ldb": 0}, "ldc=-2": {"ldc": -2}, "ldb=29": {"ldb": 29},
    "compute_type=2": {"compute_type": 2}, "compute_type=-1": {"compute_type": -1},
}


@pytest.mark.negative
@pytest.mark.parametrize("override", MORE_INVALID_VALUES.values(), ids=MORE_INVALID_VALUES)
def test_gemm_ex_rejects_every_value_outside_the_documented_ranges(acl, stream, uncompiled_gemm, override):
    assert acl.blas.gemm_ex(*_gemm_ex_args(UNCOMPILED, uncompiled_gemm, **override), stream) == INVALID_PARAM
