"""acl.blas GEMV wrappers (docs/contract/handles-blas-cast.md#gemv): gemv_ex, hgemv, s8gemv and their handle forms over
the GEMM cases with n = 1."""

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
LOW_PRECISION = int(ComputeType.ACL_COMPUTE_LOW_PRECISION)
FP16, INT8, INT32 = (int(d) for d in (DataType.ACL_FLOAT16, DataType.ACL_INT8, DataType.ACL_INT32))
INVALID_PARAM = int(ErrorCode.ACL_ERROR_INVALID_PARAM)
OP_NOT_FOUND = int(ErrorCode.ACL_ERROR_OP_NOT_FOUND)
#: The typed wrappers and the (A, x, y) data types each one fixes.
TYPED = {(FP16, FP16, FP16): "hgemv", (INT8, INT8, INT32): "s8gemv"}


def is_gemv(case: Case) -> bool:
    """A GEMM case gemv_ex can run: n = 1 and x not transposed."""
    return Gemm.of(case).is_gemv


def has_typed_gemv(case: Case) -> bool:
    """A GEMV case whose data types hgemv or s8gemv fix."""
    return is_gemv(case) and Gemm.of(case).dtypes in TYPED


def _typed(case: Case) -> str:
    return TYPED[Gemm.of(case).dtypes]


@pytest.mark.cases(ops=["GEMM"], where=is_gemv)
@compares_with_reference
def test_gemv_ex_matches_reference(acl, stream, op_case, case_inputs):
    return executor.run_gemm(acl, stream, op_case, case_inputs, "gemv_ex")


@pytest.mark.cases(ops=["GEMM"], where=is_gemv, executions=2)
@compares_with_reference
def test_gemv_ex_handle_matches_reference_on_every_execution(acl, stream, op_case, case_inputs):
    return executor.run_gemm(acl, stream, op_case, case_inputs, "create_handle_for_gemv_ex")


@pytest.mark.cases(ops=["GEMM"], where=has_typed_gemv)
@compares_with_reference
def test_hgemv_and_s8gemv_match_reference(acl, stream, op_case, case_inputs):
    return executor.run_gemm(acl, stream, op_case, case_inputs, _typed(op_case))


@pytest.mark.cases(ops=["GEMM"], where=has_typed_gemv, executions=2)
@compares_with_reference
def test_hgemv_and_s8gemv_handles_match_reference_on_every_execution(acl, stream, op_case, case_inputs):
    return executor.run_gemm(acl, stream, op_case, case_inputs, "create_handle_for_" + _typed(op_case))


#: A matrix-vector product no case file compiles (A [61, 29]), and one that cases/matmul/gemv.yaml compiles, a suite
#: model (aclcts/pytest_plugin/library.py SUITE_MODEL_CASES) that every run's model folder holds whatever --cases
#: selects.
UNCOMPILED = Gemm(N, N, 61, 1, 29, (FP16, FP16, FP16))
COMPILED = Gemm(N, N, 16, 1, 16, (FP16, FP16, FP16))
#: Invalid gemv_ex arguments in the documented check order (gemv_ex is gemm_ex(trans_a, N, N, m, 1, n, ...)):
#: null pointers, sizes, trans_a, leading dimension and increments, compute type. All give 100000 before the model
#: lookup. `incx` is absent: the binding passes incy in its place (test_gemv_ex_ignores_incx...).
NULL_POINTERS = {f"{name}=0": {name: 0} for name in ("alpha", "a", "x", "beta", "y")}
INVALID_VALUES = {
    "m=0": {"m": 0}, "m=-1": {"m": -1}, "n=0": {"n": 0}, "n=-16": {"n": -16},
    "trans_a=NZ_T": {"trans_a": NZ_T}, "trans_a=-1": {"trans_a": -1}, "trans_a=7": {"trans_a": 7},
    "lda=16": {"lda": 16}, "lda=0": {"lda": 0}, "incy=1": {"incy": 1}, "incy=0": {"incy": 0}, "incy=2": {"incy": 2},
    "compute_type=LOW_PRECISION": {"compute_type": LOW_PRECISION}, "compute_type=2": {"compute_type": 2},
}


def _gemv_ex_args(g: Gemm, ops: Operands, **override: int) -> list[int]:
    """gemv_ex's positional arguments up to the stream (n is the vector length k), valid except the overridden ones."""
    dta, dtx, dty = g.dtypes
    args = {"trans_a": g.trans_a, "m": g.m, "n": g.k, "alpha": ops.alpha, "a": ops.a, "lda": -1, "dta": dta,
            "x": ops.b, "incx": -1, "dtx": dtx, "beta": ops.beta, "y": ops.c, "incy": -1, "dty": dty,
            "compute_type": HIGH_PRECISION}
    return executor.blas_arguments(args, override, "gemv_ex")


def _typed_args(g: Gemm, ops: Operands, **override: int) -> list[int]:
    """hgemv's or s8gemv's positional arguments up to the stream, valid except the overridden ones."""
    args = {"trans_a": g.trans_a, "m": g.m, "n": g.k, "alpha": ops.alpha, "a": ops.a, "lda": -1, "x": ops.b,
            "incx": -1, "beta": ops.beta, "y": ops.c, "incy": -1, "compute_type": HIGH_PRECISION}
    return executor.blas_arguments(args, override, "hgemv/s8gemv")


