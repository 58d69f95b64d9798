"""Running a GEMM case through the packaged acl.blas functions (gemm_ex, hgemm, s8gemm and the matrix-vector
forms) and their create_handle_for_* handles, with C between guard bands."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from aclcts.cases import Case
from aclcts.core.constants import ComputeType, TransType, data_type_size
from aclcts.drive import flow
from aclcts.drive.executor.guard import Guarded, guarded_malloc, poison, read_guarded
from aclcts.drive.executor.running import synchronize
from aclcts.drive.executor.staging import Outputs

N, T = int(TransType.ACL_TRANS_N), int(TransType.ACL_TRANS_T)
HIGH_PRECISION = int(ComputeType.ACL_COMPUTE_HIGH_PRECISION)
#: The acl.blas functions (and create_handle_for_* forms) run_gemm drives.
GEMM_APIS = ("gemm_ex", "hgemm", "s8gemm", "create_handle_for_gemm_ex", "create_handle_for_hgemm",
             "create_handle_for_s8gemm")
#: The matrix-vector forms run_gemm drives for a GEMM case with n = 1 and B not transposed (x [k, 1], y [m, 1]).
GEMV_APIS = ("gemv_ex", "hgemv", "s8gemv", "create_handle_for_gemv_ex", "create_handle_for_hgemv",
             "create_handle_for_s8gemv")


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

    @property
    def is_gemv(self) -> bool:
        """Whether this is a matrix-vector product gemv_ex can run: n = 1, B (the vector x) not transposed."""
        return self.n == 1 and self.trans_b == N


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
    def guarded_c(self) -> Guarded:
        """C's allocation with its guard bands."""
        return Guarded(self.c, self.sizes[2])


def gemm_operands(res: flow.Resources, g: Gemm, itemsize: int | None = None) -> Operands:
    """Allocate A, B, C, alpha, beta for g (element sizes from its dtypes, or `itemsize` for every operand)."""
    dta, dtb, dtc = (itemsize or data_type_size(d) for d in g.dtypes)
    sizes = (g.m * g.k * dta, g.k * g.n * dtb, g.m * g.n * dtc, dtc, dtc)
    a, b, alpha, beta = (flow.malloc(res, size) for size in (sizes[0], sizes[1], sizes[3], sizes[4]))
    return Operands(a, b, alpha, beta, guarded_malloc(res, sizes[2]).ptr, sizes)


def blas_arguments(args: dict[str, int], override: dict[str, int], api: str) -> list[int]:
    """The values of an acl.blas call's named arguments in order, overridden ones replaced; unknown names: ValueError."""
    unknown = set(override) - set(args)
    if unknown:
        raise ValueError(f"not {api} arguments: {sorted(unknown)}")
    return list({**args, **override}.values())


def load_gemm(acl: Any, ops: Operands, arrays: list[np.ndarray]) -> None:
    """Fill C and its guard bands with POISON, then copy a, b, c, alpha, beta to the device."""
    poison(acl, [ops.guarded_c])
    for ptr, array in zip((ops.a, ops.b, ops.c, ops.alpha, ops.beta), arrays):
        flow.copy_to_device(acl, ptr, array)


