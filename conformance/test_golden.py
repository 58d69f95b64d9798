"""Curated edge cases (rounding ties, signed zeros, NaN propagation, wrap, saturation, subnormals) against the golden store."""

import numpy as np
import pytest

from aclcts.judge import golden

from aclcts.drive import executor
from aclcts.judge.decorator import judge

pytestmark = [pytest.mark.execute]


def test_golden_case_matches_the_stored_result(acl, stream, golden_case, golden_dir, comparisons):
    try:
        stored = golden.load_expected(golden_dir, golden_case.name)
    except golden.GoldenError as exc:
        pytest.fail(str(exc), pytrace=False)
    case = golden_case.case
    inputs = [stored[f"input_{t.name}"] for t in case.inputs]
    for tensor, defined, kept in zip(case.inputs, golden_case.inputs, inputs):
        assert np.array_equal(defined.view(np.uint8), kept.view(np.uint8)), (
            f"golden input {tensor.name!r} of {golden_case.name} differs from definitions.yaml; "
            "regenerate deliberately with --update-golden"
        )
    expected = [stored[f"expected_{t.name}"] for t in case.outputs]
    results = executor.run(acl, stream, case, [inputs], "execute_v2")
    failures = judge(case, [inputs], results, [expected], into=comparisons)
    assert not failures, f"{golden_case.name} ({golden_case.why}):\n" + "\n".join(failures)
