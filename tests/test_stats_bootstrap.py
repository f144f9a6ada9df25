"""Bootstrap, paired bootstrap and micro-averages against scipy, rouge-score and plain references."""
import collections
import math

import numpy as np
import pytest
import scipy.stats as st
from hypothesis import given, settings
from hypothesis import strategies as hs

from qascore import stats
from qascore.stats import _kernels as K

MASK64 = (1 << 64) - 1


GOLDEN = 0x9E3779B97F4A7C15
LANES, STEPS = 16, 4


def ref_mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def ref_rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & MASK64


def ref_xoshiro256pp(s):
    """One xoshiro256++ step on the 4-word list s (Blackman & Vigna's reference C, in Python)."""
    result = (ref_rotl((s[0] + s[3]) & MASK64, 23) + s[0]) & MASK64
    t = (s[1] << 17) & MASK64
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = ref_rotl(s[3], 45)
    return result


def ref_stream_indices(seed, replicate, n):
    """The documented index stream in plain Python integers: 16 xoshiro256++ lanes whose words are
    splitmix64 outputs keyed by (seed, replicate); blocks of 4 draws per lane taken step by step
    across the lanes; each 64-bit draw gives two 32-bit candidates (high half first), accepted by
    Lemire's rule."""
    base = ref_mix((seed * GOLDEN + replicate + 1) & MASK64)
    words = [ref_mix((base + (w + 1) * GOLDEN) & MASK64) for w in range(4 * LANES)]
    lanes = [[words[j], words[LANES + j], words[2 * LANES + j], words[3 * LANES + j]] for j in range(LANES)]
    threshold = (2**32 - n) % n
    out = []
    while len(out) < n:
        block = [[ref_xoshiro256pp(lane) for _ in range(STEPS)] for lane in lanes]
        for step in range(STEPS):
            for j in range(LANES):
                z = block[j][step]
                for half in (z >> 32, z & 0xFFFFFFFF):
                    m = half * n
                    if (m & 0xFFFFFFFF) >= threshold and len(out) < n:
                        out.append(m >> 32)
    return out


def test_xoshiro256pp_reference_matches_the_published_generator():
    # First outputs of xoshiro256++ from state {1, 2, 3, 4} (the reference C code's values).
    s = [1, 2, 3, 4]
    assert [ref_xoshiro256pp(s) for _ in range(3)] == [41943041, 58720359, 3588806011781223]


def draw(seed, replicate, n):
    out = np.empty(n, np.int64)
    K.draw_indices(seed, replicate, n, out, K._stream_scratch())
    return out


@settings(max_examples=40, deadline=None)
@given(hs.integers(0, 2**40), hs.integers(0, 10_000), hs.integers(1, 300))
def test_index_stream_equals_plain_reference(seed, replicate, n):
    assert draw(seed, replicate, n).tolist() == ref_stream_indices(seed, replicate, n)


@settings(max_examples=40, deadline=None)
@given(hs.integers(0, 2**40), hs.integers(0, 10_000), hs.integers(1, 300))
def test_fused_resampled_sum_equals_plain_reference(seed, replicate, n):
    a = np.random.default_rng(n).standard_normal(n)
    expected = math.fsum(a[i] for i in ref_stream_indices(seed, replicate, n))
    assert K.resampled_sum(a, seed, replicate, K._stream_scratch()) == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_rejected_candidates_are_skipped_in_stream_order():
    # n = 1,073,742 rejects a candidate with probability 0.025%: about 268 rejections per
    # replicate, exercising the rare paths of draw_indices and resampled_sum.
    n = 1_073_742
    expected = ref_stream_indices(3, 1, n)
    assert draw(3, 1, n).tolist() == expected
    a = np.random.default_rng(0).random(n)
    assert K.resampled_sum(a, 3, 1, K._stream_scratch()) == pytest.approx(math.fsum(a[expected]), rel=1e-12)


def test_index_stream_is_uniform():
    n, reps = 7, 3000
    counts = np.zeros(n)
    for b in range(reps):
        counts += np.bincount(draw(11, b, n), minlength=n)
    assert st.chisquare(counts).pvalue > 1e-4


# ---------------------------------------------------------------- scipy.stats.bootstrap parity