@pytest.mark.negative
@pytest.mark.parametrize("override", [*NULL_POINTERS.values(), *INVALID_VALUES.values()],
                         ids=[*NULL_POINTERS, *INVALID_VALUES])
def test_gemv_ex_rejects_invalid_arguments_before_looking_for_a_model(acl, stream, uncompiled_gemm, override):
    ret = acl.blas.gemv_ex(*_gemv_ex_args(UNCOMPILED, uncompiled_gemm, **override), stream)
    assert ret == INVALID_PARAM, f"gemv_ex with {override}: expected 100000 (ACL_ERROR_INVALID_PARAM), got {ret}"


@pytest.mark.negative
@pytest.mark.parametrize("override", INVALID_VALUES.values(), ids=INVALID_VALUES)
def test_gemv_ex_rejects_invalid_arguments_even_when_a_model_matches(acl, stream, compiled_gemm, override):
    ret = acl.blas.gemv_ex(*_gemv_ex_args(COMPILED, compiled_gemm, **override), stream)
    flow.check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")
    assert ret == INVALID_PARAM, f"gemv_ex with {override}: expected 100000 (ACL_ERROR_INVALID_PARAM), got {ret}"


@pytest.mark.parametrize("incx", [1, 2, 0, 16])
def test_gemv_ex_ignores_incx_because_the_binding_passes_incy_in_its_place(acl, stream, compiled_gemm, incx):
    ret = acl.blas.gemv_ex(*_gemv_ex_args(COMPILED, compiled_gemm, incx=incx), stream)
    flow.check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")
    assert ret == 0, f"gemv_ex with incx={incx} (never reaching aclblasGemvEx): expected 0, got {ret}"


@pytest.mark.negative
@pytest.mark.parametrize("api", ["hgemv", "s8gemv"])
@pytest.mark.parametrize("override", [{"alpha": 0}, {"y": 0}, {"incx": 1}, {"incy": 2}, {"lda": 16}, {"n": 0}],
                         ids=["alpha=0", "y=0", "incx=1", "incy=2", "lda=16", "n=0"])
def test_typed_gemv_rejects_invalid_arguments(acl, stream, uncompiled_gemm, api, override):
    ret = getattr(acl.blas, api)(*_typed_args(UNCOMPILED, uncompiled_gemm, **override), stream)
    assert ret == INVALID_PARAM, f"{api} with {override}: expected 100000 (ACL_ERROR_INVALID_PARAM), got {ret}"


@pytest.mark.negative
def test_gemv_ex_with_valid_arguments_but_no_model_is_op_not_found(acl, stream, uncompiled_gemm):
    ret = acl.blas.gemv_ex(*_gemv_ex_args(UNCOMPILED, uncompiled_gemm), stream)
    assert ret == OP_NOT_FOUND, f"gemv_ex of an uncompiled shape: expected 100024 (ACL_ERROR_OP_NOT_FOUND), got {ret}"


@pytest.mark.negative
@pytest.mark.parametrize("api", ["hgemv", "s8gemv"])
def test_typed_gemv_with_valid_arguments_but_no_model_is_op_not_found(acl, stream, uncompiled_gemm, api):
    ret = getattr(acl.blas, api)(*_typed_args(UNCOMPILED, uncompiled_gemm), stream)
    assert ret == OP_NOT_FOUND, f"{api} of an uncompiled shape: expected 100024, got {ret}"


#: Invalid create_handle_for_gemv* arguments (the gemv_ex checks that involve no pointer or increment).
HANDLE_INVALID = {"m=0": {"m": 0}, "n=-3": {"n": -3}, "trans_a=NZ_T": {"trans_a": NZ_T},
                  "compute_type=LOW_PRECISION": {"compute_type": LOW_PRECISION}}
HANDLE_APIS = ["create_handle_for_gemv_ex", "create_handle_for_hgemv", "create_handle_for_s8gemv"]


def _handle_args(api: str, g: Gemm, **override: int) -> list[int]:
    """A create_handle_for_gemv* function's arguments, valid for g except for the overridden ones."""
    args = {"trans_a": g.trans_a, "m": g.m, "n": g.k}
    if api == "create_handle_for_gemv_ex":
        args.update(dta=g.dtypes[0], dtx=g.dtypes[1], dty=g.dtypes[2])
    args["compute_type"] = HIGH_PRECISION
    return executor.blas_arguments(args, override, api)


@pytest.mark.negative
@pytest.mark.parametrize("api", HANDLE_APIS)
@pytest.mark.parametrize("override", HANDLE_INVALID.values(), ids=HANDLE_INVALID)
def test_create_handle_for_gemv_rejects_invalid_arguments(acl, api, override):
    handle, ret = getattr(acl.blas, api)(*_handle_args(api, COMPILED, **override))
    if ret == 0:
        acl.op.destroy_handle(handle)
    assert ret == INVALID_PARAM, f"{api} with {override}: expected 100000, got {(handle, ret)}"


@pytest.mark.negative
@pytest.mark.parametrize("api", HANDLE_APIS)
def test_create_handle_for_gemv_without_a_model_is_op_not_found(acl, api):
    handle, ret = getattr(acl.blas, api)(*_handle_args(api, UNCOMPILED))
    if ret == 0:
        acl.op.destroy_handle(handle)
    assert ret == OP_NOT_FOUND, f"{api}, no model: expected 100024, got {(handle, ret)}"
