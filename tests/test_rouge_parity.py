"""Bit-identical floats to rouge-score 0.1.2 on the real text in shared/data.

Pairs (documented in docs/rouge.md):
* rouge-score's own parity lines: target.txt line i vs prediction.txt line i;
* MS MARCO: the 9,754 queries of dev_as_references.json with a non-empty answer list (all of
  them are in dev_first_sentence_as_candidates.json); candidate = its only answer, reference =
  the first reference answer; and score_multi over all reference answers for the 1,146 queries
  that have several;
* EVOUNA-NQ: each of the five systems' answers vs the golden answer, for the 17,546 pairs where
  both are strings (one golden answer and 500 system answers are null).
Every check compares precision, recall and F of rouge1, rouge2, rougeL and rougeLsum, with and
without stemming, against rouge-score run here on the same strings.
"""
from __future__ import annotations

import json
from functools import lru_cache

import numpy as np
import pytest
from rouge_score.rouge_scorer import RougeScorer as PeerScorer

from qascore.compat.rouge_score import RougeScorer
from qascore.lexical.rouge import rouge

TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
FIELDS = ("precision", "recall", "fmeasure")


def peer_scorer(use_stemmer: bool) -> PeerScorer:
    """rouge-score itself; its NLTK stemmer memoised (a pure function) so the run takes seconds."""
    scorer = PeerScorer(TYPES, use_stemmer=use_stemmer)
    stemmer = scorer._tokenizer._stemmer
    if stemmer is not None:
        cached = lru_cache(maxsize=None)(stemmer.stem)
        stemmer.stem = cached
    return scorer


def assert_bit_identical(result, expected_dicts):
    for name in TYPES:
        for k, field in enumerate(FIELDS):
            expected = np.array([d[name][k] for d in expected_dicts], dtype=np.float64)
            got = getattr(result[name], field)
            bad = np.flatnonzero(expected.view(np.int64) != got.view(np.int64))
            assert bad.size == 0, f"{name} {field}: {bad.size} differ, first at pair {bad[:5]}"


def load_jsonl_answers(path):
    return {r["query_id"]: r["answers"] for r in map(json.loads, path.read_text(encoding="utf-8").splitlines())}


@pytest.fixture(scope="module")
def msmarco(shared_data):
    refs = load_jsonl_answers(shared_data / "mrc/msmarco/dev_as_references.json")
    cands = load_jsonl_answers(shared_data / "mrc/msmarco/dev_first_sentence_as_candidates.json")
    queries = [q for q in refs if refs[q] and q in cands]
    return [cands[q][0] for q in queries], [refs[q] for q in queries]


@pytest.fixture(scope="module")
def evouna(shared_data):
    records = json.loads((shared_data / "ava/evouna/NQ.json").read_text(encoding="utf-8"))
    systems = ("answer_fid", "answer_gpt35", "answer_chatgpt", "answer_gpt4", "answer_newbing")
    pairs = [(r[s], r["golden_answer"]) for r in records for s in systems
             if isinstance(r[s], str) and isinstance(r["golden_answer"], str)]
    return [p for p, _ in pairs], [g for _, g in pairs]


def test_msmarco_pair_selection(msmarco):
    predictions, references = msmarco
    assert len(predictions) == 9754
    assert sum(len(r) > 1 for r in references) == 1146


def test_evouna_pair_selection(evouna):
    assert len(evouna[0]) == 17546


@pytest.mark.parametrize("use_stemmer", [False, True])
def test_parity_lines(shared_data, use_stemmer):
    targets = (shared_data / "rouge_score/target.txt").read_text(encoding="utf-8").splitlines()
    predictions = (shared_data / "rouge_score/prediction.txt").read_text(encoding="utf-8").splitlines()
    peer = peer_scorer(use_stemmer)
    expected = [peer.score(t, p) for t, p in zip(targets, predictions)]
    assert_bit_identical(rouge(predictions, targets, TYPES, use_stemmer=use_stemmer), expected)
    ours = RougeScorer(TYPES, use_stemmer=use_stemmer)
    assert [ours.score(t, p) for t, p in zip(targets, predictions)] == expected
    # the two sentences of every line joined by newlines exercise rougeLsum's union
    joined_t = ["\n".join(targets[i : i + 3]) for i in range(0, len(targets), 3)]
    joined_p = ["\n".join(predictions[i : i + 2]) for i in range(0, len(predictions), 2)][: len(joined_t)]
    expected = [peer.score(t, p) for t, p in zip(joined_t, joined_p)]
    assert_bit_identical(rouge(joined_p, joined_t, TYPES, use_stemmer=use_stemmer), expected)


@pytest.mark.parametrize("use_stemmer", [False, True])
def test_msmarco_all_pairs(msmarco, use_stemmer):
    predictions, references = msmarco
    first = [r[0] for r in references]
    peer = peer_scorer(use_stemmer)
    expected = [peer.score(t, p) for t, p in zip(first, predictions)]
    assert_bit_identical(rouge(predictions, first, TYPES, use_stemmer=use_stemmer), expected)


def test_msmarco_score_multi(msmarco):
    predictions, references = msmarco
    multi = [(p, r) for p, r in zip(predictions, references) if len(r) > 1]
    peer = peer_scorer(True)
    expected = [peer.score_multi(r, p) for p, r in multi]
    result = rouge([p for p, _ in multi], [r for _, r in multi], TYPES, use_stemmer=True, multi_ref="best_f")
    assert_bit_identical(result, expected)
    ours = RougeScorer(TYPES, use_stemmer=True)
    assert [ours.score_multi(r, p) for p, r in multi[:300]] == expected[:300]


@pytest.mark.parametrize("use_stemmer", [False, True])
def test_evouna_answers_vs_gold(evouna, use_stemmer):
    predictions, golds = evouna
    peer = peer_scorer(use_stemmer)
    expected = [peer.score(g, p) for g, p in zip(golds, predictions)]
    assert_bit_identical(rouge(predictions, golds, TYPES, use_stemmer=use_stemmer, n_jobs=2), expected)
    assert RougeScorer(TYPES, use_stemmer=use_stemmer).score_batch(golds, predictions) == expected
