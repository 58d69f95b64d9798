"""The relative-error histogram behind the failure attachments: log-scale bins, exact and inf counts, PNG or CSV."""

import csv
import importlib.util
import io

import numpy as np
import pytest

from aclcts.judge.compare import compare
from aclcts.pytest_plugin.allure_results import (BINS_PER_DECADE, histogram, histogram_csv, histogram_figure,
                                                 histogram_png, tolerance_text, tolerances)

HAS_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None


def test_bins_are_log_spaced_and_cover_every_positive_finite_error():
    rel = np.array([0.0, 0.0, 1e-6, 3e-4, 0.02, 0.02, np.inf])
    edges, counts, exact, infinite = histogram(rel)
    assert (exact, infinite) == (2, 1)
    assert counts.sum() == 4
    ratios = edges[1:] / edges[:-1]
    assert np.allclose(ratios, 10 ** (1 / BINS_PER_DECADE))
    assert edges[0] <= 1e-6 and edges[-1] >= 0.02
    assert counts[np.searchsorted(edges, 0.02, side="right") - 1] == 2


def test_a_single_error_value_still_gets_one_bin():
    edges, counts, _, _ = histogram(np.array([0.01]))
    assert len(edges) == 2 and counts.tolist() == [1] and edges[0] <= 0.01 <= edges[1]


def test_only_exact_and_infinite_errors_give_no_bins():
    edges, counts, exact, infinite = histogram(np.array([0.0, np.inf, np.inf]))
    assert edges.size == 0 and counts.size == 0 and (exact, infinite) == (1, 2)


def test_csv_rows_count_every_element_once():
    rel = np.array([0.0, 5e-3, 5e-3, 0.5, np.inf])
    rows = list(csv.DictReader(io.StringIO(histogram_csv(rel))))
    assert sum(int(row["count"]) for row in rows) == rel.size
    assert (rows[0]["rel_err_low"], rows[0]["rel_err_high"], rows[0]["count"]) == ("0", "0", "1")
    assert (rows[1]["rel_err_low"], rows[1]["rel_err_high"], rows[1]["count"]) == ("inf", "inf", "1")


def test_csv_rows_carry_the_test_id_output_policy_and_tolerance():
    rel = np.array([0.0, 5e-4, 5e-3, 0.5])
    test_id = "conformance/test_execute.py::test_execute_v2_matches_reference[Add-float16-4x8_4x8]"
    rows = list(csv.DictReader(io.StringIO(histogram_csv(rel, test_id, "y execution 1", "allclose",
                                                         {"rtol": 1e-3, "atol": 1e-5}))))
    assert {(r["test_id"], r["output"], r["policy"], r["tolerance"]) for r in rows} == {
        (test_id, "y execution 1", "allclose", "rtol=0.001")}
    above = {float(r["rel_err_low"]): r["above_tolerance"] for r in rows}
    assert above[0.0] == "false" and above[float("inf")] == "true"
    bins = [r for r in rows if r["rel_err_low"] not in ("0", "inf")]
    assert all(r["above_tolerance"] == str(float(r["rel_err_low"]) >= 1e-3).lower() for r in bins)
    assert {r["above_tolerance"] for r in bins} == {"true", "false"}


def test_csv_without_a_relative_bound_leaves_the_tolerance_columns_empty():
    rows = list(csv.DictReader(io.StringIO(histogram_csv(np.array([1e-3]), "t", "y", "exact", {}))))
    assert {(r["tolerance"], r["above_tolerance"]) for r in rows} == {("", "")}


@pytest.mark.parametrize("spec, expected", [
    ("allclose:rtol=1e-3,atol=1e-5", [1e-3]),
    ("v2:rtol=0.002,atol=0.001,limit=0.1", [0.002]),
    ("dual_thousandth:rtol=0.001,atol=0.005,max_atol=0.1", [0.005, 0.1]),
    ("mare:threshold=0.001,factor=10", [0.001, 0.01]),
    ("ratio:0.02,0.05", [0.02]),
    ("exact", []),
    ("ulp:2", []),
])
def test_tolerance_lines_are_the_policys_relative_bounds(spec, expected):
    comparison = compare(np.ones(4, np.float32), np.ones(4, np.float32), spec)
    found = tolerances(comparison.policy, comparison.params)
    assert [value for _, value in found] == pytest.approx(expected)
    text = tolerance_text(comparison.policy, comparison.params)
    assert text.startswith(comparison.policy)
    assert all(label in text for label, _ in found)


def test_per_dtype_defaults_give_tolerance_lines_once_resolved():
    comparison = compare(np.ones(4, np.float16), np.ones(4, np.float16), "dual_thousandth")
    assert [value for _, value in tolerances(comparison.policy, comparison.params)] == pytest.approx([0.001, 0.1])


@pytest.mark.skipif(not HAS_MATPLOTLIB, reason="matplotlib is not installed (the CSV table stands in)")
def test_png_is_drawn_with_matplotlib_when_it_is_installed():
    png = histogram_png(np.array([0.0, 1e-3, 0.2, np.inf]), "t[Add]: y execution 1: relative error",
                        [("rtol=0.001", 1e-3)])
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 1000


@pytest.mark.skipif(not HAS_MATPLOTLIB, reason="matplotlib is not installed (the CSV table stands in)")
@pytest.mark.parametrize("rel", [np.array([0.0, 1e-5, 1e-4]), np.array([0.5, 2.0]), np.array([0.0, np.inf])],
                         ids=["below", "above", "no-bins"])
def test_the_figure_is_titled_with_the_test_id_and_draws_each_tolerance_in_range(rel):
    lines = [("atol=0.001 (per element)", 1e-3), ("max_atol=0.1 (any element)", 0.1)]
    figure = histogram_figure(rel, "conformance/test_x.py::test_y[Add-float16]: y execution 1: relative error", lines)
    (axes,) = figure.axes
    assert axes.get_title().startswith("conformance/test_x.py::test_y[Add-float16]")
    drawn = sorted((line.get_label(), line.get_xdata()[0]) for line in axes.get_lines())
    assert drawn == sorted(lines)
    low, high = axes.get_xlim()
    assert low < 1e-3 and high > 0.1


@pytest.mark.skipif(HAS_MATPLOTLIB, reason="matplotlib is installed")
def test_png_without_matplotlib_raises_import_error_for_the_csv_fallback():
    with pytest.raises(ImportError):
        histogram_png(np.array([1e-3]), "y")
