"""`aclcts new-op NAME`: scaffold a custom operator's case file, NumPy reference, simulator kernel and prototype."""

from __future__ import annotations

import argparse
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from string import Template

from aclcts.core.prototypes import op, op_types
from aclcts.core.prototypes.vendors import RECORD_FOLDER, record_text
from aclcts.reference import OP_TYPES

PROG = "aclcts new-op"
#: Data types the scaffold's placeholder computation (a broadcasting sum) supports.
DTYPES = ("float16", "bfloat16", "float32", "double", "int8", "int16", "int32", "int64", "uint8")
MAX_TENSORS = 8
#: The [min, max] of every -1 dim of a dynamic scaffold (the static scaffold's shapes fit inside it).
DYNAMIC_RANGE = [1, 32]
#: The vendor folder of the prototype record, as CANN's default custom op package names it.
VENDOR = "customize"
_NAME = re.compile(r"[A-Z][A-Za-z0-9]*\Z")
_WORD_BREAK = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")

_CASE_FILE = Template('''\
# $op: a custom operator scaffolded by `aclcts new-op`. As generated, its reference ($module_ref.py)
# and simulator kernel ($module_kernel.py) compute the placeholder $formula; edit all three files
# to describe the real operator (docs/case-files.md gives every key).
op: $op
policy: elementwise
source: "custom operator $op: $signature; no attributes (replace with the operator's REG_OP prototype)"
reference: $module_ref:$constant
inputs: [$inputs]
outputs: [$outputs]
modes: [$modes]
dtypes: [$dtypes]
shapes:
$shapes
values:
  default: {uniform: [-10, 10]}
''')

_DYNAMIC_KEYS = Template('''\
# Dynamic shapes: the model is compiled with -1 dims inside shape_range; the conformance suite runs it at
# runtime_shapes and at shapes drawn by shape_rule inside the ranges (conformance/test_dynamic_shapes.py).
shape_range:
$ranges
shape_rule: $rule
elements: finite
runtime_shapes:
$runtime
''')

_REFERENCE = Template('''\
"""NumPy float64 reference of the custom operator $op, named by $case_file as `$module_ref:$constant`.

As generated it is the placeholder $formula (NumPy broadcasting): the inputs are widened to
float64 (int64 for integers), combined, and rounded once to each output's dtype. Replace `_compute` with
the operator's definition and `_shape` with its output-shape rule; the case file's `inputs` and `outputs`
must list the same names as `define` below.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from aclcts.reference.base import define
from aclcts.reference.numeric import round_to, widen


def _compute(xs: list[np.ndarray], attrs: dict[str, Any], out: list[np.dtype]) -> list[np.ndarray]:
    total = widen(xs[0])
    for x in xs[1:]:
        total = total + widen(x)
    return [round_to(total, dtype) for dtype in out]


def _shape(shapes: list[tuple[int, ...]], values: list[np.ndarray | None],
           attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    return [tuple(np.broadcast_shapes(*shapes))] * len(OUTPUTS)


INPUTS = $input_tuple
OUTPUTS = $output_tuple
$constant = define("$op", INPUTS, {}, _compute, _shape, OUTPUTS)
''')

