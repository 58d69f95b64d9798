"""The run's backend as the plugin's decisions see it: the loaded Backend, or the capabilities of a built-in name."""

from __future__ import annotations

import pytest

from aclcts.drive.backends import NAMED_CAPABILITIES, Backend, Capabilities

#: The backend this process loaded for its tests (the suite loads it while the run is configured).
BACKEND = pytest.StashKey[Backend]()


def run_capabilities(config: pytest.Config) -> Capabilities | None:
    """The capabilities of the run's backend: the loaded one's, else those of `sim` or `npu` (known without loading
    them); None for a MODULE:ATTR object this process has not loaded (an xdist controller, a collect-only run)."""
    loaded = config.stash.get(BACKEND, None)
    if loaded is not None:
        return loaded.capabilities
    return NAMED_CAPABILITIES.get(config.getoption("--backend"))
