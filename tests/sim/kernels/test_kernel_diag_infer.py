"""Diag's infer_shape with unknown input dims (issue 34: `output y: dims None` on CANN's Diag cases): like CANN's
DiagInferShape, the output is x's dims twice with -1 kept, of known rank; only an unknown-rank x gives [-2]."""

import numpy as np

I32 = np.int32


def test_diag_of_unknown_dims_keeps_the_rank(infer):
    (out,) = infer("Diag", [(I32, (-1,))])
    assert out.shape == (-1, -1)
    (out,) = infer("Diag", [(I32, (3, -1))])
    assert out.shape == (3, -1, 3, -1)


def test_diag_of_known_and_unknown_rank_inputs(infer):
    (out,) = infer("Diag", [(I32, (2, 3))])
    assert out.shape == (2, 3, 2, 3)
    (out,) = infer("Diag", [(I32, (-2,))])
    assert out.shape == (-2,)
