"""`aclcts new-op NAME`: scaffold a custom operator's three files: its record, NumPy reference and simulator kernel."""

from __future__ import annotations

import argparse
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from string import Template

from aclcts.core.prototypes import Prototype, Sample, op, op_types
from aclcts.core.prototypes.vendors import RECORD_FOLDER, record_text
from aclcts.reference import OP_TYPES

PROG = "aclcts new-op"
#: Data types the scaffold's placeholder computation (a broadcasting sum) supports.
DTYPES = ("float16", "bfloat16", "float32", "double", "int8", "int16", "int32", "int64", "uint8")
MAX_TENSORS = 8
#: The largest size of every -1 dim of a dynamic scaffold (the smallest is 1; its sample shapes fit inside).
DYNAMIC_MAX = 32
#: The [low, high] every input of the scaffold is drawn from (its record's samples).
SAMPLE_RANGE = (-10, 10)
#: The vendor folder of the prototype record, as CANN's default custom op package names it.
VENDOR = "customize"
_NAME = re.compile(r"[A-Z][A-Za-z0-9]*\Z")
_WORD_BREAK = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")

_REFERENCE = Template('''\
"""NumPy float64 reference of the custom operator $op, named by its record ($record) as
`$module_ref:$constant`.

As generated it is the placeholder $formula (NumPy broadcasting): the inputs are widened to
float64 (int64 for integers), combined, and rounded once to each output's dtype. Replace `_compute` with the
operator's definition and `_shape` with its output-shape rule. The input and output names, attribute defaults and
dtypes are the record's: `define` reads them from it, so nothing here restates them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from aclcts.core.prototypes import lookup
from aclcts.reference.base import define
from aclcts.reference.numeric import round_to, widen

OP_TYPE = "$op"


def _compute(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    total = widen(xs[0])
    for x in xs[1:]:
        total = total + widen(x)
    return [round_to(total, dtype) for dtype in out]


def _shape(shapes: list[tuple[int, ...]], values: list[np.ndarray | None],
           attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    record, _ = lookup(OP_TYPE)
    return [tuple(np.broadcast_shapes(*shapes))] * len(record.outputs)


$constant = define(OP_TYPE, _compute, _shape)
''')

_KERNEL = Template('''\
"""Simulator kernel of the custom operator $op: what the simulated device computes, for dry runs on aclcts.sim.

Its record ($record) names this module as its "kernel": `pytest conformance/ --cases <this folder>` registers
`compute` and `infer_shape` with the simulator. As generated it is the placeholder $formula
(NumPy broadcasting), summed in float32 (float64 for double, int64 for integers) and rounded once to each output's
dtype; keep it in step with $module_ref.py. OpCall and Outputs read the input and output names and dtypes from the
record, so nothing here restates them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from aclcts.sim.kernels import InferredShape, TensorInfo
from aclcts.sim.kernels.call import OpCall, Outputs
from aclcts.sim.kernels.shapes import broadcast, inferred

OP_TYPE = "$op"


def _device_type(dtype: np.dtype) -> type:
    if dtype.kind in "iu":
        return np.int64
    return np.float64 if dtype == np.float64 else np.float32


def _inputs(call: OpCall) -> tuple[list[Any], range]:
    """Every input of the record (arrays in compute, TensorInfo in infer_shape) and their indices."""
    count = len(call.record.inputs)
    call.require_count(count)
    return [call.input(i) for i in range(count)], range(count)


def compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    """$op's outputs from its input arrays, one array of each output's dtype, in the inputs' broadcast shape."""
    call = OpCall(OP_TYPE, inputs, attrs)
    xs, indices = _inputs(call)
    for index, x in zip(indices, xs):
        call.require_dtype(index, x.dtype)
    call.require_same_dtype(indices, [x.dtype for x in xs])
    shape = broadcast(call, indices, [x.shape for x in xs])
    out = Outputs(call, outputs)
    total = xs[0].astype(_device_type(xs[0].dtype))
    for x in xs[1:]:
        total = total + x.astype(_device_type(x.dtype))
    return [out.emit(k, np.broadcast_to(total, shape).astype(out.dtype(k))) for k in range(len(out.names))]


def infer_shape(inputs: list[TensorInfo], values: list[np.ndarray | None],
                attrs: dict[str, Any]) -> list[InferredShape]:
    """$op's output dtypes and dims from its input descs (the inputs broadcast together; -1 stays unknown)."""
    call = OpCall(OP_TYPE, inputs, attrs)
    infos, indices = _inputs(call)
    dims = broadcast(call, indices, [tuple(info.shape) for info in infos])
    return [inferred(infos[0].dtype, dims)] * len(call.record.outputs)
''')


