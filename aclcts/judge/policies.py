"""The named precision policies: their parameters and per-dtype defaults, their verdicts, their case-file spellings
and the suite's default policy per dtype and op family (docs/precision-policy.md)."""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from aclcts.core.dtypes import numpy_dtype
from aclcts.core.prototypes import random as random_records
from aclcts.judge.stats import ks_critical, ks_statistic
from aclcts.judge.ulp import ulp_of
from aclcts.reference.numeric import is_float_dtype

#: The epsilon of the relative error in MARE/MERE (docs/precision-policy.md#cann-ecosystem-standard-v1).
REL_EPS = 1e-7
#: msopst's fixed limit on the relative error of any error element (docs/precision-policy.md#msopst-compare,
#: `max_diff_hd`).
MSOPST_MAX_DIFF = 0.1
#: The false-alarm rate of one distribution judgement (docs/precision-policy.md, "Random ops"): a correct backend
#: fails it once in a million samples.
DISTRIBUTION_ALPHA = 1e-6

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


@dataclass(frozen=True)
class Distribution(Policy):
    """The output and the reference are two samples of one distribution: no element is compared, the two-sample
    Kolmogorov-Smirnov test decides at false-alarm rate alpha (docs/precision-policy.md, "Random ops")."""

    alpha: float = DISTRIBUTION_ALPHA
    name: ClassVar[str] = "distribution"
    positional: ClassVar[tuple[str, ...]] = ("alpha",)

    def __post_init__(self) -> None:
        """Validate alpha."""
        object.__setattr__(self, "alpha", float(self.alpha))
        if not 0.0 < self.alpha < 1.0:
            raise ValueError(f"distribution: alpha={self.alpha} must lie in (0, 1)")

    def failures(self, e: ElementErrors) -> np.ndarray:
        """No element fails on its own: a sample is judged whole."""
        return np.zeros(e.a.shape, bool)

    def verdict(self, e: ElementErrors, failures: np.ndarray) -> bool:
        """Whether the KS distance of the two samples stays within the critical distance at alpha."""
        return ks_statistic(e.a, e.g) <= ks_critical(self.alpha, e.a.size, e.g.size)


POLICIES: dict[str, type[Policy]] = {p.name: p for p in (Exact, Ulp, AllClose, Ratio, DualThousandth, Mare, V2, Distribution)}

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
#: The family of ops whose outputs are random samples, judged as a distribution (Distribution).
RANDOM_FAMILY = random_records.POLICY
COMPUTE_FAMILIES = ("elementwise", "reduction", "matmul", "conv", "nn")
#: Every op family default_policy accepts.
POLICY_FAMILIES = BITWISE_FAMILIES + COMPUTE_FAMILIES + (RANDOM_FAMILY,)


@functools.lru_cache(maxsize=1024)
def default_policy(dtype: np.dtype | type | str | int, op_family: str) -> Policy:
    """The suite's default policy for an output dtype and op family (docs/precision-policy.md)."""
    if op_family not in POLICY_FAMILIES:
        raise ValueError(f"unknown op family {op_family!r}; expected one of {', '.join(POLICY_FAMILIES)}")
    if op_family == RANDOM_FAMILY:
        return Distribution()
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
