"""qascore.metric, the one metric interface: statistics add, streaming equals one batch, errors."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qascore.metric import CorpusScore, ExampleScores, Metric, Statistics, mean_statistics, mean_values


class Length(Metric):
    """A toy metric over integers, so the base class is tested on its own: sum of lengths."""

    name = "length"

    def settings(self):
        return {"unit": "chars"}

    def score(self, texts):
        return ExampleScores(self.name, {"length": np.array([len(t) for t in texts], dtype=np.float64)},
                             self.signature())

    def statistics(self, texts):
        scores = self.score(texts)
        return mean_statistics(scores.columns, len(scores))

    def aggregate(self, statistics):
        return CorpusScore(self.name, mean_values(statistics), statistics.n, self.signature())


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(max_size=8), max_size=30), st.integers(0, 30))
def test_update_compute_equals_corpus_score_for_any_split(texts, cut):
    metric = Length()
    metric.update(texts[:cut])
    metric.update(texts[cut:])
    streamed = metric.compute()
    whole = metric.corpus_score(texts)
    assert streamed.values == pytest.approx(whole.values, rel=1e-12) and streamed.n == whole.n == len(texts)
    metric.reset()
    with pytest.raises(ValueError, match="before any update"):
        metric.compute()


def test_results_signature_records_and_json_ready_dicts():
    metric = Length()
    scores = metric.score(["ab", ""])
    assert list(scores.records()) == [{"index": 0, "length": 2.0}, {"index": 1, "length": 0.0}]
    corpus = metric.corpus_score(["ab", ""])
    assert corpus["length"] == 1.0 and corpus.signature.startswith("qascore:length|unit:chars|version:")
    assert corpus.to_dict() == {"metric": "length", "n": 2, "length": 1.0, "signature": corpus.signature}
    assert metric.corpus_score([]).values == {"length": 0.0}  # an empty corpus is 0, never NaN
    assert repr(metric) == "Length(unit='chars')"


def test_statistics_of_different_figures_do_not_add():
    with pytest.raises(ValueError, match="cannot add statistics"):
        Statistics({"a": 1.0}, 1) + Statistics({"b": 1.0}, 1)
    total = Statistics({"a": np.array([1, 2])}, 1) + Statistics({"a": np.array([3, 4])}, 2)
    assert total.n == 3 and total.sums["a"].tolist() == [4, 6]
