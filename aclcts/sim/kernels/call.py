"""One kernel invocation's arguments, read against the op prototype with errors naming op, input/attr and expectation."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from aclcts.core.constants import DataType
from aclcts.core.dtypes import JSON_TYPE_NAMES, acl_data_type, has_numpy_dtype, numpy_dtype
from aclcts.core.prototypes import REQUIRED, Prototype, lookup
from aclcts.core.prototypes.check import slots
from aclcts.sim.kernels.base import KernelError, TensorInfo
from aclcts.sim.kernels.registry import unsimulated_dtypes

#: An attribute read's default when the caller gives none: the op's record holds it.
_FROM_RECORD = object()


def dtype_name(dtype: np.dtype | int) -> str:
    """The single-op JSON spelling of a NumPy dtype or aclDataType value, for messages."""
    if isinstance(dtype, (int, np.integer)):
        if int(dtype) in JSON_TYPE_NAMES:
            return JSON_TYPE_NAMES[int(dtype)]
        try:
            return DataType(int(dtype)).name
        except ValueError:
            return f"aclDataType {int(dtype)}"
    try:
        return JSON_TYPE_NAMES[acl_data_type(dtype)]
    except KeyError:
        return str(dtype)


def _dtype_key(dtype: np.dtype | int) -> object:
    if isinstance(dtype, (int, np.integer)):
        return ("acl", int(dtype))
    return ("numpy", np.dtype(dtype))


def _acl_types(names: Iterable[str]) -> list[int]:
    """The aclDataType values of dtype names the simulator can hold (a record may name types it cannot)."""
    by_name = {name: code for code, name in JSON_TYPE_NAMES.items()}
    return [by_name[n] for n in names if n in by_name and has_numpy_dtype(by_name[n])]


class OpCall:
    """The op type, inputs and attributes of one compute or infer_shape call, read against the op's record.

    Input names, attribute defaults and dtype constraints come from the record (aclcts.core.prototypes); a kernel
    never restates them. An op without a record (a kernel added with register_kernel for an op type no OPP vendor
    folder describes) gives them itself.
    """

    def __init__(self, op_type: str, inputs: Sequence[Any], attrs: dict[str, Any] | None) -> None:
        self.op_type = op_type
        self.inputs = list(inputs)
        self.attrs = dict(attrs or {})
        self.record: Prototype | None = lookup(op_type)[0]

    def name(self, index: int) -> str:
        """The record's name of input index (a dynamic input's tensors are name[0], name[1], ...)."""
        if self.record is None:
            return f"input{index}"
        tensors = slots(self.record.inputs, max(len(self.inputs), index + 1)) or list(self.record.inputs)
        if index >= len(tensors):
            return f"input{index}"
        tensor = tensors[index]
        if tensor.kind != "dynamic":
            return tensor.name
        first = next(i for i, t in enumerate(tensors) if t is tensor)
        return f"{tensor.name}[{index - first}]"

    def _record_default(self, name: str, given: Any) -> tuple[Any, bool]:
        """(default, required) of attribute name: the record's, or the kernel's own for an op without a record."""
        attr = self.record.attr(name) if self.record is not None else None
        if attr is None:
            if given is _FROM_RECORD:
                raise TypeError(f"{self.op_type}: attribute {name!r} is not in the op's record and no default was given")
            return given, False
        if given is not _FROM_RECORD:
            raise TypeError(f"{self.op_type}: attribute {name!r} has its default in the op's record; do not restate it")
        if attr.counts:
            return len(self.inputs) - (len(self.record.inputs) - 1), False
        return attr.default, attr.default is REQUIRED

    def fail(self, what: str) -> KernelError:
        """A KernelError whose message starts with the op type."""
        return KernelError(f"{self.op_type}: {what}")

    # inputs -----------------------------------------------------------------------------------------
    def require_count(self, minimum: int, maximum: int | None = None) -> None:
        """Check the number of inputs passed (maximum None = exactly minimum)."""
        maximum = minimum if maximum is None else maximum
        if not minimum <= len(self.inputs) <= maximum:
            expected = str(minimum) if minimum == maximum else f"{minimum} to {maximum}"
            raise self.fail(f"expected {expected} inputs, got {len(self.inputs)}")

    def require_inputs(self) -> None:
        """Check the number of inputs passed against the record: every required one, and no more than it names (a
        dynamic input takes one or more tensors)."""
        if self.record is None:
            raise TypeError(f"{self.op_type}: no record gives the number of inputs")
        required = sum(t.kind != "optional" for t in self.record.inputs)
        if any(t.kind == "dynamic" for t in self.record.inputs):
            self.require_count(required, max(required, len(self.inputs)))
        else:
            self.require_count(required, len(self.record.inputs))

    def input(self, index: int) -> Any:
        """A required input (array or TensorInfo)."""
        value = self.inputs[index] if index < len(self.inputs) else None
        if value is None:
            raise self.fail(f"input {index} '{self.name(index)}' is required but was not given")
        return value

    def optional(self, index: int) -> Any:
        """An optional input, or None when it is absent."""
        return self.inputs[index] if index < len(self.inputs) else None

    def quoted(self, index: int) -> str:
        """Input index's record name in quotes, for messages such as 'x' or 'x[1]'."""
        return f"'{self.name(index)}'"

    def require_dtype(self, index: int, dtype: np.dtype, allowed: Iterable[Any] | None = None) -> None:
        """Check that input index's dtype is one of its record's types; allowed narrows them by a rule the record
        cannot state (a bias type that depends on x's) or gives them for an op without a record."""
        if not isinstance(index, int):
            raise TypeError(f"{self.op_type}: require_dtype takes an input index, not {index!r}")
        name = self.name(index)
        if allowed is None:
            if self.record is None:
                raise TypeError(f"{self.op_type}: no record gives the dtypes of input {name!r}")
            tensor = (slots(self.record.inputs, max(len(self.inputs), index + 1)) or self.record.inputs)[index]
            allowed = [numpy_dtype(acl) for acl in _acl_types(self.record.types[tensor.types])]
        allowed_dtypes = [np.dtype(a) for a in allowed]
        if np.dtype(dtype) not in allowed_dtypes:
            names = ", ".join(dtype_name(a) for a in allowed_dtypes)
            raise self.fail(f"input '{name}' has dtype {dtype_name(np.dtype(dtype))}, expected one of: {names}")

    def output_types(self, index: int) -> list[int]:
        """The aclDataType values the record allows output index (those the simulator can hold)."""
        if self.record is None:
            raise TypeError(f"{self.op_type}: no record gives the dtypes of output {index}")
        return _acl_types(self.record.types[self.record.outputs[index].types])

    def require_same_dtype(self, indices: Sequence[int], dtypes: Sequence[np.dtype | int]) -> None:
        """Check that the inputs at indices share one dtype (NumPy dtypes in compute, aclDataType ints in
        infer_shape)."""
        if not all(isinstance(i, int) for i in indices):
            raise TypeError(f"{self.op_type}: require_same_dtype takes input indices, not {list(indices)!r}")
        first = dtypes[0]
        for index, dtype in zip(indices[1:], dtypes[1:]):
            if _dtype_key(dtype) != _dtype_key(first):
                raise self.fail(f"input {self.quoted(index)} has dtype {dtype_name(dtype)}, expected "
                                f"{dtype_name(first)} (the dtype of {self.quoted(indices[0])})")

    def index_values(self, index: int, value: Any, any_rank: bool = False) -> list[int]:
        """The integers of index-type input index (int32/int64 scalar or 1-D tensor; of any rank, read in order, with
        any_rank)."""
        array = np.asarray(value)
        if array.dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
            raise self.fail(f"input {index} {self.quoted(index)} has dtype {dtype_name(array.dtype)}, expected int32 "
                            "or int64")
        if array.ndim > 1 and not any_rank:
            raise self.fail(f"input {index} {self.quoted(index)} must be a scalar or 1-D, got shape "
                            f"{list(array.shape)}")
        return [int(v) for v in array.reshape(-1)]

    def one_value(self, index: int, value: Any) -> int:
        """The single integer of index-type input index."""
        values = self.index_values(index, value)
        if len(values) != 1:
            raise self.fail(f"input {self.quoted(index)} must hold one value, got {values}")
        return values[0]

    # attributes -------------------------------------------------------------------------------------
    def _raw(self, name: str, default: Any, required: bool = False) -> Any:
        if name in self.attrs and self.attrs[name] is not None:
            return self.attrs[name]
        default, from_record = self._record_default(name, default)
        if required or from_record:
            raise self.fail(f"required attr '{name}' was not given")
        return default

    def attr_bool(self, name: str, default: Any = _FROM_RECORD) -> bool:
        """A bool attribute."""
        value = self._raw(name, default)
        if not isinstance(value, (bool, np.bool_)):
            raise self.fail(f"attr '{name}' must be a bool, got {value!r}")
        return bool(value)

    def attr_int(self, name: str, default: Any = _FROM_RECORD, *, required: bool = False) -> int:
        """An int attribute (also used for data_type attributes, which are aclDataType ints)."""
        value = self._raw(name, default, required)
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise self.fail(f"attr '{name}' must be an int, got {value!r}")
        return int(value)

    def attr_float(self, name: str, default: Any = _FROM_RECORD) -> float:
        """A float attribute (an int value is accepted)."""
        value = self._raw(name, default)
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise self.fail(f"attr '{name}' must be a float, got {value!r}")
        return float(value)

    def attr_str(self, name: str, default: Any = _FROM_RECORD) -> str:
        """A string attribute."""
        value = self._raw(name, default)
        if not isinstance(value, str):
            raise self.fail(f"attr '{name}' must be a str, got {value!r}")
        return value

    def attr_list_int(self, name: str, default: Any = _FROM_RECORD, *, required: bool = False) -> list[int]:
        """A list-of-int attribute."""
        value = self._raw(name, default, required)
        if not isinstance(value, (list, tuple)) or any(
            isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) for v in value
        ):
            raise self.fail(f"attr '{name}' must be a list of ints, got {value!r}")
        return [int(v) for v in value]

    def attr_list_float(self, name: str, default: Any = _FROM_RECORD) -> list[float]:
        """A list-of-float attribute (int values accepted)."""
        value = self._raw(name, default)
        if not isinstance(value, (list, tuple)) or any(
            isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)) for v in value
        ):
            raise self.fail(f"attr '{name}' must be a list of floats, got {value!r}")
        return [float(v) for v in value]

    def attr_dtype(self, name: str, allowed: Sequence[int], default: Any = _FROM_RECORD) -> int:
        """A data_type attribute restricted to some aclDataType values."""
        value = self.attr_int(name, default)
        if value not in allowed:
            names = ", ".join(dtype_name(a) for a in allowed)
            raise self.fail(f"attr '{name}' is {dtype_name(value)}, expected one of: {names}")
        return value

    # axes -------------------------------------------------------------------------------------------
    def axis(self, what: str, axis: int, rank: int, *, allow_end: bool = False) -> int:
        """A dimension index in [-rank, rank) (or up to rank with allow_end), made non-negative."""
        upper = rank + 1 if allow_end else rank
        if not -upper <= axis < upper or (rank == 0 and not allow_end):
            raise self.fail(f"{what} {axis} is out of range for a rank-{rank} input (expected [{-rank}, {rank - 1}])")
        return axis % upper if axis < 0 else axis

    # record-named helpers (issue 33, kernels part 2) -------------------------------------------------
    def same_as(self, index: int) -> str:
        """Why an output has an input's dtype, naming that input: "same as input 'x'"."""
        return f"same as input '{self.name(index)}'"

    def require_simulated(self, index: int, dtype: np.dtype) -> None:
        """Check an input's dtype against its record's types, then refuse those the simulator does not implement
        for this op (registry.not_simulated)."""
        self.require_dtype(index, dtype)
        if np.dtype(dtype) in unsimulated_dtypes(self.op_type, index):
            raise self.fail(f"input '{self.name(index)}' has dtype {dtype_name(np.dtype(dtype))}, which is not "
                            f"simulated for {self.op_type}")


