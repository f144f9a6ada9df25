"""qascore.compat.rouge_score as a drop-in for the rouge-score 0.1.2 package: the same names in the
same modules, and the same numbers (compared with ==) as rouge-score run here on the same input."""
from __future__ import annotations

import __future__
import importlib
import inspect
import itertools
import json
import pickle
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.stem import porter as nltk_porter
from rouge_score import rouge_scorer as peer_rouge_scorer
from rouge_score import scoring as peer_scoring
from rouge_score import tokenize as peer_tokenize
from rouge_score import tokenizers as peer_tokenizers

import qascore.compat.rouge_score as package
from qascore.compat.rouge_score import rouge_scorer, scoring, tokenize, tokenizers
from qascore.text import RougeTokenizer, UnicodeWordTokenizer

ALL_TYPES = [f"rouge{n}" for n in range(1, 10)] + ["rougeL", "rougeLsum"]
MODULES = ("rouge_scorer", "scoring", "tokenizers", "tokenize")


# ---------------------------------------------------------------- names and import idioms


def test_import_idioms():
    from qascore.compat.rouge_score import RougeScorer, Score
    from qascore.compat.rouge_score.rouge_scorer import RougeScorer as FromModule
    from qascore.compat.rouge_score.scoring import BootstrapAggregator

    assert RougeScorer is FromModule is rouge_scorer.RougeScorer
    assert Score is rouge_scorer.Score is scoring.Score
    assert BootstrapAggregator is scoring.BootstrapAggregator
    for name in MODULES:
        assert importlib.import_module(f"qascore.compat.rouge_score.{name}") is getattr(package, name)


@pytest.mark.parametrize("name", MODULES)
def test_every_name_rouge_score_defines_is_here(name):
    """Classes, functions and constants each peer module defines itself (not what it imports)."""
    peer = importlib.import_module(f"rouge_score.{name}")
    ours = getattr(package, name)
    defined = [k for k, v in vars(peer).items()
               if not k.startswith("__") and not inspect.ismodule(v) and not isinstance(v, __future__._Feature)
               and type(v).__module__ != "typing"
               and (v.__module__ == peer.__name__ if inspect.isclass(v) or inspect.isroutine(v) else True)]
    assert defined
    missing = [k for k in defined if not hasattr(ours, k)]
    assert not missing, f"{name} lacks {missing}"


def test_tokenize_constants_equal():
    for name in ("NON_ALPHANUM_PATTERN", "SPACES_PATTERN", "VALID_TOKEN_PATTERN"):
        assert getattr(tokenize, name) == getattr(peer_tokenize, name)
        regex = getattr(tokenize, name.replace("PATTERN", "RE"))
        assert regex.pattern == getattr(peer_tokenize, name) and regex.flags == re.compile("").flags


def test_class_relations():
    scorer = rouge_scorer.RougeScorer(["rouge1"])
    assert isinstance(scorer, scoring.BaseScorer)
    assert isinstance(tokenizers.DefaultTokenizer(), tokenizers.Tokenizer)
    with pytest.raises(TypeError):
        tokenizers.Tokenizer()  # abstract, as in rouge-score
    with pytest.raises(TypeError):
        scoring.BaseScorer()
    assert scoring.AggregateScore._fields == ("low", "mid", "high")


# ---------------------------------------------------------------- real text


def _lines(path):
    return path.read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="module")
def rouge_data(shared_data):
    folder = shared_data / "rouge_score"
    if not folder.is_dir():
        pytest.skip(f"{folder} not found")
    small = list(zip(_lines(folder / "target.txt"), _lines(folder / "prediction.txt")))
    large = list(zip(_lines(folder / "target_large.txt"), _lines(folder / "prediction_large.txt")))
    # several lines joined by newlines: rougeLsum's union LCS over sentences
    joined = [("\n".join(t for t, _ in large[i:i + 4]), "\n".join(p for _, p in large[i + 1:i + 4]))
              for i in range(0, 200, 4)]
    return small + large[:300] + joined


@pytest.fixture(scope="module")
def msmarco(shared_data):
    folder = shared_data / "mrc" / "msmarco"
    if not folder.is_dir():
        pytest.skip(f"{folder} not found")

    def answers(name):
        rows = map(json.loads, (folder / name).read_text(encoding="utf-8").splitlines())
        return {r["query_id"]: r["answers"] for r in rows}

    refs, cands = answers("dev_as_references.json"), answers("dev_first_sentence_as_candidates.json")
    queries = [q for q in refs if refs[q] and cands.get(q)][:800]
    return [(refs[q], cands[q][0]) for q in queries]


