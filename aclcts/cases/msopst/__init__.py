"""msopst case JSON read as aclcts cases: msopst's checks, sub-case expansion, data rules, golden functions, fuzz.

The format is msopst's (docs/msopst.md#field-by-field). A file is a JSON array of case objects; each expands into
sub-cases named as msopst names them, and each sub-case becomes one aclcts Case. Modules: read (the file and its
checks), expand (sub-cases), draw (input data), golden (golden functions and references), fuzz (fuzz cases), record
(the op facts a sub-case takes from the op's record), convert (sub-cases into Cases).

A golden or no-reference sub-case names its reference `aclcts.cases.msopst:<name>`; this package serves <name>.
"""

from __future__ import annotations

from aclcts.cases.case import MsopstInfo
from aclcts.cases.msopst.convert import file_namespace, load_msopst_cases, refused_case, sub_case_reference, to_case
from aclcts.cases.msopst.draw import DRAW_PREFIX, FIXED, msopst_draw
from aclcts.cases.msopst.expand import expand_msopst_case
from aclcts.cases.msopst.fuzz import MAX_FUZZ_CASES, fuzz_cases, is_fuzz_case, prototype_of
from aclcts.cases.msopst.golden import GoldenError, golden_function, loaded_reference
from aclcts.cases.msopst.read import DISTRIBUTIONS, MAX_CASES, is_msopst_file, read_msopst
from aclcts.cases.msopst.record import record_policy_class, record_shape_rule
from aclcts.reference import RefOp


def __getattr__(name: str) -> RefOp:
    """The RefOp a loaded sub-case names as `aclcts.cases.msopst:<name>` (aclcts.reference imports it by that)."""
    try:
        return loaded_reference(name)
    except KeyError:
        raise AttributeError(f"no msopst reference {name!r} loaded in this process") from None


__all__ = ["DISTRIBUTIONS", "DRAW_PREFIX", "FIXED", "MAX_CASES", "MAX_FUZZ_CASES", "GoldenError", "MsopstInfo",
           "expand_msopst_case", "file_namespace", "fuzz_cases", "golden_function", "is_fuzz_case", "is_msopst_file",
           "load_msopst_cases", "msopst_draw", "prototype_of", "read_msopst", "record_policy_class",
           "record_shape_rule", "refused_case", "sub_case_reference", "to_case"]
