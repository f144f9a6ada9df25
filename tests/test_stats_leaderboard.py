"""Leaderboards: ranks, tie-breaking correlation, bootstrap of leaderboard correlation, compare."""
import numpy as np
import pytest
import scipy.stats as st
from test_stats_bootstrap import MASK64, ref_mix, ref_stream_indices

from qascore import stats
from qascore.stats.leaderboard import paired_pvalue


def make_boards(n_sys=16, n_q=131, seed=0):
    rng = np.random.default_rng(seed)
    quality = rng.random(n_sys)
    a = quality[:, None] + rng.normal(0, 0.3, (n_sys, n_q))
    b = quality[:, None] + rng.normal(0, 0.3, (n_sys, n_q))
    names = [f"sys{i:02d}" for i in range(n_sys)]
    return stats.Leaderboard(a, systems=names, name="A"), stats.Leaderboard(b, systems=names, name="B")


def test_means_standard_errors_and_ranks():
    board = stats.Leaderboard({"x": [1.0, 2.0, 3.0], "y": [2.0, 2.0, 2.0], "z": [0.0, 1.0, 2.0]})
    np.testing.assert_array_equal(board.means, [2.0, 2.0, 1.0])
    np.testing.assert_allclose(board.standard_errors, [st.sem([1, 2, 3]), 0.0, st.sem([0, 1, 2])], rtol=1e-15)
    np.testing.assert_array_equal(board.ranks(), [1.5, 1.5, 3.0])
    np.testing.assert_array_equal(board.ranks("min"), [1, 1, 3])
    assert [s for s, _, _ in board.ranking()] == ["x", "y", "z"]
    lower = stats.Leaderboard.from_means({"x": 0.3, "y": 0.1}, higher_is_better=False)
    np.testing.assert_array_equal(lower.ranks(), [2.0, 1.0])
    np.testing.assert_array_equal(lower.standard_errors, [0.0, 0.0])


def ref_tie_groups(means, ses):
    order = sorted(range(len(means)), key=lambda i: -means[i])
    groups = [[order[0]]]
    for p, c in zip(order, order[1:]):
        if means[p] - means[c] <= max(ses[p], ses[c]):
            groups[-1].append(c)
        else:
            groups.append([c])
    return groups


def test_tie_groups_chain_within_standard_error():
    a, _ = make_boards(seed=3)
    assert a.tie_groups() == ref_tie_groups(list(a.means), list(a.standard_errors))
    assert all(len(g) == 1 for g in a.tie_groups("none"))
    exact = stats.Leaderboard.from_means({"p": 1.0, "q": 1.0, "r": 0.5})
    assert exact.tie_groups("exact") == [[0, 1], [2]]


def test_correlation_without_ties_equals_scipy_on_means():
    a = stats.Leaderboard.from_means({"s1": 0.9, "s2": 0.5, "s3": 0.7, "s4": 0.1}, name="A")
    b = stats.Leaderboard.from_means({"s4": 0.2, "s3": 0.8, "s2": 0.7, "s1": 0.6}, name="B")
    res = stats.leaderboard_correlation(a, b, repeats=5)
    bm = [0.6, 0.7, 0.8, 0.2]  # b's means in a's system order
    assert res.spearman_mean == pytest.approx(st.spearmanr(a.means, bm).statistic, abs=1e-12)
    assert res.kendall_mean == pytest.approx(st.kendalltau(a.means, bm).statistic, abs=1e-12)
    assert res.spearman_std == 0.0 and res.kendall_std == 0.0


