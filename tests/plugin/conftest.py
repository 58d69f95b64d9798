"""A pytester project with one Add case file, for the plugin tests."""

import pytest

ADD_CASE = """\
op: Add
policy: elementwise
source: "elewise_calculation_ops.h REG_OP(Add): inputs x1, x2; output y"
inputs: [x1, x2]
outputs: [y]
dtypes: [float16, float32, int32, bfloat16]
profiles: []                  # the plugin under test, not the value profiles (tests/cases/test_value_profiles.py)
shapes:
  - [[8, 16], [8, 16]]
  - [[2, 1, 3], [4, 3]]
  - [[], [5]]
  - [[1], [1]]
"""


@pytest.fixture
def project(pytester):
    pytester.makefile(".yaml", **{"cases/add": ADD_CASE})
    return pytester


@pytest.fixture(scope="session")
def add_case_text():
    return ADD_CASE
