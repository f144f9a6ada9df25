"""The default judge's parts: triage features and bands, the calibrated cascade, and the verdict cache."""
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qascore.judges import CachedJudge, CalibratedCascade, Judge, load_judge
from qascore.judges.cascade import STAGES
from qascore.judges.triage import TRIAGE_FEATURES, TriageModel, choose_bands, triage_features
from qascore.text.answers import normalise_answer


def feature(name, row):
    return row[TRIAGE_FEATURES.index(name)]


def test_triage_features_read_whole_words_numbers_and_negation():
    rows = triage_features(
        ["who wrote hamlet", "when did it open", "when did it open", "who wrote hamlet", "who wrote hamlet"],
        [["Shakespeare", "William Shakespeare"], "16 June 1904", "1904", "Marlowe", "Shakespeare"],
        ["It was William Shakespeare.", "It opened on 16 June 1904", "It opened in 1916", "not Marlowe",
         "Shakespeareana"])
    assert feature("contained", rows[0]) == 1.0 and feature("recall", rows[0]) == 1.0
    assert feature("number_match", rows[1]) == 1.0 and feature("number_conflict", rows[1]) == 0.0
    assert feature("number_conflict", rows[2]) == 1.0 and feature("number_match", rows[2]) == 0.0
    assert feature("negated", rows[3]) == 1.0 and feature("negated", rows[0]) == 0.0
    # a substring inside a longer word is not a contained reference (EVOUNA's containment would say it is)
    assert feature("contained", rows[4]) == 0.0 and feature("recall", rows[4]) == 0.0
    assert 0.0 <= feature("linear", rows[0]) <= 1.0


words = st.sampled_from(["the", "Paris", "paris,", "city", "Lyon", "of", "France.", "1904", "not", "16"])
texts = st.lists(words, min_size=0, max_size=6).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(refs=st.lists(texts, min_size=1, max_size=4), candidate=texts, question=texts)
def test_contained_and_recall_match_a_plain_reference(refs, candidate, question):
    row = triage_features([question], [refs], [candidate])[0]
    cand = normalise_answer(candidate).split()
    runs = [normalise_answer(r).split() for r in refs]
    contained = any(r and any(cand[i:i + len(r)] == r for i in range(len(cand) - len(r) + 1)) for r in runs)
    recall = max((sum(w in set(cand) for w in r) / len(r) for r in runs if r), default=0.0)
    assert feature("contained", row) == float(contained)
    assert feature("recall", row) == pytest.approx(recall)


def test_triage_features_do_not_depend_on_the_batch():
    q = ["who wrote hamlet", "capital of france", "capital of france"]
    r = [["Shakespeare", "William Shakespeare"], "Paris", ["Lyon", "Paris"]]
    c = ["It was William Shakespeare.", "I think it's Marseille", "the answer is PARIS!"]
    whole = triage_features(q, r, c)
    assert np.array_equal(np.vstack([triage_features(q[i:i + 1], r[i:i + 1], c[i:i + 1]) for i in range(3)]), whole)


def reference_bands(p, net, gold, min_share):
    """The bands by brute force: every cut from each end, kept while the triage is right at least as
    often as the network over the whole band."""
    def widest(order, says):
        best = 0
        for k in range(1, len(order) + 1):
            band = order[:k]
            if k >= min_share and sum(gold[i] == says for i in band) >= sum(net[i] == gold[i] for i in band):
                best = k
        return best

    down, up = np.argsort(-p, kind="stable"), np.argsort(p, kind="stable")
    ka, kr = widest(down, True), widest(up, False)
    return (float(p[down[ka - 1]]) if ka else 1.0), (float(p[up[kr - 1]]) if kr else 0.0)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.booleans(), st.booleans()), min_size=1, max_size=40),
       st.integers(1, 5))
def test_choose_bands_matches_brute_force(rows, min_share):
    p = np.array([r[0] for r in rows])
    net, gold = np.array([r[1] for r in rows]), np.array([r[2] for r in rows])
    expected = reference_bands(p, net, gold, min_share)
    if expected[1] >= expected[0]:
        with pytest.raises(ValueError, match="overlap"):
            choose_bands(p, net, gold, min_share=min_share)
    else:
        assert choose_bands(p, net, gold, min_share=min_share) == expected


