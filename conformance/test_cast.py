"""acl.op.cast and acl.op.create_handle_for_cast (docs/contract/handles-blas-cast.md#cast) over the Cast cases."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fresh_process import run_fresh

from aclcts.cases import Case
from aclcts.core.constants import DataType, ErrorCode, Format
from aclcts.core.dtypes import numpy_dtype
from aclcts.drive import executor, flow
from aclcts.judge.decorator import compares_with_reference
from aclcts.pytest_plugin.library import GOLDEN, dynamic_cases, library_cases, suite_model_cases

pytestmark = [pytest.mark.cast]

INVALID_PARAM = int(ErrorCode.ACL_ERROR_INVALID_PARAM)
OP_NOT_FOUND = int(ErrorCode.ACL_ERROR_OP_NOT_FOUND)


def run_cast_models(config: pytest.Config) -> list[Case]:
    """The Cast cases whose models the run compiles and loads: its case library's, its golden cases', its dynamic
    cases' and the step tests' own (library.SUITE_MODEL_CASES)."""
    cases = (library_cases(config) + [g.case for g in config.stash.get(GOLDEN, [])] + dynamic_cases(config)
             + suite_model_cases(config.rootpath / "cases"))
    return [case for case in cases if case.op == "Cast"]


def unreachable_by_cast(case: Case, loaded: list[Case]) -> str | None:
    """Why acl.op.cast cannot reach the case's model, or None: it sends dst_type (the dst desc's dtype) and, only if
    some loaded Cast model has one, truncate, and a model matches only with exactly those attributes."""
    names = {attr.name for attr in case.attrs}
    sends_truncate = any("truncate" in {attr.name for attr in other.attrs} for other in loaded)
    sent = {"dst_type", "truncate"} if sends_truncate else {"dst_type"}
    dst_type = case.attr_values().get("dst_type")
    if names == sent and dst_type == case.outputs[0].dtype:
        return None
    return (f"{case.id}: acl.op.cast sends attributes {sorted(sent)} with dst_type {case.outputs[0].dtype} (the dst "
            f"desc's type; truncate because a loaded Cast model has it) and this model has {sorted(names)} with "
            f"dst_type {dst_type}, so only execute_v2 reaches it (docs/contract/handles-blas-cast.md#cast)")


@pytest.fixture
def cast_reachable(op_case: Case, pytestconfig: pytest.Config) -> None:
    """Skip, with the reason, a Cast case whose model acl.op.cast cannot reach among the run's loaded models."""
    reason = unreachable_by_cast(op_case, run_cast_models(pytestconfig))
    if reason:
        pytest.skip(reason)


@pytest.mark.cases(ops=["Cast"])
@pytest.mark.usefixtures("cast_reachable")
@compares_with_reference
def test_op_cast_matches_reference(acl, stream, op_case, case_inputs):
    return executor.run_cast(acl, stream, op_case, case_inputs, handle_form=False)


@pytest.mark.cases(ops=["Cast"], executions=2)
@pytest.mark.usefixtures("cast_reachable")
@compares_with_reference
def test_cast_handle_matches_reference_on_every_execution(acl, stream, op_case, case_inputs):
    return executor.run_cast(acl, stream, op_case, case_inputs, handle_form=True)


FP32, FP16, INT16 = int(DataType.ACL_FLOAT), int(DataType.ACL_FLOAT16), int(DataType.ACL_INT16)
#: A pair compiled at this shape whatever --cases selects (cases/cast/cast_to_float16.yaml, a suite model of
#: aclcts/pytest_plugin/library.py SUITE_MODEL_CASES) and one never compiled.
COMPILED = (FP32, FP16, (16, 32))
UNCOMPILED = (FP32, INT16, (16, 32))


@pytest.mark.negative
def test_op_cast_rejects_a_null_dst_desc(acl, stream):
    with executor.cast_tensors(acl, *COMPILED) as t:
        ret = acl.op.cast(t.src_desc, t.src_buffer, 0, t.dst_buffer, 0, stream)
    assert ret == INVALID_PARAM, f"acl.op.cast with dst_desc 0: expected 100000 (ACL_ERROR_INVALID_PARAM), got {ret}"