_KERNEL = Template('''\
"""Simulator kernel of the custom operator $op: what the simulated device computes, for dry runs on aclcts.sim.

As generated it is the placeholder $formula (NumPy broadcasting), summed in float32 (float64 for
double, int64 for integers) and rounded once to each output's dtype; keep it in step with $module_ref.py.
`register()` installs it; conftest.py in this folder calls it for pytest runs that name this folder.
"""

from __future__ import annotations

from typing import Any

import aclcts.sim
import numpy as np
from aclcts.core.dtypes import numpy_dtype
from aclcts.sim.kernels import InferredShape, KernelError, TensorInfo

OP_TYPE = "$op"
N_OUTPUTS = $n_outputs


def _device_type(dtype: np.dtype) -> type:
    if dtype.kind in "iu":
        return np.int64
    return np.float64 if dtype == np.float64 else np.float32


def compute(inputs: list[np.ndarray | None], attrs: dict[str, Any], outputs: list[TensorInfo]) -> list[np.ndarray]:
    """$op's outputs from its input arrays, one array of each output's dtype, in the inputs' broadcast shape."""
    shape = np.broadcast_shapes(*(x.shape for x in inputs))
    total = inputs[0].astype(_device_type(inputs[0].dtype))
    for x in inputs[1:]:
        total = total + x.astype(_device_type(x.dtype))
    return [np.broadcast_to(total, shape).astype(numpy_dtype(info.dtype)) for info in outputs]


def _broadcast(shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    """NumPy broadcasting of input dims where -1 is an unknown dim and [-2] an unknown rank."""
    if any(shape == (-2,) for shape in shapes):
        return (-2,)
    rank = max((len(shape) for shape in shapes), default=0)
    dims = []
    for position in range(rank):
        column = [shape[position - rank + len(shape)] if position - rank + len(shape) >= 0 else 1 for shape in shapes]
        known = {d for d in column if d >= 0 and d != 1}
        if len(known) > 1:
            raise KernelError(f"$op: the input shapes do not broadcast: {shapes}")
        dims.append(known.pop() if known else (-1 if -1 in column else 1))
    return tuple(dims)


def infer_shape(inputs: list[TensorInfo], values: list[np.ndarray | None],
                attrs: dict[str, Any]) -> list[InferredShape]:
    """$op's output dtypes and dims from its input descs (the inputs broadcast together; -1 stays unknown)."""
    dims = _broadcast([tuple(info.shape) for info in inputs])
    ranges = () if dims == (-2,) else tuple((d, d) if d >= 0 else (0, -1) for d in dims)
    return [InferredShape(inputs[0].dtype, dims, ranges)] * N_OUTPUTS


def register() -> None:
    """Install this kernel in the simulator under OP_TYPE."""
    aclcts.sim.register_kernel(OP_TYPE, compute, infer_shape)
''')