@pytest.mark.parametrize("use_stemmer", [False, True])
def test_rouge_score_testdata_equal(rouge_data, use_stemmer):
    peer = peer_rouge_scorer.RougeScorer(ALL_TYPES, use_stemmer=use_stemmer)
    ours = rouge_scorer.RougeScorer(ALL_TYPES, use_stemmer=use_stemmer)
    expected = [peer.score(t, p) for t, p in rouge_data]
    assert [ours.score(t, p) for t, p in rouge_data] == expected
    assert ours.score_batch([t for t, _ in rouge_data], [p for _, p in rouge_data], n_jobs=2) == expected


@pytest.mark.parametrize("use_stemmer", [False, True])
def test_msmarco_equal(msmarco, use_stemmer):
    peer = peer_rouge_scorer.RougeScorer(ALL_TYPES, use_stemmer=use_stemmer)
    ours = rouge_scorer.RougeScorer(ALL_TYPES, use_stemmer=use_stemmer)
    pairs = [(refs[0], cand) for refs, cand in msmarco]
    expected = [peer.score(t, p) for t, p in pairs]
    assert [ours.score(t, p) for t, p in pairs] == expected
    assert ours.score_batch([t for t, _ in pairs], [p for _, p in pairs], n_jobs=2) == expected
    multi = [(refs, cand) for refs, cand in msmarco if len(refs) > 1]
    assert multi
    assert [ours.score_multi(r, p) for r, p in multi] == [peer.score_multi(r, p) for r, p in multi]


@pytest.mark.parametrize("rouge_type", ALL_TYPES)
def test_each_type_alone(msmarco, rouge_type):
    """One type per scorer (rouge-score skips whole-text tokenising for rougeLsum alone)."""
    pairs = [(refs[0], cand) for refs, cand in msmarco[:200]]
    peer = peer_rouge_scorer.RougeScorer([rouge_type], use_stemmer=True)
    ours = rouge_scorer.RougeScorer([rouge_type], use_stemmer=True)
    assert [ours.score(t, p) for t, p in pairs] == [peer.score(t, p) for t, p in pairs]


def _naive_sentences(text):
    """A stand-in for NLTK's Punkt (whose model may be absent): split after . ! or ? and a space."""
    return [s for s in re.split(r"(?<=[.!?])\s+", text) if s]


@pytest.mark.parametrize("use_stemmer", [False, True])
def test_split_summaries_equal(msmarco, monkeypatch, use_stemmer):
    """split_summaries=True: both packages call nltk.sent_tokenize, replaced here by one splitter."""
    import nltk

    monkeypatch.setattr(nltk, "sent_tokenize", _naive_sentences)
    types = ["rouge1", "rougeL", "rougeLsum"]
    peer = peer_rouge_scorer.RougeScorer(types, use_stemmer=use_stemmer, split_summaries=True)
    ours = rouge_scorer.RougeScorer(types, use_stemmer=use_stemmer, split_summaries=True)
    pairs = [(" ".join(refs), cand) for refs, cand in msmarco[:300]]
    assert sum(len(_naive_sentences(t)) > 1 for t, _ in pairs) > 20
    expected = [peer.score(t, p) for t, p in pairs]
    assert [ours.score(t, p) for t, p in pairs] == expected
    assert ours.score_batch([t for t, _ in pairs], [p for _, p in pairs], n_jobs=1) == expected


class Whitespace(tokenizers.Tokenizer):
    """A user's tokenizer: subclass of the drop-in's base class (module level so it pickles)."""

    def tokenize(self, text):
        return text.lower().split()


class PeerWhitespace(peer_tokenizers.Tokenizer):
    def tokenize(self, text):
        return text.lower().split()


class ShoutingDefault(tokenizers.DefaultTokenizer):
    """A subclass of DefaultTokenizer that changes tokenize(): must not take the compiled path."""

    def tokenize(self, text):
        return [t for t in super().tokenize(text) if len(t) > 2]


class PeerShoutingDefault(peer_tokenizers.DefaultTokenizer):
    def tokenize(self, text):
        return [t for t in super().tokenize(text) if len(t) > 2]


