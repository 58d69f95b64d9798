"""The aclcts pytest plugin: options, fixtures, markers, run report, expectations, sharding, Allure."""
