"""Single-op JSON for ATC: parsing, validation, generation, and the simulator's model compiler."""

from aclcts.atc.cli import main
from aclcts.atc.compiler import CompileResult, compile_elements, compile_singleop
from aclcts.atc.generate import generate_singleop_json
from aclcts.atc.parser import Diagnostic, ParsedOp, SingleOpFileError, parse_singleop

__all__ = ["CompileResult", "compile_elements", "Diagnostic", "ParsedOp", "SingleOpFileError", "compile_singleop",
           "generate_singleop_json", "main", "parse_singleop"]
