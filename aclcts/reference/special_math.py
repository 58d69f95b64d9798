"""Special-function references from the functions' definitions, in float64, rounded once.

exp(-|x|) I_nu(x) for nu = 0, 1 is summed from the power series of I_nu (DLMF 10.25.2,
https://dlmf.nist.gov/10.25.E2) for |x| <= SERIES_LIMIT, and taken from the large-argument expansion of I_nu
(DLMF 10.40.1, https://dlmf.nist.gov/10.40.E1) beyond it, where the series would need hundreds of terms. The
simulator's kernels use the Abramowitz and Stegun polynomials CANN's TBE implementation uses instead; the two share
nothing. I1e is odd (I_1(-x) = -I_1(x)), I0e even; both tend to 0 at +-inf and keep NaN.

The others (the simulator follows CANN's Cephes rational approximations for them; these share nothing with it):
- Erfinv and Ndtri invert erfc (Python's math.erfc, correctly behaved down to 1e-308) by Newton's method on
  ln erfc(y) = ln q, which converges in both tails (for |x| <= 1/2 Erfinv inverts math.erf instead, keeping tiny
  x's digits): erf^-1(x) = erfc^-1(1 - x) (DLMF 7.17.1), ndtri(p) =
  -sqrt(2) erfc^-1(2p) (DLMF 7.18 / 7.17), each tail from the side where 1 - x or 2p is exact.
- Dawsn: F(x) = exp(-x^2) sum_n x^(2n+1) / (n! (2n+1)) (sqrt(pi)/2 exp(-x^2) erfi(x), DLMF 7.5.1 with erfi's series,
  7.6.1 at ix: all terms positive, no cancellation) for |x| <= DAWSON_SERIES_LIMIT; beyond it the asymptotic series
  F(x) ~ 1/(2x) sum_n (2n-1)!! / (2x^2)^n (DLMF 7.12.1 of erfc at ix).
- Expint: Ei(x) = gamma + ln x + sum_n x^n / (n n!) (DLMF 6.6.2, positive terms) for x <= EI_SERIES_LIMIT, e^x / x
  sum_n n! / x^n beyond (DLMF 6.12.2); NaN for x < 0 and -inf at 0, as TensorFlow's expint.
- FresnelCos, FresnelSin: the power series (DLMF 7.6.4 and 7.6.6) for |x| <= FRESNEL_SERIES_LIMIT, the auxiliary
  functions f and g by their asymptotic expansions (DLMF 7.5.3, 7.5.4, 7.12.2, 7.12.3) beyond; odd in x.
- Spence: Li2(1 - x) (DLMF 25.12.1 series for |z| <= 1/2, the reflection 25.12.6 and Landen's identity for z < 0),
  NaN for x < 0 as TensorFlow's spence.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from aclcts.reference.base import RefOp, define
from aclcts.reference.numeric import round_to, widen

#: |x| up to which the power series is summed (its terms peak near e^|x|, far below float64's range).
SERIES_LIMIT = 30.0
#: Terms of the power series: (x^2/4)^k / (k! (k+nu)!) is below 1e-17 of the sum by k = 80 at |x| = 30.
SERIES_TERMS = 80
#: Terms of the large-argument expansion: at |x| > 30 its terms fall below 1e-17 well before the 16th.
EXPANSION_TERMS = 16


def _series(a: np.ndarray, order: int) -> np.ndarray:
    """exp(-a) I_order(a) for 0 <= a <= SERIES_LIMIT: (a/2)^order sum_k (a^2/4)^k / (k! (k+order)!) times exp(-a)."""
    quarter = a * a / 4.0
    term = (a / 2.0) ** order / math.factorial(order)
    total = term.copy()
    for k in range(1, SERIES_TERMS):
        term = term * quarter / (k * (k + order))
        total = total + term
    return total * np.exp(-a)


def _expansion(a: np.ndarray, order: int) -> np.ndarray:
    """exp(-a) I_order(a) for large a: (2 pi a)^(-1/2) sum_k (-1)^k a_k(order) / a^k, with
    a_k(nu) = (4nu^2 - 1^2)(4nu^2 - 3^2)...(4nu^2 - (2k-1)^2) / (k! 8^k)."""
    mu = 4.0 * order * order
    coefficient = 1.0
    total = np.ones_like(a)
    power = np.ones_like(a)
    for k in range(1, EXPANSION_TERMS):
        coefficient *= -(mu - (2 * k - 1) ** 2) / (k * 8.0)
        power = power / a
        total = total + coefficient * power
    return total / np.sqrt(2.0 * math.pi * a)


def scaled_bessel_i(x: np.ndarray, order: int) -> np.ndarray:
    """exp(-|x|) I_order(x) in float64 for order 0 or 1 (odd in x for order 1)."""
    a = np.abs(x)
    near = a <= SERIES_LIMIT
    value = np.where(near, _series(np.where(near, a, 0.0), order), _expansion(np.where(near, SERIES_LIMIT, a), order))
    value = np.where(np.isinf(a), 0.0, value)
    return np.copysign(value, x) if order % 2 else np.where(np.isnan(x), x, value)


def _bessel(order: int) -> Any:
    def compute(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        return [round_to(scaled_bessel_i(widen(xs[0]), order), out[0])]
    return compute


def _same(shapes: list[Any], values: list[Any], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    return [tuple(shapes[0])]


#: Newton steps on ln erfc(y) = ln q; from the starting point below every step at least doubles the correct digits.
ERFC_NEWTON_STEPS = 12
#: |x| up to which Dawson's integral and the Ei are summed as series (beyond: asymptotic series).
DAWSON_SERIES_LIMIT = 10.0
DAWSON_SERIES_TERMS = 400
DAWSON_ASYMPTOTIC_TERMS = 40
EI_SERIES_LIMIT = 60.0
EI_SERIES_TERMS = 320
EI_ASYMPTOTIC_TERMS = 40
#: The Fresnel series loses digits as exp(pi x^2 / 2) grows: to 1e-10 relative at |x| = 3; the asymptotic
#: expansions' smallest term there is below 1e-12.
FRESNEL_SERIES_LIMIT = 3.0
FRESNEL_SERIES_TERMS = 80
FRESNEL_ASYMPTOTIC_TERMS = 10
DILOG_SERIES_TERMS = 64

_erf = np.frompyfunc(math.erf, 1, 1)
_erfc = np.frompyfunc(math.erfc, 1, 1)


def _float(values: Any) -> np.ndarray:
    return np.asarray(values, dtype=np.float64)


def erfc_inverse(q: np.ndarray) -> np.ndarray:
    """y with erfc(y) = q for 0 < q <= 1 (y >= 0), by Newton's method on ln erfc(y) - ln q."""
    q = _float(q)
    y = np.sqrt(np.maximum(-np.log(q * (2.0 - q)), 0.0))
    for _ in range(ERFC_NEWTON_STEPS):
        value = _float(_erfc(y))
        slope = -2.0 / math.sqrt(math.pi) * np.exp(-y * y) / value
        y = np.maximum(y - (np.log(value) - np.log(q)) / slope, 0.0)
    return y


