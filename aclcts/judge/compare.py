"""The comparison of a device output with its reference under a precision policy: the error metrics and the
failure text.

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

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from aclcts.judge.policies import REL_EPS, Distribution, ElementErrors, Policy, policy_from_spec
from aclcts.judge.stats import ks_critical, ks_statistic
from aclcts.judge.ulp import bits_equal, float_ulp_distance, ulp_distance
from aclcts.reference.numeric import is_complex_dtype, is_float_dtype, is_int_dtype, round_to

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
    #: A linear solve's backward error ratio, computed where the policy failed it (aclcts.judge.residual).
    residual: float | None = None

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
        if self.residual is not None:
            out["backward_error"] = self.residual
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
        ulp = float_ulp_distance(a_fin, g_fin) if is_float_dtype(a_fin.dtype) else ulp_distance(a_fin, g_fin)
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
    if comparison.policy == Distribution.name:
        return _distribution_text(comparison)
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
    residual = [] if comparison.residual is None else [f"backward error ratio {comparison.residual:.4g}"]
    return ", ".join([line, *nonfinite, *residual])


def _distribution_text(comparison: Comparison) -> str:
    """The two-sample KS distance of a comparison judged as a distribution, with its critical distance."""
    a, g = _float64(comparison._actual), _float64(np.asarray(comparison._expected))
    a, g = a[np.isfinite(a)], g[np.isfinite(g)]
    alpha = comparison.params["alpha"]
    return (f"KS distance {ks_statistic(a, g):.4g} between the output and a reference sample of {g.size}, "
            f"critical {ks_critical(alpha, a.size, g.size):.4g} at alpha {alpha:g}")


def _ulp_text(actual: Any, expected: Any) -> str:
    """The ulp distance of two values of one float dtype, or '-' when either is not finite."""
    a, g = np.asarray([actual]), np.asarray([expected])
    if not (np.isfinite(a.astype(np.float64)).all() and np.isfinite(g.astype(np.float64)).all()):
        return "-"
    return str(int(float_ulp_distance(a, g)[0]))


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
