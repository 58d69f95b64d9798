"""`aclcts msopst survey` groups failure reasons as a reader looks them up (docs/msopst.md quotes them)."""

from __future__ import annotations

from aclcts.tools.msopst_survey import Outcome, reasons

REFUSED = 'output_desc[0].type: "int8": Equal\'s y takes one of bool [E13014]'


def test_a_refused_cases_reason_is_listed_without_the_refusal_prefix_or_its_file():
    found = {
        "Equal_a.test_1": Outcome(True, False, "atc", f"CaseRefused: atc: {REFUSED}"),
        "Equal_b.test_2": Outcome(True, False, "atc", f"CaseRefused: atc: /st/Equal/Equal_b.json: case test_2: {REFUSED}"),
        "Equal_a.test_3": Outcome(True, True),
    }
    assert reasons(found) == {"atc": [{"reason": REFUSED, "count": 2, "example": "Equal_a.test_1"}]}