def _signed_erfc_inverse(q: np.ndarray, sign: np.ndarray) -> np.ndarray:
    """sign * erfc^-1(q) for q in [0, 1], +inf at q = 0, NaN where q is NaN."""
    inner = np.where((q > 0) & (q <= 1), q, 1.0)
    y = np.where(q == 0, np.inf, erfc_inverse(inner))
    return np.where(np.isnan(q) | (q > 1) | (q < 0), np.nan, sign * y)


def _erf_inverse_central(x: np.ndarray) -> np.ndarray:
    """erf^-1(x) for |x| <= 1/2 by Newton's method on erf(y) = x from y = sqrt(pi) x / 2 (no digit lost near 0)."""
    y = math.sqrt(math.pi) / 2.0 * x
    for _ in range(ERFC_NEWTON_STEPS):
        y = y - (_float(_erf(y)) - x) / (2.0 / math.sqrt(math.pi) * np.exp(-y * y))
    return y


def erf_inverse(x: np.ndarray) -> np.ndarray:
    """erf^-1(x) for x in [-1, 1] (+-inf at +-1, NaN outside): near 0 by Newton on erf, else sign(x) erfc^-1(1 - |x|)."""
    central = np.abs(x) <= 0.5
    tails = _signed_erfc_inverse(1.0 - np.abs(x), np.sign(x))
    return np.where(central, _erf_inverse_central(np.where(central, x, 0.0)), tails)


