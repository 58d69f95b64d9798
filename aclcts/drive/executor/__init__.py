"""The one executor of a case: stage it on the device, run it (execute_v2, a handle, infer_shape then execute_v2 for a
dynamic case, the packaged gemm_ex / hgemm / s8gemm and Cast with their handle forms), synchronise and read it back.

Every output sits between two guard bands and is filled with POISON before each execution (`guard`); `staging` puts a
case's tensors on the device and copies its outputs back; `running` holds the static call forms, `dynamic` the
dynamic-shape and infer_shape flows, `blas` the packaged GEMM and GEMV, `cast` the packaged Cast. The rest of aclcts
imports the executor from here.
"""

from aclcts.drive.executor.blas import (GEMM_APIS, GEMV_APIS, Gemm, Operands, blas_arguments, gemm_operands, load_gemm,
                                        run_gemm)
from aclcts.drive.executor.cast import cast_tensors, run_cast
from aclcts.drive.executor.dynamic import (Executed, Inferred, case_inputs, execute_dynamic, infer_case, infer_shape,
                                           infer_then_execute, range_maximum)
from aclcts.drive.executor.guard import (GUARD, POISON, GuardBandError, Guarded, TailBlockWritten, align_up,
                                         guarded_malloc, poison, read_guarded)
from aclcts.drive.executor.running import MODES, create_handle, latencies, launch, run, run_plain
from aclcts.drive.executor.staging import Outputs, stage, stored_dims

__all__ = [
    "GEMM_APIS", "GEMV_APIS", "GUARD", "MODES", "POISON", "Executed", "Gemm", "GuardBandError", "Guarded", "Inferred",
    "Operands", "Outputs", "TailBlockWritten", "align_up", "blas_arguments", "case_inputs", "cast_tensors",
    "create_handle", "execute_dynamic", "gemm_operands", "guarded_malloc", "infer_case", "infer_shape",
    "infer_then_execute", "latencies", "launch", "load_gemm", "poison", "range_maximum", "read_guarded", "run",
    "run_cast", "run_gemm", "run_plain", "stage", "stored_dims",
]
