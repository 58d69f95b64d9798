"""The repository, the Allure tests' own case files and the conformance tests they run over them."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CASES = Path(__file__).resolve().parent / "cases"
EXECUTE = "test_execute_v2_matches_reference[Add-float16-4x8_4x8]"
HANDLE = "test_execute_with_handle_matches_reference_on_every_execution[Add-float16-4x8_4x8]"
CAST = "test_op_cast_matches_reference[Cast-int32_float16-4x8]"
