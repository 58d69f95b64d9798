"""Golden functions of the Add example cases, written in msopst's calling convention."""

import numpy as np


def calc_expect_func(x1, x2, y):
    """y = x1 + x2, in the output's type."""
    return [(x1["value"].astype(np.float64) + x2["value"].astype(np.float64)).astype(y["dtype"])]


def calc_expect_func_doubled(x1, x2, y):
    """A wrong golden function: twice the sum (its cases must fail)."""
    return [(2 * (x1["value"].astype(np.float64) + x2["value"].astype(np.float64))).astype(y["dtype"])]


def calc_expect_func_raises(x1, x2, y):
    """A golden function that raises."""
    raise ValueError("this golden function always fails")
