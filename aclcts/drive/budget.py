"""The host-memory budget of a case: what running it would take, estimated from its shapes before anything is
allocated, and the --memory-budget setting it is held against."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from aclcts.cases import Case, TensorCase
from aclcts.drive.executor import GUARD, align_up

#: Share of the memory available when the run starts that its test processes may use together, by default.
DEFAULT_SHARE = 0.5
#: Bytes per unit of a --memory-budget size (binary units; KB, MB, ... are decimal).
UNITS = {"": 1, "b": 1, "k": 2**10, "kib": 2**10, "m": 2**20, "mib": 2**20, "g": 2**30, "gib": 2**30,
         "t": 2**40, "tib": 2**40, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12}
_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([a-z]*|%)\s*", re.IGNORECASE)
#: Bytes per element of the float64 reference.
FLOAT64 = 8


def available_memory() -> int:
    """Bytes of memory available to a new process: MemAvailable of /proc/meminfo, else the free physical pages."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def parse_budget(text: str, available: int) -> int:
    """Bytes of a --memory-budget value: a size (4GiB, 512MiB, 2GB, 1000000) or a share of `available` (50%)."""
    match = _SIZE.fullmatch(text)
    unit = match.group(2).lower() if match else ""
    if not match or (unit != "%" and unit not in UNITS):
        raise ValueError("expected a size such as 4GiB, 512MiB or 2GB, or a share of the available memory such as "
                         "50%")
    number = float(match.group(1))
    if unit == "%":
        if not 0 < number <= 100:
            raise ValueError("expected a share above 0% and at most 100%")
        return int(available * number / 100)
    if number <= 0:
        raise ValueError("expected a size above 0")
    return int(number * UNITS[unit])


def human(size: float) -> str:
    """A byte count in binary units, e.g. 11.9 GiB."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(size) < 1024:
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} TiB"


@dataclass(frozen=True)
class Estimate:
    """Host bytes one case takes: its drawn inputs, the float64 reference, the outputs read back, the guard bands,
    (when the device's memory is host memory, as on the simulator) the device copies, and the working arrays of the
    computation and the comparison."""

    inputs: int
    reference: int
    outputs: int
    guards: int
    device: int
    working: int = 0

    @property
    def total(self) -> int:
        """All of it."""
        return self.inputs + self.reference + self.outputs + self.guards + self.device + self.working

    def parts(self) -> str:
        """The parts in human units."""
        named = [("inputs", self.inputs), ("float64 reference", self.reference), ("outputs", self.outputs),
                 ("guard bands", self.guards), ("device copies", self.device), ("working arrays", self.working)]
        return ", ".join(f"{name} {human(size)}" for name, size in named if size)


#: Float64 arrays of the largest tensor's size that the computation and the comparison hold at once beyond the parts
#: above (the simulator's float64 kernel, the comparison's differences and masks): a float32 SoftmaxV2 of 12.8 million
#: elements peaked 80 bytes per element above the interpreter in a one-test run, where the other parts count 45.
WORKING_ARRAYS = 4


def _elements(tensor: TensorCase) -> int:
    return math.prod(tensor.shape)


def _bytes(tensor: TensorCase) -> int:
    return _elements(tensor) * tensor.np_dtype.itemsize


def estimate(case: Case, executions: int = 1, device_on_host: bool = True) -> Estimate:
    """What running a static case `executions` times takes on the host, from its shapes and data types alone.

    Inputs: every input set (drawn up front) and the float64 array one input is drawn through. Reference: every input
    and output in float64 (one execution at a time). Outputs: each execution's arrays and never-written masks, plus
    the raw bytes one read-back holds. Device copies: the inputs and the outputs with their guard bands.
    """
    drawn = sum(_bytes(t) for t in case.inputs)
    widest = max((_elements(t) * FLOAT64 for t in case.inputs if t.const is None), default=0)
    reference = sum(_elements(t) * FLOAT64 for t in case.inputs + case.outputs)
    outputs = sum(_bytes(t) + _elements(t) for t in case.outputs) * executions
    read_back = max((_bytes(t) for t in case.outputs), default=0)
    guards = sum(align_up(_bytes(t)) - _bytes(t) + 2 * GUARD for t in case.outputs)
    device = drawn + sum(_bytes(t) for t in case.outputs) + guards if device_on_host else 0
    largest = max((_elements(t) for t in case.inputs + case.outputs), default=0)
    return Estimate(drawn * executions + widest, reference, outputs + read_back, guards, device,
                    WORKING_ARRAYS * FLOAT64 * largest)


def over_budget(case: Case, budget: int, executions: int = 1, device_on_host: bool = True) -> str | None:
    """Why the case is not run under this budget (its estimate and the budget in human units), or None."""
    found = estimate(case, executions, device_on_host)
    if found.total <= budget:
        return None
    return (f"{case.id}: estimated host memory {human(found.total)} ({found.parts()}) is above the memory budget "
            f"{human(budget)} (--memory-budget)")


def at_shapes(case: Case, runtime: Sequence[Sequence[int]], outputs: Sequence[Sequence[int]] | None = None) -> Case:
    """The case with concrete shapes: its non-constant inputs at `runtime`, its outputs at `outputs` (else each
    output's smallest shape: its fixed dims and the minimum of each range, none for an unknown rank)."""
    shapes = iter(runtime)
    inputs = tuple(t if t.const is not None else replace(t, shape=tuple(next(shapes)), shape_range=())
                   for t in case.inputs)
    if outputs is None:
        outputs = [[low for low, _ in t.dim_ranges()] for t in case.outputs]
    return replace(case, inputs=inputs,
                   outputs=tuple(replace(t, shape=tuple(s), shape_range=()) for t, s in zip(case.outputs, outputs)))


def shapes_over_budget(case: Case, runtime: Sequence[Sequence[int]], budget: int | None,
                       outputs: Sequence[Sequence[int]] | None = None, device_on_host: bool = True) -> str | None:
    """Why one execution of a dynamic case at these runtime input shapes (and output shapes, see at_shapes) is not
    run under this budget (None: no budget), or None."""
    if not budget:
        return None
    found = over_budget(at_shapes(case, runtime, outputs), budget, 1, device_on_host)
    count = len([t for t in case.inputs if t.const is None])
    return found and f"{found} at input shapes {[list(s) for s in runtime][:count]}"
