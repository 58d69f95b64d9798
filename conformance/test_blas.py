"""acl.blas GEMM wrappers (pyacl-api.md §7): gemm_ex, hgemm, s8gemm and their handle forms over the GEMM cases."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from aclcts.drive import flow

from aclcts.drive import runner
from aclcts.cases import Case
from aclcts.core.constants import ComputeType, DataType, ErrorCode, TransType, data_type_size
from aclcts.judge.decorator import compares_with_reference

pytestmark = [pytest.mark.blas]

N, T, NZ, NZ_T = (int(t) for t in TransType)
HIGH_PRECISION = int(ComputeType.ACL_COMPUTE_HIGH_PRECISION)
FP16, INT8, INT32 = (int(d) for d in (DataType.ACL_FLOAT16, DataType.ACL_INT8, DataType.ACL_INT32))
INVALID_PARAM = int(ErrorCode.ACL_ERROR_INVALID_PARAM)
OP_NOT_FOUND = int(ErrorCode.ACL_ERROR_OP_NOT_FOUND)
#: The typed wrappers and the (A, B, C) data types each one fixes.
TYPED = {(FP16, FP16, FP16): "hgemm", (INT8, INT8, INT32): "s8gemm"}


@dataclass(frozen=True)
class Gemm:
    """The sizes, transposes and data types of one gemm_ex call."""

    trans_a: int
    trans_b: int
    m: int
    n: int
    k: int
    dtypes: tuple[int, int, int]

    @classmethod
    def of(cls, case: Case) -> Gemm:
        """The call a GEMM case stands for: trans from its attrs, m, n, k from its shapes."""
        attrs = case.attr_values()
        a, c = case.inputs[0], case.inputs[2]
        m, n = c.shape
        k = a.shape[0] if attrs["transpose_a"] else a.shape[1]
        dtypes = (a.dtype, case.inputs[1].dtype, c.dtype)
        return cls(T if attrs["transpose_a"] else N, T if attrs["transpose_b"] else N, m, n, k, dtypes)


@dataclass(frozen=True)
class Operands:
    """Device memory of one GEMM: A, B, alpha and beta, and C between two guard bands."""

    a: int
    b: int
    alpha: int
    beta: int
    c: int
    sizes: tuple[int, int, int, int, int]

    @property
    def c_base(self) -> int:
        """Start of C's allocation (the guard band before C)."""
        return self.c - runner.GUARD


def _allocate(res: flow.Resources, g: Gemm, itemsize: int | None = None) -> Operands:
    """Allocate A, B, C, alpha, beta for g (element sizes from its dtypes, or `itemsize` for every operand)."""
    dta, dtb, dtc = (itemsize or data_type_size(d) for d in g.dtypes)
    sizes = (g.m * g.k * dta, g.k * g.n * dtb, g.m * g.n * dtc, dtc, dtc)
    a, b, alpha, beta = (flow.malloc(res, size) for size in (sizes[0], sizes[1], sizes[3], sizes[4]))
    c = flow.malloc(res, sizes[2] + 2 * runner.GUARD) + runner.GUARD
    return Operands(a, b, alpha, beta, c, sizes)


def _load(acl: Any, ops: Operands, arrays: list[np.ndarray]) -> None:
    """Copy a, b, c, alpha, beta to the device; C's guard bands hold the poison pattern."""
    total = ops.sizes[2] + 2 * runner.GUARD
    flow.check(acl.rt.memset(ops.c_base, total, runner.POISON, total), "acl.rt.memset")
    for ptr, array in zip((ops.a, ops.b, ops.c, ops.alpha, ops.beta), arrays):
        flow.copy_to_device(acl, ptr, array)


def _read(res: flow.Resources, ops: Operands, case: Case) -> runner.Outputs:
    """C after the call; raises GuardBandError if the call wrote outside it."""
    size, out = ops.sizes[2], case.outputs[0]
    raw = flow.copy_to_host(res, ops.c_base, size + 2 * runner.GUARD)
    poison = bytes([runner.POISON]) * runner.GUARD
    if raw[:runner.GUARD] != poison or raw[runner.GUARD + size:] != poison:
        raise runner.GuardBandError(f"{case.id}: bytes around the {size}-byte matrix C were overwritten")
    c = flow.array_from(raw[runner.GUARD:runner.GUARD + size], out.dtype, out.shape)
    return runner.Outputs([c], [np.zeros(out.shape, bool)])