_CONFTEST = Template('''\
"""Registers $op's simulator kernel in pytest runs given this folder: pytest conformance/ $folder --cases ..."""

import $module_kernel


def pytest_configure(config):
    """Install $op's simulator kernel before the session starts."""
    $module_kernel.register()
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
        """The op type in snake case, the stem of every generated file."""
        return snake_case(self.op)

    @property
    def opp(self) -> Path:
        """The OPP folder the prototype record goes under: --opp-path, else <folder>/opp."""
        return self.opp_path if self.opp_path is not None else self.folder / "opp"

    @property
    def prototype_file(self) -> Path:
        """The op's prototype record, read by `aclcts atc` when ASCEND_OPP_PATH names self.opp."""
        return self.opp / "vendors" / VENDOR / RECORD_FOLDER / f"{self.op}.json"

    def prototype_text(self) -> str:
        """The placeholder prototype: every input and output of one type constraint T (the case dtypes)."""
        return record_text(op(self.op, ", ".join(f"{n}:T" for n in self.inputs),
                              ", ".join(f"{n}:T" for n in self.outputs), {"T": self.dtypes},
                              source=f"custom operator {self.op} scaffolded by aclcts new-op (replace with its "
                                     "REG_OP prototype)"))

    @property
    def case_file(self) -> Path:
        """The generated case file."""
        return self.folder / f"{self.module}.yaml"

    def files(self) -> dict[Path, str]:
        """Every file to write and its text."""
        words = self._words()
        case_text = _CASE_FILE.substitute(words)
        if self.dynamic:
            case_text += _DYNAMIC_KEYS.substitute(words)
        files = {self.case_file: case_text,
                 self.folder / f"{self.module}_reference.py": _REFERENCE.substitute(words),
                 self.prototype_file: self.prototype_text()}
        if self.kernel:
            files[self.folder / f"{self.module}_kernel.py"] = _KERNEL.substitute(words)
            files[self.folder / "conftest.py"] = _CONFTEST.substitute(words)
        return files

    def _words(self) -> dict[str, str]:
        total = " + ".join(self.inputs)
        formula = ", ".join(f"{y} = {total}" for y in self.outputs)
        return {
            "op": self.op, "module_ref": f"{self.module}_reference", "module_kernel": f"{self.module}_kernel",
            "constant": self.module.upper(), "formula": formula, "case_file": self.case_file.name,
            "folder": str(self.folder),
            "signature": f"{_plural('input', self.inputs)}; {_plural('output', self.outputs)}",
            "inputs": ", ".join(self.inputs), "outputs": ", ".join(self.outputs), "dtypes": ", ".join(self.dtypes),
            "shapes": "\n".join(f"  - {shape_set}" for shape_set in self._shape_sets()),
            "modes": "execute_v2" if self.dynamic else "execute_v2, handle",
            "ranges": "\n".join(f"  {name}: [{DYNAMIC_RANGE}, {DYNAMIC_RANGE}]" for name in self.inputs + self.outputs),
            "rule": "broadcast" if len(self.inputs) == 2 else "same",
            "runtime": "\n".join(f"  - {shape_set}" for shape_set in self._static_shape_sets()[::2]),
            "n_outputs": str(len(self.outputs)),
            "input_tuple": _tuple_text(self.inputs), "output_tuple": _tuple_text(self.outputs),
        }

    def _shape_sets(self) -> list[str]:
        if self.dynamic:
            dims = ", ".join(f"{name}: [-1, -1]" for name in self.inputs + self.outputs)
            return [f"{{{dims}}}"]
        return self._static_shape_sets()

    def _static_shape_sets(self) -> list[str]:
        n = len(self.inputs)
        sets = [[[16, 32]] * n, [[2, 3, 5]] * n]
        if n > 1:
            sets.append([[4, 1]] + [[1, 5]] * (n - 1))
        return [str(shapes) for shapes in sets]

    def commands(self) -> list[tuple[str, str]]:
        """The next steps after scaffolding: (what, command line), simulator first, then an NPU host."""
        folder, case_file = shlex.quote(str(self.folder)), shlex.quote(str(self.case_file))
        if self.kernel:
            on_sim = ("dry run on the simulator (from the aclcts repository)",
                      f"pytest conformance/ {folder} --cases {case_file} -k {self.op}")
        else:
            on_sim = (f"dry run on the simulator, once a kernel for {self.op} is registered with aclcts.sim",
                      f"pytest conformance/ --cases {case_file} -k {self.op}")
        return [
            on_sim,
            ("on an NPU host: the single-op JSON of the models the run needs",
             f"aclcts singleop {case_file} -o build/op_list.json --soc=<soc>"),
            ("compile them with the real ATC",
             "atc --singleop=build/op_list.json --output=build/op_models --soc_version=<soc>"),
            ("run the op's cases through every step on the device",
             f"pytest conformance/ --backend=npu --model-dir=build/op_models --cases {case_file} -k {self.op}"),
        ]


def snake_case(op: str) -> str:
    """An operator type in snake case: MyScale -> my_scale, MatMulV3 -> mat_mul_v3."""
    return _WORD_BREAK.sub("_", op).lower()


def _tuple_text(names: tuple[str, ...]) -> str:
    quoted = ", ".join(f'"{n}"' for n in names)
    return f"({quoted},)" if len(names) == 1 else f"({quoted})"


def _plural(word: str, names: tuple[str, ...]) -> str:
    return f"{word}{'s' if len(names) > 1 else ''} {', '.join(names)}"


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
    parser = argparse.ArgumentParser(prog=PROG, description="Scaffold a custom operator: a case file, its NumPy "
                                     "reference and a simulator kernel, runnable as generated.")
    parser.add_argument("name", help="the operator type, CamelCase like ATC op types (e.g. MyScale)")
    parser.add_argument("--dir", help="folder to write to (default: custom_ops/<name in snake case>)")
    parser.add_argument("--inputs", default="2", help=f"number of inputs, 1 to {MAX_TENSORS} (default 2)")
    parser.add_argument("--outputs", default="1", help=f"number of outputs, 1 to {MAX_TENSORS} (default 1)")
    parser.add_argument("--dtype", default="float16,float32",
                        help=f"comma-separated data types of the cases, from {', '.join(DTYPES)} "
                             "(default float16,float32)")
    parser.add_argument("--dynamic", action="store_true",
                        help="a dynamic-shape case: -1 dims inside shape_range, run at runtime_shapes and drawn shapes")
    parser.add_argument("--no-kernel", action="store_true",
                        help="write no simulator kernel (and no conftest.py loading it)")
    parser.add_argument("--opp-path", help="OPP folder to install the prototype record in, as "
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
