"""The relative-error histogram behind the failure attachments: log-scale bins, exact and inf counts, PNG or CSV."""

import csv
import importlib.util
import io

import numpy as np
import pytest

from aclcts.pytest_plugin.allure_results import BINS_PER_DECADE, histogram, histogram_csv, histogram_png

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
    assert rows[0] == {"rel_err_low": "0", "rel_err_high": "0", "count": "1"}
    assert rows[1] == {"rel_err_low": "inf", "rel_err_high": "inf", "count": "1"}


@pytest.mark.skipif(not HAS_MATPLOTLIB, reason="matplotlib is not installed (the CSV table stands in)")
def test_png_is_drawn_with_matplotlib_when_it_is_installed():
    png = histogram_png(np.array([0.0, 1e-3, 0.2, np.inf]), "y execution 1: relative error")
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 1000


@pytest.mark.skipif(HAS_MATPLOTLIB, reason="matplotlib is installed")
def test_png_without_matplotlib_raises_import_error_for_the_csv_fallback():
    with pytest.raises(ImportError):
        histogram_png(np.array([1e-3]), "y")
