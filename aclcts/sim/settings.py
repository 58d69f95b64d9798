"""Simulator settings: defaults, environment variables and the Python API to change them."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass

from aclcts.core.constants import ErrorCode

GIB = 1 << 30


@dataclass
class Settings:
    """Everything about the simulated machine and the simulator's choices for UNCONFIRMED behaviour."""

    device_count: int = 2
    device_memory: int = 16 * GIB
    run_mode: str = "host"
    soc_name: str = "Ascend910B1"
    version: str = "1.0.0"
    memory_kind: str = "hbm"
    require_init: bool = False
    default_device: int | None = 0
    require_opp_path: bool = False
    invalid_free_code: int = int(ErrorCode.ACL_ERROR_RT_MEMORY_FREE)
    dvpp_memory: int = 4 * GIB
    dvpp_zero_size_code: int = int(ErrorCode.ACL_ERROR_INVALID_PARAM)
    no_context_code: int = int(ErrorCode.ACL_ERROR_RT_CONTEXT_NULL)
    unaligned_async_code: int = int(ErrorCode.ACL_ERROR_RT_ADDR_UNALIGNED)
    malloc_fill: int | None = 0xA5
    stack_depth: int = 3
    host_quarantine_bytes: int = 256 << 20
    max_streams: int = 1984
    foreign_soc_models: str = "skip"
    log: bool = False
    matmul_accumulation: str = "blocked"
    host_pointers: str = "mapped"
    memcpy_kind_mismatch: str = "warn"
    faults: frozenset[str] = frozenset()

    def version_tuple(self) -> tuple[int, int, int]:
        """The acl API version as (major, minor, patch)."""
        parts = [int(p) for p in self.version.split(".")]
        return (parts + [0, 0, 0])[0], (parts + [0, 0, 0])[1], (parts + [0, 0, 0])[2]


#: Environment variable for each setting that can be given from outside the process.
ENV_VARS = {
    "device_count": "ACLCTS_SIM_DEVICE_COUNT",
    "max_streams": "ACLCTS_SIM_MAX_STREAMS",
    "foreign_soc_models": "ACLCTS_SIM_FOREIGN_SOC_MODELS",
    "device_memory": "ACLCTS_SIM_DEVICE_MEMORY",
    "run_mode": "ACLCTS_SIM_RUN_MODE",
    "soc_name": "ACLCTS_SIM_SOC_NAME",
    "version": "ACLCTS_SIM_VERSION",
    "memory_kind": "ACLCTS_SIM_MEMORY_KIND",
    "log": "ACLCTS_SIM_LOG",
    "require_init": "ACLCTS_SIM_REQUIRE_INIT",
    "default_device": "ACLCTS_SIM_DEFAULT_DEVICE",
    "stack_depth": "ACLCTS_SIM_STACK_DEPTH",
    "require_opp_path": "ACLCTS_SIM_REQUIRE_OPP_PATH",
    "matmul_accumulation": "ACLCTS_SIM_MATMUL_ACCUMULATION",
    "host_pointers": "ACLCTS_SIM_HOST_POINTERS",
    "memcpy_kind_mismatch": "ACLCTS_SIM_MEMCPY_KIND_MISMATCH",
    "faults": "ACLCTS_SIM_FAULTS",
}

#: matmul_accumulation: how the matrix unit (MatMul family, GEMM, Conv2D) orders its fp32 accumulation -- BLAS's
#: blocked order, or the products over k = 0, 1, ..., K-1 one at a time (that exact order; tens of times slower).
#: foreign_soc_models: a model built for another SoC than soc_name is skipped with a log line (it never matches) or
#: accepted as if built for this one (UNCONFIRMED: the documentation does not say what the runtime does).
#: host_pointers: a host pointer outside every malloc_host block is used only if the kernel says the process may read
#: (and, to be written, write) each of its pages (mapped), or used as it is, as the real runtime would (trusted).
#: memcpy_kind_mismatch: a memcpy kind that contradicts where its pointers live is copied by the addresses with a
#: SimWarning (warn; the runtime takes the direction from the addresses) or is a SimMisuseError (error).
#: docs/sim-contract-additions.md ("Pointers the simulator touches") states both rules.
_CHOICES = {"run_mode": ("host", "device"), "memory_kind": ("hbm", "ddr"), "matmul_accumulation": ("blocked", "sequential"),
            "foreign_soc_models": ("skip", "accept"), "host_pointers": ("mapped", "trusted"),
            "memcpy_kind_mismatch": ("warn", "error")}


def _fault_names(raw: object) -> frozenset[str]:
    from aclcts.sim import faults

    if isinstance(raw, str):
        raw = [part.strip() for part in raw.split(",")]
    elif not isinstance(raw, (list, tuple, set, frozenset)):
        raise ValueError(f"simulator setting faults={raw!r}: expected a comma-separated string or a collection of names")
    try:
        return faults.validate(frozenset(name for name in raw if name))
    except ValueError as exc:
        raise ValueError(f"simulator setting faults: {exc}") from None


def _convert(name: str, raw: object) -> object:
    if name == "faults":
        return _fault_names(raw)
    field_type = {f.name: f.type for f in dataclasses.fields(Settings)}[name]
    if isinstance(raw, str) and field_type == "int | None" and raw.strip().lower() in ("", "none"):
        raw = None
    elif isinstance(raw, str) and field_type in ("int", "int | None"):
        raw = int(raw, 0)
    elif isinstance(raw, str) and field_type == "bool":
        raw = raw.strip().lower() in ("1", "true", "yes", "on")
    if name in _CHOICES and raw not in _CHOICES[name]:
        raise ValueError(f"simulator setting {name}={raw!r}: expected one of {', '.join(_CHOICES[name])}")
    if name == "max_streams" and int(raw) < 1:
        raise ValueError(f"simulator setting max_streams={raw!r}: expected a count of at least 1")
    if name == "device_count" and not 1 <= int(raw) <= 64:
        raise ValueError(f"simulator setting device_count={raw!r}: expected 1..64")
    if name == "version":
        try:
            [int(p) for p in str(raw).split(".")]
        except ValueError:
            raise ValueError(f"simulator setting version={raw!r}: expected MAJOR.MINOR.PATCH") from None
    return raw


def from_environment() -> Settings:
    """Build settings from the defaults overridden by ACLCTS_SIM_* environment variables."""
    settings = Settings()
    for name, var in ENV_VARS.items():
        if var in os.environ:
            try:
                setattr(settings, name, _convert(name, os.environ[var]))
            except ValueError as exc:
                raise ValueError(f"environment variable {var}: {exc}") from None
    return settings


def updated(settings: Settings, **changes: object) -> Settings:
    """Return a copy of settings with the given fields changed; unknown names raise TypeError."""
    known = {f.name for f in dataclasses.fields(Settings)}
    for name in changes:
        if name not in known:
            raise TypeError(f"unknown simulator setting {name!r}; known: {', '.join(sorted(known))}")
    converted = {name: _convert(name, value) for name, value in changes.items()}
    return dataclasses.replace(settings, **converted)
