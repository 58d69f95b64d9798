"""Complex kernels: the simulator's complex64/complex128 results match the complex128 reference under the suite's
default policy (real and imaginary parts judged apart), and a wrong complex kernel is caught."""

import numpy as np
import pytest

from aclcts.judge.compare import compare
from aclcts.judge.policies import default_policy
from aclcts.reference import reference
from aclcts.sim.kernels.registry import simulation_gap

AFFINE = {"base": -1.0, "scale": 1.0, "shift": 0.0}
#: op type -> (attrs, the op family's default-policy name); every one runs in complex on the simulator.
UNARY = {
    "Sin": {}, "Cos": {}, "Tan": {}, "Asin": {}, "Acos": {}, "Atan": {}, "Sinh": {}, "Cosh": {}, "Asinh": {},
    "Acosh": {}, "Atanh": {}, "Log1p": {}, "Expm1": {}, "Neg": {}, "Exp": AFFINE, "Log": AFFINE, "Sqrt": {},
    "Rsqrt": {}, "Square": {}, "Reciprocal": {}, "Sigmoid": {}, "Tanh": {},
}
COMPLEX = (np.complex64, np.complex128)


def _complex(rng: np.random.Generator, dtype: type, n: int = 256, span: float = 3.0) -> np.ndarray:
    """n values with both parts uniform in [-span, span], plus the axes' points where the branch cuts lie."""
    drawn = rng.uniform(-span, span, n) + 1j * rng.uniform(-span, span, n)
    cuts = np.array([-2 + 0j, complex(-2, -0.0), 0.5j, -0.5j, 2 + 0j, 1.5 + 0j, -1.5 + 0j])
    return np.concatenate([drawn, cuts]).astype(dtype)


def _judged(op, dtype, got, want):
    return compare(got, want, default_policy(np.dtype(dtype), "elementwise"))


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary_complex_kernels_match_the_complex128_reference(run, op, dtype):
    x = _complex(np.random.default_rng(7), dtype)
    assert simulation_gap(op, [x.dtype]) is None
    (want,) = reference(op).compute([x], UNARY[op], [np.dtype(dtype)])
    (got,) = run(op, [x], [(dtype, x.shape)], UNARY[op])
    assert got.dtype == np.dtype(dtype)
    judged = _judged(op, dtype, got, want)
    assert judged.passed, judged.as_dict()


@pytest.mark.parametrize("dtype", COMPLEX)
def test_div_complex_kernel_matches_the_complex128_reference(run, dtype):
    rng = np.random.default_rng(11)
    a, b = _complex(rng, dtype, span=100.0), _complex(rng, dtype, span=100.0)
    (want,) = reference("Div").compute([a, b], {}, [np.dtype(dtype)])
    (got,) = run("Div", [a, b], [(dtype, a.shape)])
    judged = _judged("Div", dtype, got, want)
    assert judged.passed, judged.as_dict()


def test_where_gives_the_coordinates_of_the_nonzero_complex_elements(run):
    x = np.array([[0, 1j], [complex(0, -0.0), 2 + 0j]], np.complex64)
    (got,) = run("Where", [x], [(np.int64, (2, 2))])
    assert got.tolist() == [[0, 1], [1, 1]]


@pytest.mark.parametrize("wrong", [np.conj, lambda z: z.imag + 1j * z.real], ids=["conjugate", "parts_swapped"])
@pytest.mark.parametrize("op", ["Sin", "Tan", "Rsqrt", "Square"])
def test_a_wrong_complex_result_fails_the_comparison(run, op, wrong):
    """The conjugate (or the parts swapped) of the right complex64 answer breaks the default policy."""
    x = _complex(np.random.default_rng(3), np.complex64)
    (want,) = reference(op).compute([x], {}, [np.dtype(np.complex64)])
    (got,) = run(op, [x], [(np.complex64, x.shape)])
    assert _judged(op, np.complex64, got, want).passed
    assert not _judged(op, np.complex64, wrong(got).astype(np.complex64), want).passed


def test_complex_ops_without_a_complex_kernel_are_declared_and_refused_alike(run):
    """An op whose record allows complex but whose kernel does not implement it says so before running (the
    declaration the backends' skip reads) and when run directly (the kernel's own refusal)."""
    assert simulation_gap("Sign", [np.dtype(np.complex64)]) == "the simulator does not implement Sign for complex64"
    with pytest.raises(Exception, match="Sign: input 'x' has dtype complex64, which is not simulated for Sign"):
        run("Sign", [np.ones(2, np.complex64)], [(np.complex64, (2,))])
