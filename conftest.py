"""Root conftest: pytester for the plugin's own tests (the aclcts plugin itself loads by its entry point)."""

pytest_plugins = ["pytester"]
