"""NuggetF, the Metric face of the official nugget F: parity with score_run, streaming, errors."""
from importlib import resources

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qascore.metric import Statistics
from qascore.nuggets import NuggetF, Nuggeteer, read_answer_key, read_judgements, read_runs, score_judged_runs
from qascore.nuggets.formats import Response
from qascore.nuggets.official import score_run

DEMO = resources.files("qascore") / "demo_data" / "nuggets"


def _judged_batch(key, judged, tag):
    run = judged.runs[tag]
    matched = {qid: [n for item in items for n in judged.nuggets_of(tag, qid, item.item)]
               for qid, items in run.responses.items()}
    return matched, run.responses


def test_corpus_score_equals_the_official_run_mean_on_the_demo_judgements():
    key = read_answer_key(DEMO / "answer_key.txt")
    judged = read_judgements(DEMO / "judgements.txt")
    official = score_judged_runs(key, judged, beta=3)
    metric = NuggetF(key, beta=3)
    for tag in judged.runs:
        matched, responses = _judged_batch(key, judged, tag)
        got = metric.corpus_score(matched, responses)
        assert got["f"] == official[tag].mean
        per_q = metric.score(matched, responses)
        assert dict(zip(per_q.ids, per_q["f"].tolist())) == {q: s.f for q, s in official[tag].questions.items()
                                                              if q in per_q.ids}
        assert got.n == len(key) and "qascore:nugget-f|beta:3.0" in got.signature


@pytest.fixture(scope="module")
def key2004(restricted_data):
    return read_answer_key(restricted_data / "nuggets" / "trec_qa" / "trec13answers_other")


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_streaming_over_question_batches_matches_score_run(key2004, data):
    qids = list(key2004.questions)
    chosen = data.draw(st.lists(st.sampled_from(qids), min_size=1, max_size=25, unique=True))
    matched, responses = {}, {}
    for qid in chosen:
        ids = [n.nugget_id for n in key2004[qid].nuggets]
        matched[qid] = data.draw(st.lists(st.sampled_from(ids), max_size=len(ids)))
        length = data.draw(st.integers(0, 2000))
        responses[qid] = [Response(qid, "R", 1, "doc", "x" * length)]
    expected = score_run(key2004, "R", matched, responses, beta=3)
    metric = NuggetF(key2004, beta=3)
    assert metric.corpus_score(matched, responses)["f"] == pytest.approx(expected.mean, rel=1e-12, abs=1e-15)
    cut = data.draw(st.integers(0, len(chosen)))
    for part in (chosen[:cut], chosen[cut:]):
        metric.update({q: matched[q] for q in part}, {q: responses[q] for q in part})
    assert metric.compute()["f"] == pytest.approx(expected.mean, rel=1e-12, abs=1e-15)


def test_errors_name_the_problem():
    key = read_answer_key(DEMO / "answer_key.txt")
    metric = NuggetF(key)
    with pytest.raises(ValueError, match="not in the answer key: nope"):
        metric.score({"nope": []})
    too_many = Statistics({"f": 0.0, "recall": 0.0, "precision": 0.0}, len(key) + 1)
    with pytest.raises(ValueError, match="more than one batch"):
        metric.aggregate(too_many)
    with pytest.raises(ValueError, match="beta"):
        NuggetF(key, beta=0)


def test_nuggeteer_interval_stays_inside_0_1(monkeypatch):
    """Two questions with F 1 and 0: mean 0.5 +- 1.96 * 0.5 would reach below 0 and above 1."""
    import qascore.stats as stats_module
    from qascore.stats import micro_average

    assert micro_average([1.0, 0.0]).low < 0 < 1 < micro_average([1.0, 0.0]).high
    key = read_answer_key(DEMO / "answer_key.txt")
    runs = list(read_runs(DEMO / "run.txt").values())
    model = Nuggeteer(key, judgements=read_judgements(DEMO / "judgements.txt"))
    # score_assignment imports micro_average from qascore.stats when it runs, so the patch goes there
    monkeypatch.setattr(stats_module, "micro_average", lambda values: micro_average([1.0, 0.0]))
    score = model.score(runs, beta=3)[0]
    assert score.interval == (0.0, 1.0)
