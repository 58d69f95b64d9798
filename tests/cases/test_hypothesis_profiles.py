"""The suite's hypothesis profiles: `survey` draws the examples `ci` draws and reports a failure as found (its example
and reproduce_failure blob printed), without shrinking it."""

from __future__ import annotations

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from aclcts.cases.strategies import SURVEY_PROFILE


def test_the_survey_profile_draws_as_many_examples_as_ci_and_never_shrinks():
    survey, ci = settings.get_profile(SURVEY_PROFILE), settings.get_profile("ci")
    assert (survey.max_examples, survey.derandomize) == (ci.max_examples, ci.derandomize)
    assert Phase.generate in survey.phases and Phase.shrink not in survey.phases
    assert Phase.shrink in ci.phases


def failing_run(profile: str) -> tuple[list[int], str]:
    """The values a test failing on every value above 9 was called with under the profile, and its failure's notes."""
    seen: list[int] = []

    @settings(settings.get_profile(profile))
    @given(st.integers(0, 10**6))
    def check(x: int) -> None:
        seen.append(x)
        assert x < 10

    with pytest.raises(AssertionError) as failure:
        check()
    return seen, "\n".join(getattr(failure.value, "__notes__", []))


def test_under_the_survey_profile_a_failure_is_reported_as_found_with_its_example_and_blob():
    seen, notes = failing_run(SURVEY_PROFILE)
    first = next(x for x in seen if x >= 10)
    assert f"x={first}," in notes and "@reproduce_failure(" in notes
    shrunk, shrunk_notes = failing_run("ci")
    assert "x=10," in shrunk_notes and len(seen) < len(shrunk)
