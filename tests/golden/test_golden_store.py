"""The golden store: checksums catch tampering, regeneration is deliberate and atomic, the reference still agrees."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from aclcts.judge import golden
from aclcts.reference import reference

REPO_GOLDEN = Path(__file__).resolve().parents[2] / "golden"


@pytest.fixture
def store(tmp_path):
    folder = tmp_path / "golden"
    shutil.copytree(REPO_GOLDEN, folder)
    return folder


def test_every_repository_golden_file_matches_its_manifest_checksum():
    manifest = json.loads((REPO_GOLDEN / golden.MANIFEST).read_text())
    names = {g.name for g in golden.load_definitions(REPO_GOLDEN)}
    assert set(manifest["entries"]) == names
    for name in names:
        golden.load_expected(REPO_GOLDEN, name)


def test_the_reference_still_reproduces_every_stored_expected_output_bit_for_bit():
    for case in golden.load_definitions(REPO_GOLDEN):
        stored = golden.load_expected(REPO_GOLDEN, case.name)
        outputs = reference(case.case.reference).compute(list(case.inputs), case.case.attr_values(),
                                                         [t.np_dtype for t in case.case.outputs])
        for tensor, output in zip(case.case.outputs, outputs):
            kept = stored[f"expected_{tensor.name}"]
            assert np.asarray(output).astype(kept.dtype).tobytes() == kept.tobytes(), case.name


def test_a_modified_golden_file_is_reported_as_tampered_not_regenerated(store):
    path = store / "add_int32_wraps.npz"
    data = bytearray(path.read_bytes())
    data[-10] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(golden.GoldenError, match="corrupted or was modified"):
        golden.load_expected(store, "add_int32_wraps")
    assert path.read_bytes() == bytes(data)


def test_a_missing_golden_file_is_reported(store):
    (store / "add_int32_wraps.npz").unlink()
    with pytest.raises(golden.GoldenError, match="missing"):
        golden.load_expected(store, "add_int32_wraps")


def test_an_unknown_name_is_reported(store):
    with pytest.raises(golden.GoldenError, match="no entry"):
        golden.load_expected(store, "not_a_case")


def test_generate_rewrites_files_and_manifest_and_leaves_no_temporary_files(store):
    (store / "add_int32_wraps.npz").write_bytes(b"garbage")
    written = golden.generate(store)
    assert "add_int32_wraps" in written
    golden.load_expected(store, "add_int32_wraps")
    assert not list(store.glob(".*tmp"))


def test_a_broken_definition_names_the_file_and_line(store):
    (store / golden.DEFINITIONS).write_text("- name: x\n  op: Add\n")
    with pytest.raises(golden.CaseFileError, match=r"definitions.yaml:1: golden case 0"):
        golden.load_definitions(store)


def test_integer_inputs_are_read_exactly_up_to_64_bits(store):
    (store / golden.DEFINITIONS).write_text(
        "- name: neg_int64_extremes\n  why: x\n  exact_because: \"docs/precision-policy.md#cann-commercial-standard: integer compute is bitwise\"\n  op: Neg\n  family: elementwise\n  dtypes: {x: int64, y: int64}\n"
        "  inputs:\n    x: {values: [9223372036854775807, -9223372036854775807, 9007199254740993]}\n  outputs: [y]\n")
    (case,) = golden.load_definitions(store)
    assert case.inputs[0].tolist() == [2**63 - 1, -(2**63) + 1, 2**53 + 1]


#: An exact integer case; {extra} holds its exact_because line (or nothing).
EXACT_CASE = ("- name: add_int32\n  why: x\n{extra}  op: Add\n  family: elementwise\n"
              "  dtypes: {{x1: int32, x2: int32, y: int32}}\n  inputs:\n    x1: {{values: [1]}}\n    x2: {{values: [2]}}\n"
              "  outputs: [y]\n")


@pytest.mark.parametrize("extra", ["", "  exact_because: because\n", "  exact_because: docs/precision-policy.md\n"],
                         ids=["missing", "no-docs-line", "no-heading"])
def test_an_exact_golden_case_without_the_documentation_line_demanding_it_is_refused(store, extra):
    (store / golden.DEFINITIONS).write_text(EXACT_CASE.format(extra=extra))
    with pytest.raises(golden.CaseFileError, match=r"definitions.yaml:1: golden case 0: exact_because: the exact "
                                                   r"policy needs the documentation line"):
        golden.load_definitions(store)


def test_an_exact_golden_case_citing_a_docs_heading_and_a_reason_loads(store):
    line = "  exact_because: \"docs/precision-policy.md#cann-commercial-standard: integer compute is bitwise\"\n"
    (store / golden.DEFINITIONS).write_text(EXACT_CASE.format(extra=line))
    (case,) = golden.load_definitions(store)
    assert case.case.precision == "exact" and case.exact_because.endswith("integer compute is bitwise")


def test_every_stored_golden_case_is_exact_only_where_a_documentation_line_demands_it():
    for case in golden.load_definitions(REPO_GOLDEN):
        assert case.case.precision != "exact" or golden.EXACT_BECAUSE.fullmatch(case.exact_because), case.name
