"""Error-code files: validation with file, line and field; strict and lenient checking; outcomes."""

import json
import textwrap
from pathlib import Path

import pytest

from aclcts.core.error_codes import (
    ErrorCodeMismatch,
    ErrorCodesError,
    Outcome,
    load_error_codes,
)

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "error-codes" / "cann-9.0.yaml"

VALID = """\
release: test release
document: docs/contract
scenarios:
  free.null:
    api: acl.rt.free
    code: ACL_ERROR_INVALID_PARAM
    condition: "`0` → 100000"
    section: memory.md#malloc-and-free
  malloc.zero:
    api: acl.rt.malloc
    code: 100000
    value: 0
    condition: "size == 0 → 100000"
    section: memory.md#malloc-and-free
  load.garbage:
    api: acl.op.load
    code: [100012, ACL_ERROR_PARSE_MODEL]
    condition: "Garbage → 100012 or 100013"
    section: op-load-execute.md#load
  tuple.dims:
    api: acl.create_tensor_desc
    exception: TypeError
    message: argument 2 is not list
    condition: "tuple → TypeError"
    section: tensor-desc-and-buffers.md#creating-and-destroying-descs
  dims.null:
    api: acl.get_tensor_desc_num_dims
    returns: 0
    condition: "desc 0 → 0"
    section: tensor-desc-and-buffers.md#desc-getters
  double.free:
    api: acl.rt.free
    rejected: true
    condition: "exact code UNCONFIRMED"
    section: error-codes.md#open-questions
  empty.output:
    api: acl.op.execute_v2
    code: ACL_SUCCESS
    condition: "every output desc has a 0 dim → 0"
    section: op-load-execute.md#execute_v2-check-order
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "release.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def load_error(tmp_path: Path, text: str) -> str:
    with pytest.raises(ErrorCodesError) as info:
        load_error_codes(write(tmp_path, text))
    return str(info.value)


@pytest.fixture
def strict(tmp_path):
    return load_error_codes(write(tmp_path, VALID))


@pytest.fixture
def lenient(tmp_path):
    return load_error_codes(write(tmp_path, VALID), lenient=True)


def test_the_shipped_file_loads_and_documents_at_least_150_scenarios():
    loaded = load_error_codes(SHIPPED)
    assert len(loaded.scenarios) >= 150
    assert loaded.document == "docs/contract"
    assert all(".md#" in e.section and e.condition for e in loaded.scenarios.values())


def test_codes_may_be_given_by_name_or_number(strict):
    assert strict["free.null"].codes == (100000,)
    assert strict["load.garbage"].codes == (100012, 100013)


def test_strict_mode_wants_the_exact_code(strict):
    strict.check("free.null", Outcome(result=100000))
    with pytest.raises(ErrorCodeMismatch) as info:
        strict.check("free.null", Outcome(result=107000))
    message = str(info.value)
    assert "acl.rt.free [free.null]" in message and "returned 107000 (ACL_ERROR_RT_PARAM_INVALID)" in message
    assert '"`0` → 100000"' in message and "release.yaml:5" in message
    assert "docs/contract/memory.md#malloc-and-free" in message


def test_lenient_mode_takes_any_non_zero_code_but_not_success(lenient):
    lenient.check("free.null", Outcome(result=107000))
    with pytest.raises(ErrorCodeMismatch, match="non-zero"):
        lenient.check("free.null", Outcome(result=0))


def test_an_expected_success_stays_exact_in_lenient_mode(lenient):
    lenient.check("empty.output", Outcome(result=0))
    with pytest.raises(ErrorCodeMismatch):
        lenient.check("empty.output", Outcome(result=100000))


def test_a_list_of_codes_accepts_any_of_them(strict):
    strict.check("load.garbage", Outcome(result=100013))
    with pytest.raises(ErrorCodeMismatch):
        strict.check("load.garbage", Outcome(result=100000))


def test_the_value_before_ret_is_checked_in_both_modes(strict, lenient):
    strict.check("malloc.zero", Outcome(result=[0, 100000]))
    for mode in (strict, lenient):
        with pytest.raises(ErrorCodeMismatch, match="with value 0"):
            mode.check("malloc.zero", Outcome(result=[4096, 100000]))


def test_an_exception_needs_type_and_message_strictly_and_the_type_leniently(strict, lenient):
    raised = Outcome.capture(lambda: (_ for _ in ()).throw(TypeError("argument 2 is not list")))
    strict.check("tuple.dims", raised)
    other = Outcome(error_type="TypeError", error_message="some other text")
    with pytest.raises(ErrorCodeMismatch, match="expected the message"):
        strict.check("tuple.dims", other)
    lenient.check("tuple.dims", other)
    with pytest.raises(ErrorCodeMismatch):
        lenient.check("tuple.dims", Outcome(error_type="ValueError", error_message="argument 2 is not list"))
    with pytest.raises(ErrorCodeMismatch, match="aclError result"):
        strict.check("free.null", raised)


def test_returns_is_exact(strict):
    strict.check("dims.null", Outcome(result=0))
    with pytest.raises(ErrorCodeMismatch):
        strict.check("dims.null", Outcome(result=2))


def test_rejected_accepts_a_code_or_an_exception_but_not_success_or_a_broken_probe(strict):
    strict.check("double.free", Outcome(result=207002))
    strict.check("double.free", Outcome(error_type="SimMisuseError", error_message="already freed"))
    with pytest.raises(ErrorCodeMismatch, match="rejection"):
        strict.check("double.free", Outcome(result=0))
    with pytest.raises(ErrorCodeMismatch, match="probe itself failed with AttributeError"):
        strict.check("double.free", Outcome(error_type="AttributeError", error_message="no attribute x"))


def test_a_scenario_can_be_skipped_with_a_reason(tmp_path):
    text = VALID.replace('#open-questions\n', '#open-questions\n    skip: removed in this release\n')
    loaded = load_error_codes(write(tmp_path, text))
    assert loaded["double.free"].skip == "removed in this release"
    assert loaded["free.null"].skip is None


def test_an_unknown_scenario_is_a_failure_naming_the_file(strict):
    with pytest.raises(ErrorCodeMismatch, match="release.yaml: no documented outcome for scenario 'nope'"):
        strict.check("nope", Outcome(result=0))


def test_outcomes_survive_json_and_normalise_tuples():
    outcome = Outcome.capture(lambda: (None, True, 100000))
    again = Outcome.from_json(json.loads(json.dumps(outcome.to_json())))
    assert again == outcome and again.result == [None, True, 100000]
    assert again.code() == 100000 and again.values() == [None, True]


@pytest.mark.parametrize("text, where", [
    ("release: r\ndocument: d\n", "release.yaml:1: (file): expected the required key 'scenarios'"),
    ("release: r\ndocument: d\nextra: 1\nscenarios: {}\n", "release.yaml:3: extra: expected one of the keys"),
    ("release: r\ndocument: d\nscenarios: []\n", "release.yaml:3: scenarios: expected a non-empty mapping"),
    ("release: r\ndocument: d\nscenarios:\n  a:\n    api: x\n    condition: c\n    section: s.md#a\n",
     "release.yaml:5: scenarios.a: expected exactly one of code, exception, returns, rejected"),
    (("release: r\ndocument: d\nscenarios:\n  a:\n    api: x\n    code: 1\n    returns: 0\n    condition: c\n"
     "    section: s.md#a\n"), "release.yaml:5: scenarios.a: expected exactly one of"),
    ("release: r\ndocument: d\nscenarios:\n  a:\n    api: x\n    code: NOT_A_CODE\n    condition: c\n    section: s.md#a\n",
     "release.yaml:6: scenarios.a.code: expected an aclError name"),
    ("release: r\ndocument: d\nscenarios:\n  a:\n    api: x\n    code: -5\n    condition: c\n    section: s.md#a\n",
     "release.yaml:6: scenarios.a.code: expected an aclError (int >= 0"),
    ("release: r\ndocument: d\nscenarios:\n  a:\n    api: x\n    code: 1\n    condition: c\n    section: 3.1\n",
     "release.yaml:8: scenarios.a.section: expected a non-empty string, got 3.1"),
    ("release: r\ndocument: d\nscenarios:\n  a:\n    api: x\n    code: 1\n    condition: c\n    section: '3.1'\n",
     "release.yaml:8: scenarios.a.section: expected a page and heading anchor of the document"),
    ("release: r\ndocument: d\nscenarios:\n  a:\n    api: x\n    code: 1\n    condition: ''\n    section: s.md#a\n",
     "release.yaml:7: scenarios.a.condition: expected a non-empty string"),
    (("release: r\ndocument: d\nscenarios:\n  a:\n    api: x\n    exception: OSError\n    condition: c\n"
     "    section: s.md#a\n"), "release.yaml:6: scenarios.a.exception: expected one of TypeError, ValueError, RuntimeError"),
    (("release: r\ndocument: d\nscenarios:\n  a:\n    api: x\n    code: 1\n    message: m\n    condition: c\n"
     "    section: s.md#a\n"), "release.yaml:7: scenarios.a.message: expected message only together with exception"),
    ("release: r\ndocument: d\nscenarios:\n  a:\n    api: x\n    rejected: false\n    condition: c\n    section: s.md#a\n",
     "release.yaml:6: scenarios.a.rejected: expected true"),
    (("release: r\ndocument: d\nscenarios:\n  a:\n    api: x\n    code: 1\n    condition: c\n    section: s.md#a\n"
     "    sectoin: s.md#b\n"), "release.yaml:9: scenarios.a.sectoin: expected one of the keys"),
    ("release: r\ndocument: d\nscenarios:\n  a: [1\n", "release.yaml:5: not valid YAML"),
], ids=["missing-scenarios", "unknown-top-key", "scenarios-not-mapping", "no-outcome", "two-outcomes",
        "unknown-code-name", "negative-code", "section-a-number", "section-no-anchor", "empty-condition", "unknown-exception",
        "message-without-exception", "rejected-false", "misspelt-key", "yaml-syntax"])
def test_a_broken_file_is_reported_with_file_line_and_field(tmp_path, text, where):
    assert where in load_error(tmp_path, text)


def test_a_missing_file_is_reported_without_a_traceback(tmp_path):
    with pytest.raises(ErrorCodesError, match=r"cann-0\.0\.yaml: cannot read the error-code file"):
        load_error_codes(tmp_path / "cann-0.0.yaml")
