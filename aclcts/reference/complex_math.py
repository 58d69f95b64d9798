"""Complex128 references written from the functions' definitions on real and imaginary parts.

Each takes and returns complex128; the real parts come from float64 math on (x, y) = (Re z, Im z). The formulas are
the textbook identities (e.g. sin(x + iy) = sin x cosh y + i cos x sinh y), rearranged where a direct form cancels
or overflows; branch cuts are the principal ones of C99 Annex G (ISO/IEC 9899:1999, G.6), which NumPy documents
for its complex ufuncs too (numpy.sqrt: "the branch cut ... the negative real axis"). The inverse functions (asin,
acos, atan, asinh, acosh, atanh) and log1p/expm1 are not restated here: their references use NumPy's complex128
ufuncs, which follow the same principal branches.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

RealFn = Callable[..., np.ndarray]

#: |part| beyond which tan/tanh have reached ±1 in float64 (the next term is about 4·e^(-2·20) ≈ 2^-113).
_SATURATED = 20.0


def _parts(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    z = np.asarray(z, dtype=np.complex128)
    return z.real, z.imag


def _join(re: np.ndarray, im: np.ndarray) -> np.ndarray:
    out = np.empty(np.broadcast(re, im).shape, dtype=np.complex128)
    out.real, out.imag = re, im
    return out


def exp(z: np.ndarray) -> np.ndarray:
    """exp(x + iy) = e^x (cos y + i sin y)."""
    x, y = _parts(z)
    return _join(np.exp(x) * np.cos(y), np.exp(x) * np.sin(y))


def log(z: np.ndarray) -> np.ndarray:
    """log z = ln|z| + i arg z, arg in (-pi, pi] (cut along the negative real axis)."""
    x, y = _parts(z)
    return _join(np.log(np.hypot(x, y)), np.arctan2(y, x))


def sin(z: np.ndarray) -> np.ndarray:
    """sin(x + iy) = sin x cosh y + i cos x sinh y."""
    x, y = _parts(z)
    return _join(np.sin(x) * np.cosh(y), np.cos(x) * np.sinh(y))


def cos(z: np.ndarray) -> np.ndarray:
    """cos(x + iy) = cos x cosh y - i sin x sinh y."""
    x, y = _parts(z)
    return _join(np.cos(x) * np.cosh(y), -np.sin(x) * np.sinh(y))


def sinh(z: np.ndarray) -> np.ndarray:
    """sinh(x + iy) = sinh x cos y + i cosh x sin y."""
    x, y = _parts(z)
    return _join(np.sinh(x) * np.cos(y), np.cosh(x) * np.sin(y))


def cosh(z: np.ndarray) -> np.ndarray:
    """cosh(x + iy) = cosh x cos y + i sinh x sin y."""
    x, y = _parts(z)
    return _join(np.cosh(x) * np.cos(y), np.sinh(x) * np.sin(y))


def tan(z: np.ndarray) -> np.ndarray:
    """tan(x + iy) = (sin x cos x + i sinh y cosh y) / (cos^2 x + sinh^2 y); the imaginary part is sign(y) once
    |y| > 20."""
    x, y = _parts(z)
    with np.errstate(over="ignore", invalid="ignore"):
        den = np.cos(x) ** 2 + np.sinh(y) ** 2
        re = np.sin(x) * np.cos(x) / den
        im = np.where(np.abs(y) > _SATURATED, np.sign(y), np.sinh(y) * np.cosh(y) / den)
    return _join(re, im)


def tanh(z: np.ndarray) -> np.ndarray:
    """tanh(x + iy) = -i tan(i z): (sinh x cosh x + i sin y cos y) / (sinh^2 x + cos^2 y)."""
    x, y = _parts(z)
    flipped = tan(_join(-y, x))
    return _join(flipped.imag, -flipped.real)


def sqrt(z: np.ndarray) -> np.ndarray:
    """The principal square root (real part >= 0, cut along the negative real axis): with t = sqrt((|z| + |x|)/2),
    (t, y / 2t) for x >= 0 and (|y| / 2t, t with y's sign) for x < 0; sqrt(±0 + iy) at y = 0 is z itself."""
    x, y = _parts(z)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.sqrt((np.hypot(x, y) + np.abs(x)) / 2)
        other = np.where(t == 0, 0.0, np.abs(y) / (2 * t))
    re = np.where(x >= 0, t, other)
    im = np.where(x >= 0, np.where(t == 0, y, y / np.where(t == 0, 1.0, 2 * t)), np.copysign(t, y))
    return _join(re, im)


def div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(p + iq) / (c + id) = ((pc + qd) + i(qc - pd)) / (c^2 + d^2), evaluated with the divisor scaled by its larger
    part (Smith's method) so that c^2 + d^2 cannot overflow."""
    p, q = _parts(a)
    c, d = _parts(b)
    with np.errstate(invalid="ignore", divide="ignore"):
        wide_c = np.abs(c) >= np.abs(d)
        r = np.where(wide_c, d / c, c / d)
        den = np.where(wide_c, c + d * r, c * r + d)
        re = np.where(wide_c, p + q * r, p * r + q) / den
        im = np.where(wide_c, q - p * r, q * r - p) / den
    return _join(re, im)


def reciprocal(z: np.ndarray) -> np.ndarray:
    """1 / z."""
    return div(np.ones_like(z), z)


def rsqrt(z: np.ndarray) -> np.ndarray:
    """1 / sqrt(z), the principal square root."""
    return reciprocal(sqrt(z))


def square(z: np.ndarray) -> np.ndarray:
    """(x + iy)^2 = (x - y)(x + y) + i 2xy (the product form avoids the cancellation of x^2 - y^2)."""
    x, y = _parts(z)
    return _join((x - y) * (x + y), 2 * x * y)


def sigmoid(z: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-z))."""
    return reciprocal(1 + exp(-np.asarray(z, dtype=np.complex128)))


def on_complex(real: RealFn, complex_form: RealFn) -> RealFn:
    """A reference function that evaluates complex_form on complex input and real on everything else."""
    def either(x: np.ndarray, *args: object) -> np.ndarray:
        return complex_form(x, *args) if np.asarray(x).dtype.kind == "c" else real(x, *args)
    either.__doc__ = real.__doc__
    return either
