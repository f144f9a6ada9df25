"""Drop-in replacement for ``rouge_score.rouge_scorer.RougeScorer`` (rouge-score 0.1.2).

``from qascore.compat.rouge_score import RougeScorer`` gives the same call shapes and the same
floats, bit for bit: ``score(target, prediction)``, ``score_multi(targets, prediction)`` and,
beyond rouge-score, ``score_batch(targets, predictions, n_jobs=None)`` on all cores. Results are
dicts of :class:`Score` namedtuples, which compare equal to rouge-score's own ``Score``.

Differences: an invalid ROUGE type raises ``ValueError`` at construction (rouge-score raises on
the first ``score``), and a non-string text raises ``TypeError`` naming it.
"""
from __future__ import annotations

import collections

import numpy as np

from .._kernels.prf import pair_score  # rouge-score's P / R / scoring.fmeasure, same bits
from .._kernels.rouge_pair import (pair_rouge_counts_ids, pair_rouge_counts_tokens, pair_union_hits_ids,
                                   pair_union_hits_tokens)
from .._kernels.rouge_raw import pair_rouge_counts
from .._kernels.score_rows import score_rows
from ..errors import check_texts
from ..lexical.rouge import _NGRAM_TYPE, counts_from_raw_strings, parse_rouge_types, rouge, split_sentences
from ..text import RougeTokenizer, Vocabulary

__all__ = ["RougeScorer", "Score"]

Score = collections.namedtuple("Score", ["precision", "recall", "fmeasure"])

_ZERO = Score(precision=0, recall=0, fmeasure=0)

# The scorer's vocabulary (and the token caches the compiled encoder keeps in it) is dropped and
# rebuilt past this many token types, so a long-lived scorer stays bounded in memory; checked
# every VOCABULARY_CHECK_PERIOD one-pair encodings (a check costs a noticeable part of a short pair).
MAX_VOCABULARY = 1 << 20
VOCABULARY_CHECK_PERIOD = 256