def test_triage_model_checks_its_shape_and_bands():
    with pytest.raises(ValueError, match="weights"):
        TriageModel([1.0], 0.0, 0.9, 0.1)
    with pytest.raises(ValueError, match="reject_at < accept_at"):
        TriageModel([0.0] * len(TRIAGE_FEATURES), 0.0, 0.2, 0.3)
    model = TriageModel([0.5] * len(TRIAGE_FEATURES), -1.0, 0.9, 0.1)
    assert TriageModel.from_dict(model.as_dict()) == model


class Counting(Judge):
    """A network stand-in: p = 0.6 for every triple; remembers what it was asked."""

    name = "counting"

    def __init__(self, refs="max"):
        self.threshold, self.refs, self.seen = 0.5, refs, []

    def with_refs(self, refs, threshold=None):
        return Counting(refs)

    def settings(self):
        return {"refs": self.refs}

    def predict_proba(self, questions, references, candidates):
        self.seen.extend(candidates)
        return np.full(len(candidates), 0.6)


# contained -> accept, nothing shared -> reject, the rest -> the network
TRIAGE = TriageModel([6.0] + [0.0] * (len(TRIAGE_FEATURES) - 1), -3.0, 0.9, 0.1)
Q = ["who wrote hamlet", "who wrote hamlet", "capital of france", "capital of france"]
R = [["Shakespeare", "the Bard"], "Shakespeare", "Paris", ["Lyon", "Paris"]]
C = ["It was William Shakespeare.", "Marlowe", "the answer is PARIS!", "hmm"]
# the same, with a reject band too narrow for anything here: the two uncontained answers go to the network
MIDDLE = TriageModel([6.0] + [0.0] * (len(TRIAGE_FEATURES) - 1), -3.0, 0.9, 0.04)


def test_calibrated_cascade_sends_only_the_middle_to_the_network():
    network = Counting()
    judge = CalibratedCascade(MIDDLE, network)
    verdicts, stage = judge.judge_stages(Q, R, C)
    assert [STAGES[s] for s in stage] == ["triage-accept", "network", "triage-accept", "network"]
    assert network.seen == ["Marlowe", "hmm"]
    assert verdicts.labels.tolist() == [True, True, True, True]
    assert np.array_equal(judge.predict_proba(Q, R, C), verdicts.proba)
    # the triage's own probability for what it settled, the network's for the rest
    assert verdicts.proba[1] == 0.6 and verdicts.proba[0] > 0.9


def test_calibrated_cascade_rejects_and_is_batch_invariant():
    judge = CalibratedCascade(TRIAGE, Counting())
    whole = judge.predict_proba(Q, R, C)
    assert not judge.judge(Q, R, C).labels[1]  # nothing shared with the reference: rejected by the triage
    parts = np.concatenate([judge.predict_proba(Q[i:i + 1], R[i:i + 1], C[i:i + 1]) for i in range(4)])
    assert np.array_equal(parts, whole)


def test_under_the_mean_rule_the_network_judges_everything():
    network = Counting()
    judge = CalibratedCascade(TRIAGE, network).with_refs("mean")
    _, stage = judge.judge_stages(Q, R, C)
    assert set(stage.tolist()) == {STAGES.index("network")} and "triage:off" in judge.signature()
    assert pickle.loads(pickle.dumps(judge)).signature() == judge.signature()


def test_cache_judges_each_triple_once_and_returns_the_same_floats(tmp_path):
    network = Counting()
    judge = CachedJudge(CalibratedCascade(MIDDLE, network), tmp_path / "cache")
    first = judge.judge(Q, R, C)
    assert judge.misses == 4 and judge.hits == 0 and len(network.seen) == 2
    again = judge.judge(Q + Q, R + R, C + C)
    assert judge.hits == 8 and len(network.seen) == 2
    assert np.array_equal(again.proba[:4], first.proba) and np.array_equal(again.labels[4:], first.labels)
    # a new process (a new judge object) finds the verdicts on disk
    fresh_network = Counting()
    later = CachedJudge(CalibratedCascade(MIDDLE, fresh_network), tmp_path / "cache")
    assert np.array_equal(later.predict_proba(Q, R, C), first.proba) and fresh_network.seen == []
    assert later.signature() == CalibratedCascade(MIDDLE, Counting()).signature()
    clone = pickle.loads(pickle.dumps(later))
    assert np.array_equal(clone.predict_proba(Q, R, C), first.proba)