@pytest.mark.negative
def test_create_handle_for_cast_rejects_a_null_dst_desc(acl):
    with executor.cast_tensors(acl, *COMPILED) as t:
        handle, ret = acl.op.create_handle_for_cast(t.src_desc, 0, 0)
        if ret == 0:
            acl.op.destroy_handle(handle)
    assert (handle, ret) == (0, INVALID_PARAM), f"dst_desc 0: expected (0, 100000), got {(handle, ret)}"


@pytest.mark.negative
def test_op_cast_of_a_pair_without_a_model_is_op_not_found(acl, stream):
    with executor.cast_tensors(acl, *UNCOMPILED) as t:
        ret = acl.op.cast(t.src_desc, t.src_buffer, t.dst_desc, t.dst_buffer, 0, stream)
    assert ret == OP_NOT_FOUND, f"float32 -> int16 (no model): expected 100024 (ACL_ERROR_OP_NOT_FOUND), got {ret}"


@pytest.mark.negative
def test_create_handle_for_cast_of_a_pair_without_a_model_is_op_not_found(acl):
    with executor.cast_tensors(acl, *UNCOMPILED) as t:
        handle, ret = acl.op.create_handle_for_cast(t.src_desc, t.dst_desc, 0)
        if ret == 0:
            acl.op.destroy_handle(handle)
    assert (handle, ret) == (0, OP_NOT_FOUND), f"float32 -> int16 (no model): expected (0, 100024), got {(handle, ret)}"


# ---------------------------------------------------------------- the Cast model rules, each in a fresh process
# acl.op.cast passes dst_type (the dst desc's type) and, once some loaded Cast model has one, truncate
# (docs/contract/handles-blas-cast.md#cast):
# which models are loaded decides it, so each rule runs in a process of its own with its own model folder.


INT32, ND = int(DataType.ACL_INT32), int(Format.ACL_FORMAT_ND)
OK = int(ErrorCode.ACL_SUCCESS)
#: Shape of the Cast models of these rules (the case library's models never reach their processes).
RULE_SHAPE = [8]
RULE_INPUT = np.array([1.75, -2.5, 3.0, 0.25, 7.9, -0.9, 100.5, -100.5], np.float32)


def cast_json(name: str, src: str, dst: str, dst_type: int, truncate: bool | None) -> dict:
    """A Cast element of single-op JSON with dst_type and, unless None, a truncate attribute."""
    attrs = [{"name": "dst_type", "type": "int", "value": dst_type}]
    if truncate is not None:
        attrs.insert(0, {"name": "truncate", "type": "bool", "value": truncate})
    return {"op": "Cast", "name": name, "input_desc": [{"format": "ND", "shape": RULE_SHAPE, "type": src}],
            "output_desc": [{"format": "ND", "shape": RULE_SHAPE, "type": dst}], "attr": attrs}


def cast_in_session(acl: Any, device_id: int, folder: str, casts: list[tuple[int, int, int, bool]]) -> list[Any]:
    """set_model_dir(folder), then each (src type, dst type, truncate, handle form) cast of RULE_INPUT: its code
    and, when it ran, whether the output equals NumPy's astype."""
    session = flow.open_session(acl, device_id)
    results: list[Any] = []
    try:
        flow.check(acl.op.set_model_dir(folder), "acl.op.set_model_dir")
        for src, dst, truncate, handle_form in casts:
            with flow.resources(acl) as res:
                x = RULE_INPUT.astype(numpy_dtype(src))
                descs = [flow.create_desc(res, t, tuple(RULE_SHAPE), ND) for t in (src, dst)]
                out_bytes = 8 * acl.data_type_size(dst)
                ptrs = [flow.malloc(res, x.nbytes), flow.malloc(res, out_bytes)]
                flow.copy_to_device(acl, ptrs[0], x)
                bufs = [flow.create_buffer(res, ptrs[0], x.nbytes), flow.create_buffer(res, ptrs[1], out_bytes)]
                if handle_form:
                    handle, ret = acl.op.create_handle_for_cast(descs[0], descs[1], truncate)
                    if handle:
                        res.handles.append(handle)
                        ret = acl.op.execute_with_handle(handle, bufs[:1], bufs[1:], session.stream)
                else:
                    ret = acl.op.cast(descs[0], bufs[0], descs[1], bufs[1], truncate, session.stream)
                ran = None
                if ret == OK:
                    flow.check(acl.rt.synchronize_stream(session.stream), "acl.rt.synchronize_stream")
                    got = flow.array_from(flow.copy_to_host(res, ptrs[1], out_bytes), dst, tuple(RULE_SHAPE))
                    ran = bool(np.array_equal(got, x.astype(got.dtype)))
                results.append([ret, ran])
    finally:
        flow.close_session(session)
    return results


