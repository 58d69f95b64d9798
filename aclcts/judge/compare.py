"""Named precision policies, error metrics and the comparison of device outputs with the reference.

Rules applied uniformly, whatever the policy (docs/precision-policy.md):

* NaN at the same position in actual and expected is equal (any payload, any sign); NaN on one side only
  is a non-finite mismatch.
* An inf must be matched by the same inf (sign included); anything else facing an inf is a non-finite
  mismatch.
* Any non-finite mismatch fails the comparison.  (msopst itself silently skips NaN and inf,
  docs/precision-policy.md#msopst-compare; the `ratio` policy reproduces msopst on the finite elements only.)
* Error metrics are computed over the elements that are finite on both sides, in float64.
* `exact` and `ulp` look at the expected values rounded to the actual dtype; the tolerance policies use
  the expected values in their own precision.
* Complex tensors are compared as their real and imaginary parts (an extra trailing axis of 2).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import ml_dtypes
import numpy as np

from aclcts.core.dtypes import numpy_dtype
from aclcts.reference.numeric import is_complex_dtype, is_float_dtype, is_int_dtype, round_to

#: The epsilon of the relative error in MARE/MERE (docs/precision-policy.md#cann-ecosystem-standard-v1).
REL_EPS = 1e-7
#: msopst's fixed limit on the relative error of any error element (docs/precision-policy.md#msopst-compare,
#: `max_diff_hd`).
MSOPST_MAX_DIFF = 0.1


# ----------------------------------------------------------------------------------------------- ulp


@functools.lru_cache(maxsize=None)
def _unsigned_float(dt: np.dtype) -> bool:
    """Whether a float format has no sign bit (float8_e8m0fnu)."""
    return float(ml_dtypes.finfo(dt).min) > 0


def _bit_fields(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return (magnitude bits, sign) of a float array as uint64 / bool arrays."""
    dt = x.dtype
    bits = np.ascontiguousarray(x).view(np.dtype(f"u{dt.itemsize}")).astype(np.uint64)
    if _unsigned_float(dt):
        return bits, np.zeros(bits.shape, dtype=bool)
    sign = np.uint64(1) << np.uint64(8 * dt.itemsize - 1)
    return bits & (sign - np.uint64(1)), (bits & sign) != 0


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Number of representable values between a and b (same dtype), as uint64; +0 and -0 are 0 apart.

    Floats use their integer bit patterns mapped monotonically (sign-magnitude to a signed line), so
    the distance across zero is the sum of both magnitudes; inf is one step beyond the largest finite
    value.  Integers give |a - b| and bool gives a != b.  NaN has no distance: ValueError.
    """
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype:
        raise ValueError(f"ulp_distance needs one dtype, got {a.dtype} and {b.dtype}")
    if a.dtype == np.bool_:
        return (a != b).astype(np.uint64)
    if is_int_dtype(a.dtype):
        wide = np.uint64 if a.dtype.kind == "u" and a.dtype.itemsize == 8 else np.int64
        x, y = a.astype(wide), b.astype(wide)
        ux, uy = x.astype(np.uint64), y.astype(np.uint64)
        return np.where(x >= y, ux - uy, uy - ux)
    if not is_float_dtype(a.dtype):
        raise ValueError(f"ulp_distance does not support dtype {a.dtype}")
    if np.isnan(a.astype(np.float64)).any() or np.isnan(b.astype(np.float64)).any():
        raise ValueError("ulp_distance is undefined for NaN")
    return _float_ulp_distance(a, b)


def _float_ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ulp_distance of two float arrays of one dtype known to hold no NaN."""
    ma, sa = _bit_fields(a)
    mb, sb = _bit_fields(b)
    same_side = np.where(ma >= mb, ma - mb, mb - ma)
    return np.where(sa == sb, same_side, ma + mb)


#: NumPy's own float types, whose np.spacing gives ulp_of directly below the top of the range.
_NATIVE_FLOATS = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))


def ulp_of(value: float, dtype: np.dtype | type) -> float:
    """The spacing of dtype at |value|: next representable magnitude minus |value| (below it at the top)."""
    dt = np.dtype(dtype)
    if dt in _NATIVE_FLOATS:
        with np.errstate(over="ignore"):
            up = float(np.spacing(dt.type(abs(value))))
        if math.isfinite(up):
            return up
    v = np.abs(np.asarray([value]).astype(np.float64)).astype(dt)
    u = np.dtype(f"u{dt.itemsize}")
    bits = v.view(u)
    up = (bits + 1).view(dt).astype(np.float64)[0]
    here = v.astype(np.float64)[0]
    if math.isfinite(up):
        return float(up - here)
    return float(here - (bits - 1).view(dt).astype(np.float64)[0])


# ---------------------------------------------------------------------------------------- the data