class RougeScorer:
    """rouge-score's ``RougeScorer(rouge_types, use_stemmer=False, split_summaries=False, tokenizer=None)``.

    ``tokenizer`` is any object with ``tokenize(text) -> list[str]`` (as in rouge-score); the
    default is rouge-score's tokeniser (:class:`qascore.text.RougeTokenizer`).
    """

    def __init__(self, rouge_types, use_stemmer=False, split_summaries=False, tokenizer=None):
        self.rouge_types = rouge_types
        types = parse_rouge_types(rouge_types)
        self._tokenizer = tokenizer if tokenizer else RougeTokenizer(use_stemmer)
        # compiled batch encoders (qascore tokenizers) are fed whole pairs; rouge-score style
        # tokenizers with only tokenize() go through token lists
        self._encode = getattr(self._tokenizer, "encode_batch", None)
        self._vocab = Vocabulary()
        self._pair_encoder = None  # texts -> (ids, offsets) in self._vocab, see _encode_pair
        self._encodings_until_check = 0
        self._use_stemmer = bool(use_stemmer) and not tokenizer
        self._split_summaries = split_summaries
        self._orders = {name: int(name[5:]) for name in types if _NGRAM_TYPE.fullmatch(name)}
        self._max_order = max(self._orders.values(), default=0)
        self._want_lcs = "rougeL" in types
        self._whole_text = self._max_order > 0 or self._want_lcs
        self._from_raw_strings = counts_from_raw_strings(self._tokenizer)  # no vocabulary needed

    # ------------------------------------------------------------ one pair
    def score(self, target, prediction):
        """Scores of ``prediction`` against ``target`` (target first, as in rouge-score)."""
        if not isinstance(target, str):
            raise TypeError(f"target must be str, got {type(target).__name__}")
        if not isinstance(prediction, str):
            raise TypeError(f"prediction must be str, got {type(prediction).__name__}")
        result = {}
        if self._whole_text:
            if self._from_raw_strings:
                matches, lcs, lt, lp = pair_rouge_counts(target, prediction, self._max_order, self._want_lcs)
            elif self._encode is not None:
                ids, offsets = self._encode_pair([target, prediction])
                matches, lcs, lt, lp = pair_rouge_counts_ids(ids, offsets, self._max_order, self._want_lcs)
            else:
                target_tokens = self._tokenizer.tokenize(target)
                prediction_tokens = self._tokenizer.tokenize(prediction)
                matches, lcs, lt, lp = pair_rouge_counts_tokens(target_tokens, prediction_tokens, self._max_order,
                                                                self._want_lcs)
        for name in self.rouge_types:
            if name == "rougeL":
                result[name] = pair_score(Score, lcs, lp, lt) if lt and lp else _ZERO
            elif name == "rougeLsum":
                result[name] = self._score_lsum(target, prediction)
            else:
                n = self._orders[name]
                result[name] = pair_score(Score, matches[n - 1], lp, lt, n - 1)
        return result

    def _vocabulary(self) -> Vocabulary:
        if len(self._vocab) > MAX_VOCABULARY:
            self._vocab = Vocabulary()
            self._pair_encoder = None
        return self._vocab

    def _encode_pair(self, texts: list[str]):
        """(ids, offsets) of a few texts in the scorer's vocabulary: the tokeniser's lean route
        when it has one (per-call overhead is most of a short pair's time), else encode_batch."""
        self._encodings_until_check -= 1
        if self._encodings_until_check <= 0 or self._pair_encoder is None:
            self._encodings_until_check = VOCABULARY_CHECK_PERIOD
            vocab = self._vocabulary()
            if self._pair_encoder is None:
                lean = getattr(self._tokenizer, "lean_encoder", None)
                self._pair_encoder = (lean and lean(vocab)) or self._batch_encoder(vocab)
        return self._pair_encoder(texts)

    def _batch_encoder(self, vocab: Vocabulary):
        def encode(texts):
            packed = self._encode(texts, vocab, n_jobs=1)
            return packed.ids, packed.offsets

        return encode

    def _score_lsum(self, target: str, prediction: str) -> Score:
        target_sents = split_sentences(target, self._split_summaries)
        prediction_sents = split_sentences(prediction, self._split_summaries)
        if self._encode is not None:
            ids, offsets = self._encode_pair(target_sents + prediction_sents)
            m = int(offsets[len(target_sents)])
            n = int(offsets[-1]) - m
            if not m or not n:
                return _ZERO
            return pair_score(Score, pair_union_hits_ids(ids, offsets, len(target_sents)), n, m)
        tokenize = self._tokenizer.tokenize
        target_tokens = [tokenize(s) for s in target_sents]
        prediction_tokens = [tokenize(s) for s in prediction_sents]
        m = sum(map(len, target_tokens))
        n = sum(map(len, prediction_tokens))
        if not m or not n:
            return _ZERO
        return pair_score(Score, pair_union_hits_tokens(target_tokens, prediction_tokens), n, m)

    def score_multi(self, targets, prediction):
        """For each type, the target with the largest F (first on ties) and its whole Score."""
        if isinstance(targets, str):
            raise TypeError("targets must be a list of strings, not a single str")
        score_dicts = [self.score(t, prediction) for t in targets]
        if not score_dicts:
            raise ValueError("score_multi needs at least one target")
        best = {}
        for name in self.rouge_types:
            index = int(np.argmax([s[name].fmeasure for s in score_dicts]))
            best[name] = score_dicts[index][name]
        return best

    # ------------------------------------------------------------ many pairs
    def score_batch(self, targets, predictions, n_jobs=None):
        """``[self.score(t, p) for t, p in zip(targets, predictions)]``, computed in one batch on
        ``n_jobs`` threads (default: all cores). Lengths must match."""
        if isinstance(targets, str) or isinstance(predictions, str):
            raise TypeError("targets and predictions must be lists of strings, not a single str")
        targets, predictions = list(targets), list(predictions)
        if len(targets) != len(predictions):
            raise ValueError(f"targets has {len(targets)} items but predictions has {len(predictions)}")
        check_texts(targets, "targets")  # one C loop each; rouge() would take a list target as several
        check_texts(predictions, "predictions")
        result = rouge(predictions, targets, tuple(self.rouge_types), tokenizer=self._tokenizer,
                       split_summaries=self._split_summaries, n_jobs=n_jobs)
        names = tuple(result)
        return score_rows(names, [(a.precision, a.recall, a.fmeasure) for a in result.values()], Score)