def normal_quantile(p: np.ndarray) -> np.ndarray:
    """The inverse of the standard normal distribution function: -sqrt(2) erfc^-1(2p) below 1/2, +sqrt(2)
    erfc^-1(2(1 - p)) above."""
    lower = p < 0.5
    q = np.where(lower, 2.0 * p, 2.0 * (1.0 - p))
    return math.sqrt(2.0) * _signed_erfc_inverse(q, np.where(lower, -1.0, 1.0))


def dawson(x: np.ndarray) -> np.ndarray:
    """Dawson's integral F(x) (odd)."""
    a = np.abs(x)
    near = np.where(a <= DAWSON_SERIES_LIMIT, a, 0.0)
    term = near * np.exp(-near * near)
    total = term.copy()
    for n in range(1, DAWSON_SERIES_TERMS):
        term = term * near * near / n
        total = total + term / (2 * n + 1)
    far = np.where(a > DAWSON_SERIES_LIMIT, a, DAWSON_SERIES_LIMIT + 1.0)
    step = np.ones_like(far)
    tail = np.ones_like(far)
    for n in range(1, DAWSON_ASYMPTOTIC_TERMS):
        step = step * (2 * n - 1) / (2.0 * far * far)
        tail = tail + step
    value = np.where(a <= DAWSON_SERIES_LIMIT, total, tail / (2.0 * far))
    return np.where(np.isinf(a), 0.0, np.copysign(value, x))


def exponential_integral(x: np.ndarray) -> np.ndarray:
    """Ei(x) for x > 0; -inf at 0, NaN below."""
    near = np.where((x > 0) & (x <= EI_SERIES_LIMIT), x, 1.0)
    term = np.ones_like(near)
    total = np.zeros_like(near)
    for n in range(1, EI_SERIES_TERMS):
        term = term * near / n
        total = total + term / n
    series = np.euler_gamma + np.log(near) + total
    far = np.where(x > EI_SERIES_LIMIT, x, EI_SERIES_LIMIT + 1.0)
    step = np.ones_like(far)
    tail = np.ones_like(far)
    for n in range(1, EI_ASYMPTOTIC_TERMS):
        step = step * n / far
        tail = tail + step
    with np.errstate(over="ignore"):
        asymptotic = np.exp(far) / far * tail
    value = np.where(x <= EI_SERIES_LIMIT, series, asymptotic)
    return np.where(x < 0, np.nan, np.where(x == 0, -np.inf, np.where(np.isposinf(x), np.inf, value)))


def _fresnel_series(a: np.ndarray, sine: bool) -> np.ndarray:
    """sum_n (-1)^n (pi/2)^(2n+s) a^(4n+2s+1) / ((2n+s)! (4n+2s+1)), s = 1 for the sine, 0 for the cosine."""
    half_pi_a2 = math.pi / 2.0 * a * a
    power = a * (half_pi_a2 if sine else 1.0)
    total = np.zeros_like(a)
    start = 1 if sine else 0
    for n in range(FRESNEL_SERIES_TERMS):
        k = 2 * n + start
        total = total + power / (2 * k + 1)
        power = -power * half_pi_a2 * half_pi_a2 / ((k + 1) * (k + 2))
    return total


