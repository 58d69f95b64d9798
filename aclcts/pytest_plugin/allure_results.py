"""Allure labels, parameters, documented acl steps and failure attachments for every test while allure-pytest writes
results (--alluredir)."""

from __future__ import annotations

import io
import textwrap
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager
from typing import Any

import allure
import numpy as np
import pytest

from aclcts.cases import Case
from aclcts.drive import flow
from aclcts.judge.decorator import Judged
from aclcts.pytest_plugin.allure_run import epic_of
from aclcts.pytest_plugin.comparisons import comparisons_of
from aclcts.pytest_plugin.markers import CONCERNS, STEPS

#: Relative-error histogram bins per decade.
BINS_PER_DECADE = 2
_REPRODUCE_ATTACHED = pytest.StashKey[bool]()


def add_options(group: Any) -> None:
    """No options: the feature is on whenever allure-pytest writes results (--alluredir)."""


def configure(config: pytest.Config) -> None:
    """Register the allure hooks and the step listener when allure-pytest is active in this run."""
    if getattr(config.option, "allure_report_dir", None):
        config.pluginmanager.register(AllureHooks(), "aclcts-allure")
        flow.set_step_listener(allure_step)
        config.add_cleanup(lambda: flow.set_step_listener(None))


def allure_step(name: str) -> AbstractContextManager[Any]:
    """An Allure step of the running test (or fixture) for one documented acl step or group of steps."""
    return allure.step(name)


# ------------------------------------------------------------------------------------ labels and parameters


def epic(item: pytest.Item) -> str:
    """The suite a test belongs to: "aclcts conformance" for conformance/, otherwise its top folder."""
    try:
        parts = item.path.relative_to(item.config.rootpath).parts
    except ValueError:
        parts = item.path.parts[-2:]
    return epic_of(parts, item.config.rootpath.name)


def features(item: pytest.Item) -> list[str]:
    """Readable names of the documented steps a test is marked with (its concerns when it has no step marker)."""
    concerns = {name: text for name, text in CONCERNS.items() if "(" not in name}
    for table in (STEPS, concerns):
        found = [f"{name}: {text.split(' (')[0]}" for name, text in table.items() if item.get_closest_marker(name)]
        if found:
            return found
    return []


def _case_of(item: pytest.Item) -> tuple[str, Case] | None:
    params = getattr(getattr(item, "callspec", None), "params", {})
    if isinstance(params.get("op_case"), Case):
        return "op_case", params["op_case"]
    golden = params.get("golden_case")
    if isinstance(getattr(golden, "case", None), Case):
        return "golden_case", golden.case
    return None


def story(item: pytest.Item) -> str:
    """The op a case-parametrized test runs, otherwise the concern its module is named after."""
    found = _case_of(item)
    if found is not None:
        return found[1].op
    stem = item.path.stem
    return stem.removeprefix("test_").replace("_", " ")


def _tensors(tensors: tuple) -> tuple[str, str]:
    dtypes = ", ".join(dict.fromkeys(t.dtype_name for t in tensors))
    shapes = ", ".join(str(list(t.shape)) for t in tensors)
    return dtypes, shapes


def mode(item: pytest.Item) -> str:
    """How a case-parametrized test runs its op: execute_v2, handle or direct (op.cast, blas), static or dynamic."""
    marker = item.get_closest_marker("cases")
    form = marker.kwargs.get("mode") if marker else None
    if form is None:
        name = getattr(item, "originalname", item.name)
        form = "handle" if "handle" in name else "execute_v2" if item.get_closest_marker("execute") else "direct"
    return f"{form}, {'dynamic' if item.get_closest_marker('dynamic') else 'static'}"


def case_parameters(item: pytest.Item) -> dict[str, Any]:
    """The allure parameters of a case-parametrized test (empty for any other test)."""
    found = _case_of(item)
    if found is None:
        return {}
    param, case = found
    in_dtypes, in_shapes = _tensors(case.inputs)
    out_dtypes, out_shapes = _tensors(case.outputs)
    values: dict[str, Any] = {
        param: case.id if param == "op_case" else item.callspec.params[param].name,
        "dtype": in_dtypes if in_dtypes == out_dtypes else f"{in_dtypes} -> {out_dtypes}",
        "shape": f"{in_shapes} -> {out_shapes}",
        "mode": mode(item),
    }
    if param == "op_case":
        values["seed"] = case.seed(item.config.getoption("--aclcts-seed"))
    return values


