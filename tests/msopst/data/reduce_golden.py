"""Golden function of the ReduceSumD example case, written in msopst's calling convention (attrs by name)."""

import numpy as np


def calc_expect_func(x, y, axes, keep_dims):
    """y = the sum of x over axes, keeping the reduced dims when keep_dims."""
    total = np.sum(x["value"].astype(np.float64), axis=tuple(axes), keepdims=keep_dims)
    return [total.astype(y["dtype"])]
