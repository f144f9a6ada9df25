"""StreamingBootstrap (the Poisson bootstrap over a stream of batches) against plain-Python
references: the documented weights, exact sums, split and merge invariance, the Poisson(1)
distribution of the weights, agreement with the resampling bootstrap, and bad input."""
import math
import pickle
import sys
import warnings
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
import scipy.stats as st
from hypothesis import given, settings
from hypothesis import strategies as hs

from qascore import stats
from qascore.metric import ExactSum
from qascore.stats import StreamingBootstrap
from qascore.stats import _kernels as K

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def ref_mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def ref_thresholds():
    """floor(P(X <= k) * 2**64), X ~ Poisson(1), from Decimal's exp (not the kernel's series)."""
    with localcontext() as ctx:
        ctx.prec = 80
        e = Decimal(-1).exp()
        out, cdf = [], Decimal(0)
        for k in range(40):
            cdf += e / math.factorial(k)
            t = int(cdf * 2**64)
            if t >= 2**64 - 1:
                return out
            out.append(t)
    raise AssertionError("unreachable")


THRESHOLDS = ref_thresholds()


def ref_weight(seed, i, r):
    """The documented weight of global example i in replicate r."""
    u = ref_mix((ref_mix(((i + 1) * GOLDEN) & MASK64) + ref_mix((seed * GOLDEN + r + 1) & MASK64)) & MASK64)
    return sum(u >= t for t in THRESHOLDS)


def kernel_weights(seed, start, n, n_resamples):
    out = np.empty((n, n_resamples), np.int64)
    K.poisson1_weights(K.example_keys(start, n), K.replicate_keys(seed, n_resamples), out)
    return out


def replicate_sums(acc, column=0):
    """Each replicate's summed statistic of one column (compute's view of the accumulator)."""
    return acc.compute(lambda sums, weight: sums[column]).distribution


def state(acc):
    return acc._limbs.tobytes(), acc._point.tobytes(), acc._weights.tobytes(), acc.ranges, acc.k


# ---------------------------------------------------------------- the weights


def test_poisson_thresholds_equal_an_independent_computation():
    assert K.POISSON1_THRESHOLDS.tolist() == THRESHOLDS
    assert K.MAX_POISSON1 == len(THRESHOLDS) == 20


@settings(max_examples=30, deadline=None)
@given(hs.integers(0, 2**63 - 1), hs.integers(0, 2**62), hs.integers(1, 40), hs.integers(1, 300))
def test_weights_equal_the_plain_reference(seed, start, n, n_resamples):
    got = kernel_weights(seed, start, n, n_resamples)
    for i in range(0, n, 7):
        for r in range(0, n_resamples, 13):
            assert got[i, r] == ref_weight(seed, start + i, r)


def test_weights_in_the_tail_take_the_loop():
    # weights of 6 and more go through _poisson_rows' second pass: find some and check them
    w = kernel_weights(5, 0, 2000, 200)
    big = np.argwhere(w >= 6)
    assert big.shape[0] > 50
    for i, r in big[:40]:
        assert w[i, r] == ref_weight(5, int(i), int(r))


def test_weights_are_poisson_1():
    """Chi-square against the Poisson(1) pmf, mean and variance 1, and no correlation between
    replicates or neighbouring examples (fixed seed, 400k weights)."""
    w = kernel_weights(7, 0, 4000, 100)
    counts = np.bincount(w.ravel(), minlength=8)
    observed = np.append(counts[:6], counts[6:].sum())
    pmf = st.poisson.pmf(np.arange(6), 1.0)
    expected = w.size * np.append(pmf, 1 - pmf.sum())
    assert st.chisquare(observed, expected).pvalue > 1e-4
    n = w.size
    assert abs(w.mean() - 1) < 4 / math.sqrt(n)
    assert abs(w.var() - 1) < 4 * math.sqrt(3 / n)  # Var((X - 1)**2) = mu_4 - 1 = 3 for Poisson(1)
    for a, b in ((w[:, 0], w[:, 1]), (w[:-1, 5], w[1:, 5]), (w[:, 0], w[:, 99])):
        assert abs(np.corrcoef(a, b)[0, 1]) < 4 / math.sqrt(a.size)


# ---------------------------------------------------------------- exact sums

EXTREME = [0.0, -0.0, 5e-324, -2.5e-310, 1e-300, 0.1, -0.7, 1.0, 3.0, 2.0**52 + 1, -1e17, 1e300, -1.7e306]


