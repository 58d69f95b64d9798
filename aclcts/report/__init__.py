"""JSON run reports: writing, diffing, merging (with JUnit XML and allure results) and what a run was set up with."""
