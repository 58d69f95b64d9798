"""The plugin's feature modules, registered with pytest's plugin manager so that `-p no:NAME` leaves one out."""

from __future__ import annotations

from types import ModuleType

import pytest

from aclcts.pytest_plugin import tuning

with tuning.unrewritten():  # libraries like the rest of aclcts: imported past pytest's assertion rewriting
    from aclcts.pytest_plugin import (allure_run, categories, expectations, msopst_expect, reruns, run_report,
                                      sharding, st_report, timeouts)

#: The feature modules by plugin name (`aclcts.MODULE`: `-p no:aclcts.run_report` leaves run_report out), in the order
#: in which their add_options(group) and configure(config) are called.
EXTENSIONS: dict[str, ModuleType] = {f"aclcts.{module.__name__.rsplit('.', 1)[1]}": module for module in (
    sharding, expectations, run_report, allure_run, timeouts, categories, reruns, st_report, msopst_expect)}


def register(pluginmanager: pytest.PytestPluginManager) -> None:
    """Register every feature module under its name (pytest skips one that `-p no:NAME` blocked)."""
    for name, module in EXTENSIONS.items():
        pluginmanager.register(module, name)


def registered(pluginmanager: pytest.PytestPluginManager) -> list[ModuleType]:
    """The feature modules this run registered, in EXTENSIONS order."""
    return [module for name, module in EXTENSIONS.items() if pluginmanager.get_plugin(name) is module]