def test_replicate_sums_are_the_exact_weighted_sums_rounded_once():
    rng = np.random.default_rng(3)
    x = np.concatenate([EXTREME, rng.standard_normal(30) * 10.0 ** rng.integers(-20, 20, 30)])
    x = np.stack([x, x[::-1] * 0.5], axis=1)
    acc = StreamingBootstrap(n_resamples=20, seed=9).update(x[:10]).update(x[10:])
    w = kernel_weights(9, 0, x.shape[0], 20)
    for column in (0, 1):
        got = replicate_sums(acc, column)
        for r in range(20):
            exact = sum(Fraction(int(w[i, r])) * Fraction(float(x[i, column])) for i in range(x.shape[0]))
            assert got[r] == float(exact)
    point = acc.compute(lambda sums, weight: sums[1])
    assert point.statistic == float(sum(Fraction(float(v)) for v in x[:, 1]))
    assert acc.compute(lambda sums, weight: weight).statistic == x.shape[0]
    assert np.array_equal(acc.compute(lambda sums, weight: weight).distribution, w.sum(axis=0))


def test_sums_beyond_the_largest_double_are_infinite():
    acc = StreamingBootstrap(n_resamples=10).update([1.7e308] * 8)
    assert acc.compute(lambda sums, weight: sums[0]).statistic == math.inf
    acc = StreamingBootstrap(n_resamples=10).update([-1.7e308] * 8 + [1.7e308] * 7)
    assert acc.compute(lambda sums, weight: sums[0]).statistic == -1.7e308


# ---------------------------------------------------------------- split and merge invariance

finite = hs.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300)


@settings(max_examples=40, deadline=None)
@given(hs.lists(hs.tuples(finite, finite), min_size=2, max_size=60), hs.lists(hs.integers(0, 60), max_size=6),
       hs.integers(0, 2**63 - 1))
def test_any_split_into_batches_is_bit_identical(rows, cuts, seed):
    x = np.array(rows)
    whole = StreamingBootstrap(n_resamples=64, seed=seed).update(x)
    parts = StreamingBootstrap(n_resamples=64, seed=seed)
    bounds = [0, *sorted(min(c, len(x)) for c in cuts), len(x)]
    for lo, hi in zip(bounds, bounds[1:]):
        parts.update(x[lo:hi])
    assert state(parts) == state(whole)
    for column in (0, 1):
        assert replicate_sums(parts, column).tobytes() == replicate_sums(whole, column).tobytes()


@settings(max_examples=20, deadline=None)
@given(hs.lists(finite, min_size=2, max_size=50), hs.integers(1, 49), hs.integers(0, 2**40))
def test_batches_out_of_order_with_start_are_bit_identical(values, cut, offset):
    x = np.array(values)
    cut = min(cut, len(x) - 1)
    whole = StreamingBootstrap(n_resamples=32).update(x, start=offset)
    late_first = StreamingBootstrap(n_resamples=32).update(x[cut:], start=offset + cut).update(x[:cut], start=offset)
    assert state(late_first) == state(whole)


def test_merge_of_workers_equals_one_stream():
    x = np.random.default_rng(0).beta(2, 5, size=(3000, 3))
    whole = StreamingBootstrap(n_resamples=200, seed=4).update(x)
    a = StreamingBootstrap(n_resamples=200, seed=4).update(x[:1000]).update(x[2500:], start=2500)
    b = StreamingBootstrap(n_resamples=200, seed=4).update(x[1000:2500], start=1000)
    # workers ship partial accumulators pickled (Ray, Spark)
    a, b = pickle.loads(pickle.dumps(a)), pickle.loads(pickle.dumps(b))
    merged_ab = pickle.loads(pickle.dumps(a)).merge(b)
    merged_ba = b.merge(a)
    assert merged_ab.ranges == [(0, 3000)] and merged_ab.n == 3000
    assert state(merged_ab) == state(whole) == state(merged_ba)
    expected = whole.compute()
    got = merged_ab.compute()
    assert (got.statistic, got.low, got.high, got.standard_error) == (
        expected.statistic, expected.low, expected.high, expected.standard_error)


def test_merge_into_an_empty_accumulator_and_pickle_midstream():
    x = np.random.default_rng(1).random(500)
    whole = StreamingBootstrap(n_resamples=50).update(x)
    half = pickle.loads(pickle.dumps(StreamingBootstrap(n_resamples=50).update(x[:250])))
    assert state(half.update(x[250:])) == state(whole)
    assert state(StreamingBootstrap(n_resamples=50).merge(whole)) == state(whole)
    assert state(StreamingBootstrap(n_resamples=50).update(x).merge(StreamingBootstrap(n_resamples=50))) == state(whole)