def _gemm_launcher(acl: Any, res: flow.Resources, g: Gemm, ops: Operands, api: str) -> Callable[[int], int]:
    """A function stream -> ret running g by `api` (a blas function, or the handle made by a create_handle_for_*)."""
    dta, dtb, dtc = g.dtypes
    if api in GEMV_APIS:
        return _gemv_launcher(acl, res, g, ops, api)
    head = (g.trans_a, g.trans_b, N, g.m, g.n, g.k)
    c = ops.c
    if api == "gemm_ex":
        return lambda stream: acl.blas.gemm_ex(*head, ops.alpha, ops.a, -1, dta, ops.b, -1, dtb, ops.beta, c, -1,
                                               dtc, HIGH_PRECISION, stream)
    if api in ("hgemm", "s8gemm"):
        typed = getattr(acl.blas, api)
        return lambda stream: typed(*head, ops.alpha, ops.a, -1, ops.b, -1, ops.beta, c, -1, HIGH_PRECISION, stream)
    create = getattr(acl.blas, api)
    extra = (dta, dtb, dtc) if api == "create_handle_for_gemm_ex" else ()
    with flow.step(f"acl.blas.{api}"):
        handle = flow.value(create(*head, *extra, HIGH_PRECISION), f"acl.blas.{api}")
    res.handles.append(handle)
    inputs = [flow.create_buffer(res, ptr, size) for ptr, size in zip((ops.a, ops.b, c, ops.alpha, ops.beta), ops.sizes)]
    return lambda stream: acl.op.execute_with_handle(handle, inputs, [inputs[2]], stream)


def _gemv_launcher(acl: Any, res: flow.Resources, g: Gemm, ops: Operands, api: str) -> Callable[[int], int]:
    """A function stream -> ret running the matrix-vector product g (x = B, y = C) by a gemv `api`."""
    dta, dtx, dty = g.dtypes
    a, x, y = ops.a, ops.b, ops.c
    if api == "gemv_ex":
        return lambda stream: acl.blas.gemv_ex(g.trans_a, g.m, g.k, ops.alpha, a, -1, dta, x, -1, dtx, ops.beta, y, -1,
                                               dty, HIGH_PRECISION, stream)
    if api in ("hgemv", "s8gemv"):
        typed = getattr(acl.blas, api)
        return lambda stream: typed(g.trans_a, g.m, g.k, ops.alpha, a, -1, x, -1, ops.beta, y, -1, HIGH_PRECISION,
                                    stream)
    extra = (dta, dtx, dty) if api == "create_handle_for_gemv_ex" else ()
    with flow.step(f"acl.blas.{api}"):
        handle = flow.value(getattr(acl.blas, api)(g.trans_a, g.m, g.k, *extra, HIGH_PRECISION), f"acl.blas.{api}")
    res.handles.append(handle)
    inputs = [flow.create_buffer(res, ptr, size) for ptr, size in zip((a, x, y, ops.alpha, ops.beta), ops.sizes)]
    return lambda stream: acl.op.execute_with_handle(handle, inputs, [inputs[2]], stream)


def run_gemm(acl: Any, stream: int, case: Case, input_sets: list[list[np.ndarray]], api: str) -> list[Outputs]:
    """Run a GEMM case (inputs a, b, c, alpha, beta) once per input set through `api` (a GEMM or, for a case with
    n = 1, a GEMV form), synchronising before each read-back of C; C's guard bands hold POISON."""
    if api not in GEMM_APIS + GEMV_APIS:
        raise ValueError(f"api: expected one of {', '.join(GEMM_APIS + GEMV_APIS)}, got {api!r}")
    g, out = Gemm.of(case), case.outputs[0]
    if api in GEMV_APIS and not g.is_gemv:
        raise ValueError(f"{case.id}: {api} needs n = 1 and B not transposed, got n = {g.n}")
    results = []
    call = f"acl.blas.{api}" if "handle" not in api else "acl.op.execute_with_handle"
    with flow.resources(acl) as res:
        with flow.step("stage"):
            ops = gemm_operands(res, g)
            launch_gemm = _gemm_launcher(acl, res, g, ops, api)
        for index, arrays in enumerate(input_sets):
            with flow.step(f"execution {index + 1}"):
                load_gemm(acl, ops, arrays)
                with flow.step(call):
                    flow.check(launch_gemm(stream), call)
                synchronize(acl, stream)
                body, tail = read_guarded(res, ops.guarded_c,
                                          lambda _: f"{case.id}: bytes around the {ops.sizes[2]}-byte matrix C were "
                                                    "overwritten")
                results.append(Outputs([flow.array_from(body, out.dtype, out.shape)], [np.zeros(out.shape, bool)],
                                       [tail]))
    return results
