"""A fuzz function of the Add example, in msopst's form: no arguments, a dict {side: {tensor name: {field: value}}}."""

import random


def fuzz_shapes():
    """One shape for x1, x2 and y, and x1's value range."""
    shape = [random.randint(1, 6), random.randint(1, 6)]
    low = random.uniform(-5.0, 0.0)
    return {"input_desc": {"x1": {"shape": shape, "value_range": [low, low + 5.0]}, "x2": {"shape": shape}},
            "output_desc": {"y": {"shape": shape}}}
