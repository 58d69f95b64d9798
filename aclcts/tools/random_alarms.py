"""`aclcts random-alarms`: how often the random family's distribution test fails a correct simulator.

Each case of cases/random and cases/random_stateful runs RUNS times on the simulator's kernel, each time with another
key and counter (seed input, or seed attributes), and its
values are judged against the reference's sample by the Distribution policy (a two-sample Kolmogorov-Smirnov test at
false-alarm rate alpha, docs/precision-policy.md, "Random ops"). Printed per case: the runs, the false alarms, the
observed rate beside alpha, and the chance that a correct backend passes that many runs in a row. Exit status 0 when
no run failed, 1 otherwise, 2 on bad usage.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

import aclcts.sim.kernels  # noqa: F401  (registers the built-in kernels)
from aclcts.cases import Case, load_cases
from aclcts.cases.values import draw_inputs
from aclcts.core.dtypes import acl_data_type
from aclcts.judge.compare import compare
from aclcts.judge.policies import Distribution
from aclcts.reference import reference
from aclcts.sim.kernels.base import TensorInfo
from aclcts.sim.kernels.registry import get_kernel

PROG = "aclcts random-alarms"
#: The case folders of the random families, beside the aclcts package.
CASES = [str(Path(__file__).resolve().parents[2] / "cases" / family) for family in ("random", "random_stateful")]


def _run_seed(name: str, dtype: np.dtype, run: int) -> np.ndarray | None:
    """One run's value of a seed input (aclcts/core/prototypes/random.py): key, counter or seed; None for another."""
    words = {"key": [run], "counter": [run * 0x9E3779B9, run], "seed": [run, run * 7 + 1]}.get(name)
    return None if words is None else np.array(words, np.uint64).astype(dtype)


def seeded(case: Case, run: int) -> list[np.ndarray]:
    """The case's inputs with the key and counter (or seed) of one run."""
    inputs = [np.asarray(x) for x in draw_inputs(case, run)]
    for position, tensor in enumerate(case.inputs):
        seed = _run_seed(tensor.name, tensor.np_dtype, run)
        inputs[position] = inputs[position] if seed is None else seed
    return inputs


def alarmed(case: Case, run: int, policy: Distribution) -> bool:
    """Whether one run's values fail the distribution test against the reference's sample."""
    inputs, attrs, out = seeded(case, run), case.reference_attr_values(), case.outputs[0]
    attrs = {**attrs, **{name: run + offset for name, offset in (("seed", 1), ("seed2", 0)) if name in attrs}}
    kernel = get_kernel(case.op)
    if kernel is None:
        raise SystemExit(f"{PROG}: the simulator has no kernel for {case.op}")
    info = TensorInfo(acl_data_type(out.np_dtype), tuple(out.shape), 2)
    actual = kernel.compute(inputs, attrs, [info])[0]
    expected = reference(case.reference).compute(inputs, attrs, [out.np_dtype])[0]
    return not compare(actual, np.asarray(expected).astype(actual.dtype), policy).passed


def main(argv: list[str] | None = None) -> int:
    """Run every random case RUNS times and print its false alarms."""
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000, help="runs per case (default 1,000)")
    parser.add_argument("--cases", action="append", help="a random family's case folder (repeatable; default "
                                                          "cases/random and cases/random_stateful)")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.runs < 1:
        print(f"{PROG}: --runs: expected at least 1, got {args.runs}", file=sys.stderr)
        return 2
    policy = Distribution()
    alarms_in_all = 0
    print(f"{'case':<64} {'runs':>6} {'alarms':>7} {'rate':>9} {'alpha':>8} {'P(all pass)':>12}", flush=True)
    for case in load_cases(args.cases or CASES, kind="all"):
        alarms = sum(alarmed(case, run, policy) for run in range(args.runs))
        alarms_in_all += alarms
        print(f"{case.id:<64} {args.runs:>6} {alarms:>7} {alarms / args.runs:>9.2g} {policy.alpha:>8.0e} "
              f"{(1 - policy.alpha) ** args.runs:>12.6f}", flush=True)
    return 0 if alarms_in_all == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