def test_cache_keys_hold_the_judges_settings(tmp_path):
    judge = CachedJudge(Counting(), tmp_path)
    judge.predict_proba(Q, R, C)
    other = CachedJudge(Counting("mean"), tmp_path)  # another setting: another signature, nothing reused
    other.predict_proba(Q, R, C)
    assert other.misses == 4 and len(other.inner.seen) == 4


def test_a_cache_directory_that_cannot_be_made_is_one_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OSError, match="cannot use it as a verdict cache"):
        CachedJudge(Counting(), blocker / "sub")


def test_string_judges_take_a_disk_cache_on_request(tmp_path):
    judge = load_judge("containment", cache=tmp_path)
    assert isinstance(judge, CachedJudge)
    assert judge.predict(Q, R, C).tolist() == load_judge("containment").predict(Q, R, C).tolist()
    assert not isinstance(load_judge("containment"), CachedJudge)


def test_the_shipped_judge_is_a_calibrated_cascade_with_equal_cached_and_fresh_verdicts():
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tokenizers")
    judge = load_judge("default", n_threads=1)
    assert isinstance(judge, CalibratedCascade) and isinstance(judge.network, CachedJudge)
    q = ["who wrote hamlet", "when was the eiffel tower built", "what is the capital of australia"]
    r = [["Shakespeare", "William Shakespeare"], "1887 to 1889", ["Canberra"]]
    c = ["Hamlet was written by Christopher Marlowe.", "It was built between 1887 and 1889.", "Sydney"]
    bare = CalibratedCascade(judge.triage, judge.network.inner)
    fresh = bare.predict_proba(q, r, c)
    assert np.array_equal(judge.predict_proba(q, r, c), fresh)
    misses = judge.network.misses
    assert np.array_equal(judge.predict_proba(q, r, c), fresh) and judge.network.misses == misses
    alone = np.concatenate([bare.predict_proba(q[i:i + 1], r[i:i + 1], c[i:i + 1]) for i in range(3)])
    assert np.max(np.abs(alone - fresh)) <= 1e-5
    network = load_judge("network", n_threads=1)
    assert "triage" not in network.signature() and "triage" in judge.signature()


def test_first_accepted_reads_a_short_list_and_agrees_with_judging_each_candidate():
    network = Counting()
    judge = CalibratedCascade(MIDDLE, network, shortlist=1)
    lists = [["Marlowe", "hmm", "It was William Shakespeare."], ["Lyon?", "no idea"], []]
    first = judge.first_accepted(["who wrote hamlet", "capital of france", "q"],
                                 [["Shakespeare"], ["Paris"], ["x"]], lists)
    # the triage accepts the third paragraph of the first item with no network read; the second item's
    # middle band is shortlisted to one paragraph, which the network (p = 0.6) accepts
    assert first.tolist() == [2, 0, -1] and network.seen == ["Lyon?"]
    # the base rule (every distinct triple, leads first) on a judge without a shortlist
    plain = Counting()
    assert plain.first_accepted(["a", "b"], ["x", ["y"]], [["1", "2"], []]).tolist() == [0, -1]
    assert plain.seen == ["1"]


def test_a_long_candidate_is_read_as_windows_of_whole_sentences():
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tokenizers")
    import warnings

    from qascore.judges.onnx import load_default_network
    from qascore.runtime.tokenize import TruncationCount

    network = load_default_network(device="cpu", n_threads=1)
    filler = " ".join(f"Sentence {i} is about the weather in a distant town, and it has many words." for i in range(30))
    long = filler + " Hamlet was written by William Shakespeare."
    q, r = ["who wrote hamlet"], ["William Shakespeare"]
    windows, owner = network.candidate_windows(q, r, [long])
    assert len(windows) > 1 and set(owner.tolist()) == {0} and " ".join(windows) == long  # whole sentences, all of them
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing is cut, so nothing is warned
        alone = network.predict_proba(q, r, [long])
    assert alone[0] >= network.threshold  # the answer in the last window is read
    batch = network.predict_proba(q * 3, r * 3, ["Charles Dickens.", long, "It was Shakespeare."])
    assert abs(batch[1] - alone[0]) <= 1e-5
    with TruncationCount() as cut:  # one sentence longer than the window is still cut, and counted once
        network.predict_proba(["what?"] * 2, ["yes"] * 2, ["word " * 400, "word " * 300])
    assert cut.cut == 2 and cut.window == 128