@pytest.mark.parametrize("ours_tok, peer_tok", [
    (Whitespace(), PeerWhitespace()),
    (ShoutingDefault(use_stemmer=True), PeerShoutingDefault(use_stemmer=True)),
    (tokenizers.DefaultTokenizer(use_stemmer=True), peer_tokenizers.DefaultTokenizer(use_stemmer=True)),
    (tokenizers.DefaultTokenizer(), peer_tokenizers.DefaultTokenizer()),
    (peer_tokenizers.DefaultTokenizer(use_stemmer=True), peer_tokenizers.DefaultTokenizer(use_stemmer=True)),
], ids=["subclass", "default-subclass", "default-stem", "default", "peer-default"])
def test_tokenizer_argument_equal(rouge_data, msmarco, ours_tok, peer_tok):
    pairs = rouge_data[:60] + [(refs[0], cand) for refs, cand in msmarco[:200]]
    types = ["rouge1", "rouge2", "rouge4", "rougeL", "rougeLsum"]
    peer = peer_rouge_scorer.RougeScorer(types, tokenizer=peer_tok)
    ours = rouge_scorer.RougeScorer(types, tokenizer=ours_tok)
    expected = [peer.score(t, p) for t, p in pairs]
    assert [ours.score(t, p) for t, p in pairs] == expected
    assert ours.score_batch([t for t, _ in pairs], [p for _, p in pairs], n_jobs=1) == expected


def test_default_tokenizer_runs_compiled():
    """A DefaultTokenizer is replaced by the compiled RougeTokenizer; a subclass is not."""
    assert type(rouge_scorer.RougeScorer(["rouge1"], tokenizer=tokenizers.DefaultTokenizer())._tokenizer) \
        is RougeTokenizer
    assert type(rouge_scorer.RougeScorer(["rouge1"], tokenizer=ShoutingDefault())._tokenizer) is ShoutingDefault


@pytest.mark.parametrize("use_stemmer", [False, True])
def test_tokenizers_and_tokenize_equal_on_real_text(rouge_data, msmarco, use_stemmer):
    texts = [t for pair in rouge_data for t in pair] + [t for refs, cand in msmarco for t in (*refs, cand)]
    peer_tok = peer_tokenizers.DefaultTokenizer(use_stemmer)
    ours_tok = tokenizers.DefaultTokenizer(use_stemmer)
    stemmer = nltk_porter.PorterStemmer() if use_stemmer else None
    for text in texts:
        expected = peer_tok.tokenize(text)
        assert ours_tok.tokenize(text) == expected
        assert tokenize.tokenize(text, stemmer) == expected
        # the drop-in's own stemmer object, as a subclass of DefaultTokenizer would pass it
        assert tokenize.tokenize(text, ours_tok._stemmer) == expected


UNICODE_TEXT = st.text(st.sampled_from("aZ9 \n\t.-éİKß\u0130\u212a\u00c5") | st.characters(), max_size=40)


@settings(max_examples=300, deadline=None)
@given(UNICODE_TEXT, st.booleans())
def test_tokenize_equal_on_generated_text(text, use_stemmer):
    stemmer = nltk_porter.PorterStemmer() if use_stemmer else None
    expected = peer_tokenize.tokenize(text, stemmer)
    assert tokenize.tokenize(text, stemmer) == expected
    assert tokenizers.DefaultTokenizer(use_stemmer).tokenize(text) == expected


class OddStemmer:
    """A stemmer whose output the final filter must judge (empty, punctuation, newline, bytes)."""

    def stem(self, word):
        return {0: "", 1: word + "!", 2: word + "\n", 3: word.encode()}.get(len(word) % 5, word[:-1])


@settings(max_examples=200, deadline=None)
@given(UNICODE_TEXT)
def test_tokenize_with_any_stemmer(text):
    assert tokenize.tokenize(text, OddStemmer()) == peer_tokenize.tokenize(text, OddStemmer())


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(UNICODE_TEXT, UNICODE_TEXT), min_size=1, max_size=5), st.booleans())
def test_scores_equal_on_generated_text(pairs, use_stemmer):
    peer = peer_rouge_scorer.RougeScorer(ALL_TYPES, use_stemmer=use_stemmer)
    ours = rouge_scorer.RougeScorer(ALL_TYPES, use_stemmer=use_stemmer)
    expected = [peer.score(t, p) for t, p in pairs]
    assert [ours.score(t, p) for t, p in pairs] == expected
    assert ours.score_batch([t for t, _ in pairs], [p for _, p in pairs], n_jobs=1) == expected