def _launcher(acl: Any, res: flow.Resources, g: Gemm, ops: Operands, api: str) -> Callable[[int], int]:
    """A function stream -> ret running g by `api` (a blas function, or the handle made by a create_handle_for_*)."""
    dta, dtb, dtc = g.dtypes
    head = (g.trans_a, g.trans_b, N, g.m, g.n, g.k)
    if api == "gemm_ex":
        return lambda stream: acl.blas.gemm_ex(*head, ops.alpha, ops.a, -1, dta, ops.b, -1, dtb, ops.beta, ops.c, -1,
                                               dtc, HIGH_PRECISION, stream)
    if api in ("hgemm", "s8gemm"):
        typed = getattr(acl.blas, api)
        return lambda stream: typed(*head, ops.alpha, ops.a, -1, ops.b, -1, ops.beta, ops.c, -1, HIGH_PRECISION, stream)
    create = getattr(acl.blas, api)
    extra = (dta, dtb, dtc) if api == "create_handle_for_gemm_ex" else ()
    handle = flow.value(create(*head, *extra, HIGH_PRECISION), f"acl.blas.{api}")
    res.handles.append(handle)
    ptrs = (ops.a, ops.b, ops.c, ops.alpha, ops.beta)
    inputs = [flow.create_buffer(res, ptr, size) for ptr, size in zip(ptrs, ops.sizes)]
    return lambda stream: acl.op.execute_with_handle(handle, inputs, [inputs[2]], stream)


def _run(acl: Any, stream: int, case: Case, input_sets: list[list[np.ndarray]], api: str) -> list[runner.Outputs]:
    """Run a GEMM case once per input set through `api`, synchronising before each read-back of C."""
    g = Gemm.of(case)
    results = []
    with flow.resources(acl) as res:
        ops = _allocate(res, g)
        launch = _launcher(acl, res, g, ops, api)
        for arrays in input_sets:
            _load(acl, ops, arrays)
            flow.check(launch(stream), f"acl.blas.{api}" if "handle" not in api else "acl.op.execute_with_handle")
            flow.check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")
            results.append(_read(res, ops, case))
    return results


def _typed(case: Case) -> str:
    """hgemm or s8gemm for the case's data types; skip the case when neither wrapper has them."""
    api = TYPED.get(Gemm.of(case).dtypes)
    if api is None:
        pytest.skip("hgemm and s8gemm exist only for (fp16, fp16, fp16) and (int8, int8, int32)")
    return api


@pytest.mark.cases(ops=["GEMM"])
@compares_with_reference
def test_gemm_ex_matches_reference(acl, stream, op_case, case_inputs):
    return _run(acl, stream, op_case, case_inputs, "gemm_ex")


@pytest.mark.cases(ops=["GEMM"], executions=2)
@compares_with_reference
def test_gemm_ex_handle_matches_reference_on_every_execution(acl, stream, op_case, case_inputs):
    return _run(acl, stream, op_case, case_inputs, "create_handle_for_gemm_ex")


@pytest.mark.cases(ops=["GEMM"])
@compares_with_reference
def test_hgemm_and_s8gemm_match_reference(acl, stream, op_case, case_inputs):
    return _run(acl, stream, op_case, case_inputs, _typed(op_case))


@pytest.mark.cases(ops=["GEMM"], executions=2)
@compares_with_reference
def test_hgemm_and_s8gemm_handles_match_reference_on_every_execution(acl, stream, op_case, case_inputs):
    return _run(acl, stream, op_case, case_inputs, "create_handle_for_" + _typed(op_case))


#: A GEMM no case file compiles (fp16 A [61, 29], B [29, 3], C [61, 3]) and one that gemm.yaml compiles.
UNCOMPILED = Gemm(N, N, 61, 3, 29, (FP16, FP16, FP16))
COMPILED = Gemm(N, N, 16, 16, 16, (FP16, FP16, FP16))
#: Invalid gemm_ex arguments, listed in the documented check order (pyacl-api.md §7): null pointers, sizes,
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
    return _merged(args, override, "gemm_ex")