def label_test(item: pytest.Item) -> None:
    """Give the running test its epic, feature and story labels and its case parameters."""
    allure.dynamic.epic(epic(item))
    found = features(item)
    if found:
        allure.dynamic.feature(*found)
    allure.dynamic.story(story(item))
    for name, value in case_parameters(item).items():
        allure.dynamic.parameter(name, value)


# ---------------------------------------------------------------------------------------- attachments


def histogram(rel: np.ndarray) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Log-scale histogram of relative errors: (bin edges, counts, count of exact elements, count of inf)."""
    rel = np.asarray(rel, dtype=np.float64)
    positive = rel[np.isfinite(rel) & (rel > 0)]
    exact, infinite = int((rel == 0).sum()), int(np.isinf(rel).sum())
    if not positive.size:
        return np.zeros(0), np.zeros(0, dtype=np.int64), exact, infinite
    low = np.floor(np.log10(positive.min()) * BINS_PER_DECADE)
    high = max(np.ceil(np.log10(positive.max()) * BINS_PER_DECADE), low + 1)
    edges = 10.0 ** (np.arange(low, high + 1) / BINS_PER_DECADE)
    counts, _ = np.histogram(np.clip(positive, edges[0], edges[-1]), bins=edges)
    return edges, counts, exact, infinite


def tolerances(policy: str, params: Mapping[str, Any]) -> list[tuple[str, float]]:
    """The relative-error bounds of a precision policy, as (label, value) lines for the histogram: rtol for allclose
    and v2 (their bound is atol + rtol * |expected|), atol and max_atol for dual_thousandth, T and factor * T for
    mare, t for ratio; none for exact and ulp, whose bounds are not relative errors."""
    def given(*names: str) -> bool:
        return all(params.get(name) is not None for name in names)

    if policy in ("allclose", "v2") and given("rtol"):
        return [(f"rtol={params['rtol']:.3g}", float(params["rtol"]))]
    if policy == "dual_thousandth" and given("atol", "max_atol"):
        return [(f"atol={params['atol']:.3g} (per element)", float(params["atol"])),
                (f"max_atol={params['max_atol']:.3g} (any element)", float(params["max_atol"]))]
    if policy == "mare" and given("threshold", "factor"):
        threshold, factor = float(params["threshold"]), float(params["factor"])
        return [(f"T={threshold:.3g} (mean)", threshold), (f"factor*T={factor * threshold:.3g} (max)", factor * threshold)]
    if policy == "ratio" and given("t"):
        return [(f"t={params['t']:.3g}", float(params["t"]))]
    return []


def tolerance_text(policy: str, params: Mapping[str, Any]) -> str:
    """The policy and its relative-error bounds in one line, e.g. "allclose, rtol=0.001"."""
    lines = tolerances(policy, params)
    return f"{policy}, " + "; ".join(label for label, _ in lines) if lines else f"{policy} (no relative bound)"


def histogram_csv(rel: np.ndarray, test_id: str = "", where: str = "", policy: str = "",
                  params: Mapping[str, Any] | None = None) -> str:
    """The relative-error histogram as CSV rows with the test id, output, policy and its relative-error bounds in
    every row: bin low, bin high, count, and whether the bin lies above the (first) bound (exact and inf rows first)."""
    edges, counts, exact, infinite = histogram(rel)
    lines = tolerances(policy, params or {})
    bound = lines[0][1] if lines else None
    facts = ",".join(_csv_cell(v) for v in (test_id, where, policy, "; ".join(label for label, _ in lines)))

    def above(low: float) -> str:
        return "" if bound is None else str(low >= bound).lower()

    rows = ["test_id,output,policy,tolerance,rel_err_low,rel_err_high,count,above_tolerance",
            f"{facts},0,0,{exact},{above(0.0)}", f"{facts},inf,inf,{infinite},{above(np.inf)}"]
    rows += [f"{facts},{lo:.3g},{hi:.3g},{int(n)},{above(lo)}" for lo, hi, n in zip(edges[:-1], edges[1:], counts)]
    return "\n".join(rows) + "\n"


def _csv_cell(text: str) -> str:
    return f'"{text.replace(chr(34), chr(34) * 2)}"' if any(c in text for c in ',"\n') else text


def histogram_figure(rel: np.ndarray, title: str, lines: list[tuple[str, float]] | None = None) -> Any:
    """The relative-error histogram as a matplotlib Figure (Agg canvas), with a dashed vertical line per tolerance
    (label, value) inside the drawn range (ImportError without matplotlib)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    edges, counts, exact, infinite = histogram(rel)
    lines = lines or []
    figure = Figure(figsize=(7.2, 4.2))
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    if counts.size:
        axes.bar(edges[:-1], counts, width=np.diff(edges), align="edge", edgecolor="black")
    for (label, value), colour in zip(lines, ("tab:red", "tab:orange")):
        axes.axvline(value, color=colour, linestyle="--", linewidth=1.5, label=label)
    if counts.size or lines:
        axes.set_xscale("log")
        ends = [value for _, value in lines] + ([edges[0], edges[-1]] if counts.size else [])
        axes.set_xlim(min(ends) / 2, max(ends) * 2)
    if lines:
        axes.legend(fontsize=8, loc="best", framealpha=0.9)
    axes.set_xlabel("relative error")
    axes.set_ylabel("elements")
    wrapped = "\n".join(textwrap.wrap(title, 90))
    axes.set_title(f"{wrapped}\n{exact} exact, {infinite} inf (expected 0 or non-finite mismatch)", fontsize=8)
    figure.tight_layout()
    return figure