def models_with_truncate(acl: Any, device_id: int, folder: str) -> list[Any]:
    """Cast models fp32→fp16 and fp32→int32 with truncate, fp16→fp32 without."""
    return cast_in_session(acl, device_id, folder, [(FP32, FP16, 0, False), (FP32, INT32, 0, False),
                                                    (FP32, FP16, 1, False), (FP32, FP16, 1, True),
                                                    (FP16, FP32, 0, False)])


def models_without_truncate(acl: Any, device_id: int, folder: str) -> list[Any]:
    """Cast models without a truncate attribute: fp32→fp16, and fp32→int32 compiled with dst_type fp16."""
    return cast_in_session(acl, device_id, folder, [(FP32, FP16, 0, False), (FP32, FP16, 0, True),
                                                    (FP32, INT32, 0, False)])


CAST_RULE_MODELS = {
    models_with_truncate: [cast_json("fp32_fp16", "float", "float16", FP16, False),
                           cast_json("fp32_int32", "float", "int32", INT32, False),
                           cast_json("fp16_fp32", "float16", "float", FP32, None)],
    models_without_truncate: [cast_json("fp32_fp16", "float", "float16", FP16, None),
                              cast_json("fp32_int32_as_fp16", "float", "int32", FP16, None)],
}


@pytest.fixture(scope="module")
def cast_rules(pytestconfig: pytest.Config, compile_ops: Any,
               tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Each CAST_RULE_MODELS function run in a fresh process with a folder of just its Cast models."""
    folders = {}
    for run, ops in CAST_RULE_MODELS.items():
        folder = folders[run.__name__] = tmp_path_factory.mktemp(run.__name__)
        for name, image in compile_ops(ops).items():
            Path(folder, f"{name}.om").write_bytes(image)
    return run_fresh(pytestconfig, list(CAST_RULE_MODELS), folders)


@pytest.mark.parametrize("run, index, expected", [
    pytest.param(models_with_truncate, 0, [OK, True], id="a-model-with-truncate-matches"),
    pytest.param(models_without_truncate, 0, [OK, True], id="a-model-without-truncate-matches"),
    pytest.param(models_without_truncate, 1, [OK, True], id="a-model-without-truncate-matches-the-handle-form"),
    pytest.param(models_with_truncate, 1, [OK, True], id="dst_type-comes-from-the-dst-desc"),
    pytest.param(models_without_truncate, 2, [OP_NOT_FOUND, None], id="a-model-of-another-dst_type-is-100024"),
    pytest.param(models_with_truncate, 2, [OP_NOT_FOUND, None], id="the-truncate-value-is-passed"),
    pytest.param(models_with_truncate, 3, [OP_NOT_FOUND, None], id="the-handle-form-passes-it-too"),
    pytest.param(models_with_truncate, 4, [OP_NOT_FOUND, None],
                 id="truncate-is-passed-to-every-cast-once-a-model-has-it"),
])
def test_cast_passes_dst_type_and_truncate_as_the_loaded_cast_models_decide(cast_rules, run, index, expected):
    results = cast_rules[run.__name__]
    assert not isinstance(results, str), f"the fresh process failed:\n{results}"
    assert results[index] == expected