class NewOpError(Exception):
    """Bad arguments or files in the way; the message is one line naming what was expected."""


@dataclass(frozen=True)
class Scaffold:
    """What `aclcts new-op` writes for one operator: its names, tensors, dtypes and target folder."""

    op: str
    folder: Path
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    dtypes: tuple[str, ...]
    kernel: bool
    dynamic: bool = False
    opp_path: Path | None = None

    @property
    def module(self) -> str:
        """The op type in snake case, the stem of every generated module."""
        return snake_case(self.op)

    @property
    def opp(self) -> Path:
        """The OPP folder the record goes under: --opp-path, else <folder>/opp."""
        return self.opp_path if self.opp_path is not None else self.folder / "opp"

    @property
    def record_file(self) -> Path:
        """The op's record, read by `aclcts atc` when ASCEND_OPP_PATH names self.opp and by a --cases run."""
        return self.opp / "vendors" / VENDOR / RECORD_FOLDER / f"{self.op}.json"

    def record(self) -> Prototype:
        """The placeholder record: every input and output of one type constraint T (the scaffold's dtypes), the
        sample shapes and value ranges of its default cases, and the modules of its reference and kernel."""
        shapes = self._shape_sets()
        ranges = {name: ((1, DYNAMIC_MAX),) * 2 for name in self.inputs + self.outputs} if self.dynamic else {}
        return op(self.op, ", ".join(f"{n}:T" for n in self.inputs), ", ".join(f"{n}:T" for n in self.outputs),
                  {"T": self.dtypes}, source=f"custom operator {self.op} scaffolded by aclcts new-op (replace with "
                                             "its REG_OP prototype)",
                  policy="elementwise", shape_rule="broadcast" if len(self.inputs) > 1 else "same",
                  samples={name: Sample(*SAMPLE_RANGE) for name in self.inputs}, sample_shapes=shapes,
                  sample_ranges=ranges, reference=f"{self.module}_reference:{self.module.upper()}",
                  kernel=f"{self.module}_kernel" if self.kernel else "")

    def files(self) -> dict[Path, str]:
        """Every file to write and its text: the record, the reference and (unless --no-kernel) the kernel."""
        words = self._words()
        files = {self.record_file: record_text(self.record()),
                 self.folder / f"{self.module}_reference.py": _REFERENCE.substitute(words)}
        if self.kernel:
            files[self.folder / f"{self.module}_kernel.py"] = _KERNEL.substitute(words)
        return files

    def _words(self) -> dict[str, str]:
        total = " + ".join(self.inputs)
        return {"op": self.op, "module_ref": f"{self.module}_reference", "constant": self.module.upper(),
                "formula": ", ".join(f"{y} = {total}" for y in self.outputs),
                "record": self.record_file.relative_to(self.folder).as_posix() if self.opp_path is None
                else f"{RECORD_FOLDER.as_posix()}/{self.op}.json in the OPP folder {self.opp}"}

    def _shape_sets(self) -> tuple[tuple[tuple[int, ...], ...], ...]:
        """The default cases' input shapes; a dynamic scaffold's are its runtime shapes, all of rank 2."""
        n = len(self.inputs)
        sets = [((16, 32),) * n] + ([] if self.dynamic else [((2, 3, 5),) * n])
        if n > 1:
            sets.append(((4, 1),) + ((1, 5),) * (n - 1))
        return tuple(sets)

    def commands(self) -> list[tuple[str, str]]:
        """The next steps after scaffolding: (what, command line), simulator first, then an NPU host."""
        # With --opp-path the record is in the OPP folder and the modules in the op's folder.
        cases = shlex.quote(str(self.folder if self.opp_path is None else self.opp_path))
        run = "" if self.opp_path is None else f"PYTHONPATH={shlex.quote(str(self.folder))} "
        when = "" if self.kernel else ', once the record\'s "kernel" names a module with compute and infer_shape'
        return [
            (f"dry run on the simulator (from the aclcts repository){when}", f"{run}pytest conformance/ --cases {cases}"),
            ("on an NPU host: the single-op JSON of the models the run needs",
             f"{run}aclcts singleop {cases} -o build/op_list.json --soc=<soc>"),
            ("compile them with the real ATC",
             "atc --singleop=build/op_list.json --output=build/op_models --soc_version=<soc>"),
            ("run the op's default cases through every step on the device",
             f"{run}pytest conformance/ --backend=npu --model-dir=build/op_models --cases {cases}"),
        ]