def histogram_png(rel: np.ndarray, title: str, lines: list[tuple[str, float]] | None = None) -> bytes:
    """histogram_figure as PNG bytes (ImportError without matplotlib)."""
    out = io.BytesIO()
    histogram_figure(rel, title, lines).savefig(out, format="png")
    return out.getvalue()


def attach_comparison(judged: Judged, test_id: str) -> None:
    """Attach a failing comparison's worst-element table and its relative-error histogram (titled with the test id,
    with the policy's tolerance lines) to the running test."""
    where = f"{judged.output} execution {judged.execution + 1}"
    comparison = judged.comparison
    allure.attach(f"{where}: policy {comparison.policy} {comparison.params}\n{judged.table}\n",
                  name=f"{where}: worst elements", attachment_type=allure.attachment_type.TEXT)
    rel = comparison.relative_errors()
    title = f"{test_id}: {where}: relative error ({tolerance_text(comparison.policy, comparison.params)})"
    try:
        png = histogram_png(rel, title, tolerances(comparison.policy, comparison.params))
    except ImportError:
        allure.attach(histogram_csv(rel, test_id, where, comparison.policy, comparison.params),
                      name=f"{where}: relative error histogram (CSV table, matplotlib not installed)",
                      attachment_type=allure.attachment_type.CSV)
        return
    allure.attach(png, name=f"{where}: relative error histogram", attachment_type=allure.attachment_type.PNG)


class AllureHooks:
    """The hooks that label every test and attach failure data while allure-pytest is active."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        """Label the test before its fixtures run (so a setup failure is labelled too)."""
        label_test(item)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Iterator[None]:
        """Once the test body ran, attach every failing comparison it made (kept in the item's stash)."""
        yield
        for judged in comparisons_of(item):
            if not judged.comparison.passed:
                attach_comparison(judged, item.nodeid)

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
        """Attach the reproducing command line of the test's first failing phase."""
        outcome = yield
        report = outcome.get_result()
        if item.stash.get(_REPRODUCE_ATTACHED, False):
            return
        for name, text in report.sections:
            if name == "reproduce":
                allure.attach(text + "\n", name="reproduce", attachment_type=allure.attachment_type.TEXT)
                item.stash[_REPRODUCE_ATTACHED] = True
                return