def test_random_tie_breaking_respects_groups_and_matches_scipy_per_repeat():
    a, b = make_boards(seed=5)
    res = stats.leaderboard_correlation(a, b, repeats=10, seed=1)
    for board, ranks in ((a, res.ranks_a), (b, res.ranks_b)):
        groups = board.tie_groups()
        for row in ranks:
            assert sorted(row) == list(range(1, 17))
            start = 1
            for g in groups:
                assert sorted(row[g]) == list(range(start, start + len(g)))
                start += len(g)
    for r in range(10):
        assert res.spearman[r] == pytest.approx(st.spearmanr(res.ranks_a[r], res.ranks_b[r]).statistic, abs=1e-12)
        assert res.kendall[r] == pytest.approx(st.kendalltau(res.ranks_a[r], res.ranks_b[r]).statistic, abs=1e-12)
    assert res.spearman_mean == pytest.approx(res.spearman.mean())
    assert res.kendall_std == pytest.approx(np.std(res.kendall, ddof=1))
    assert any(len(g) > 1 for g in a.tie_groups())
    assert res.spearman_std > 0
    again = stats.leaderboard_correlation(a, b, repeats=10, seed=1)
    np.testing.assert_array_equal(again.kendall, res.kendall)
    assert "repeats:10" in res.signature and "seed:1" in res.signature


def test_missing_system_names_which_and_where():
    a = stats.Leaderboard.from_means({"s1": 1, "s2": 2, "s3": 3}, name="official")
    b = stats.Leaderboard.from_means({"s1": 1, "s2": 2, "s9": 3}, name="exam")
    with pytest.raises(ValueError, match=r"leaderboard 'exam' is missing systems \['s3'\] that 'official' has; "
                                         r"leaderboard 'official' is missing systems \['s9'\] that 'exam' has"):
        stats.leaderboard_correlation(a, b)


def test_leaderboard_bad_input():
    with pytest.raises(ValueError, match=r"system 'b' has nan at query 1"):
        stats.Leaderboard({"a": [1, 2], "b": [1, np.nan]}, name="x")
    with pytest.raises(ValueError, match="different numbers of query scores"):
        stats.Leaderboard({"a": [1, 2], "b": [1]})
    with pytest.raises(ValueError, match="at least 2 systems"):
        stats.Leaderboard({"a": [1, 2]})
    with pytest.raises(ValueError, match="needs `systems`"):
        stats.Leaderboard(np.ones((2, 3)))


def test_bootstrap_leaderboard_correlation_equals_scipy_on_documented_indices():
    a, b = make_boards(seed=7)
    res = stats.bootstrap_leaderboard_correlation(a, b, n_resamples=30, seed=4)
    for r in range(30):
        idx = ref_stream_indices(4, r, 131)
        expected = st.kendalltau(a.scores[:, idx].mean(axis=1), b.scores[:, idx].mean(axis=1)).statistic
        assert res.distribution[r] == pytest.approx(expected, abs=1e-12)
    assert res.statistic == pytest.approx(st.kendalltau(a.means, b.means).statistic, abs=1e-12)
    assert res.low <= res.high
    bca = stats.bootstrap_leaderboard_correlation(a, b, n_resamples=200, seed=4, method="bca", statistic="spearman")
    assert -1 <= bca.low <= bca.high <= 1


def test_bootstrap_leaderboard_queries_must_align():
    a, b = make_boards(n_q=10)
    short = stats.Leaderboard(b.scores[:, :9], systems=b.systems)
    with pytest.raises(ValueError, match="10 and 9 queries"):
        stats.bootstrap_leaderboard_correlation(a, short)
    qa = stats.Leaderboard(a.scores, systems=a.systems, queries=[f"q{i}" for i in range(10)])
    qb = stats.Leaderboard(b.scores[:, ::-1], systems=b.systems, queries=[f"q{i}" for i in range(10)][::-1])
    plain = stats.bootstrap_leaderboard_correlation(a, b, n_resamples=20)
    aligned = stats.bootstrap_leaderboard_correlation(qa, qb, n_resamples=20)
    np.testing.assert_array_equal(plain.distribution, aligned.distribution)


# ---------------------------------------------------------------- compare

