"""The Distribution policy: random outputs judged as a sample by the two-sample Kolmogorov-Smirnov test."""

from __future__ import annotations

import numpy as np

from aclcts.judge.compare import compare, summary
from aclcts.judge.policies import DISTRIBUTION_ALPHA, Distribution, default_policy
from aclcts.judge.stats import ks_critical, ks_statistic


def test_the_ks_distance_of_equal_samples_is_zero_and_of_disjoint_ones_one():
    a = np.arange(10.0)
    assert ks_statistic(a, a[::-1]) == 0.0 and ks_statistic(a, a + 100) == 1.0


def test_the_critical_distance_is_the_textbook_large_sample_value():
    # c(0.05) = 1.358 (the tabulated two-sample coefficient), times sqrt((n + m) / (n m))
    assert abs(ks_critical(0.05, 100, 100) - 1.358 * np.sqrt(2 / 100)) < 1e-3


def test_two_samples_of_one_distribution_pass_and_a_shifted_one_fails():
    rng = np.random.default_rng(5)
    expected = rng.standard_normal(65536).astype(np.float32)
    same = rng.standard_normal(65536).astype(np.float32)
    shifted = same + np.float32(0.1)
    assert compare(same, expected, Distribution()).passed
    failed = compare(shifted, expected, Distribution())
    assert not failed.passed and summary(failed).startswith("KS distance 0.0")


def test_the_random_family_is_judged_by_distribution_at_the_documented_alpha():
    assert default_policy(np.float16, "random") == Distribution(DISTRIBUTION_ALPHA)
