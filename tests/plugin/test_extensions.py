"""The plugin's feature modules go through pytest's plugin manager: `-p no:NAME` leaves one out, and the others are
still set up in the plugin's order."""

import pytest

from aclcts.pytest_plugin import extensions

#: The order in which the plugin has always added the feature modules' options and configured them.
ORDER = ("sharding", "expectations", "run_report", "allure_run", "timeouts", "categories", "reruns", "st_report",
         "msopst_expect")


@pytest.fixture
def calls(monkeypatch):
    """(step, module) of every add_options and configure call of a feature module, in call order."""
    seen = []
    for module in extensions.EXTENSIONS.values():
        short = module.__name__.rsplit(".", 1)[1]
        for step in ("add_options", "configure"):
            def spy(argument, original=getattr(module, step), step=step, short=short):
                seen.append((step, short))
                return original(argument)

            monkeypatch.setattr(module, step, spy)
    return seen


def run(pytester, *args):
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    return pytester.inline_run("-p", "no:cacheprovider", "-p", "no:xdist", *args)


def test_every_feature_module_is_registered_and_set_up_in_the_plugins_order(pytester, calls):
    reprec = run(pytester)
    reprec.assertoutcome(passed=1)
    assert calls == [("add_options", name) for name in ORDER] + [("configure", name) for name in ORDER]
    config = reprec.getcall("pytest_sessionstart").session.config
    assert {name: config.pluginmanager.get_plugin(name) for name in extensions.EXTENSIONS} == extensions.EXTENSIONS


@pytest.mark.parametrize("name", list(extensions.EXTENSIONS))
def test_p_no_name_leaves_one_feature_module_out_and_sets_up_the_rest_in_order(pytester, calls, name):
    left_out = extensions.EXTENSIONS[name].__name__.rsplit(".", 1)[1]
    reprec = run(pytester, "-p", f"no:{name}")
    reprec.assertoutcome(passed=1)
    rest = [short for short in ORDER if short != left_out]
    assert calls == [("add_options", short) for short in rest] + [("configure", short) for short in rest]


def test_a_left_out_feature_modules_options_are_unknown(pytester):
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:aclcts.run_report",
                                           "--report=run.jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unrecognized arguments: --report=run.jsonl*"])
