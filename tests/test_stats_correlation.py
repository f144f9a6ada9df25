"""Correlations against scipy itself and against plain-Python references (hypothesis inputs)."""
import math
import warnings

import numpy as np
import pytest
import scipy.stats as st
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs
from scipy.stats import ConstantInputWarning

from qascore import stats

STAT_TOL = 1e-12
P_RTOL = 1e-9
SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def assert_same(ours, theirs, tol):
    ours, theirs = float(ours), float(theirs)
    if math.isnan(theirs):
        assert math.isnan(ours), (ours, theirs)
    else:
        assert abs(ours - theirs) <= tol * max(1.0, abs(theirs)), (ours, theirs)


def assert_p(ours, theirs):
    ours, theirs = float(ours), float(theirs)
    if math.isnan(theirs):
        assert math.isnan(ours), (ours, theirs)
    else:
        assert abs(ours - theirs) <= P_RTOL * abs(theirs) + 1e-15, (ours, theirs)


@hs.composite
def paired(draw, min_size=2, max_size=80, nan=False):
    """Paired samples; often drawn from a few levels so ties abound, sometimes continuous."""
    n = draw(hs.integers(min_size, max_size))
    kind = draw(hs.sampled_from(["few", "ints", "floats"]))
    if kind == "few":
        elem = hs.sampled_from([0.0, 1.0, 2.0, 0.5])
    elif kind == "ints":
        elem = hs.integers(-20, 20).map(float)
    else:
        elem = hs.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
    x = np.array(draw(hs.lists(elem, min_size=n, max_size=n)))
    y = np.array(draw(hs.lists(elem, min_size=n, max_size=n)))
    if nan and n > 2 and draw(hs.booleans()):
        x[draw(hs.integers(0, n - 1))] = np.nan
    return x, y


# ---------------------------------------------------------------- plain-Python references

def ref_kendall_pairs(x, y):
    con = dis = xt = yt = both = 0
    n = len(x)
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0 and dy == 0:
                both += 1
            elif dx == 0:
                xt += 1
            elif dy == 0:
                yt += 1
            elif (dx > 0) == (dy > 0):
                con += 1
            else:
                dis += 1
    return con, dis, xt + both, yt + both


def ref_tau(x, y, variant):
    con, dis, xtie, ytie = ref_kendall_pairs(list(x), list(y))
    n = len(x)
    tot = n * (n - 1) // 2
    if xtie == tot or ytie == tot:
        return math.nan
    if variant == "a":
        return (con - dis) / tot
    if variant == "b":
        return (con - dis) / math.sqrt((tot - xtie) * (tot - ytie))
    if variant == "c":
        m = min(len(set(x)), len(set(y)))
        return 2 * (con - dis) / (n * n * (m - 1) / m)
    return math.nan if con + dis == 0 else (con - dis) / (con + dis)


