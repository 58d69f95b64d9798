"""`aclcts msopst survey` groups failure reasons as a reader looks them up (docs/msopst.md quotes them)."""

from __future__ import annotations

from aclcts.tools.msopst_survey import OpCount, Outcome, known_line, reasons

REFUSED = 'output_desc[0].type: "int8": Equal\'s y takes one of bool [E13014]'


def test_a_refused_cases_reason_is_listed_without_the_refusal_prefix_or_its_file():
    found = {
        "Equal_a.test_1": Outcome(True, False, "atc", f"CaseRefused: atc: {REFUSED}"),
        "Equal_b.test_2": Outcome(True, False, "atc", f"CaseRefused: atc: /st/Equal/Equal_b.json: case test_2: {REFUSED}"),
        "Equal_a.test_3": Outcome(True, True),
    }
    assert reasons(found) == {"atc": [{"reason": REFUSED, "count": 2, "example": "Equal_a.test_1"}]}


def test_the_known_line_counts_only_op_types_with_a_record():
    per_op = {"Add": OpCount(files={"a.json"}, loaded=3, ran=3, passed=2),
              "NoSuchOpXyz": OpCount(files={"b.json"}, loaded=1, ran=1)}
    per_op["Add"].failed["run"] = 1
    assert known_line(per_op) == ("op types known to aclcts: 1 of 2; their files: 1, sub-cases loaded: 3, ran: 3, "
                                  "passed: 2, failed: 1")