def ref_sign_flip_means(d, n_resamples, seed):
    out = []
    for b in range(n_resamples):
        state = ref_mix((seed * 0x9E3779B97F4A7C15 + b + 1) & MASK64)
        flipped = []
        for i, v in enumerate(d):
            if i % 64 == 0:
                state = (state + 0x9E3779B97F4A7C15) & MASK64
                bits = ref_mix(state)
            flipped.append(-v if (bits >> (i % 64)) & 1 else v)
        out.append(np.mean(flipped))
    return np.array(out)


def test_paired_pvalues_equal_references():
    rng = np.random.default_rng(12)
    x = rng.random(70)
    y = x - 0.03 + rng.normal(0, 0.1, 70)
    d = x - y
    assert paired_pvalue(d, "student", 0, 0) == pytest.approx(st.ttest_rel(x, y).pvalue, rel=1e-9)
    flips = ref_sign_flip_means(d, 200, 3)
    expected = (np.count_nonzero(np.abs(flips) >= abs(d.mean())) + 1) / 201
    assert paired_pvalue(d, "randomization", 200, 3) == expected
    boots = np.array([np.mean(d[ref_stream_indices(3, r, 70)]) for r in range(200)])
    expected = (np.count_nonzero(np.abs(boots - d.mean()) >= abs(d.mean())) + 1) / 201
    assert paired_pvalue(d, "paired_bootstrap", 200, 3) == expected


@pytest.mark.parametrize("test", ["paired_bootstrap", "student", "randomization"])
def test_compare_table_marks_significant_wins(test):
    rng = np.random.default_rng(13)
    base = rng.random(200)
    scores = {"best": base + 0.3, "middle": base + 0.1 + rng.normal(0, 0.01, 200), "twin": base + 0.1}
    ndcg = stats.Leaderboard(scores, name="nDCG")
    err = stats.Leaderboard({k: -v for k, v in scores.items()}, name="error", higher_is_better=False)
    table = stats.compare({"nDCG": ndcg, "error": err}, test=test, n_resamples=500)
    assert table.beats("nDCG", 0, 1) and table.beats("nDCG", 0, 2)
    assert table.beats("error", 0, 1)
    assert not table.beats("nDCG", 1, 0) and not table.beats("nDCG", 1, 2) and not table.beats("nDCG", 2, 1)
    text = str(table)
    assert text.splitlines()[0].split() == ["#", "System", "nDCG", "error"]
    assert "ᵇᶜ" in text.splitlines()[2]
    assert "[b,c]" in table.to_text(ascii_only=True)
    assert f"{test} test" in text


def test_compare_bonferroni_and_bad_input():
    a, _ = make_boards(n_sys=4, n_q=30)
    plain = stats.compare(a, test="student")
    corrected = stats.compare(a, test="student", bonferroni=True)
    np.testing.assert_allclose(corrected.pvalues, np.minimum(1, plain.pvalues * 6))
    with pytest.raises(ValueError, match="test must be one of"):
        stats.compare(a, test="wilcoxon")
    with pytest.raises(ValueError, match="one score per system"):
        stats.compare(stats.Leaderboard.from_means({"a": 1, "b": 2}))


def test_from_means_with_published_standard_errors_ties_within_them():
    from qascore.stats import Leaderboard
    board = Leaderboard.from_means({"a": 0.50, "b": 0.45, "c": 0.20}, name="official",
                                   standard_errors={"a": 0.06, "b": 0.01, "c": 0.01})
    assert list(board.standard_errors) == [0.06, 0.01, 0.01]
    assert list(board.means) == [0.50, 0.45, 0.20]
    sub = board.subset(["c", "a"])
    assert list(sub.standard_errors) == [0.01, 0.06]
    with pytest.raises(ValueError, match=r"no standard error for systems \['c'\]"):
        Leaderboard.from_means({"a": 0.5, "b": 0.4, "c": 0.1}, standard_errors={"a": 0.1, "b": 0.1})
    with pytest.raises(ValueError, match="must be >= 0"):
        Leaderboard.from_means({"a": 0.5, "b": 0.4}, standard_errors={"a": -0.1, "b": 0.1})