@dataclass(frozen=True)
class ElementErrors:
    """Per-element data a policy judges: the elements finite on both sides, flattened."""

    dtype: np.dtype
    n: int
    a: np.ndarray
    g: np.ndarray
    abs_err: np.ndarray
    ulp: np.ndarray
    a_bits_equal: np.ndarray

    @property
    def abs_g(self) -> np.ndarray:
        """|expected| in float64."""
        return np.abs(self.g)


@functools.lru_cache(maxsize=None)
def _field_names(cls: type) -> tuple[str, ...]:
    """The dataclass field names of a policy class, in order."""
    return tuple(f.name for f in dataclasses.fields(cls))


class Policy:
    """Base of the precision policies: a name, parameters, a per-element test and a whole-tensor verdict."""

    name: ClassVar[str] = ""
    positional: ClassVar[tuple[str, ...]] = ()

    def params(self) -> dict[str, Any]:
        """The policy's parameters as a dict."""
        return {name: getattr(self, name) for name in _field_names(type(self))}

    def resolve(self, dtype: np.dtype) -> Policy:
        """Return this policy with per-dtype defaults filled in for unset parameters."""
        return self

    def failures(self, e: ElementErrors) -> np.ndarray:
        """Boolean mask over e's elements that fail the per-element test."""
        raise NotImplementedError

    def verdict(self, e: ElementErrors, failures: np.ndarray) -> bool:
        """Whether the finite part passes (default: no element fails)."""
        return not failures.any()

    def severity(self, e: ElementErrors) -> np.ndarray:
        """How bad each element is in the measure the policy judges by (larger is worse): the absolute error unless
        the policy says otherwise."""
        return e.abs_err

    def spec(self) -> str:
        """The case-file spelling of this policy."""
        args = ",".join(f"{k}={v}" for k, v in self.params().items() if v is not None)
        return f"{self.name}:{args}" if args else self.name


