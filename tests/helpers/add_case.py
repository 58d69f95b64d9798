"""The case file text several self-tests start from: Add float32 at one small shape."""

ADD_CASE = """\
op: Add
policy: elementwise
source: "elewise_calculation_ops.h REG_OP(Add): inputs x1, x2; output y"
inputs: [x1, x2]
outputs: [y]
dtypes: [float32]
profiles: []                  # the plugin under test, not the value profiles (tests/cases/test_value_profiles.py)
shapes:
  - [[8, 16], [8, 16]]
"""
