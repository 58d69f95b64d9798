"""The compare-with-reference decorator: a test body runs a case on the backend, the decorator judges it."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from aclcts.cases import Case, TensorCase
from aclcts.judge.compare import Comparison, compare, summary, worst_table
from aclcts.judge.policies import default_policy, policy_from_spec
from aclcts.judge.residual import RESIDUAL_THRESHOLD, backward_error, judged_by_residual
from aclcts.judge.ulp import bits_equal
from aclcts.reference import reference
from aclcts.drive.executor import Outputs

#: Name of the parameter by which a decorated test receives the list its comparisons are appended to; the pytest
#: plugin provides a fixture of this name that keeps the list on the test item.
SINK = "comparisons"


@dataclass(frozen=True)
class Judged:
    """One output of one execution compared with the reference: the comparison and its worst-element table (and
    the bytes the op wrote between the output's size and its 32-byte aligned end, tolerated but reported), with the
    output and the reference it was compared with (in the output's dtype), for the data files of a report."""

    output: str
    execution: int
    comparison: Comparison
    inputs: tuple[tuple[str, np.ndarray], ...] = field(default=(), repr=False, compare=False)
    shape: tuple[int, ...] | None = None
    tail_written: int = 0
    actual: np.ndarray | None = field(default=None, repr=False, compare=False)
    expected: np.ndarray | None = field(default=None, repr=False, compare=False)

    def metrics(self, worst: int) -> dict[str, Any]:
        """The comparison's metrics for a report, with `tail_bytes_written` when the op wrote past the output's size
        within its 32-byte aligned end."""
        metrics = self.comparison.as_dict(worst)
        if self.tail_written:
            metrics["tail_bytes_written"] = self.tail_written
        return metrics

    @property
    def key(self) -> str:
        """The output and execution as a report's metric name, e.g. ``y[0]``."""
        return f"{self.output}[{self.execution}]"

    @property
    def table(self) -> str:
        """The worst elements of the comparison as a text table, with the inputs at those elements."""
        return worst_table(self.comparison, self.inputs, self.shape)


def policy_for(case: Case, tensor: TensorCase):
    """The precision policy of one output: the case file's, per dtype or overall, else the suite default."""
    spec = case.precision
    if isinstance(spec, dict):
        spec = spec.get(tensor.dtype_name, spec.get("default"))
    if spec is not None:
        return policy_from_spec(spec)
    return default_policy(tensor.np_dtype, case.family)


def compared(case: Case, tensor: TensorCase, inputs: Sequence[np.ndarray], actual: np.ndarray,
             expected: np.ndarray) -> Comparison:
    """One output compared with its expected values (in its dtype) under its policy; a linear solve's output that
    fails it is judged again by its backward error (aclcts.judge.residual), which then decides."""
    comparison = compare(actual, expected, policy_for(case, tensor))
    if comparison.passed or not judged_by_residual(case.reference):
        return comparison
    ratio = backward_error(case.reference, inputs, case.reference_attr_values(), actual)
    return replace(comparison, passed=ratio <= RESIDUAL_THRESHOLD, residual=ratio)


def judge(case: Case, input_sets: list[list[np.ndarray]], results: list[Outputs],
          expected_sets: list[list[np.ndarray]] | None = None, into: list[Judged] | None = None) -> list[str]:
    """Compare every output of every execution with the reference (or given expected outputs); return the failures.

    Each comparison made is appended to `into` when it is given.
    """
    ref = reference(case.reference)
    failures = []
    for run_index, (inputs, outputs) in enumerate(zip(input_sets, results)):
        if expected_sets is not None:
            expected_all = expected_sets[run_index]
        else:
            expected_all = ref.compute(inputs, case.reference_attr_values(), [t.np_dtype for t in case.outputs])
        named_inputs = tuple((tensor.name, np.asarray(array)) for tensor, array in zip(case.inputs, inputs))
        tails = outputs.tail_written or [0] * len(case.outputs)
        for tensor, actual, expected, unwritten, tail in zip(case.outputs, outputs.arrays, expected_all,
                                                             outputs.unwritten, tails):
            where = f"execution {run_index + 1}, output {tensor.name!r}"
            expected = np.asarray(expected)
            if actual.shape != expected.shape:
                failures.append(f"{where}: shape {actual.shape}, the reference gives {expected.shape}")
                continue
            in_actual_dtype = expected.astype(actual.dtype) if expected.dtype != actual.dtype else expected
            comparison = compared(case, tensor, inputs, actual, in_actual_dtype)
            judged = Judged(tensor.name, run_index, comparison, named_inputs, actual.shape, tail, actual,
                            in_actual_dtype)
            if into is not None:
                into.append(judged)
            never_written = (unwritten & ~bits_equal(actual, in_actual_dtype)) if unwritten.any() else unwritten
            if never_written.any():
                index = tuple(int(i) for i in np.argwhere(never_written)[0])
                failures.append(f"{where}: {int(never_written.sum())} element(s) still hold the poison pattern "
                                f"(never written), first at {index}")
            if not comparison.passed:
                policy_text = f"{comparison.policy} {comparison.params}" if comparison.params else comparison.policy
                beyond = "" if comparison.residual is None else f" and the backward error ratio {RESIDUAL_THRESHOLD:g}"
                failures.append(f"{where}: fails policy {policy_text}{beyond}: {summary(comparison)}\n{judged.table}")
    return failures


class PrecisionMismatch(AssertionError):
    """An output does not meet its precision policy against the reference."""


def compares_with_reference(body: Callable[..., list[Outputs]]) -> Callable[..., None]:
    """Decorate a test body that runs `op_case` on `case_inputs` and returns its Outputs; the wrapper judges them.

    The wrapper takes one more keyword argument than the body, `comparisons` (SINK): the list every comparison it
    makes is appended to, which pytest fills in from the plugin's fixture of that name.
    """
    signature = inspect.signature(body)
    passes_sink = SINK in signature.parameters

    @functools.wraps(body)
    def test(*args: Any, **kwargs: Any) -> None:
        __tracebackhide__ = True  # a failure shows the judge's message, not this wrapper's frame and arguments
        case: Case = kwargs["op_case"]
        input_sets: list[list[np.ndarray]] = kwargs["case_inputs"]
        sink = kwargs.get(SINK) if passes_sink else kwargs.pop(SINK, None)
        results = body(*args, **kwargs)
        failures = judge(case, input_sets, results, into=sink)
        if failures:
            raise PrecisionMismatch(f"{case.id} ({case.file}) differs from the reference:\n" + "\n".join(failures))

    if not passes_sink:
        parameters = list(signature.parameters.values())
        at = next((i for i, p in enumerate(parameters) if p.kind is inspect.Parameter.VAR_KEYWORD), len(parameters))
        parameters.insert(at, inspect.Parameter(SINK, inspect.Parameter.KEYWORD_ONLY))
        test.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    return test