def test_an_answer_accepted_for_containment_is_labelled_correct():
    rule = TriageModel([-6.0] + [0.0] * (len(TRIAGE_FEATURES) - 1), -3.0, 0.9, 0.01, accept_contained=True)
    judge = CalibratedCascade(rule, Counting())
    verdicts, stage = judge.judge_stages(["who wrote hamlet"], [["Shakespeare"]], ["Shakespeare wrote it"])
    assert STAGES[stage[0]] == "triage-accept" and verdicts.labels[0] and verdicts.proba[0] == 0.9


class Recording(Counting):
    """A network stand-in that accepts the candidates in ``accept`` and records each triple's references."""

    def __init__(self, accept=(), refs="max"):
        super().__init__(refs)
        self.accept, self.references = set(accept), []

    def predict_proba(self, questions, references, candidates):
        self.seen.extend(candidates)
        self.references.extend(references)
        return np.array([0.6 if c in self.accept else 0.4 for c in candidates])


def test_shortlist_references_keeps_the_aliases_with_most_evidence_in_their_order():
    from qascore.judges.triples import shortlist_references

    refs = [["The Beatles", "Fab Four", "John, Paul, George and Ringo", "the beatles"], "Paris", ["a", "b"]]
    cands = ["the Fab Four and Ringo", "Paris", "b"]
    # evidence: 'Fab Four' contained (2), 'John, Paul, George and Ringo' 2 of 5 words, 'The Beatles' none;
    # 'the beatles' repeats 'The Beatles' after normalisation and counts once
    assert shortlist_references(refs, cands, 2) == [["Fab Four", "John, Paul, George and Ringo"], "Paris", ["a", "b"]]
    assert shortlist_references(refs, cands, 1) == [["Fab Four"], "Paris", ["b"]]
    # ties keep the earlier alias; k at least the number of distinct aliases keeps the list as given
    assert shortlist_references([["x y", "z w", "v u"]], ["nothing"], 2) == [["x y", "z w"]]
    assert shortlist_references(refs[:1], cands[:1], 4) == refs[:1]


def test_the_network_reads_at_most_the_shortlisted_aliases_of_a_deferred_answer():
    network = Recording()
    aliases = ["Lyon", "Marseille", "Nice", "Lille", "Paris in France"]
    judge = CalibratedCascade(MIDDLE, network, references=2)
    judge.judge(["capital of france"], [aliases], ["I think it is the French capital, in France"])
    # 'Paris in France' shares two of its three words; the four others none (the earliest kept on ties)
    assert network.references == [["Lyon", "Paris in France"]]
    assert "references:2" in judge.signature()
    assert CalibratedCascade(MIDDLE, Recording(), references=3).signature() != judge.signature()
    with pytest.raises(ValueError, match="references must be a positive integer"):
        CalibratedCascade(MIDDLE, network, references=0)


def test_first_accepted_stops_reading_an_item_at_its_first_accepted_candidate():
    q, r = ["who wrote hamlet"] * 2, [["Shakespeare"], ["Shakespeare"]]
    lists = [["Marlowe wrote it", "Bacon wrote it", "no"], ["Bacon wrote it", "Marlowe wrote it"]]
    network = Recording(accept={"Marlowe wrote it", "Bacon wrote it"})
    first = CalibratedCascade(MIDDLE, network, shortlist=2).first_accepted(q, r, lists)
    # each item's first shortlisted candidate (in candidate order) is accepted: the second is never read
    assert first.tolist() == [0, 0] and sorted(network.seen) == ["Bacon wrote it", "Marlowe wrote it"]
    # the same answer as judging every shortlisted candidate at once
    later = Recording(accept={"Bacon wrote it"})
    first = CalibratedCascade(MIDDLE, later, shortlist=2).first_accepted(q, r, lists)
    assert first.tolist() == [1, 0] and later.seen.count("Marlowe wrote it") == 1
