"""The plugin's own tests drive pytest in-process through pytester."""

pytest_plugins = ["pytester"]