def test_repeated_and_empty_rouge_types_as_rouge_score():
    for types in (["rouge1", "rougeL", "rouge1"], []):
        peer = peer_rouge_scorer.RougeScorer(types)
        ours = rouge_scorer.RougeScorer(types)
        assert ours.score("a b c", "a c") == peer.score("a b c", "a c")
        assert ours.score_multi(["a b", "c"], "a c") == peer.score_multi(["a b", "c"], "a c")
        assert ours.score_batch(["a b c"], ["a c"]) == [peer.score("a b c", "a c")]


def test_invalid_rouge_types_raise_at_construction():
    for bad in (["rougen"], ["rouge0"], ["rouge10"], ["rougeL", "rougeX"]):
        with pytest.raises(ValueError, match="Invalid rouge type"):
            rouge_scorer.RougeScorer(bad)
    with pytest.raises(ValueError, match="not a str"):
        rouge_scorer.RougeScorer("rougeL")  # rouge-score would fail on 'r' at the first score()


# ---------------------------------------------------------------- module helpers

TOKENS = st.lists(st.sampled_from("abcde"), max_size=9)


@settings(max_examples=300, deadline=None)
@given(TOKENS, TOKENS)
def test_lcs_helpers_equal(ref, can):
    table = rouge_scorer._lcs_table(ref, can)
    assert table == peer_rouge_scorer._lcs_table(ref, can)
    assert rouge_scorer._backtrack_norec(table, ref, can) == peer_rouge_scorer._backtrack_norec(table, ref, can)
    assert rouge_scorer.lcs_ind(ref, can) == peer_rouge_scorer.lcs_ind(ref, can)
    assert rouge_scorer._score_lcs(ref, can) == peer_rouge_scorer._score_lcs(ref, can)


@settings(max_examples=300, deadline=None)
@given(st.lists(TOKENS, max_size=4), st.lists(TOKENS, max_size=4))
def test_summary_level_helpers_equal(refs, cans):
    assert rouge_scorer._summary_level_lcs(refs, cans) == peer_rouge_scorer._summary_level_lcs(refs, cans)
    for ref in refs:
        assert rouge_scorer._union_lcs(ref, cans) == peer_rouge_scorer._union_lcs(ref, cans)
    index_lists = [sorted({len(r) * k % 7 for k in range(len(r))}) for r in refs]
    assert rouge_scorer._find_union(index_lists) == peer_rouge_scorer._find_union(index_lists)


@settings(max_examples=300, deadline=None)
@given(TOKENS, TOKENS, st.integers(1, 4))
def test_ngram_helpers_equal(target, prediction, n):
    ours_t, ours_p = rouge_scorer._create_ngrams(target, n), rouge_scorer._create_ngrams(prediction, n)
    peer_t, peer_p = peer_rouge_scorer._create_ngrams(target, n), peer_rouge_scorer._create_ngrams(prediction, n)
    assert ours_t == peer_t and ours_p == peer_p
    assert rouge_scorer._score_ngrams(ours_t, ours_p) == peer_rouge_scorer._score_ngrams(peer_t, peer_p)


def test_helpers_on_real_tokens(rouge_data):
    tok = peer_tokenizers.DefaultTokenizer(use_stemmer=True)
    for target, prediction in rouge_data[:40]:
        t, p = tok.tokenize(target), tok.tokenize(prediction)
        assert rouge_scorer._score_lcs(t, p) == peer_rouge_scorer._score_lcs(t, p)
        for n in (1, 2, 3):
            assert rouge_scorer._score_ngrams(rouge_scorer._create_ngrams(t, n), rouge_scorer._create_ngrams(p, n)) \
                == peer_rouge_scorer._score_ngrams(peer_rouge_scorer._create_ngrams(t, n),
                                                   peer_rouge_scorer._create_ngrams(p, n))
        ts = [tok.tokenize(s) for s in target.split(". ")]
        ps = [tok.tokenize(s) for s in prediction.split(". ")]
        assert rouge_scorer._summary_level_lcs(ts, ps) == peer_rouge_scorer._summary_level_lcs(ts, ps)


@settings(max_examples=500, deadline=None)
@given(st.floats(0, 1) | st.integers(0, 3), st.floats(0, 1) | st.integers(0, 3))
def test_fmeasure_equal(precision, recall):
    got, expected = scoring.fmeasure(precision, recall), peer_scoring.fmeasure(precision, recall)
    assert got == expected and type(got) is type(expected)


