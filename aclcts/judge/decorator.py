"""The compare-with-reference decorator: a test body runs a case on the backend, the decorator judges it."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from aclcts.cases import Case, TensorCase
from aclcts.judge.compare import Comparison, bits_equal, compare, default_policy, policy_from_spec
from aclcts.reference import reference
from aclcts.drive.runner import Outputs

_RECORDERS: list[Callable[[str, Any], None]] = []


def set_recorder(recorder: Callable[[str, Any], None] | None) -> None:
    """Install (or, with None, remove) where comparison metrics of the running test are recorded."""
    _RECORDERS.clear()
    if recorder is not None:
        _RECORDERS.append(recorder)


def _record(key: str, value: Any) -> None:
    for recorder in _RECORDERS:
        recorder(key, value)


#: Receives (output name, execution index, Comparison, worst-element table) for every failing comparison.
FailureRecorder = Callable[[str, int, Comparison, str], None]
_FAILURE_RECORDERS: list[FailureRecorder] = []


def set_failure_recorder(recorder: FailureRecorder | None) -> None:
    """Install (or, with None, remove) what receives each failing comparison of the running test."""
    _FAILURE_RECORDERS.clear()
    if recorder is not None:
        _FAILURE_RECORDERS.append(recorder)


def _record_failure(output: str, execution: int, comparison: Comparison, table: str) -> None:
    for recorder in _FAILURE_RECORDERS:
        recorder(output, execution, comparison, table)


def policy_for(case: Case, tensor: TensorCase):
    """The precision policy of one output: the case file's, per dtype or overall, else the suite default."""
    spec = case.precision
    if isinstance(spec, dict):
        spec = spec.get(tensor.dtype_name, spec.get("default"))
    if spec is not None:
        return policy_from_spec(spec)
    return default_policy(tensor.np_dtype, case.family)


def _table(comparison: Comparison) -> str:
    rows = [f"    {'index':<16} {'actual':>16} {'expected':>16} {'abs err':>12} {'rel err':>12}"]
    for index, actual, expected, abs_err, rel_err in comparison.worst(5):
        rows.append(f"    {str(index):<16} {actual!s:>16} {expected!s:>16} {abs_err:>12.4g} {rel_err:>12.4g}")
    return "\n".join(rows)


def judge(case: Case, input_sets: list[list[np.ndarray]], results: list[Outputs],
          expected_sets: list[list[np.ndarray]] | None = None) -> list[str]:
    """Compare every output of every execution with the reference (or given expected outputs); return the failures."""
    ref = reference(case.reference)
    failures = []
    for run_index, (inputs, outputs) in enumerate(zip(input_sets, results)):
        if expected_sets is not None:
            expected_all = expected_sets[run_index]
        else:
            expected_all = ref.compute(inputs, case.attr_values(), [t.np_dtype for t in case.outputs])
        for tensor, actual, expected, unwritten in zip(case.outputs, outputs.arrays, expected_all, outputs.unwritten):
            where = f"execution {run_index + 1}, output {tensor.name!r}"
            expected = np.asarray(expected)
            if actual.shape != expected.shape:
                failures.append(f"{where}: shape {actual.shape}, the reference gives {expected.shape}")
                continue
            policy = policy_for(case, tensor)
            in_actual_dtype = expected.astype(actual.dtype) if expected.dtype != actual.dtype else expected
            comparison = compare(actual, in_actual_dtype, policy)
            _record(f"{tensor.name}[{run_index}]", comparison.as_dict(3))
            never_written = (unwritten & ~bits_equal(actual, in_actual_dtype)) if unwritten.any() else unwritten
            if never_written.any():
                index = tuple(int(i) for i in np.argwhere(never_written)[0])
                failures.append(f"{where}: {int(never_written.sum())} element(s) still hold the poison pattern "
                                f"(never written), first at {index}")
            if not comparison.passed:
                table = _table(comparison)
                _record_failure(tensor.name, run_index, comparison, table)
                failures.append(
                    f"{where}: fails policy {comparison.policy} {comparison.params}: max abs {comparison.max_abs:.4g}, "
                    f"max rel {comparison.max_rel:.4g}, max ulp {comparison.max_ulp}, mismatch ratio "
                    f"{comparison.mismatch_ratio:.4g}, MARE {comparison.mare:.4g}, MERE {comparison.mere:.4g}\n"
                    + table
                )
    return failures


def compares_with_reference(body: Callable[..., list[Outputs]]) -> Callable[..., None]:
    """Decorate a test body that runs `op_case` on `case_inputs` and returns its Outputs; the wrapper judges them."""

    @functools.wraps(body)
    def test(*args: Any, **kwargs: Any) -> None:
        case: Case = kwargs["op_case"]
        input_sets: list[list[np.ndarray]] = kwargs["case_inputs"]
        results = body(*args, **kwargs)
        failures = judge(case, input_sets, results)
        if failures:
            raise AssertionError(f"{case.id} ({case.file}) differs from the reference:\n" + "\n".join(failures))

    return test