def _output_names(call: OpCall, count: int) -> list[str]:
    """The record's names of count outputs, a dynamic output's tensors numbered (y0, y1, ...)."""
    if call.record is None:
        raise TypeError(f"{call.op_type}: no record names the outputs")
    tensors = slots(call.record.outputs, count)
    if tensors is None:
        return [t.name for t in call.record.outputs]
    return [t.name + str(i) if t.kind == "dynamic" else t.name
            for t, i in zip(tensors, [tensors[:k].count(t) for k, t in enumerate(tensors)])]


class Outputs:
    """The caller's output descriptions for one compute call, and the check of what the kernel returns."""

    def __init__(self, call: OpCall, outputs: Sequence[TensorInfo], names: Sequence[str] | None = None, *,
                 count: int | None = None) -> None:
        self.call = call
        self.infos = list(outputs)
        if names is None:
            names = _output_names(call, len(self.infos) if count is None else count)
        self.names = list(names)
        if len(self.infos) != len(self.names):
            expected = ", ".join(self.names)
            raise call.fail(f"expected {len(self.names)} outputs ({expected}), got {len(self.infos)}")

    def dtype(self, index: int) -> np.dtype:
        """The NumPy dtype the caller asked for on an output."""
        acl = self.infos[index].dtype
        if not has_numpy_dtype(acl):
            raise self.call.fail(f"output '{self.names[index]}' has {dtype_name(acl)}, which the simulator cannot hold")
        return numpy_dtype(acl)

    def require_dtype(self, index: int, expected: np.dtype, why: str) -> np.dtype:
        """Check that an output's dtype is the one the prototype implies."""
        given = self.dtype(index)
        if given != np.dtype(expected):
            raise self.call.fail(
                f"output '{self.names[index]}' has dtype {dtype_name(given)}, expected {dtype_name(np.dtype(expected))} "
                f"({why})"
            )
        return given

    def require_input_dtype(self, index: int, input_index: int, dtype: np.dtype) -> np.dtype:
        """Check that output index has the dtype of input input_index (dtype)."""
        return self.require_dtype(index, dtype, f"same as input {self.call.quoted(input_index)}")

    def buffer(self, index: int, shape: tuple[int, ...] | None = None) -> np.ndarray:
        """An array to compute output index into: its device memory when the runtime offers it, else a new array.

        shape is the result's shape (default: the caller's); the device memory is offered only for that shape.
        """
        info = self.infos[index]
        wanted = tuple(info.shape) if shape is None else tuple(shape)
        if info.destination is not None and info.destination.shape == wanted:
            return info.destination
        return np.empty(wanted, dtype=self.dtype(index))

    def _owned(self, array: np.ndarray, dtype: np.dtype) -> bool:
        """Whether array can be delivered as it is: the output's dtype, C-ordered, writable, sharing no input."""
        if array.dtype != dtype or not array.flags.c_contiguous or not array.flags.writeable:
            return False
        return not any(isinstance(x, np.ndarray) and np.may_share_memory(array, x) for x in self.call.inputs)

    def emit(self, index: int, value: np.ndarray, *, value_dependent: bool = False) -> np.ndarray:
        """value as a C-ordered array of the output's dtype that shares no input, in the shape the inputs give.

        value itself is delivered when it already is one (a kernel's own result, or the output's buffer); anything
        else (a view of an input, another dtype, a broadcast) is copied once.
        The caller's shape may be a maximum (outputs of dynamic models; the runtime writes the real dims back), so a
        different shape is accepted when the result fits in it; a single element is delivered in the caller's
        [] or [1, ...] shape (the official ArgMaxV2 sample declares [1] for a rank-0 result). A result larger than
        the caller's shape is an error unless value_dependent (the runtime then checks the buffer). An output of a
        static model (exact dims) takes its own shape only: anything else is an error, value-dependent or not.
        """
        dtype = self.dtype(index)
        array = np.asarray(value)
        if not self._owned(array, dtype):
            array = np.array(array, dtype=dtype, order="C", copy=True)
        info = self.infos[index]
        wanted = tuple(info.shape)
        if array.shape == wanted or (not info.exact and (value_dependent or not all(d >= 0 for d in wanted))):
            return array
        if array.size == 1 and all(d == 1 for d in wanted):
            return array.reshape(wanted)
        if not info.exact and array.size <= int(np.prod(wanted, dtype=np.int64)) and array.ndim == len(wanted):
            return array
        raise self.call.fail(
            f"output '{self.names[index]}' was given shape {list(wanted)}, but the inputs give {list(array.shape)}"
        )