def ref_average_ranks(v):
    order = sorted(range(len(v)), key=lambda i: v[i])
    ranks = [0.0] * len(v)
    i = 0
    while i < len(v):
        j = i
        while j + 1 < len(v) and v[order[j + 1]] == v[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def ref_pearson(x, y):
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    if sxx == 0 or syy == 0:
        return math.nan
    return sxy / math.sqrt(sxx * syy)


def quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


# ---------------------------------------------------------------- Kendall

@SETTINGS
@given(paired(), hs.sampled_from(["two-sided", "less", "greater"]))
def test_kendall_b_and_c_equal_scipy(xy, alternative):
    x, y = xy
    for variant in "bc":
        ours = quiet(stats.kendalltau, x, y, variant=variant, alternative=alternative)
        theirs = quiet(st.kendalltau, x, y, variant=variant, alternative=alternative)
        assert_same(ours.statistic, theirs.statistic, STAT_TOL)
        assert_p(ours.pvalue, theirs.pvalue)


@SETTINGS
@given(paired(max_size=40))
def test_kendall_variants_equal_plain_reference(xy):
    x, y = xy
    for variant, fn in (("a", None), ("b", None), ("c", None), ("gamma", stats.goodman_kruskal_gamma)):
        ours = quiet(fn, x, y) if fn else quiet(stats.kendalltau, x, y, variant=variant)
        assert_same(ours.statistic, ref_tau(x, y, variant), STAT_TOL)


@pytest.mark.parametrize("n", [24, 25, 100, 1000, 5000])
def test_kendall_merge_path_equals_scipy_with_ties(n):
    rng = np.random.default_rng(n)
    for x, y in [(rng.integers(0, 7, n), rng.integers(0, 5, n)),
                 (rng.standard_normal(n), rng.standard_normal(n))]:
        x = x.astype(float)
        y = (x + y).astype(float)
        for variant in "bc":
            ours, theirs = stats.kendalltau(x, y, variant=variant), st.kendalltau(x, y, variant=variant)
            assert_same(ours.statistic, theirs.statistic, STAT_TOL)
            assert_p(ours.pvalue, theirs.pvalue)


@pytest.mark.parametrize("n,swaps,method", [
    (5, 0, "auto"), (33, 3, "auto"), (34, 0, "auto"), (34, 1, "auto"), (50, 1, "auto"), (60, 40, "exact"),
    (170, 0, "auto"), (171, 1, "auto"), (180, 30, "exact"), (250, 0, "auto"), (40, 10, "asymptotic")])
@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_kendall_pvalue_regimes_equal_scipy(n, swaps, method, alternative):
    x = np.arange(n, dtype=float)
    y = x.copy()
    rng = np.random.default_rng(n + swaps)
    for i in rng.integers(0, n - 1, swaps):
        y[i], y[i + 1] = y[i + 1], y[i]
    for yy in (y, -y):
        ours = stats.kendalltau(x, yy, method=method, alternative=alternative)
        theirs = st.kendalltau(x, yy, method=method, alternative=alternative)
        assert_same(ours.statistic, theirs.statistic, STAT_TOL)
        assert_p(ours.pvalue, theirs.pvalue)


def test_kendall_exact_with_ties_is_an_error_like_scipy():
    with pytest.raises(ValueError, match="Ties found"):
        stats.kendalltau([1, 1, 2], [1, 2, 3], method="exact")


def test_kendall_signature_records_settings():
    res = stats.kendalltau([1, 2, 3], [1, 3, 2], variant="c")
    assert "variant:c" in res.signature and "method:auto" in res.signature
    tau, p = res
    assert tau == res.correlation


# ---------------------------------------------------------------- Spearman and Pearson

@SETTINGS
@given(paired(), hs.sampled_from(["two-sided", "less", "greater"]))
def test_spearman_equals_scipy_and_reference(xy, alternative):
    x, y = xy
    ours = quiet(stats.spearmanr, x, y, alternative=alternative)
    theirs = quiet(st.spearmanr, x, y, alternative=alternative)
    assert_same(ours.statistic, theirs.statistic, STAT_TOL)
    assert_p(ours.pvalue, theirs.pvalue)
    assert_same(ours.statistic, ref_pearson(ref_average_ranks(list(x)), ref_average_ranks(list(y))), 1e-9)


@SETTINGS
@given(paired(), hs.sampled_from(["two-sided", "less", "greater"]))
def test_pearson_equals_scipy_and_reference(xy, alternative):
    x, y = xy
    ours = quiet(stats.pearsonr, x, y, alternative=alternative)
    theirs = quiet(st.pearsonr, x, y, alternative=alternative)
    assert_same(ours.statistic, theirs.statistic, STAT_TOL)
    assert_p(ours.pvalue, theirs.pvalue)
    assert_same(ours.statistic, ref_pearson(list(x), list(y)), 1e-9)


def test_n_equals_two_matches_scipy():
    for fn, ref in ((stats.kendalltau, st.kendalltau), (stats.spearmanr, st.spearmanr), (stats.pearsonr, st.pearsonr)):
        for y in ([3.0, 4.0], [4.0, 3.0]):
            ours, theirs = fn([1.0, 2.0], y), ref([1.0, 2.0], y)
            assert_same(ours.statistic, theirs.statistic, STAT_TOL)
            assert_p(ours.pvalue, theirs.pvalue)


# ---------------------------------------------------------------- constant input, NaN, bad input

@pytest.mark.parametrize("fn,ref", [(stats.kendalltau, st.kendalltau), (stats.spearmanr, st.spearmanr),
                                    (stats.pearsonr, st.pearsonr)])
def test_constant_input_is_nan_with_a_warning(fn, ref):
    with pytest.warns(ConstantInputWarning, match="constant"):
        res = fn([2.0, 2.0, 2.0], [1.0, 2.0, 3.0])
    assert math.isnan(res.statistic) and math.isnan(res.pvalue)
    theirs = quiet(ref, [2.0, 2.0, 2.0], [1.0, 2.0, 3.0])
    assert math.isnan(theirs.statistic)


@SETTINGS
@given(paired(min_size=3, nan=True))
def test_nan_policies_match_scipy(xy):
    x, y = xy
    for fn, ref in ((stats.kendalltau, st.kendalltau), (stats.spearmanr, st.spearmanr)):
        ours = quiet(fn, x, y, nan_policy="propagate")
        theirs = quiet(ref, x, y, nan_policy="propagate")
        assert_same(ours.statistic, theirs.statistic, STAT_TOL)
        keep = ~np.isnan(x)
        if keep.sum() >= 2:
            ours = quiet(fn, x, y, nan_policy="omit")
            theirs = quiet(ref, x[keep], y[keep])
            assert_same(ours.statistic, theirs.statistic, STAT_TOL)
            assert_p(ours.pvalue, theirs.pvalue)
            assert ours.n == keep.sum()
        if not keep.all():
            with pytest.raises(ValueError, match=r"x contains NaN at index \d+"):
                fn(x, y, nan_policy="raise")


def test_pearson_omit_drops_pairs():
    x = np.array([1.0, np.nan, 3.0, 4.0, 7.0])
    y = np.array([2.0, 1.0, np.nan, 5.0, 1.0])
    ours = stats.pearsonr(x, y, nan_policy="omit")
    theirs = st.pearsonr([1.0, 4.0, 7.0], [2.0, 5.0, 1.0])
    assert_same(ours.statistic, theirs.statistic, STAT_TOL)
    assert ours.n == 3


@pytest.mark.parametrize("fn", [stats.kendalltau, stats.spearmanr, stats.pearsonr, stats.goodman_kruskal_gamma])
def test_bad_input_names_the_problem(fn):
    with pytest.raises(ValueError, match="x has items 3 but y has items 2"):
        fn([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="at least 2 paired items, got 1"):
        fn([1.0], [2.0])
    with pytest.raises(ValueError, match="at least 2 paired items, got 1 after omitting 2 pairs"):
        fn([1.0, np.nan, 3.0], [np.nan, 2.0, 1.0], nan_policy="omit")
    with pytest.raises(ValueError, match="nan_policy"):
        fn([1, 2], [1, 2], nan_policy="ignore")
    with pytest.raises(ValueError, match="1-D"):
        fn([[1, 2]], [[1, 2]])
    with pytest.raises(TypeError, match="real numbers"):
        fn(["a", "b"], [1, 2])


def test_infinity_is_ordinal_for_ranks_but_an_error_for_values():
    x, y = [1.0, np.inf, 3.0, -np.inf], [1.0, 2.0, 3.0, 0.0]
    assert_same(stats.kendalltau(x, y).statistic, st.kendalltau(x, y).statistic, STAT_TOL)
    assert_same(stats.spearmanr(x, y).statistic, st.spearmanr(x, y).statistic, STAT_TOL)
    with pytest.raises(ValueError, match=r"x contains inf at index 1"):
        stats.pearsonr(x, y)
    with pytest.raises(ValueError, match="finite"):
        stats.rmse(x, y)


# ---------------------------------------------------------------- RMSE and R^2

@SETTINGS
@given(paired())
def test_rmse_and_r2_equal_reference_and_sklearn(xy):
    from sklearn.metrics import r2_score as sk_r2

    x, y = xy
    ref = math.sqrt(sum((a - b) ** 2 for a, b in zip(x, y)) / len(x))
    assert_same(stats.rmse(x, y), ref, 1e-12)
    if np.all(x == x[0]):
        with pytest.warns(ConstantInputWarning):
            assert math.isnan(stats.r2_score(x, y))
        assert stats.r2_score(x, y, force_finite=True) == sk_r2(x, y)
    else:
        assert_same(stats.r2_score(x, y), sk_r2(x, y), 1e-12)


# ---------------------------------------------------------------- batched rows

@settings(max_examples=30, deadline=None)
@given(hs.integers(1, 6), hs.integers(2, 40), hs.integers(0, 2**32 - 1))
def test_rows_equal_one_call_per_row(rows, n, seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, (rows, n)).astype(float)
    Y = rng.integers(0, 4, (rows, n)).astype(float)
    if n > 2:
        X[0, 1] = np.nan
    for batch, single in ((stats.kendalltau_rows, stats.kendalltau), (stats.spearmanr_rows, stats.spearmanr),
                          (stats.pearsonr_rows, stats.pearsonr),
                          (stats.goodman_kruskal_gamma_rows, stats.goodman_kruskal_gamma)):
        for policy in ("propagate", "omit"):
            try:
                res = quiet(batch, X, Y, nan_policy=policy, n_jobs=2)
            except ValueError as exc:  # omit left fewer than two pairs in some row
                assert "at least 2 paired items in row" in str(exc) or rows == 1
                continue
            for r in range(rows):
                one = quiet(single, X[r], Y[r], nan_policy=policy)
                assert_same(res.statistic[r], one.statistic, 0)
                if res.pvalue is not None:
                    assert_same(res.pvalue[r], one.pvalue, 0)


def test_rows_errors_name_the_row():
    X = np.ones((3, 4))
    Y = np.arange(12.0).reshape(3, 4)
    Y[2, 3] = np.nan
    with pytest.raises(ValueError, match=r"Y contains NaN at row 2, index 3"):
        stats.kendalltau_rows(X, Y, nan_policy="raise")
    with pytest.warns(ConstantInputWarning, match=r"rows \[0, 1\]"):
        stats.spearmanr_rows(X, Y)
    with pytest.raises(ValueError, match=r"X has shape \(3, 4\) but Y has shape \(3, 3\)"):
        stats.pearsonr_rows(X, Y[:, :3])


def test_long_pair_numpy_sort_path_equals_row_kernel_and_scipy():
    rng = np.random.default_rng(21)
    x = rng.integers(0, 30, 6000).astype(float)
    y = x + rng.integers(0, 9, 6000)
    x[[5, 77]] = np.nan
    y[3000] = np.nan
    for variant in "abc":
        one = stats.kendalltau(x, y, variant=variant, nan_policy="omit")
        rows = stats.kendalltau_rows(x[None], y[None], variant=variant, nan_policy="omit")
        assert one.statistic == rows.statistic[0] and one.pvalue == rows.pvalue[0]
    keep = ~(np.isnan(x) | np.isnan(y))
    theirs = st.kendalltau(x[keep], y[keep])
    assert_same(one.statistic, st.kendalltau(x[keep], y[keep], variant="c").statistic, STAT_TOL)
    assert_p(stats.kendalltau(x, y, nan_policy="omit").pvalue, theirs.pvalue)
    assert math.isnan(stats.kendalltau(x, y).statistic)
