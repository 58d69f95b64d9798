"""Custom operators' folders named by --cases: their records, default cases and simulator kernels.

A folder holds an operator's record (an OPP vendor record, `.../op_proto/aclcts/<OpType>.json` anywhere beneath it,
as `aclcts new-op` writes it), its reference and its kernel. The record names the two modules: `"reference":
"module:ATTR"` (a RefOp made by aclcts.reference.base.define) and `"kernel": "module"` (a module with `compute` and
`infer_shape`, the functions aclcts.sim.register_kernel takes); both are imported from the folder. A record found
there is the op's record for the whole process (before ASCEND_OPP_PATH's); an op no case file of the run covers runs
its record's default cases.
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aclcts.cases.case import Case
from aclcts.cases.defaults import record_cases
from aclcts.cases.load import KINDS, load_cases
from aclcts.cases.schema import CaseFileError
from aclcts.core.prototypes import Prototype, VendorRecordError
from aclcts.core.prototypes.vendors import records_under, use_record
from aclcts.core.usercode import UserCodeError, guarded

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CustomOp:
    """An operator record found under a --cases folder: the record, its file and the folder its modules are in."""

    record: Prototype
    path: Path
    folder: Path


def custom_ops(paths: Iterable[str]) -> list[CustomOp]:
    """The records beneath the folders among paths, each made its op's record in this process and its folder
    importable; CaseFileError naming the file and field of one that is not valid."""
    found = []
    for folder in (Path(p) for p in paths if os.path.isdir(p)):
        try:
            own = [CustomOp(use_record(path), path, folder) for path in records_under(folder)]
        except VendorRecordError as exc:
            raise CaseFileError(str(exc)) from None
        if own and str(folder.resolve()) not in sys.path:
            sys.path.append(str(folder.resolve()))
        found += own
    return found


def _needs(op: CustomOp, key: str, expected: str) -> None:
    if not getattr(op.record, key):
        raise CaseFileError(f"{op.path}: {key}: expected {expected}, as no case file of {op.folder} runs "
                            f"{op.record.op_type} and its default cases need it")


def load_with_records(paths: Iterable[str], kind: str = "static", warn: Callable[[str], None] = log.warning,
                      ops: Collection[str] | None = None) -> list[Case]:
    """load_cases, then the default cases of every record under the folders of paths whose op none of those cases
    runs (among ops, when given)."""
    if kind not in KINDS:
        raise ValueError(f"kind: expected one of {', '.join(KINDS)}, got {kind!r}")
    paths = list(paths)
    records = custom_ops(paths)
    cases = load_cases(paths, "all", warn, ops)
    covered = {case.op for case in cases}
    for op in records:
        if op.record.op_type in covered or (ops is not None and op.record.op_type not in ops):
            continue
        _needs(op, "reference", '"module:ATTR", the RefOp of the op (aclcts.reference.base.define)')
        _needs(op, "policy", "the precision policy its results are judged by (e.g. elementwise)")
        cases += record_cases(op.record, str(op.path))
    return [c for c in cases if kind == "all" or c.dynamic == (kind == "dynamic")]


def kernel_functions(op: CustomOp) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The compute and infer_shape functions of the kernel module the record names, imported through the user-code
    guard; CaseFileError naming the record and its kernel field if it cannot be imported or lacks them."""
    where = f"{op.path}: kernel {op.record.kernel!r}"
    try:
        with guarded(f"{where}: importing it"):
            module = importlib.import_module(op.record.kernel)
    except UserCodeError as exc:
        raise CaseFileError(str(exc)) from None
    missing = [name for name in ("compute", "infer_shape") if not callable(getattr(module, name, None))]
    if missing:
        raise CaseFileError(f"{where}: expected a module with functions compute and infer_shape "
                            f"(aclcts.sim.register_kernel's), it has no {missing[0]}")
    return module.compute, module.infer_shape