def _fresnel_auxiliary(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """f(a) ~ 1/(pi a) sum_m (-1)^m (4m-1)!! / (pi a^2)^(2m), g(a) ~ 1/(pi^2 a^3) sum_m (-1)^m (4m+1)!! / (pi a^2)^(2m)."""
    inverse = 1.0 / (math.pi * a * a)
    f_term, g_term = np.ones_like(a), np.ones_like(a)
    f_sum, g_sum = np.ones_like(a), np.ones_like(a)
    for m in range(1, FRESNEL_ASYMPTOTIC_TERMS):
        f_term = -f_term * (4 * m - 3) * (4 * m - 1) * inverse * inverse
        g_term = -g_term * (4 * m - 1) * (4 * m + 1) * inverse * inverse
        f_sum, g_sum = f_sum + f_term, g_sum + g_term
    return f_sum / (math.pi * a), g_sum * inverse / (math.pi * a)


def fresnel(x: np.ndarray, sine: bool) -> np.ndarray:
    """C(x) or S(x), odd in x, +-1/2 at +-inf."""
    a = np.abs(x)
    near = np.where(a <= FRESNEL_SERIES_LIMIT, a, 0.0)
    far = np.where(np.isfinite(a) & (a > FRESNEL_SERIES_LIMIT), a, FRESNEL_SERIES_LIMIT + 1.0)
    f, g = _fresnel_auxiliary(far)
    phase = math.pi / 2.0 * np.fmod(far * far, 4.0)
    if sine:
        tail = 0.5 - f * np.cos(phase) - g * np.sin(phase)
    else:
        tail = 0.5 + f * np.sin(phase) - g * np.cos(phase)
    value = np.where(a <= FRESNEL_SERIES_LIMIT, _fresnel_series(near, sine), np.where(np.isinf(a), 0.5, tail))
    return np.copysign(value, x)


def _dilog_series(z: np.ndarray) -> np.ndarray:
    """Li2(z) = sum_k z^k / k^2 for |z| <= 1/2."""
    power = z.copy()
    total = np.zeros_like(z)
    for k in range(1, DILOG_SERIES_TERMS):
        total = total + power / (k * k)
        power = power * z
    return total


def _dilog_unit(z: np.ndarray, one_minus_z: np.ndarray) -> np.ndarray:
    """Li2(z) for 0 <= z <= 1, given 1 - z exactly: the series, or pi^2/6 - ln z ln(1 - z) - Li2(1 - z) above 1/2."""
    low = z <= 0.5
    series = _dilog_series(np.where(low, z, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        product = np.where(one_minus_z > 0, np.log(np.where(low, 1.0, z)) * np.log(one_minus_z), 0.0)
    reflected = math.pi ** 2 / 6.0 - product - _dilog_series(np.where(low, 0.0, one_minus_z))
    return np.where(low, series, reflected)


def spence(x: np.ndarray) -> np.ndarray:
    """Spence's function Li2(1 - x) for x >= 0; NaN below; for z = 1 - x < 0 Landen's identity
    Li2(z) = -ln^2(1 - z) / 2 - Li2(z / (z - 1)), where 1 - z / (z - 1) = 1 / x."""
    safe = np.where(np.isfinite(x) & (x >= 0), x, 1.0)
    z = 1.0 - safe
    unit = _dilog_unit(np.where(z >= 0, z, 0.0), np.where(z >= 0, safe, 1.0))
    w_complement = 1.0 / np.where(z < 0, safe, 2.0)
    landen = -0.5 * np.log(np.where(z < 0, safe, 1.0)) ** 2 - _dilog_unit(1.0 - w_complement, w_complement)
    value = np.where(z >= 0, unit, landen)
    return np.where(np.isnan(x) | (x < 0), np.nan, np.where(np.isposinf(x), -np.inf, value))


def _unary(fn: Any) -> Any:
    def compute(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
        x = widen(xs[0])
        with np.errstate(all="ignore"):
            return [round_to(np.where(np.isnan(x), x, fn(x)), out[0])]
    return compute


OPS: tuple[RefOp, ...] = (
    define("BesselI0e", _bessel(0), _same),
    define("BesselI1e", _bessel(1), _same),
    define("Erfinv", _unary(erf_inverse), _same),
    define("Ndtri", _unary(normal_quantile), _same),
    define("Dawsn", _unary(dawson), _same),
    define("Expint", _unary(exponential_integral), _same),
    define("FresnelCos", _unary(lambda x: fresnel(x, sine=False)), _same),
    define("FresnelSin", _unary(lambda x: fresnel(x, sine=True)), _same),
    define("Spence", _unary(spence), _same),
)
