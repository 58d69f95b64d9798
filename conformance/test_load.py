"""Loading op models (docs/contract/op-load-execute.md#set_model_dir, #load): acl.op.set_model_dir and acl.op.load."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from aclcts.drive import flow
from aclcts.core.constants import DataType, ErrorCode, Format, MemcpyKind

pytestmark = pytest.mark.load

OK = ErrorCode.ACL_SUCCESS
INVALID_PARAM = ErrorCode.ACL_ERROR_INVALID_PARAM
REPEAT_INITIALIZE = ErrorCode.ACL_ERROR_REPEAT_INITIALIZE
READ_MODEL_FAILURE = ErrorCode.ACL_ERROR_READ_MODEL_FAILURE
OP_NOT_FOUND = ErrorCode.ACL_ERROR_OP_NOT_FOUND
#: docs/contract/op-load-execute.md#set_model_dir: any later call gives 100002, the path is resolved first (100014).
MISSING_AFTER_SUCCESS = {REPEAT_INITIALIZE, READ_MODEL_FAILURE}
BAD_MODEL = {ErrorCode.ACL_ERROR_DESERIALIZE_MODEL, ErrorCode.ACL_ERROR_PARSE_MODEL}
INT32 = int(DataType.ACL_INT32)
ND = int(Format.ACL_FORMAT_ND)
H2H = int(MemcpyKind.ACL_MEMCPY_HOST_TO_HOST)

#: A child process: open a session on the backend, run a plan of set_model_dir calls and Add probes
#: (execute_v2 on int32 tensors of the given shape), print {"setup": [...], "steps": {label: result}}.
CHILD = r"""
import json, sys
import numpy as np
from aclcts.drive.backends import load_backend

spec, device_id, plan = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
acl = load_backend(spec).acl
setup = [acl.init(), acl.rt.set_device(device_id)]
context, ret = acl.rt.create_context(device_id)
setup.append(ret)
stream, ret = acl.rt.create_stream()
setup.append(ret)


def probe(shape):
    a = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    arrays, n = [a, 3 * a + 1], a.nbytes
    descs = [acl.create_tensor_desc(3, list(shape), 2) for _ in range(3)]
    ptrs = [acl.rt.malloc(n, 2)[0] for _ in range(3)]
    for ptr, array in zip(ptrs, arrays):
        data = array.tobytes()
        acl.rt.memcpy(ptr, n, acl.util.bytes_to_ptr(data), n, 1)
    bufs = [acl.create_data_buffer(ptr, n) for ptr in ptrs]
    attr = acl.op.create_attr()
    ret = acl.op.execute_v2("Add", descs[:2], bufs[:2], descs[2:], bufs[2:], attr, stream)
    correct = False
    if ret == 0 and acl.rt.synchronize_stream(stream) == 0:
        host, _ = acl.rt.malloc_host(n)
        acl.rt.memcpy(host, n, ptrs[2], n, 2)
        got = np.frombuffer(acl.util.ptr_to_bytes(host, n), np.int32).reshape(shape)
        correct = bool(np.array_equal(got, arrays[0] + arrays[1]))
        acl.rt.free_host(host)
    acl.op.destroy_attr(attr)
    for buf, ptr, desc in zip(bufs, ptrs, descs):
        acl.destroy_data_buffer(buf)
        acl.rt.free(ptr)
        acl.destroy_tensor_desc(desc)
    return [ret, correct]


steps = {}
for label, action, argument in plan:
    steps[label] = acl.op.set_model_dir(argument) if action == "set_model_dir" else probe(argument)