def _over_tolerance(error: np.ndarray, tolerance: np.ndarray) -> np.ndarray:
    """error / tolerance per element (inf for an error where the tolerance is 0, 0 for none)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(error == 0, 0.0, error / tolerance)


def _check_range(policy: str, name: str, value: float | None, lo: float, hi: float = math.inf) -> None:
    """Raise ValueError unless value is None or lies in [lo, hi]."""
    if value is not None and not (lo <= value <= hi):
        raise ValueError(f"{policy}: {name}={value} outside [{lo}, {hi}]")


@dataclass(frozen=True)
class Exact(Policy):
    """Bitwise equality in the actual dtype; NaN-payload-insensitive (same-position NaNs are equal)."""

    name: ClassVar[str] = "exact"

    def failures(self, e: ElementErrors) -> np.ndarray:
        """Elements whose bit patterns differ (so +0 and -0 differ)."""
        return ~e.a_bits_equal


@dataclass(frozen=True)
class Ulp(Policy):
    """At most n units in the last place of the actual dtype between actual and expected, everywhere."""

    n: int
    name: ClassVar[str] = "ulp"
    positional: ClassVar[tuple[str, ...]] = ("n",)

    def __post_init__(self) -> None:
        """Validate n."""
        if int(self.n) != self.n or self.n < 0:
            raise ValueError(f"ulp: n={self.n} must be a non-negative integer")
        object.__setattr__(self, "n", int(self.n))

    def failures(self, e: ElementErrors) -> np.ndarray:
        """Elements more than n ulp away."""
        return e.ulp > np.uint64(self.n)

    def severity(self, e: ElementErrors) -> np.ndarray:
        """The ulp distance."""
        return e.ulp.astype(np.float64)


@dataclass(frozen=True)
class AllClose(Policy):
    """NumPy/PyTorch closeness everywhere: |a - g| <= atol + rtol * |g|
    (docs/precision-policy.md#pytorch-and-numpy)."""

    rtol: float
    atol: float
    name: ClassVar[str] = "allclose"
    positional: ClassVar[tuple[str, ...]] = ("rtol", "atol")

    def __post_init__(self) -> None:
        """Validate the tolerances."""
        _check_range(self.name, "rtol", self.rtol, 0.0)
        _check_range(self.name, "atol", self.atol, 0.0)

    def failures(self, e: ElementErrors) -> np.ndarray:
        """Elements outside atol + rtol * |g|."""
        return e.abs_err > self.atol + self.rtol * e.abs_g

    def severity(self, e: ElementErrors) -> np.ndarray:
        """The error as a multiple of the element's tolerance atol + rtol * |g|."""
        return _over_tolerance(e.abs_err, self.atol + self.rtol * e.abs_g)


@dataclass(frozen=True)
class Ratio(Policy):
    """msopst's `error_threshold = [t, p]` compare, exactly as docs/precision-policy.md#msopst-compare
    (float32 arithmetic)."""

    t: float = 0.01
    p: float = 0.05
    name: ClassVar[str] = "ratio"
    positional: ClassVar[tuple[str, ...]] = ("t", "p")

    def __post_init__(self) -> None:
        """Validate t and p (each in [0, 1], t > 0 for the 2**-14 / t floor)."""
        _check_range(self.name, "t", self.t, 0.0, 1.0)
        _check_range(self.name, "p", self.p, 0.0, 1.0)
        if self.t == 0:
            raise ValueError("ratio: t must be > 0 (msopst divides by it)")

    def rate(self, e: ElementErrors) -> np.ndarray:
        """msopst's per-element error r in float32: d if d < t, else d / (max(|a|, |g|, 2**-14 / t) + 1e-9)."""
        a32, g32 = e.a.astype(np.float32), e.g.astype(np.float32)
        d = np.abs(a32 - g32)
        floor = np.float32((1 / 2 ** 14) / self.t)
        denom = np.maximum(np.maximum(np.abs(a32), np.abs(g32)), floor) + np.float32(1e-9)
        return np.where(d < np.float32(self.t), d, d / denom)

    def failures(self, e: ElementErrors) -> np.ndarray:
        """Error elements: d > 0 and r > t."""
        d = np.abs(e.a.astype(np.float32) - e.g.astype(np.float32))
        return (d > 0) & (self.rate(e) > np.float32(self.t))

    def severity(self, e: ElementErrors) -> np.ndarray:
        """msopst's error rate r."""
        return self.rate(e).astype(np.float64)

    def verdict(self, e: ElementErrors, failures: np.ndarray) -> bool:
        """Pass if (N - errors) / N >= 1 - p and no error element has r >= 0.1."""
        if e.n == 0:
            return True
        n_err = int(failures.sum())
        if (e.n - n_err) / e.n < 1 - self.p:
            return False
        return not (n_err and float(self.rate(e)[failures].max()) >= MSOPST_MAX_DIFF)


#: op_test_frame get_default_standard (docs/precision-policy.md#op_test_frame-precisionstandard):
#: dtype -> (rtol, atol, max_atol).
DUAL_THOUSANDTH_DEFAULTS: dict[str, tuple[float, float, float]] = {
    "float16": (0.001, 0.001, 0.1),
    "float32": (0.0001, 0.0001, 0.01),
    "int8": (0.001, 1.0, 1.0),
    "uint8": (0.001, 1.0, 1.0),
}
DUAL_THOUSANDTH_OTHER = (0.001, 0.001, 0.1)


@dataclass(frozen=True)
class DualThousandth(Policy):
    """op_test_frame PrecisionStandard(rtol, atol, max_atol) (docs/precision-policy.md#op_test_frame-precisionstandard;
    names as in that tool).

    An element fails if |a - g| > atol * |g|; the tensor passes if at most rtol * N elements fail and
    none has |a - g| > max_atol * |g|.  Bool: at most rtol * N differing elements.
    """

    rtol: float | None = None
    atol: float | None = None
    max_atol: float | None = None
    name: ClassVar[str] = "dual_thousandth"
    positional: ClassVar[tuple[str, ...]] = ("rtol", "atol", "max_atol")

    def __post_init__(self) -> None:
        """Validate the parameters that are set."""
        _check_range(self.name, "rtol", self.rtol, 0.0, 1.0)
        _check_range(self.name, "atol", self.atol, 0.0)
        _check_range(self.name, "max_atol", self.max_atol, 0.0)

    def resolve(self, dtype: np.dtype) -> Policy:
        """Fill unset parameters from get_default_standard for dtype."""
        defaults = DUAL_THOUSANDTH_DEFAULTS.get(np.dtype(dtype).name, DUAL_THOUSANDTH_OTHER)
        rtol, atol, max_atol = (v if v is not None else d for v, d in zip(
            (self.rtol, self.atol, self.max_atol), defaults))
        return DualThousandth(rtol, atol, max_atol)

    def failures(self, e: ElementErrors) -> np.ndarray:
        """Elements with |a - g| > atol * |g| (no absolute floor: g = 0 needs a = 0)."""
        return e.abs_err > self.atol * e.abs_g

    def verdict(self, e: ElementErrors, failures: np.ndarray) -> bool:
        """At most rtol * N failures and, except for bool, none beyond max_atol * |g|."""
        if int(failures.sum()) > self.rtol * e.n:
            return False
        return e.dtype == np.bool_ or not (e.abs_err > self.max_atol * e.abs_g).any()


def _float_key(dtype: np.dtype) -> str:
    """Table key of a float dtype."""
    return np.dtype(dtype).name


#: Ecosystem standard v1 thresholds T (docs/precision-policy.md#cann-ecosystem-standard-v1).
MARE_THRESHOLDS: dict[str, float] = {
    "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "float32": 2.0 ** -13,
    "float8_e4m3fn": 2.0 ** -3, "float8_e5m2": 2.0 ** -2,
}


@dataclass(frozen=True)
class Mare(Policy):
    """Ecosystem standard v1 (docs/precision-policy.md#cann-ecosystem-standard-v1): MERE < T and
    MARE < factor * T, rel = |a-g| / (|g| + 1e-7)."""

    threshold: float | None = None
    factor: float = 10.0
    name: ClassVar[str] = "mare"
    positional: ClassVar[tuple[str, ...]] = ("threshold", "factor")

    def __post_init__(self) -> None:
        """Validate the parameters."""
        _check_range(self.name, "threshold", self.threshold, 0.0)
        _check_range(self.name, "factor", self.factor, 1.0)

    def resolve(self, dtype: np.dtype) -> Policy:
        """Take T from the ecosystem standard v1 table when not given."""
        if self.threshold is not None:
            return self
        key = _float_key(dtype)
        if key not in MARE_THRESHOLDS:
            raise ValueError(f"mare: the ecosystem standard v1 has no threshold for {key}; give one, "
                             "e.g. mare:threshold=1e-4")
        return Mare(MARE_THRESHOLDS[key], self.factor)

    def failures(self, e: ElementErrors) -> np.ndarray:
        """Elements whose relative error alone breaks the MARE bound."""
        return e.abs_err / (e.abs_g + REL_EPS) >= self.factor * self.threshold

    def verdict(self, e: ElementErrors, failures: np.ndarray) -> bool:
        """MERE < T and MARE < factor * T over the finite elements."""
        if e.abs_err.size == 0:
            return True
        rel = e.abs_err / (e.abs_g + REL_EPS)
        return float(rel.mean()) < self.threshold and float(rel.max()) < self.factor * self.threshold


#: Ecosystem standard v2, mixed tolerance (docs/precision-policy.md#cann-ecosystem-standard-v2):
#: dtype -> (rtol, atol, max_abs_error_limit).
V2_TABLE: dict[str, tuple[float, float, float]] = {
    "float16": (2.0 ** -9, 2.0 ** -9, 1e-1),
    "bfloat16": (2.0 ** -6, 2.0 ** -6, 1e0),
    "float32": (2.0 ** -10, 2.0 ** -16, 1e-2),
    "float8_e4m3fn": (2.0 ** -2, 2.0 ** -4, 1e0),
    "float8_e5m2": (2.0 ** -1, 2.0 ** -3, 1e-1),
}


@dataclass(frozen=True)
class V2(Policy):
    """Ecosystem standard v2 (docs/precision-policy.md#cann-ecosystem-standard-v2): >= ratio of elements within
    atol + rtol * |g| and max |a - g| <= max(limit, ulp_cap * ULP(g at the worst element)) in the actual dtype
    (ulp_cap 0: off)."""

    rtol: float | None = None
    atol: float | None = None
    limit: float | None = None
    ratio: float = 0.99
    ulp_cap: int = 32
    name: ClassVar[str] = "v2"
    positional: ClassVar[tuple[str, ...]] = ("rtol", "atol", "limit", "ratio", "ulp_cap")

    def __post_init__(self) -> None:
        """Validate the parameters."""
        for n in ("rtol", "atol", "limit"):
            _check_range(self.name, n, getattr(self, n), 0.0)
        _check_range(self.name, "ratio", self.ratio, 0.0, 1.0)
        _check_range(self.name, "ulp_cap", self.ulp_cap, 0)
        if int(self.ulp_cap) != self.ulp_cap:
            raise ValueError(f"v2: ulp_cap={self.ulp_cap} must be an integer")
        object.__setattr__(self, "ulp_cap", int(self.ulp_cap))

    def resolve(self, dtype: np.dtype) -> Policy:
        """Fill unset rtol/atol/limit from the ecosystem standard v2 table."""
        if None not in (self.rtol, self.atol, self.limit):
            return self
        key = _float_key(dtype)
        if key not in V2_TABLE:
            raise ValueError(f"v2: the ecosystem standard v2 has no row for {key}; give rtol, atol and limit")
        rtol, atol, limit = (v if v is not None else d for v, d in zip((self.rtol, self.atol, self.limit), V2_TABLE[key]))
        return V2(rtol, atol, limit, self.ratio, self.ulp_cap)

    def failures(self, e: ElementErrors) -> np.ndarray:
        """Elements outside atol + rtol * |g|."""
        return e.abs_err > self.atol + self.rtol * e.abs_g

    def severity(self, e: ElementErrors) -> np.ndarray:
        """The error as a multiple of the element's tolerance atol + rtol * |g|."""
        return _over_tolerance(e.abs_err, self.atol + self.rtol * e.abs_g)

    def cap(self, e: ElementErrors) -> float:
        """The max-abs-error limit: max(limit, ulp_cap * ULP(g at the element of largest error))."""
        if not self.ulp_cap or e.abs_err.size == 0 or not is_float_dtype(e.dtype):
            return float(self.limit)
        g_worst = float(e.g[int(np.argmax(e.abs_err))])
        return max(float(self.limit), self.ulp_cap * ulp_of(g_worst, e.dtype))

    def verdict(self, e: ElementErrors, failures: np.ndarray) -> bool:
        """matched_ratio >= ratio and max |a - g| within the cap."""
        if e.n == 0:
            return True
        if (e.n - int(failures.sum())) / e.n < self.ratio:
            return False
        if e.abs_err.size == 0:
            return True
        worst = float(e.abs_err.max())
        return worst <= self.limit or worst <= self.cap(e)  # the cap is never below the limit


POLICIES: dict[str, type[Policy]] = {p.name: p for p in (Exact, Ulp, AllClose, Ratio, DualThousandth, Mare, V2)}

VALID_FORMS = (
    "exact",
    "ulp:N  (e.g. ulp:2)",
    "allclose:rtol=R,atol=A  (or allclose:R,A)",
    "ratio[:T,P]  (msopst error_threshold, default ratio:0.01,0.05)",
    "dual_thousandth[:rtol=..,atol=..,max_atol=..]  (defaults per dtype)",
    "mare[:threshold=T,factor=10]  (T per dtype by default)",
    "v2[:rtol=..,atol=..,limit=..,ratio=0.99,ulp_cap=32]  (per dtype by default)",
    'a dict {"name": <one of the names above>, <param>: <value>, ...}',
)


# ---------------------------------------------------------------------------------------- comparison


@dataclass(frozen=True)
class Comparison:
    """The outcome of one comparison: verdict, policy and every error metric, plus the worst elements."""

    policy: str
    params: dict[str, Any]
    passed: bool
    n: int
    max_abs: float
    max_rel: float
    max_ulp: int
    mismatch_ratio: float
    mare: float
    mere: float
    rmse: float
    n_nan_mismatch: int
    n_inf_mismatch: int
    shape: tuple[int, ...]
    _actual: np.ndarray = field(repr=False, compare=False)
    _expected: np.ndarray = field(repr=False, compare=False)
    _abs: np.ndarray = field(repr=False, compare=False)
    _rel: np.ndarray = field(repr=False, compare=False)
    _breaks: np.ndarray = field(repr=False, compare=False)
    _severity: np.ndarray = field(repr=False, compare=False)

    def worst(self, k: int = 5) -> list[tuple[tuple[int, ...], Any, Any, float, float]]:
        """Up to k differing elements as (index tuple, actual, expected, abs err, rel err), worst first.

        The elements that break the policy's per-element test (and non-finite mismatches) come first, each group
        ranked by the measure the policy judges by (Policy.severity), then by absolute error; equal elements are
        left out.
        """
        if not self._abs.any():
            return []
        order = np.lexsort((-self._abs, -self._severity, ~self._breaks))
        rows = []
        for flat in order[:k]:
            if self._abs[flat] == 0:
                break
            index = tuple(int(i) for i in np.unravel_index(int(flat), self.shape))
            rows.append((index, _python(self._actual[flat]), _python(self._expected[flat]),
                         float(self._abs[flat]), float(self._rel[flat])))
        return rows

    def relative_errors(self) -> np.ndarray:
        """Read-only flat relative error of every element: 0 where equal, inf at non-finite mismatches."""
        view = self._rel.view()
        view.flags.writeable = False
        return view

    @property
    def dtype(self) -> np.dtype:
        """The data type the output was compared in (a complex output's part type)."""
        return self._actual.dtype

    @property
    def n_differing(self) -> int:
        """How many elements differ from the expected value (non-finite mismatches included)."""
        return int(np.count_nonzero(self._abs))

    def as_dict(self, k: int = 5) -> dict[str, Any]:
        """The metrics, policy and worst elements as plain Python values (for reports)."""
        keys = ("policy", "params", "passed", "n", "max_abs", "max_rel", "max_ulp", "mismatch_ratio", "mare",
                "mere", "rmse", "n_nan_mismatch", "n_inf_mismatch")
        out: dict[str, Any] = {key: getattr(self, key) for key in keys}
        out["shape"] = list(self.shape)
        out["worst"] = [[list(i), a, g, d, r] for i, a, g, d, r in self.worst(k)]
        return out


def _python(value: Any) -> bool | int | float:
    """A NumPy or ml_dtypes scalar as a plain Python bool, int or float."""
    dt = np.asarray(value).dtype
    if dt == np.bool_:
        return bool(value)
    return int(value) if is_int_dtype(dt) else float(value)


def _as_real(x: np.ndarray) -> np.ndarray:
    """Complex arrays become real arrays with a trailing axis (real, imag); others are returned as is."""
    if is_complex_dtype(x.dtype):
        return np.stack([x.real, x.imag], axis=-1)
    return x


def _float64(x: np.ndarray) -> np.ndarray:
    """x as float64 (bool as 0/1)."""
    return x.astype(np.float64)


def bits_equal(a: np.ndarray, g: np.ndarray) -> np.ndarray:
    """Element-wise bit-pattern equality of two same-dtype arrays (value equality where no unsigned view fits)."""
    if a.dtype == np.bool_ or is_int_dtype(a.dtype) or a.dtype.itemsize not in (1, 2, 4, 8):
        return a == g
    u = np.dtype(f"u{a.dtype.itemsize}")
    return np.ascontiguousarray(a).view(u) == np.ascontiguousarray(g).view(u)


def compare(actual: np.ndarray, expected: np.ndarray, policy: Policy | str | Mapping[str, Any]) -> Comparison:
    """Compare a device output with its reference under a policy, recording every metric."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    if actual.shape != expected.shape:
        raise ValueError(f"actual shape {actual.shape} differs from expected shape {expected.shape}")
    pol = policy if isinstance(policy, Policy) else policy_from_spec(policy)
    actual, expected = _as_real(actual), _as_real(expected)
    pol = pol.resolve(actual.dtype)
    a_all, g_all = _float64(actual).reshape(-1), _float64(expected).reshape(-1)
    n = a_all.size
    finite = np.isfinite(a_all) & np.isfinite(g_all)
    all_finite = bool(finite.all())
    a_flat = actual.reshape(-1)
    g_in_a = round_to(expected, actual.dtype).reshape(-1)
    if all_finite:  # the common case: no masks to apply
        nonfinite_bad = None
        n_nan_bad = n_inf_bad = 0
        a, g, a_fin, g_fin = a_all, g_all, a_flat, g_in_a
    else:
        nan_a, nan_g = np.isnan(a_all), np.isnan(g_all)
        nan_bad = nan_a != nan_g
        inf_bad = (np.isinf(a_all) | np.isinf(g_all)) & ~nan_a & ~nan_g & (a_all != g_all)
        nonfinite_bad = nan_bad | inf_bad
        n_nan_bad, n_inf_bad = int(np.count_nonzero(nan_bad)), int(np.count_nonzero(inf_bad))
        a, g, a_fin, g_fin = a_all[finite], g_all[finite], a_flat[finite], g_in_a[finite]
    same_bits = bits_equal(a_fin, g_fin)
    if nonfinite_bad is None and same_bits.all():  # identical outputs: every error is zero by definition
        d = rel = np.zeros(n)
        ulp = np.zeros(n, np.uint64)
        metrics = _NO_ERROR
    else:
        d = np.abs(a - g)
        ulp = _float_ulp_distance(a_fin, g_fin) if is_float_dtype(a_fin.dtype) else ulp_distance(a_fin, g_fin)
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.where(d == 0, 0.0, d / np.abs(g))
            rel_eps = d / (np.abs(g) + REL_EPS)
        metrics = _error_metrics(d, rel, rel_eps, ulp)
    errors = ElementErrors(dtype=actual.dtype, n=n, a=a, g=g, abs_err=d, ulp=ulp, a_bits_equal=same_bits)
    fails = pol.failures(errors)
    n_bad = n_nan_bad + n_inf_bad
    passed = n_bad == 0 and pol.verdict(errors, fails)

    severity = pol.severity(errors) if n_bad or fails.any() or d.any() else np.zeros(d.size)
    if nonfinite_bad is None:
        abs_all, rel_all, breaks_all, severity_all = d, rel, np.asarray(fails, bool), severity
    else:
        abs_all, rel_all, breaks_all, severity_all = np.zeros(n), np.zeros(n), np.zeros(n, bool), np.zeros(n)
        abs_all[finite], rel_all[finite], breaks_all[finite], severity_all[finite] = d, rel, fails, severity
        for values in (abs_all, rel_all, severity_all):
            values[nonfinite_bad] = np.inf
        breaks_all[nonfinite_bad] = True

    return Comparison(
        policy=pol.name, params=pol.params(), passed=bool(passed), n=n, **metrics,
        mismatch_ratio=(int(np.count_nonzero(fails)) + n_bad) / n if n else 0.0,
        n_nan_mismatch=n_nan_bad, n_inf_mismatch=n_inf_bad, shape=actual.shape,
        _actual=a_flat, _expected=expected.reshape(-1), _abs=abs_all, _rel=rel_all, _breaks=breaks_all,
        _severity=np.asarray(severity_all, np.float64),
    )


#: The error metrics of outputs equal to the reference bit for bit.
_NO_ERROR: dict[str, Any] = {"max_abs": 0.0, "max_rel": 0.0, "max_ulp": 0, "mare": 0.0, "mere": 0.0, "rmse": 0.0}


def _error_metrics(d: np.ndarray, rel: np.ndarray, rel_eps: np.ndarray, ulp: np.ndarray) -> dict[str, Any]:
    """The error metrics over the finite elements from their absolute, relative, MARE-relative and ulp errors."""
    if not d.size:
        return _NO_ERROR
    return {"max_abs": float(d.max()), "max_rel": float(rel.max()), "max_ulp": int(ulp.max()),
            "mare": float(rel_eps.max()), "mere": float(rel_eps.sum()) / rel_eps.size,
            "rmse": math.sqrt(float((d * d).sum()) / d.size)}


# --------------------------------------------------------------------------------------- formatting

#: How many of the worst elements a failure message shows.
WORST_SHOWN = 5


def _kind(dtype: np.dtype) -> str:
    """'bool', 'int' or 'float': which error metrics mean something for values of dtype."""
    if dtype == np.bool_:
        return "bool"
    return "int" if is_int_dtype(dtype) else "float"


def summary(comparison: Comparison) -> str:
    """The comparison's error metrics that mean something for its dtype, as one line.

    Bool outputs have only a count of mismatches; integer outputs the largest difference and that count (a relative
    error of a count or an index says nothing); float outputs every error metric.
    """
    kind = _kind(comparison.dtype)
    mismatches = f"mismatches {comparison.n_differing} of {comparison.n}"
    if kind == "bool":
        return mismatches
    if kind == "int":
        return f"max abs {comparison.max_abs:.0f}, {mismatches}"
    line = (f"max abs {comparison.max_abs:.4g}, max rel {comparison.max_rel:.4g}, max ulp {comparison.max_ulp}, "
            f"mismatch ratio {comparison.mismatch_ratio:.4g}, MARE {comparison.mare:.4g}, MERE {comparison.mere:.4g}")
    nonfinite = [f"{count} {what} mismatch(es)" for count, what in ((comparison.n_nan_mismatch, "NaN"),
                                                                     (comparison.n_inf_mismatch, "inf")) if count]
    return ", ".join([line, *nonfinite])


def _ulp_text(actual: Any, expected: Any) -> str:
    """The ulp distance of two values of one float dtype, or '-' when either is not finite."""
    a, g = np.asarray([actual]), np.asarray([expected])
    if not (np.isfinite(a.astype(np.float64)).all() and np.isfinite(g.astype(np.float64)).all()):
        return "-"
    return str(int(_float_ulp_distance(a, g)[0]))


def worst_table(comparison: Comparison, inputs: Sequence[tuple[str, np.ndarray]] = (),
                shape: tuple[int, ...] | None = None, k: int = WORST_SHOWN, indent: str = "    ") -> str:
    """The k worst elements as an aligned text table with the errors that fit the dtype and the inputs there.

    Columns: index, actual, expected, then abs err, rel err and ulp for floats, abs err for integers, nothing more
    for bool; then one column per input whose shape broadcasts to the output's `shape` (default: the compared
    shape), holding the input element that lands at that index.
    """
    kind = _kind(comparison.dtype)
    shape = comparison.shape if shape is None else tuple(shape)
    shown = [(name, np.broadcast_to(array, shape)) for name, array in inputs
             if np.asarray(array).dtype != object and _broadcasts(np.shape(array), shape)]
    header = ["index", "actual", "expected", *{"float": ["abs err", "rel err", "ulp"], "int": ["abs err"],
                                               "bool": []}[kind], *(name for name, _ in shown)]
    expected_in_dtype = round_to(comparison._expected, comparison.dtype)
    rows = [header]
    for index, _, _, abs_err, rel_err in comparison.worst(k):
        flat = int(np.ravel_multi_index(index, comparison.shape))
        actual, expected = comparison._actual[flat], comparison._expected[flat]
        row = [str(index), str(actual), str(expected)]  # as the dtype prints it: the shortest text telling it apart
        if kind == "float":
            row += [f"{abs_err:.4g}", f"{rel_err:.4g}", _ulp_text(actual, expected_in_dtype[flat])]
        elif kind == "int":
            row.append(f"{abs_err:.0f}")
        row += [str(array[index[:len(shape)]]) for _, array in shown]
        rows.append(row)
    widths = [max(len(row[column]) for row in rows) for column in range(len(header))]
    return "\n".join(indent + "  ".join([row[0].ljust(widths[0])] + [cell.rjust(width) for cell, width in
                                                                       zip(row[1:], widths[1:])]).rstrip()
                     for row in rows)


def _broadcasts(source: tuple[int, ...], target: tuple[int, ...]) -> bool:
    """Whether an array of shape source broadcasts to exactly shape target."""
    try:
        return np.broadcast_shapes(source, target) == target
    except ValueError:
        return False


# ------------------------------------------------------------------------------------------ parsing


def _bad_spec(spec: Any, why: str) -> ValueError:
    """A ValueError naming the spec, the reason and the valid forms."""
    return ValueError(f"bad precision policy {spec!r}: {why}; valid forms: " + "; ".join(VALID_FORMS))


def _build(spec: Any, name: str, positional: list[str], keywords: dict[str, Any]) -> Policy:
    """Instantiate policy `name` from positional and keyword arguments."""
    if name not in POLICIES:
        raise _bad_spec(spec, f"unknown policy {name!r}")
    cls = POLICIES[name]
    fields = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
    if len(positional) > len(cls.positional):
        raise _bad_spec(spec, f"{name} takes at most {len(cls.positional)} positional value(s)")
    args = dict(zip(cls.positional, positional))
    for key, value in keywords.items():
        if key not in fields:
            raise _bad_spec(spec, f"{name} has no parameter {key!r} (parameters: {', '.join(fields) or 'none'})")
        if key in args:
            raise _bad_spec(spec, f"parameter {key!r} given twice")
        args[key] = value
    missing = [f.name for f in dataclasses.fields(cls)  # type: ignore[arg-type]
               if f.default is dataclasses.MISSING and f.name not in args]
    if missing:
        raise _bad_spec(spec, f"{name} needs parameter(s) {', '.join(missing)}")
    try:
        converted = {k: float(v) for k, v in args.items()}
        return cls(**converted)
    except (TypeError, ValueError) as exc:
        raise _bad_spec(spec, str(exc)) from None


def policy_from_spec(spec: str | Mapping[str, Any]) -> Policy:
    """Parse a case-file policy spelling ("exact", "ulp:2", "allclose:rtol=1e-3,atol=1e-5", a dict, ...)."""
    if isinstance(spec, Policy):
        return spec
    if isinstance(spec, Mapping):
        params = dict(spec)
        name = params.pop("name", None)
        if not isinstance(name, str):
            raise _bad_spec(spec, "a dict needs a string 'name'")
        return _build(spec, name.strip().lower(), [], params)
    if not isinstance(spec, str) or not spec.strip():
        raise _bad_spec(spec, "expected a non-empty string or a dict")
    return _policy_from_string(spec)


@functools.lru_cache(maxsize=1024)
def _policy_from_string(spec: str) -> Policy:
    """policy_from_spec of a string spelling (policies are immutable, so one parse serves every comparison)."""
    name, colon, rest = spec.strip().partition(":")
    if colon and not rest.strip():
        raise _bad_spec(spec, "nothing after ':'")
    positional: list[str] = []
    keywords: dict[str, Any] = {}
    for item in (p.strip() for p in rest.split(",")) if colon else ():
        key, eq, value = item.partition("=")
        if not item or (eq and not (key.strip() and value.strip())):
            raise _bad_spec(spec, f"empty parameter in {rest!r}")
        if eq:
            keywords[key.strip()] = value.strip()
        elif keywords:
            raise _bad_spec(spec, f"positional value {item!r} after a keyword")
        else:
            positional.append(item)
    return _build(spec, name.strip().lower(), positional, keywords)


# ----------------------------------------------------------------------------------------- defaults

#: Op families accepted by default_policy; the first group is data movement / logic, judged bitwise.
BITWISE_FAMILIES = ("shape", "movement", "index", "cast", "compare")
COMPUTE_FAMILIES = ("elementwise", "reduction", "matmul", "conv", "nn")


@functools.lru_cache(maxsize=1024)
def default_policy(dtype: np.dtype | type | str | int, op_family: str) -> Policy:
    """The suite's default policy for an output dtype and op family (docs/precision-policy.md)."""
    if op_family not in BITWISE_FAMILIES + COMPUTE_FAMILIES:
        raise ValueError(f"unknown op family {op_family!r}; expected one of {', '.join(BITWISE_FAMILIES + COMPUTE_FAMILIES)}")
    dt = numpy_dtype(dtype) if isinstance(dtype, int) and not isinstance(dtype, bool) else np.dtype(dtype)
    if dt == np.complex64:
        dt = np.dtype(np.float32)
    if dt == np.complex128:
        dt = np.dtype(np.float64)
    if op_family in BITWISE_FAMILIES or not is_float_dtype(dt):
        return Exact()
    if dt.name in V2_TABLE:
        return V2().resolve(dt)
    if dt == np.float64:
        return AllClose(rtol=1e-7, atol=1e-7)
    return Exact()
