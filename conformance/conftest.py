"""Fixtures of the step modules: per-test resources and op models compiled from a test's own single-op JSON."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from aclcts.drive import flow
    from aclcts.drive.backends import Backend
    from aclcts.drive.executor import Operands

# aclcts is imported in the fixtures, not here: a pytest-xdist controller loads this file too, and it neither runs
# tests nor should it pay for NumPy and the op-model compiler before it starts its workers.


@pytest.fixture
def res(acl: Any) -> Iterator[flow.Resources]:
    """Descs, buffers, attrs and memory of one test, released at its end (flow.resources)."""
    from aclcts.drive.flow import resources

    with resources(acl) as held:
        yield held


@pytest.fixture(scope="module")
def compile_ops(aclcts_backend: Backend, tmp_path_factory: pytest.TempPathFactory) -> Callable[[list[dict]], dict[str, bytes]]:
    """Compile single-op JSON elements (each with a "name") with `aclcts atc`; model bytes by name.

    Skipped on a real device (the NPU): there the same JSON would need the real ATC.
    """
    if aclcts_backend.capabilities.real_device:
        pytest.skip("needs op models compiled from the test's own JSON; on the NPU that takes the real ATC")
    from aclcts.atc import compile_elements

    soc = aclcts_backend.acl.get_soc_name() or "Ascend910B1"

    def compile_models(ops: list[dict]) -> dict[str, bytes]:
        result = compile_elements(ops, tmp_path_factory.mktemp("ops"), soc)
        if not result.ok:
            pytest.fail("compiling the test's op JSON failed:\n" + "\n".join(result.errors), pytrace=False)
        return {path.name[: -len(".om")]: path.read_bytes() for path in result.written}

    return compile_models


@pytest.fixture
def uncompiled_gemm(acl: Any, request: pytest.FixtureRequest) -> Iterator[Operands]:
    """Device operands of the test module's UNCOMPILED GEMM, 4 bytes per element so that every wrapper's types fit."""
    from aclcts.drive import executor
    from aclcts.drive.flow import resources

    with resources(acl) as held:
        yield executor.gemm_operands(held, request.module.UNCOMPILED, itemsize=4)


@pytest.fixture
def compiled_gemm(acl: Any, request: pytest.FixtureRequest) -> Iterator[Operands]:
    """Device operands of the test module's COMPILED GEMM (one a case file compiles), zero-filled."""
    import numpy as np

    from aclcts.drive import executor
    from aclcts.drive.flow import resources

    with resources(acl) as held:
        ops = executor.gemm_operands(held, request.module.COMPILED)
        executor.load_gemm(acl, ops, [np.zeros(size, np.uint8) for size in ops.sizes])
        yield ops