def snake_case(op: str) -> str:
    """An operator type in snake case: MyScale -> my_scale, MatMulV3 -> mat_mul_v3."""
    return _WORD_BREAK.sub("_", op).lower()


def _tensor_names(prefix: str, count: int) -> tuple[str, ...]:
    return (prefix,) if count == 1 else tuple(f"{prefix}{i}" for i in range(1, count + 1))


def _count(text: str, option: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= MAX_TENSORS:
        raise NewOpError(f"{option}: expected a whole number from 1 to {MAX_TENSORS}, got {text!r}")
    return int(text)


def _dtypes(text: str) -> tuple[str, ...]:
    names = tuple(dict.fromkeys(n.strip() for n in text.split(",")))
    for name in names:
        if name not in DTYPES:
            raise NewOpError(f"--dtype: expected comma-separated names from {', '.join(DTYPES)}, got {name!r}")
    return names


def _op_name(name: str) -> str:
    if not _NAME.match(name):
        raise NewOpError(f"NAME: expected a CamelCase operator type like MyScale (a letter A-Z, then letters "
                         f"and digits), got {name!r}")
    if name in OP_TYPES or name in op_types():
        raise NewOpError(f"NAME: {name} is an operator of the case library; a custom operator needs a new type")
    return name


def scaffold_from(args: argparse.Namespace) -> Scaffold:
    """The scaffold the parsed command line asks for; NewOpError when an argument is invalid."""
    op = _op_name(args.name)
    folder = Path(args.dir) if args.dir else Path("custom_ops") / snake_case(op)
    return Scaffold(op, folder, _tensor_names("x", _count(args.inputs, "--inputs")),
                    _tensor_names("y", _count(args.outputs, "--outputs")), _dtypes(args.dtype), not args.no_kernel,
                    args.dynamic, Path(args.opp_path) if args.opp_path else None)


def write(scaffold: Scaffold, force: bool) -> list[Path]:
    """Write the scaffold's files, refusing (NewOpError, nothing written) to replace any without force."""
    files = scaffold.files()
    existing = [str(path) for path in files if path.exists()]
    if existing and not force:
        raise NewOpError(f"{', '.join(existing)}: already there; pass --force to overwrite")
    if scaffold.folder.exists() and not scaffold.folder.is_dir():
        raise NewOpError(f"--dir: {scaffold.folder} is a file; expected a folder")
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    return list(files)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description="Scaffold a custom operator: its record (the prototype "
                                     "and default cases), its NumPy reference and a simulator kernel, runnable as "
                                     "generated by `pytest conformance/ --cases FOLDER`.")
    parser.add_argument("name", help="the operator type, CamelCase like ATC op types (e.g. MyScale)")
    parser.add_argument("--dir", help="folder to write to (default: custom_ops/<name in snake case>)")
    parser.add_argument("--inputs", default="2", help=f"number of inputs, 1 to {MAX_TENSORS} (default 2)")
    parser.add_argument("--outputs", default="1", help=f"number of outputs, 1 to {MAX_TENSORS} (default 1)")
    parser.add_argument("--dtype", default="float16,float32",
                        help="comma-separated data types of the record (its type constraint T), from "
                             f"{', '.join(DTYPES)} (default float16,float32)")
    parser.add_argument("--dynamic", action="store_true",
                        help="give the record sample_ranges: a dynamic default case, -1 dims inside [1, "
                             f"{DYNAMIC_MAX}], run at the sample shapes and at shapes drawn by its shape rule")
    parser.add_argument("--no-kernel", action="store_true",
                        help="write no simulator kernel (the record then names none)")
    parser.add_argument("--opp-path", help="OPP folder to install the record in, as "
                        f"vendors/{VENDOR}/{RECORD_FOLDER.as_posix()}/NAME.json (default: <dir>/opp); `aclcts atc` "
                        "reads it when ASCEND_OPP_PATH names that folder")
    parser.add_argument("--force", action="store_true", help="overwrite files that already exist")
    return parser


def main(argv: list[str]) -> int:
    """Run `aclcts new-op`; 0 when the files were written, 2 for bad arguments or files in the way."""
    args = _parser().parse_args(argv)
    try:
        scaffold = scaffold_from(args)
        write(scaffold, args.force)
    except (NewOpError, OSError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    print("next:")
    for what, command in scaffold.commands():
        print(f"  # {what}\n  {command}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