@pytest.fixture
def uncompiled(acl) -> Iterator[Operands]:
    """Device operands of UNCOMPILED, 4 bytes per element so that every wrapper's data types fit."""
    with flow.resources(acl) as res:
        yield _allocate(res, UNCOMPILED, itemsize=4)


@pytest.fixture
def compiled(acl) -> Iterator[Operands]:
    """Device operands of COMPILED, zero-filled."""
    with flow.resources(acl) as res:
        ops = _allocate(res, COMPILED)
        _load(acl, ops, [np.zeros(size, np.uint8) for size in ops.sizes])
        yield ops


@pytest.mark.negative
@pytest.mark.parametrize("override", [*NULL_POINTERS.values(), *INVALID_VALUES.values()],
                         ids=[*NULL_POINTERS, *INVALID_VALUES])
def test_gemm_ex_rejects_invalid_arguments_before_looking_for_a_model(acl, stream, uncompiled, override):
    ret = acl.blas.gemm_ex(*_gemm_ex_args(UNCOMPILED, uncompiled, **override), stream)
    assert ret == INVALID_PARAM, f"gemm_ex with {override}: expected 100000 (ACL_ERROR_INVALID_PARAM), got {ret}"


@pytest.mark.negative
@pytest.mark.parametrize("override", INVALID_VALUES.values(), ids=INVALID_VALUES)
def test_gemm_ex_rejects_invalid_arguments_even_when_a_model_matches(acl, stream, compiled, override):
    ret = acl.blas.gemm_ex(*_gemm_ex_args(COMPILED, compiled, **override), stream)
    flow.check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")
    assert ret == INVALID_PARAM, f"gemm_ex with {override}: expected 100000 (ACL_ERROR_INVALID_PARAM), got {ret}"


@pytest.mark.negative
def test_gemm_ex_with_valid_arguments_but_no_model_is_op_not_found(acl, stream, uncompiled):
    ret = acl.blas.gemm_ex(*_gemm_ex_args(UNCOMPILED, uncompiled), stream)
    assert ret == OP_NOT_FOUND, f"gemm_ex of an uncompiled shape: expected 100024 (ACL_ERROR_OP_NOT_FOUND), got {ret}"


@pytest.mark.negative
@pytest.mark.parametrize("override", [{"trans_a": NZ}, {"trans_b": NZ}, {"trans_c": NZ}],
                         ids=["trans_a=NZ", "trans_b=NZ", "trans_c=NZ"])
def test_gemm_ex_accepts_nz_but_finds_no_nz_model(acl, stream, compiled, override):
    ret = acl.blas.gemm_ex(*_gemm_ex_args(COMPILED, compiled, **override), stream)
    flow.check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")
    assert ret == OP_NOT_FOUND, f"gemm_ex with {override} and only ND models: expected 100024, got {ret}"


@pytest.mark.negative
@pytest.mark.parametrize("api", ["hgemm", "s8gemm"])
def test_typed_gemm_with_valid_arguments_but_no_model_is_op_not_found(acl, stream, uncompiled, api):
    ops, g = uncompiled, UNCOMPILED
    ret = getattr(acl.blas, api)(N, N, N, g.m, g.n, g.k, ops.alpha, ops.a, -1, ops.b, -1, ops.beta, ops.c, -1,
                                 HIGH_PRECISION, stream)
    assert ret == OP_NOT_FOUND, f"{api} of an uncompiled shape: expected 100024, got {ret}"


@pytest.mark.negative
@pytest.mark.parametrize("api", ["hgemm", "s8gemm"])
def test_typed_gemm_rejects_a_null_alpha(acl, stream, uncompiled, api):
    ops, g = uncompiled, UNCOMPILED
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
    return _merged(args, override, "create_handle_for_gemm_ex")


def _merged(args: dict[str, int], override: dict[str, int], api: str) -> list[int]:
    """The values of args in order, with the overridden ones replaced; unknown names raise ValueError."""
    unknown = set(override) - set(args)
    if unknown:
        raise ValueError(f"not {api} arguments: {sorted(unknown)}")
    return list({**args, **override}.values())


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