acl.rt.destroy_stream(stream)
acl.rt.destroy_context(context)
acl.rt.reset_device(device_id)
acl.finalize()
print(json.dumps({"setup": setup, "steps": steps}))
"""

#: Seconds a child process may take (start-up, session, set_model_dir, probes, teardown).
CHILD_TIMEOUT = 300
#: Add int32 models for the child processes, by name: the probe shape identifies each one.
CHILD_MODELS = {
    "depth1": [1, 3], "depth2": [2, 3], "depth3": [3, 3], "depth4": [4, 3], "truncated": [5, 3],
    "not_om": [6, 3], "misnamed": [7, 3], "other": [8, 3],
}


def binary_op(op_type: str, name: str, shape: list[int]) -> dict:
    """One single-op JSON element: a binary op on int32 tensors of one shape, saved as <name>.om."""
    tensor = {"format": "ND", "shape": list(shape), "type": "int32"}
    return {"op": op_type, "name": name, "input_desc": [tensor, tensor], "output_desc": [tensor]}


def garbage(size: int) -> bytes:
    """Reproducible random bytes."""
    return random.Random(size).randbytes(size)


def write(path: Path, data: bytes) -> None:
    """Write data to path, creating its folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def layouts(root: Path, models: dict[str, bytes]) -> dict[str, Path]:
    """Model folders for the child processes; returns the folder of each layout."""
    tree, other, empty = root / "tree", root / "other", root / "empty"
    write(tree / "depth1.om", models["depth1"])
    write(tree / "a" / "depth2.om", models["depth2"])
    write(tree / "a" / "b" / "depth3.om", models["depth3"])
    write(tree / "a" / "b" / "c" / "depth4.om", models["depth4"])
    write(tree / "garbage.om", garbage(512))
    write(tree / "a" / "truncated.om", models["truncated"][: len(models["truncated"]) // 2])
    write(tree / "a" / "b" / "empty.om", b"")
    write(tree / "a" / "not_om.bin", models["not_om"])
    write(tree / "a" / "b" / "0_Mul_3_2_9_9_3_2_9_9_3_2_9_9.om", models["misnamed"])
    write(other / "other.om", models["other"])
    empty.mkdir()
    return {"tree": tree, "other": other, "empty": empty, "missing": root / "missing"}


def plans(dirs: dict[str, Path]) -> dict[str, list[list[Any]]]:
    """What each child process does, step by step."""
    d = {name: str(path) for name, path in dirs.items()}
    probes = [[name, "probe", CHILD_MODELS[name]] for name in
              ("depth1", "depth2", "depth3", "depth4", "truncated", "not_om", "misnamed")]
    return {
        "tree": [["first", "set_model_dir", d["tree"]], *probes,
                 ["same again", "set_model_dir", d["tree"]], ["other dir", "set_model_dir", d["other"]],
                 ["other", "probe", CHILD_MODELS["other"]], ["missing", "set_model_dir", d["missing"]]],
        "bad_path": [["missing", "set_model_dir", d["missing"]], ["empty string", "set_model_dir", ""],
                     ["after failures", "set_model_dir", d["other"]], ["other", "probe", CHILD_MODELS["other"]]],
        "empty": [["empty", "set_model_dir", d["empty"]], ["other dir", "set_model_dir", d["other"]],
                  ["other", "probe", CHILD_MODELS["other"]]],
    }


@pytest.fixture(scope="module")
def child_runs(compile_ops: Callable, tmp_path_factory: pytest.TempPathFactory,
               pytestconfig: pytest.Config) -> dict[str, dict[str, Any]]:
    """Every set_model_dir scenario run in its own child process (the rules are per process); steps by label."""
    models = compile_ops([binary_op("Add", name, shape) for name, shape in CHILD_MODELS.items()])
    dirs = layouts(tmp_path_factory.mktemp("model_dirs"), models)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    spec, device = pytestconfig.getoption("--backend"), str(pytestconfig.getoption("--device-id"))
    children = {
        name: subprocess.Popen([sys.executable, "-c", CHILD, spec, device, json.dumps(plan)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        for name, plan in plans(dirs).items()
    }
    runs = {}
    for name, child in children.items():
        try:
            out, err = child.communicate(timeout=CHILD_TIMEOUT)
        except subprocess.TimeoutExpired:
            for started in children.values():
                started.kill()
                started.communicate()
            pytest.fail(f"child process for scenario {name!r} did not finish in {CHILD_TIMEOUT} s", pytrace=False)
        if child.returncode != 0:
            pytest.fail(f"child process for scenario {name!r} exited with {child.returncode}:\n{err[-3000:]}",
                        pytrace=False)
        result = json.loads(out.strip().splitlines()[-1])
        if any(result["setup"]):
            pytest.fail(f"child session set-up for scenario {name!r} failed: {result['setup']}", pytrace=False)
        runs[name] = result["steps"]
    return runs


# ---------------------------------------------------------------- set_model_dir (child processes)


def test_set_model_dir_on_a_tree_with_unparseable_files_returns_0(child_runs):
    assert child_runs["tree"]["first"] == OK


@pytest.mark.parametrize("label, loaded", [
    pytest.param("depth1", True, id="level1-dir"),
    pytest.param("depth2", True, id="level2-dir_a"),
    pytest.param("depth3", True, id="level3-dir_a_b"),
    pytest.param("depth4", False, id="level4-dir_a_b_c"),
])
def test_set_model_dir_loads_models_down_to_three_folder_levels(child_runs, label, loaded):
    expected = [OK, True] if loaded else [OP_NOT_FOUND, False]
    assert child_runs["tree"][label] == expected


def test_set_model_dir_skips_a_truncated_model_file(child_runs):
    assert child_runs["tree"]["truncated"] == [OP_NOT_FOUND, False]


def test_set_model_dir_reads_only_files_ending_in_om(child_runs):
    assert child_runs["tree"]["not_om"] == [OP_NOT_FOUND, False]


def test_set_model_dir_ignores_the_file_name_and_reads_the_model_inside(child_runs):
    assert child_runs["tree"]["misnamed"] == [OK, True]


@pytest.mark.negative
@pytest.mark.parametrize("label", ["same again", "other dir"])
def test_set_model_dir_after_a_successful_call_is_100002(child_runs, label):
    assert child_runs["tree"][label] == REPEAT_INITIALIZE


@pytest.mark.negative
def test_set_model_dir_of_a_missing_folder_after_a_successful_call_fails(child_runs):
    assert child_runs["tree"]["missing"] in MISSING_AFTER_SUCCESS


@pytest.mark.negative
def test_set_model_dir_repeated_call_loads_nothing(child_runs):
    assert child_runs["tree"]["other"] == [OP_NOT_FOUND, False]


@pytest.mark.negative
@pytest.mark.parametrize("label", ["missing", "empty string"])
def test_set_model_dir_on_an_unresolvable_path_is_100014(child_runs, label):
    assert child_runs["bad_path"][label] == READ_MODEL_FAILURE


def test_set_model_dir_failed_calls_do_not_use_up_the_one_call(child_runs):
    assert child_runs["bad_path"]["after failures"] == OK
    assert child_runs["bad_path"]["other"] == [OK, True]


def test_set_model_dir_on_an_empty_folder_returns_0(child_runs):
    assert child_runs["empty"]["empty"] == OK


@pytest.mark.negative
def test_set_model_dir_on_an_empty_folder_still_counts_as_the_one_call(child_runs):
    assert child_runs["empty"]["other dir"] == REPEAT_INITIALIZE
    assert child_runs["empty"]["other"] == [OP_NOT_FOUND, False]


# ---------------------------------------------------------------- set_model_dir (this process)


@pytest.mark.negative
@pytest.mark.parametrize("which", ["the session's folder", "another folder"])
def test_set_model_dir_again_in_the_session_is_100002(acl, model_dir, tmp_path, which):
    folder = model_dir if which == "the session's folder" else str(tmp_path)
    assert acl.op.set_model_dir(folder) == REPEAT_INITIALIZE


@pytest.mark.negative
def test_set_model_dir_of_a_missing_folder_in_the_session_fails(acl, tmp_path):
    assert acl.op.set_model_dir(str(tmp_path / "missing")) in MISSING_AFTER_SUCCESS


# ---------------------------------------------------------------- load


@pytest.fixture(scope="module")
def om_image(model_dir: str) -> bytes:
    """The bytes of one op model of the session's model folder (a real .om on the NPU)."""
    files = sorted(Path(model_dir).rglob("*.om"))
    if not files:
        pytest.fail(f"the model folder {model_dir} holds no .om file", pytrace=False)
    return files[0].read_bytes()


def test_load_of_a_model_image_from_the_model_folder_returns_0(acl, om_image):
    assert acl.op.load(acl.util.bytes_to_ptr(om_image), len(om_image)) == OK


def test_load_may_be_called_many_times_with_one_image(acl, om_image):
    pointer = acl.util.bytes_to_ptr(om_image)
    assert [acl.op.load(pointer, len(om_image)) for _ in range(3)] == [OK, OK, OK]


@pytest.mark.negative
def test_load_of_a_null_pointer_is_100000(acl, om_image):
    assert acl.op.load(0, len(om_image)) == INVALID_PARAM


@pytest.mark.negative
def test_load_of_size_0_is_100000(acl, om_image):
    assert acl.op.load(acl.util.bytes_to_ptr(om_image), 0) == INVALID_PARAM


@pytest.mark.negative
@pytest.mark.parametrize("make", [
    pytest.param(lambda image: garbage(256), id="random-bytes"),
    pytest.param(lambda image: bytes(64), id="zero-bytes"),
    pytest.param(lambda image: b"this is not a single-op model", id="text"),
    pytest.param(lambda image: image[: len(image) // 2], id="first-half-of-a-model"),
    pytest.param(lambda image: image[:8], id="first-8-bytes-of-a-model"),
])
def test_load_of_garbage_is_100012_or_100013(acl, om_image, make):
    data = make(om_image)
    assert acl.op.load(acl.util.bytes_to_ptr(data), len(data)) in BAD_MODEL


def run_sub(acl: Any, stream: int, shape: tuple[int, ...]) -> tuple[int, bool | None]:
    """execute_v2 of Sub on int32 inputs; the return code and, if it ran, whether the result is x1 - x2."""
    x1 = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape) * 5
    x2 = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape) - 7
    with flow.resources(acl) as res:
        descs = [flow.create_desc(res, INT32, shape, ND) for _ in range(3)]
        ptrs = [flow.malloc(res, x1.nbytes) for _ in range(3)]
        flow.copy_to_device(acl, ptrs[0], x1)
        flow.copy_to_device(acl, ptrs[1], x2)
        bufs = [flow.create_buffer(res, ptr, x1.nbytes) for ptr in ptrs]
        attr = acl.op.create_attr()
        res.attrs.append(attr)
        ret = acl.op.execute_v2("Sub", descs[:2], bufs[:2], descs[2:], bufs[2:], attr, stream)
        if ret != OK:
            return ret, None
        flow.check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")
        got = flow.array_from(flow.copy_to_host(res, ptrs[2], x1.nbytes), INT32, shape)
        return ret, bool(np.array_equal(got, x1 - x2))


def load_from_bytes(acl: Any, image: bytes) -> int:
    """acl.op.load from a bytes object, which the caller then drops."""
    data = bytes(image)
    ret = acl.op.load(acl.util.bytes_to_ptr(data), len(data))
    del data
    return ret


def load_from_host_memory(acl: Any, image: bytes) -> int:
    """acl.op.load from malloc_host memory, which the caller overwrites and frees right after."""
    host = flow.value(acl.rt.malloc_host(len(image)), "acl.rt.malloc_host")
    try:
        flow.check(acl.rt.memcpy(host, len(image), acl.util.bytes_to_ptr(image), len(image), H2H), "acl.rt.memcpy")
        ret = acl.op.load(host, len(image))
        flow.check(acl.rt.memset(host, len(image), 0, len(image)), "acl.rt.memset")
    finally:
        flow.check(acl.rt.free_host(host), "acl.rt.free_host")
    return ret


#: Loading variants, each with a Sub model of its own shape (not in the case library).
LOADERS = {"bytes-object-dropped": (load_from_bytes, (3, 37)),
           "host-memory-overwritten-and-freed": (load_from_host_memory, (5, 37))}


@pytest.fixture(scope="module")
def sub_models(compile_ops: Callable) -> dict[str, bytes]:
    """Sub int32 models compiled for the load tests, by loader name."""
    return compile_ops([binary_op("Sub", name, shape) for name, (_, shape) in LOADERS.items()])


@pytest.mark.parametrize("loader", list(LOADERS))
def test_load_copies_the_model_so_the_caller_may_release_its_buffer(acl, stream, sub_models, loader):
    load, shape = LOADERS[loader]
    assert run_sub(acl, stream, shape) == (OP_NOT_FOUND, None), "the model must not be loaded before this test"
    assert load(acl, sub_models[loader]) == OK
    assert run_sub(acl, stream, shape) == (OK, True)


@pytest.mark.negative
def test_a_model_built_for_another_soc_never_matches(acl, stream, aclcts_backend, tmp_path):
    # UNCONFIRMED in the documentation; the simulator's setting foreign_soc_models (default skip) models it.
    if aclcts_backend.capabilities.real_device:
        pytest.skip("needs a model built by the real ATC for another SoC than the device's")
    from aclcts.atc import compile_elements

    other = "Ascend310P3" if acl.get_soc_name() != "Ascend310P3" else "Ascend910B1"
    shape = (7, 37)
    result = compile_elements([binary_op("Sub", "foreign", shape)], tmp_path, other)
    assert result.ok, result.errors
    [model] = result.written
    assert load_from_bytes(acl, model.read_bytes()) == OK
    assert run_sub(acl, stream, shape) == (OP_NOT_FOUND, None)