@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_mean_interval_equals_scipy_for_the_same_seed(method, alternative):
    x = np.random.default_rng(1).standard_normal(40) * 3 + 1
    ours = stats.bootstrap(x, "mean", n_resamples=2000, method=method, alternative=alternative,
                           confidence_level=0.9, seed=5, rng="scipy")
    theirs = st.bootstrap((x,), np.mean, n_resamples=2000, method=method, alternative=alternative,
                          confidence_level=0.9, rng=5)
    np.testing.assert_allclose(ours.confidence_interval, tuple(theirs.confidence_interval), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(ours.distribution, theirs.bootstrap_distribution)
    assert ours.standard_error == pytest.approx(theirs.standard_error, abs=1e-12)
    assert "seed:5" in ours.signature and "rng:scipy" in ours.signature


@pytest.mark.parametrize("name,fn", [
    ("kendall_tau_b", lambda a, b: st.kendalltau(a, b).statistic),
    ("spearman", lambda a, b: st.spearmanr(a, b).statistic),
    ("pearson", lambda a, b: st.pearsonr(a, b).statistic),
])
@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_paired_statistic_interval_equals_scipy(name, fn, method):
    rng = np.random.default_rng(2)
    x = rng.integers(0, 6, 25).astype(float)
    y = x + rng.integers(0, 4, 25)
    ours = stats.bootstrap((x, y), name, n_resamples=199, method=method, seed=9, rng="scipy")
    theirs = st.bootstrap((x, y), fn, n_resamples=199, method=method, rng=9, paired=True, vectorized=False)
    np.testing.assert_allclose(ours.confidence_interval, tuple(theirs.confidence_interval), rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.distribution, theirs.bootstrap_distribution, rtol=0, atol=1e-12)


def test_fast_stream_is_reproducible_and_thread_count_free():
    x = np.random.default_rng(3).standard_normal(500)
    a = stats.bootstrap(x, "mean", n_resamples=999, seed=4, n_jobs=1)
    b = stats.bootstrap(x, "mean", n_resamples=999, seed=4, n_jobs=2)
    c = stats.bootstrap(x, "mean", n_resamples=999, seed=5, n_jobs=2)
    np.testing.assert_array_equal(a.distribution, b.distribution)
    assert not np.array_equal(a.distribution, c.distribution)


def test_fast_stream_replicates_are_means_of_the_documented_indices():
    x = np.random.default_rng(4).standard_normal(300)
    res = stats.bootstrap(x, "mean", n_resamples=50, seed=8, method="percentile")
    expected = [np.mean(x[ref_stream_indices(8, b, x.size)]) for b in range(50)]
    np.testing.assert_array_equal(res.distribution, expected)


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_fast_interval_coverage(method):
    # 95% intervals for the mean of exponential samples: coverage near nominal (BCa closer).
    rng = np.random.default_rng(6)
    hits = 0
    trials = 150
    for t in range(trials):
        x = rng.exponential(1.0, 40)
        res = stats.bootstrap(x, "mean", n_resamples=499, method=method, seed=t)
        hits += res.low <= 1.0 <= res.high
    assert 0.86 <= hits / trials <= 0.99


def test_bootstrap_bad_input():
    with pytest.raises(ValueError, match="at least 2 items, got 1"):
        stats.bootstrap([1.0], "mean")
    with pytest.raises(ValueError, match="statistic must be one of"):
        stats.bootstrap([1.0, 2.0], "median")
    with pytest.raises(ValueError, match="pair"):
        stats.bootstrap([1.0, 2.0], "pearson")
    with pytest.raises(ValueError, match=r"data contains NaN at index 1"):
        stats.bootstrap([1.0, np.nan, 2.0], "mean")
    assert stats.bootstrap([1.0, np.nan, 2.0, 4.0], "mean", nan_policy="omit", n_resamples=10).statistic == \
        pytest.approx(7 / 3)
    with pytest.raises(ValueError, match="n_resamples"):
        stats.bootstrap([1.0, 2.0], "mean", n_resamples=0)
    with pytest.raises(ValueError, match="seed"):
        stats.bootstrap([1.0, 2.0], "mean", seed=-1)


def test_degenerate_interval_is_nan_with_a_warning():
    from scipy.stats import DegenerateDataWarning

    with pytest.warns(DegenerateDataWarning):
        res = stats.bootstrap([1.0, 1.0, 1.0, 1.0], "mean", method="bca", n_resamples=100)
    assert math.isnan(res.low)


# ---------------------------------------------------------------- paired bootstrap test

def test_paired_means_equal_numpy_loop_on_the_same_indices():
    rng = np.random.default_rng(7)
    a = rng.random(200)
    b = a - 0.01 + rng.normal(0, 0.05, 200)
    res = stats.paired_bootstrap_means(a, b, n_resamples=300, seed=3)
    wins = 0
    diffs = []
    for r in range(300):
        idx = ref_stream_indices(3, r, 200)
        d = np.mean((a - b)[idx])
        diffs.append(d)
        wins += d > 0
    assert res.win_rate == wins / 300
    assert res.p_value == 1 - wins / 300
    assert res.difference == pytest.approx(a.mean() - b.mean(), abs=1e-15)
    assert (res.low, res.high) == pytest.approx(tuple(np.quantile(diffs, [0.025, 0.975])), abs=1e-15)


def test_paired_correlation_detects_the_better_metric():
    rng = np.random.default_rng(8)
    human = rng.random(300)
    good = human + rng.normal(0, 0.1, 300)
    bad = human + rng.normal(0, 0.6, 300)
    for statistic in ("pearson", "spearman", "kendall_tau_b", "rmse"):
        res = stats.paired_bootstrap_correlation(good, bad, human, statistic=statistic, n_resamples=200)
        assert res.win_rate == 1.0 and res.p_value == 0.0, statistic
        worse = stats.paired_bootstrap_correlation(bad, good, human, statistic=statistic, n_resamples=200)
        assert worse.win_rate == 0.0, statistic


def test_paired_correlation_replicates_equal_scipy_on_the_same_indices():
    rng = np.random.default_rng(9)
    human = rng.integers(0, 5, 60).astype(float)
    a = human + rng.integers(0, 3, 60)
    b = human + rng.integers(0, 6, 60)
    res = stats.paired_bootstrap_correlation(a, b, human, statistic="kendall_tau_b", n_resamples=40, seed=2)
    wins = 0
    for r in range(40):
        idx = ref_stream_indices(2, r, 60)
        wins += st.kendalltau(a[idx], human[idx]).statistic > st.kendalltau(b[idx], human[idx]).statistic
    assert res.win_rate == wins / 40


def test_paired_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="scores_a has items 3 but scores_b has items 2"):
        stats.paired_bootstrap_means([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="metric_b has items 2 but human has items 3"):
        stats.paired_bootstrap_correlation([1, 2, 3], [1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match=r"scores_b contains NaN at index 0"):
        stats.paired_bootstrap_means([1, 2], [np.nan, 2])


# ---------------------------------------------------------------- micro-averaged mean

def test_micro_average_unweighted_equals_scipy_sem():
    x = np.random.default_rng(10).random(57)
    res = stats.micro_average(x)
    assert res.mean == pytest.approx(np.mean(x), abs=1e-15)
    assert res.standard_error == pytest.approx(st.sem(x), rel=1e-12)
    z = st.norm.ppf(0.975)
    assert res.low == pytest.approx(res.mean - z * res.standard_error, rel=1e-12)


def test_micro_average_weighted_equals_plain_ratio_estimator():
    rng = np.random.default_rng(11)
    v, w = rng.random(30), rng.integers(1, 9, 30).astype(float)
    m = sum(a * b for a, b in zip(v, w)) / sum(w)
    se = math.sqrt(30 / 29 * sum((b * (a - m)) ** 2 for a, b in zip(v, w))) / sum(w)
    res = stats.micro_average(v, w, confidence_level=0.9)
    assert res.mean == pytest.approx(m, rel=1e-12)
    assert res.standard_error == pytest.approx(se, rel=1e-12)
    with pytest.raises(ValueError, match="weights must be finite and non-negative; -1.0 at index 0"):
        stats.micro_average([1, 2], [-1, 2])
    with pytest.raises(ValueError, match="at least 2 questions"):
        stats.micro_average([1.0])


# ---------------------------------------------------------------- rouge-score compatibility

Score = collections.namedtuple("Score", ["precision", "recall", "fmeasure"])
One = collections.namedtuple("One", ["value"])


@pytest.mark.parametrize("n_items", [1, 7, 130])
def test_rouge_aggregator_equals_rouge_score_for_the_same_seed(n_items):
    from rouge_score import scoring

    rng = np.random.default_rng(n_items)
    theirs, ours = scoring.BootstrapAggregator(), stats.BootstrapAggregator()
    for _ in range(n_items):
        scores = {"rouge1": Score(*rng.random(3)), "rougeL": Score(*rng.random(3)), "one": One(rng.random())}
        theirs.add_scores(scores)
        ours.add_scores(scores)
    np.random.seed(1234)
    expected = theirs.aggregate()
    np.random.seed(1234)
    assert ours.aggregate() == expected
    got = ours.aggregate  # same numbers from an explicit RandomState
    np.random.seed(1234)
    expected = theirs.aggregate()
    ours._random_state = np.random.RandomState(1234)
    assert got() == expected


def test_rouge_aggregator_on_real_rouge_score_testdata(shared_data):
    from rouge_score import rouge_scorer, scoring

    base = shared_data / "rouge_score"
    targets = (base / "target.txt").read_text(encoding="utf-8").splitlines()
    predictions = (base / "prediction.txt").read_text(encoding="utf-8").splitlines()
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeLsum"], use_stemmer=True)
    theirs, ours = scoring.BootstrapAggregator(), stats.BootstrapAggregator()
    for t, p in zip(targets, predictions):
        scores = scorer.score(t, p)
        theirs.add_scores(scores)
        ours.add_scores(scores)
    np.random.seed(0)
    expected = theirs.aggregate()
    np.random.seed(0)
    assert ours.aggregate() == expected


def test_rouge_aggregator_bad_arguments_like_rouge_score():
    with pytest.raises(ValueError, match="confidence_interval"):
        stats.BootstrapAggregator(confidence_interval=1.5)
    with pytest.raises(ValueError, match="n_samples"):
        stats.BootstrapAggregator(n_samples=0)


# ---------------------------------------------------------------- the resampling distribution of the stream

def test_bootstrap_standard_error_of_a_mean_is_sigma_over_sqrt_n():
    # The bootstrap distribution of a mean has standard deviation std(x, ddof=0) / sqrt(n); with
    # 4,000 replicates its estimate is within 1.1% (one sd), so 5% is a 4.5-sigma bound.
    x = np.random.default_rng(21).exponential(2.0, 3000)
    expected = np.std(x) / np.sqrt(x.size)
    res = stats.bootstrap(x, "mean", n_resamples=4000, method="percentile", seed=1)
    assert res.standard_error == pytest.approx(expected, rel=0.05)
    assert abs(res.distribution.mean() - x.mean()) < 4 * expected / np.sqrt(4000)
    fused = np.empty(4000)
    K.bootstrap_mean_difference(x, 4000, 1, fused)  # the fused kernel draws the same resamples
    np.testing.assert_allclose(fused, res.distribution, rtol=1e-12)
    # replicates are independent: consecutive ones are uncorrelated
    assert abs(np.corrcoef(fused[:-1], fused[1:])[0, 1]) < 4 / np.sqrt(4000)


def test_paired_win_rate_matches_the_normal_approximation():
    # With mean(d) / se(d) = z, a replicate mean is above 0 with probability about Phi(z).
    rng = np.random.default_rng(22)
    d = rng.normal(0, 1, 2000)
    d += 1.0 * d.std() / np.sqrt(d.size) - d.mean()  # observed z = 1 exactly
    res = stats.paired_bootstrap_means(d, np.zeros_like(d), n_resamples=4000, seed=3)
    assert res.win_rate == pytest.approx(st.norm.cdf(1.0), abs=0.03)


def test_paired_means_are_thread_count_free():
    rng = np.random.default_rng(23)
    a, b = rng.random(5000), rng.random(5000)
    one = stats.paired_bootstrap_means(a, b, n_resamples=1001, seed=4, n_jobs=1)
    two = stats.paired_bootstrap_means(a, b, n_resamples=1001, seed=4, n_jobs=2)
    assert one == two


def test_index_stream_is_uniform_over_full_blocks():
    n, reps = 1000, 200  # 7 full blocks a replicate, then the tail
    counts = np.zeros(n)
    for b in range(reps):
        counts += np.bincount(draw(12, b, n), minlength=n)
    assert st.chisquare(counts).pvalue > 1e-4


def test_samples_beyond_the_stream_index_range_are_an_error(monkeypatch):
    """Indices are 32-bit: more than 2**32 - 1 items is refused, never wrapped (limit lowered here)."""
    from qascore import validate

    monkeypatch.setattr(validate, "MAX_STREAM_ITEMS", 5)
    x = np.arange(6.0)
    with pytest.raises(ValueError, match="paired bootstrap: 6 items; the qascore resampling stream"):
        stats.paired_bootstrap_means(x, x[::-1], n_resamples=10)
    with pytest.raises(ValueError, match="bootstrap: 6 items"):
        stats.bootstrap(x, "mean", n_resamples=10, method="percentile")
    assert stats.bootstrap(x[:5], "mean", n_resamples=10, method="percentile").confidence_interval
    stats.bootstrap(x, "mean", n_resamples=10, method="percentile", rng="scipy")  # numpy's stream: no limit