# ---------------------------------------------------------------- bootstrap aggregation


@pytest.mark.parametrize("confidence_interval, n_samples", [(0.95, 1000), (0.9, 37), (0.0, 5), (1.0, 200)])
def test_bootstrap_aggregator_equal_under_numpy_seed(rouge_data, confidence_interval, n_samples):
    peer_scorer = peer_rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeLsum"], use_stemmer=True)
    rows = [peer_scorer.score(t, p) for t, p in rouge_data[:150]]
    results = []
    for module in (peer_scoring, scoring):
        np.random.seed(123)
        aggregator = module.BootstrapAggregator(confidence_interval=confidence_interval, n_samples=n_samples)
        for row in rows:
            aggregator.add_scores(row)
        results.append((aggregator.aggregate(), np.random.random()))  # and the same draws consumed
    assert results[0] == results[1]
    assert list(results[1][0]) == ["rouge1", "rouge2", "rougeLsum"]


def test_bootstrap_aggregator_of_drop_in_scores(msmarco):
    ours = rouge_scorer.RougeScorer(["rouge1", "rougeL"])
    peer = peer_rouge_scorer.RougeScorer(["rouge1", "rougeL"])
    aggregates = []
    for scorer, module in ((peer, peer_scoring), (ours, scoring)):
        np.random.seed(7)
        aggregator = module.BootstrapAggregator()
        for refs, cand in msmarco[:300]:
            aggregator.add_scores(scorer.score(refs[0], cand))
        aggregates.append(aggregator.aggregate())
    assert aggregates[0] == aggregates[1]
    assert scoring.BootstrapAggregator().aggregate() == {}


def test_bootstrap_aggregator_validates_like_rouge_score():
    for kwargs in ({"confidence_interval": -0.1}, {"confidence_interval": 1.5}, {"n_samples": 0}):
        with pytest.raises(ValueError):
            peer_scoring.BootstrapAggregator(**kwargs)
        with pytest.raises(ValueError):
            scoring.BootstrapAggregator(**kwargs)


# ---------------------------------------------------------------- pickling and state


def _picklers():
    yield pickle
    try:
        import cloudpickle
    except ImportError:
        return
    yield cloudpickle


@pytest.mark.parametrize("pickler", list(_picklers()), ids=lambda m: m.__name__)
@pytest.mark.parametrize("kwargs", [{}, {"use_stemmer": True}, {"tokenizer": tokenizers.DefaultTokenizer()},
                                    {"tokenizer": Whitespace()}, {"split_summaries": False}],
                         ids=["default", "stemmer", "default-tokenizer", "custom-tokenizer", "split-false"])
def test_pickle_before_and_after_scoring(pickler, kwargs):
    pairs = [("The cat sat.\nOn the mat", "the cat\nsat on a mat"), ("Über ÉTÉ x", "été x über")]
    scorer = rouge_scorer.RougeScorer(ALL_TYPES, **kwargs)
    fresh = pickle.loads(pickler.dumps(scorer))
    expected = [scorer.score(t, p) for t, p in pairs]
    assert [fresh.score(t, p) for t, p in pairs] == expected
    used = pickle.loads(pickler.dumps(scorer))  # after scoring: compiled encoders and vocabulary in use
    assert [used.score(t, p) for t, p in pairs] == expected
    assert used.rouge_types == scorer.rouge_types
    assert used.score_batch([t for t, _ in pairs], [p for _, p in pairs]) == expected


def test_vocabulary_limits_are_read_from_the_package(monkeypatch):
    """The scorer reads MAX_VOCABULARY / VOCABULARY_CHECK_PERIOD from the package at run time."""
    # a qascore tokeniser other than rouge-score's own goes through the scorer's vocabulary
    scorer = rouge_scorer.RougeScorer(["rouge1"], tokenizer=UnicodeWordTokenizer(use_stemmer=True))
    monkeypatch.setattr(package, "MAX_VOCABULARY", 2)
    monkeypatch.setattr(package, "VOCABULARY_CHECK_PERIOD", 1)
    first = scorer._vocab
    for words in itertools.islice(itertools.permutations("abcdef", 3), 6):
        scorer.score(" ".join(words), "a b")
    assert scorer._vocab is not first and len(scorer._vocab) < 6
