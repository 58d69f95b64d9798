"""Case files: schema, loading, and expansion into concrete conformance cases."""

from aclcts.cases.case import Case, TensorCase
from aclcts.cases.load import case_files, expand_file, load_cases
from aclcts.cases.schema import CaseFileError

__all__ = ["Case", "CaseFileError", "TensorCase", "case_files", "expand_file", "load_cases"]