def test_long_batches_are_carried_in_pieces(monkeypatch):
    # a batch of more than _NORMALISE_EVERY (2**24) examples is added in pieces, carrying between them
    x = np.random.default_rng(4).standard_normal((300, 2))
    whole = StreamingBootstrap(n_resamples=40).update(x)
    # qascore.stats.bootstrap names the function; the module is in sys.modules
    monkeypatch.setattr(sys.modules["qascore.stats.bootstrap"], "_NORMALISE_EVERY", 7)
    assert state(StreamingBootstrap(n_resamples=40).update(x)) == state(whole)


def test_results_do_not_depend_on_the_thread_count():
    x = np.random.default_rng(2).random(5000)
    one = StreamingBootstrap(n_resamples=300, n_jobs=1).update(x)
    two = StreamingBootstrap(n_resamples=300, n_jobs=2).update(x)
    assert state(one) == state(two)


def test_merge_refuses_incompatible_accumulators():
    a = StreamingBootstrap(n_resamples=10, seed=1).update([0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="seed 1 and 2"):
        a.merge(StreamingBootstrap(n_resamples=10, seed=2).update([0.5], start=3))
    with pytest.raises(ValueError, match="n_resamples 10 and 11"):
        a.merge(StreamingBootstrap(n_resamples=11, seed=1).update([0.5], start=3))
    with pytest.raises(ValueError, match="1 and 2 columns"):
        a.merge(StreamingBootstrap(n_resamples=10, seed=1).update([[0.5, 1.0]], start=3))
    with pytest.raises(ValueError, match=r"merge: examples \[2, 4\) overlap the examples \[0, 3\)"):
        a.merge(StreamingBootstrap(n_resamples=10, seed=1).update([0.5, 0.6], start=2))
    with pytest.raises(TypeError, match="StreamingBootstrap"):
        a.merge(stats.bootstrap)
    assert a.ranges == [(0, 3)]  # nothing changed by the refused merges


# ---------------------------------------------------------------- the interval


def test_mean_interval_agrees_with_the_resampling_bootstrap():
    """Poisson and multinomial bootstraps estimate the same sampling distribution: on 2000 skewed
    scores their percentile intervals agree to a fraction of a standard error (Monte Carlo noise
    of the 95% endpoints with 4000 replicates is about 0.05 SE)."""
    scores = np.random.default_rng(11).beta(0.8, 3.0, 2000)
    acc = StreamingBootstrap(n_resamples=4000, seed=0)
    for batch in np.array_split(scores, 9):
        acc.update(batch)
    got = acc.compute()
    ref = stats.bootstrap(scores, "mean", method="percentile", n_resamples=4000, seed=0)
    assert got.statistic == float(sum(map(Fraction, scores.tolist())) / scores.size)  # correctly rounded
    assert got.statistic == pytest.approx(ref.statistic, rel=1e-15)
    assert got.statistic == ExactSum.of(scores).mean(scores.size)  # what a Metric's streamed mean gives
    se = ref.standard_error
    assert se == pytest.approx(scores.std(ddof=1) / math.sqrt(scores.size), rel=0.06)
    assert got.standard_error == pytest.approx(se, rel=0.06)
    assert abs(got.low - ref.low) < 0.3 * se and abs(got.high - ref.high) < 0.3 * se
    assert got.low < got.statistic < got.high
    assert got.distribution.shape == (4000,)
    assert got.signature.startswith("qascore:streaming_bootstrap|statistic:mean|method:percentile|weights:poisson1")


def corpus_bleu_of_sums(sums, weight=None):
    """Corpus BLEU (no smoothing) of summed [matches_1..4, totals_1..4, hyp_len, ref_len]."""
    matches, totals, hyp, ref = sums[:4], sums[4:8], sums[8], sums[9]
    if np.any(matches == 0):
        return 0.0
    log_precision = np.mean(np.log(matches / totals))
    brevity = 1.0 if hyp > ref else math.exp(1 - ref / hyp)
    return 100 * brevity * math.exp(log_precision)


def test_corpus_bleu_interval_from_summed_statistics():
    """Per-segment BLEU statistics (plain numpy, not qascore.lexical): the interval of corpus
    BLEU from streamed sums, against a multinomial bootstrap of the same statistic."""
    rng = np.random.default_rng(5)
    n = 1500
    hyp_len = rng.integers(5, 40, n)
    totals = np.stack([np.maximum(hyp_len - g, 0) for g in range(4)], axis=1)
    quality = rng.beta(4, 3, n)[:, None] ** np.arange(1, 5)  # higher orders match less
    matches = rng.binomial(totals, quality)
    ref_len = hyp_len + rng.integers(-3, 6, n)
    columns = np.column_stack([matches, totals, hyp_len, ref_len]).astype(np.float64)
    acc = StreamingBootstrap(n_resamples=1000, seed=2)
    for start in range(0, n, 256):
        acc.update(columns[start:start + 256])
    got = acc.compute(corpus_bleu_of_sums)
    assert got.statistic == corpus_bleu_of_sums(columns.sum(axis=0))
    idx = np.random.default_rng(0).integers(0, n, (1000, n))
    reference = np.array([corpus_bleu_of_sums(columns[i].sum(axis=0)) for i in idx])
    assert got.standard_error == pytest.approx(reference.std(ddof=1), rel=0.15)
    low, high = np.quantile(reference, (0.025, 0.975))
    assert abs(got.low - low) < 0.5 * got.standard_error and abs(got.high - high) < 0.5 * got.standard_error
    assert "statistic:corpus_bleu_of_sums" in got.signature


def test_a_replicate_with_undefined_statistic_gives_nan_bounds_with_a_warning():
    acc = StreamingBootstrap(n_resamples=200, seed=0).update([0.2, 0.4])  # P(total weight 0) = e**-2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = acc.compute()
    assert math.isnan(res.low) and math.isnan(res.high) and res.statistic == pytest.approx(0.3)
    assert any("total weight 0" in str(w.message) for w in caught)


# ---------------------------------------------------------------- bad input


def test_bad_input_is_a_clear_error():
    acc = StreamingBootstrap(n_resamples=10)
    with pytest.raises(ValueError, match=r"compute\(\) before any update"):
        acc.compute()
    acc.update([])  # an empty batch is a valid no-op
    assert acc.n == 0 and acc.k is None
    with pytest.raises(ValueError, match=r"compute\(\) before any update"):
        acc.compute()
    with pytest.raises(ValueError, match=r"1-D array .* 2-D \[n, k\] .* shape \(2, 2, 2\)"):
        acc.update(np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match=r"shape \(\)"):
        acc.update(0.5)
    with pytest.raises(ValueError, match="values contains nan at index 2"):
        acc.update([0.1, 0.2, math.nan])
    with pytest.raises(ValueError, match=r"values contains inf at row 1, index 0"):
        StreamingBootstrap().update([[1.0, 2.0], [math.inf, 0.0]])
    with pytest.raises(TypeError, match="values contains None at index 1"):
        acc.update([0.1, None])
    acc.update([0.5])
    with pytest.raises(ValueError, match="values has 2 columns but this accumulator holds 1"):
        acc.update([[0.1, 0.2]])
    with pytest.raises(ValueError, match="at least 2 items, got 1"):
        acc.compute()
    with pytest.raises(ValueError, match=r"update: examples \[0, 1\) overlap the examples \[0, 1\)"):
        acc.update([0.3], start=0)
    with pytest.raises(ValueError, match="start"):
        acc.update([0.3], start=-1)
    acc.update([0.7])
    with pytest.raises(TypeError, match="statistic must be None or a callable"):
        acc.compute("mean")
    for bad in ({"n_resamples": 0}, {"seed": -1}, {"confidence_level": 1.0}):
        with pytest.raises(ValueError):
            StreamingBootstrap(**bad)
    assert acc.n == 2 and acc.ranges == [(0, 2)]  # refused batches left no trace


def test_point_estimate_equals_the_metric_streamed_mean():
    """The docs' example: per-example ROUGE-L F fed batch by batch; the point estimate is the
    figure Rouge's own update()/compute() gives, bit for bit."""
    from qascore.lexical import Rouge

    rng = np.random.default_rng(8)
    words = np.array("the a cat dog sat ran on under mat tree quickly slowly".split())
    predictions = [" ".join(rng.choice(words, rng.integers(0, 12))) for _ in range(300)]
    references = [" ".join(rng.choice(words, rng.integers(1, 12))) for _ in range(300)]
    rouge = Rouge(["rougeL"])
    acc = StreamingBootstrap(n_resamples=200)
    for lo in range(0, 300, 64):
        batch = predictions[lo:lo + 64], references[lo:lo + 64]
        acc.update(rouge.score(*batch)["rougeL_fmeasure"])
        rouge.update(*batch)
    res = acc.compute()
    assert res.statistic == rouge.compute()["rougeL_fmeasure"]
    assert res.low < res.statistic < res.high
