"""The fault table and its seams: a fault installs substitutes, leaving it puts the originals back, and simulator
code outside the table names no fault."""

from __future__ import annotations

from pathlib import Path

import pytest

import aclcts.sim
from aclcts.sim import acl, faults, isolated, seams

SIM = Path(aclcts.sim.__file__).resolve().parent
ACL_BF16 = 27
HBM = 1


def test_every_substitute_names_a_seam_the_simulator_defines():
    defined = set(seams.names())
    named = {seam for entry in faults.REGISTRY.values() for seam, _ in entry.substitutes}
    assert named - defined == set()
    assert all(entry.substitutes for entry in faults.REGISTRY.values())


def test_a_fault_substitutes_its_seams_and_leaving_it_restores_the_originals():
    sizes, copy = seams.get("data type sizes"), seams.get("copy")
    with isolated(faults=""):
        assert acl.data_type_size(ACL_BF16) == 2
        assert sizes.current is sizes.original
    with isolated(faults="bf16_size_wrong"):
        assert acl.data_type_size(ACL_BF16) == 4
        desc = acl.create_tensor_desc(ACL_BF16, [2, 3], 2)
        assert acl.get_tensor_desc_size(desc) == 24
        acl.destroy_tensor_desc(desc)
        assert sizes.current is not sizes.original
        assert copy.current is copy.original
    assert acl.data_type_size(ACL_BF16) == 2
    assert sizes.current is sizes.original


def test_configure_installs_the_named_faults_and_reset_keeps_them():
    with isolated(faults=""):
        aclcts.sim.configure(faults="malloc_size_zero_succeeds")
        assert faults.installed() == {"malloc_size_zero_succeeds"}
        aclcts.sim.reset()
        assert faults.installed() == {"malloc_size_zero_succeeds"}
        assert acl.init() == 0 and acl.rt.set_device(0) == 0
        ptr, ret = acl.rt.malloc(0, 2)
        assert ret == 0 and ptr != 0
        aclcts.sim.configure(faults="")
        assert faults.installed() == frozenset()
    assert faults.installed() == aclcts.sim.settings().faults


def test_two_faults_on_one_seam_both_apply():
    with isolated(faults="free_accepts_null,double_free_succeeds"):
        assert acl.init() == 0 and acl.rt.set_device(0) == 0
        assert acl.rt.free(0) == 0
        ptr, ret = acl.rt.malloc(64, 2)
        assert ret == 0 and acl.rt.free(ptr) == 0
        assert acl.rt.free(ptr) == 0
    with isolated(faults="free_accepts_null"):
        assert acl.init() == 0 and acl.rt.set_device(0) == 0
        ptr, _ = acl.rt.malloc(64, 2)
        assert acl.rt.free(ptr) == 0
        assert acl.rt.free(ptr) != 0


def test_a_stateful_substitute_starts_afresh_each_time_it_is_installed():
    def free_after_malloc() -> tuple[int, int]:
        assert acl.init() == 0 and acl.rt.set_device(0) == 0
        before = acl.rt.get_mem_info(HBM)[0]
        ptr, _ = acl.rt.malloc(1 << 20, 2)
        after = acl.rt.get_mem_info(HBM)[0]
        acl.rt.free(ptr)
        return before, after

    with isolated(faults="get_mem_info_frozen"):
        before, after = free_after_malloc()
        assert before == after
    with isolated(faults="get_mem_info_frozen"):
        assert acl.init() == 0 and acl.rt.set_device(0) == 0
        ptr, _ = acl.rt.malloc(1 << 20, 2)
        assert acl.rt.get_mem_info(HBM)[0] < before
        acl.rt.free(ptr)


def test_a_seam_defined_after_install_picks_up_its_substitute():
    seams.install({"test seam defined late": [lambda original: lambda x: original(x) + 1]})
    try:
        late = seams.Seam("test seam defined late", lambda x: x * 2)
        assert late(5) == 11
    finally:
        seams.install({})
    assert late(5) == 10


def test_substitutes_compose_in_order():
    seam = seams.Seam("test seam composed", lambda x: [x])
    try:
        seams.install({"test seam composed": [lambda f: lambda x: f(x) + ["a"], lambda f: lambda x: f(x) + ["b"]]})
        assert seam(0) == [0, "a", "b"]
    finally:
        seams.install({})
    assert seam(0) == [0]


def test_an_unknown_fault_is_not_installed():
    with pytest.raises(ValueError, match=r"unknown fault name\(s\) no_such_fault"):
        faults.install(["no_such_fault"])


@pytest.mark.parametrize("path", sorted(p.relative_to(SIM).as_posix() for p in SIM.rglob("*.py")
                                        if "faults" not in p.relative_to(SIM).parts))
def test_simulator_code_outside_the_table_names_no_fault(path):
    source = (SIM / path).read_text()
    named = [name for name in faults.names() if name in source]
    assert not named, f"aclcts/sim/{path} names the fault(s) {named}: it should call a seam instead"
    assert "faults.active" not in source
