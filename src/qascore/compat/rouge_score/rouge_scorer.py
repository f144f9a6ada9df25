"""``rouge_score.rouge_scorer``: ``RougeScorer`` and the module's LCS and n-gram helpers.

``RougeScorer`` gives rouge-score 0.1.2's call shapes and floats, bit for bit:
``score(target, prediction)``, ``score_multi(targets, prediction)`` and, beyond rouge-score,
``score_batch(targets, predictions, n_jobs=None)`` on all cores. Results are dicts of
:class:`Score` namedtuples, which compare equal to rouge-score's own ``Score``.

The helpers (``_lcs_table``, ``_backtrack_norec``, ``lcs_ind``, ``_find_union``, ``_union_lcs``,
``_summary_level_lcs``, ``_create_ngrams``, ``_score_ngrams``, ``_score_lcs``) are small plain-Python
definitions with rouge-score's semantics, for code and tests that call them directly; the scorer
itself computes the same numbers in compiled kernels.

Differences: an invalid ROUGE type raises ``ValueError`` at construction (rouge-score raises on
the first ``score``), and a non-string text raises ``TypeError`` naming it.
"""
from __future__ import annotations

import collections
import itertools
import sys
from collections.abc import Callable

import numpy as np

from ...lexical.rouge import (counts_from_raw_strings, ngram_order, packed_pair_counts, packed_pair_union_hits,
                              pair_counts, pair_scorer, pair_threads, pair_union_hits, parse_rouge_types, rouge)
from ...prf import pair_score  # rouge-score's P / R / scoring.fmeasure, same bits
from ...text import RougeTokenizer, Vocabulary
from ...text.sentences import split_sentences
from ...validate import as_text, check_texts
from . import scoring, tokenizers
from .scoring import Score

__all__ = ["RougeScorer", "Score", "lcs_ind"]

_ZERO = Score(precision=0, recall=0, fmeasure=0)

_PairEncoder = Callable[[list[str]], tuple[np.ndarray, np.ndarray]]

# MAX_VOCABULARY / VOCABULARY_CHECK_PERIOD live on the package (see its __init__) and are read
# from there at run time
_limits = sys.modules[__package__]


class RougeScorer(scoring.BaseScorer):
    """rouge-score's ``RougeScorer(rouge_types, use_stemmer=False, split_summaries=False, tokenizer=None)``.

    ``tokenizer`` is any object with ``tokenize(text) -> list`` (as in rouge-score); the default
    is rouge-score's tokeniser (:class:`qascore.text.RougeTokenizer`; a
    :class:`~qascore.compat.rouge_score.tokenizers.DefaultTokenizer` is run as one). A type
    named twice gives one entry, as in rouge-score.

    Example:

        >>> from qascore.compat.rouge_score import rouge_scorer
        >>> scorer = rouge_scorer.RougeScorer(["rouge1", "rougeL"], use_stemmer=True)
        >>> scorer.score("The quick brown fox jumps over the lazy dog",
        ...              "The quick brown dog jumps on the log.")  # doctest: +NORMALIZE_WHITESPACE
        {'rouge1': Score(precision=0.75, recall=0.6666666666666666, fmeasure=0.7058823529411765),
         'rougeL': Score(precision=0.625, recall=0.5555555555555556, fmeasure=0.5882352941176471)}
        >>> scorer.score_multi(["a cat sat", "the cat sat on the mat"], "the cat sat")["rouge1"].fmeasure
        0.6666666666666666
        >>> [s["rougeL"].recall for s in scorer.score_batch(["a cat sat", "one two"], ["the cat sat", "two"])]
        [0.6666666666666666, 0.5]
        >>> rouge_scorer.RougeScorer(["rougeLsum"]).score("one two.\\nthree four.", "one two\\nfour")
        {'rougeLsum': Score(precision=1.0, recall=0.75, fmeasure=0.8571428571428571)}

    :param rouge_types: a list of types: ``rouge1`` .. ``rouge9``, ``rougeL``, ``rougeLsum``.
    :param use_stemmer: Porter-stem tokens longer than 3 characters (with the default tokeniser).
    :param split_summaries: for ``rougeLsum``, split texts into sentences with NLTK (needs its
        ``punkt_tab`` data) instead of at newlines.
    :param tokenizer: an object with ``tokenize(text) -> list`` (None: rouge-score's tokeniser).
    :raises ValueError: for a str or an unknown type in ``rouge_types`` (at construction); ``score``
        raises TypeError for a text that is not a str.
    """

    def __init__(self, rouge_types, use_stemmer=False, split_summaries=False, tokenizer=None):
        if isinstance(rouge_types, str):
            raise ValueError(f"rouge_types must be a list of type names such as [{rouge_types!r}], not a str")
        self.rouge_types = rouge_types
        # rouge-score accepts repeats (one entry each) and an empty list (empty results)
        names = list(dict.fromkeys(rouge_types))
        self._types = parse_rouge_types(names) if names else ()
        self._split_summaries = split_summaries
        if not tokenizer:
            tokenizer = RougeTokenizer(use_stemmer)
        elif type(tokenizer) is tokenizers.DefaultTokenizer:  # a subclass may redefine tokenize()
            tokenizer = tokenizer.rouge_tokenizer
        self._tokenizer = tokenizer
        self._orders = {name: n for name in self._types if (n := ngram_order(name))}
        self._max_order = max(self._orders.values(), default=0)
        self._want_lcs = "rougeL" in self._types
        self._whole_text = self._max_order > 0 or self._want_lcs
        self._reset_encoders()

    def _reset_encoders(self) -> None:
        # rouge-score's own tokeniser, lines as rougeLsum's sentences: the whole pair in C
        # (one reading of each text for every type, stems cached, the result dict built there)
        raw = counts_from_raw_strings(self._tokenizer) and not (self._split_summaries and "rougeLsum" in self._types)
        self._pair = (pair_scorer(self._types, Score, _ZERO, self._tokenizer.use_stemmer)
                      if raw and self._types else None)  # an empty list of types scores nothing, as in rouge-score
        # compiled batch encoders (qascore tokenizers) are fed whole pairs; rouge-score style
        # tokenizers with only tokenize() go through token lists
        self._encode = getattr(self._tokenizer, "encode_batch", None)
        self._vocab = Vocabulary()
        self._pair_encoder: _PairEncoder | None = None  # texts -> (ids, offsets) in self._vocab, see _encode_pair
        self._encodings_until_check = 0

    # The vocabulary and the compiled encoders are caches: a pickle holds the settings only.
    _CACHES = ("_pair", "_encode", "_vocab", "_pair_encoder", "_encodings_until_check")

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k not in self._CACHES}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._reset_encoders()

    # ------------------------------------------------------------ one pair
    def score(self, target, prediction):
        """Scores of ``prediction`` against ``target`` (target first, as in rouge-score). Str
        subclasses (``numpy.str_``) are scored by their characters, as rouge-score does."""
        if type(target) is not str or type(prediction) is not str:  # the kernels take exact str
            target, prediction = as_text(target, "target"), as_text(prediction, "prediction")
        if self._pair is not None:
            return self._pair.score(target, prediction)
        result = {}
        if self._whole_text:
            if self._encode is not None:
                ids, offsets = self._encode_pair([target, prediction])
                matches, lcs, lt, lp = packed_pair_counts(ids, offsets, self._max_order, self._want_lcs)
            else:
                target_tokens = self._tokenizer.tokenize(target)
                prediction_tokens = self._tokenizer.tokenize(prediction)
                matches, lcs, lt, lp = pair_counts(target_tokens, prediction_tokens, self._max_order, self._want_lcs)
        for name in self._types:
            if name == "rougeL":
                result[name] = pair_score(Score, lcs, lp, lt) if lt and lp else _ZERO
            elif name == "rougeLsum":
                result[name] = self._score_lsum(target, prediction)
            else:
                n = self._orders[name]
                result[name] = pair_score(Score, matches[n - 1], lp, lt, n - 1)
        return result

    def _vocabulary(self) -> Vocabulary:
        if len(self._vocab) > _limits.MAX_VOCABULARY:
            self._vocab = Vocabulary()
            self._pair_encoder = None
        return self._vocab

    def _encode_pair(self, texts: list[str]):
        """(ids, offsets) of a few texts in the scorer's vocabulary: the tokeniser's lean route
        when it has one (per-call overhead is most of a short pair's time), else encode_batch."""
        self._encodings_until_check -= 1
        if self._encodings_until_check <= 0 or self._pair_encoder is None:
            self._encodings_until_check = _limits.VOCABULARY_CHECK_PERIOD
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
        rule = "nltk" if self._split_summaries else "lines"
        target_sents = split_sentences(target, rule)
        prediction_sents = split_sentences(prediction, rule)
        if self._encode is not None:
            ids, offsets = self._encode_pair(target_sents + prediction_sents)
            m = int(offsets[len(target_sents)])
            n = int(offsets[-1]) - m
            if not m or not n:
                return _ZERO
            return pair_score(Score, packed_pair_union_hits(ids, offsets, len(target_sents)), n, m)
        tokenize = self._tokenizer.tokenize
        target_tokens = [tokenize(s) for s in target_sents]
        prediction_tokens = [tokenize(s) for s in prediction_sents]
        m = sum(map(len, target_tokens))
        n = sum(map(len, prediction_tokens))
        if not m or not n:
            return _ZERO
        return pair_score(Score, pair_union_hits(target_tokens, prediction_tokens), n, m)

    def score_multi(self, targets, prediction):
        """For each type, the target with the largest F (first on ties) and its whole Score."""
        if isinstance(targets, str):
            raise TypeError("targets must be a list of strings, not a single str")
        score_dicts = [self.score(t, prediction) for t in targets]
        if not score_dicts:
            raise ValueError("score_multi needs at least one target")
        best = {}
        for name in self._types:
            index = int(np.argmax([s[name].fmeasure for s in score_dicts]))
            best[name] = score_dicts[index][name]
        return best

    # ------------------------------------------------------------ many pairs
    def score_batch(self, targets, predictions, n_jobs=None):
        """``[self.score(t, p) for t, p in zip(targets, predictions)]``, computed in one batch on
        ``n_jobs`` threads (default: all cores). Lengths must match."""
        if isinstance(targets, str) or isinstance(predictions, str):
            raise TypeError("targets and predictions must be lists of strings, not a single str")
        targets, predictions = tuple(targets), tuple(predictions)  # tuples reach the kernels without a copy
        if len(targets) != len(predictions):
            raise ValueError(f"targets has {len(targets)} items but predictions has {len(predictions)}")
        check_texts(targets, "targets")  # one C loop each; rouge() would take a list target as several
        check_texts(predictions, "predictions")
        if not self._types:
            return [{} for _ in targets]
        if self._pair is not None:  # as rouge() counts these pairs, the rows built from the counts in C
            return self._pair.score_batch(targets, predictions, pair_threads(predictions, targets, n_jobs))
        result = rouge(predictions, targets, self._types, tokenizer=self._tokenizer,
                       split_summaries=self._split_summaries, n_jobs=n_jobs)
        return result.rows(Score)


# ---------------------------------------------------------------- rouge-score's module helpers
# Plain Python on token sequences (any hashable tokens compared with ==), for callers of the
# helpers themselves; RougeScorer computes the same counts in compiled kernels (qascore.lexical.rouge's
# pair_counts and pair_scorer).


def _create_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of ``tokens``."""
    return collections.Counter(tuple(tokens[start:start + n]) for start in range(len(tokens) - n + 1))


def _score_ngrams(target_ngrams, prediction_ngrams):
    """Score from two n-gram counters: clipped overlap over each side's total (at least 1)."""
    overlap = sum(min(count, prediction_ngrams.get(ngram, 0)) for ngram, count in target_ngrams.items())
    precision = overlap / max(sum(prediction_ngrams.values()), 1)
    recall = overlap / max(sum(target_ngrams.values()), 1)
    return Score(precision=precision, recall=recall, fmeasure=scoring.fmeasure(precision, recall))


def _lcs_table(ref, can):
    """(len(ref)+1) x (len(can)+1) table: [i][j] is the LCS length of ref[:i] and can[:j]."""
    table = [[0] * (len(can) + 1)]
    for token in ref:
        above = table[-1]
        row = [0]
        for j, other in enumerate(can):
            row.append(above[j] + 1 if token == other else max(above[j + 1], row[j]))
        table.append(row)
    return table


def _backtrack_norec(t, ref, can):
    """Indices into ``ref`` of one LCS, read back from ``_lcs_table(ref, can)``: a match is taken
    when the tokens are equal, else the step goes left only when that keeps a strictly longer LCS."""
    i, j = len(ref), len(can)
    indices = []
    while i > 0 and j > 0:
        if ref[i - 1] == can[j - 1]:
            i -= 1
            j -= 1
            indices.append(i)
        elif t[i][j - 1] > t[i - 1][j]:
            j -= 1
        else:
            i -= 1
    indices.reverse()
    return indices


def lcs_ind(ref, can):
    """Indices into ``ref`` of one longest common subsequence of ``ref`` and ``can``."""
    return _backtrack_norec(_lcs_table(ref, can), ref, can)


def _find_union(lcs_list):
    """Sorted union of several index lists."""
    return sorted(set(itertools.chain.from_iterable(lcs_list)))


def _union_lcs(ref, c_list):
    """Tokens of ``ref`` in the union of its LCS with each candidate sentence (in ``ref`` order)."""
    return [ref[i] for i in _find_union([lcs_ind(ref, can) for can in c_list])]


def _summary_level_lcs(ref_sent, can_sent):
    """Summary-level LCS (ROUGE paper 3.2) over tokenised sentences: union-LCS hits, each token
    counted at most as often as it occurs on both sides (as ROUGE-1.5.5 does)."""
    m = sum(map(len, ref_sent))
    n = sum(map(len, can_sent))
    if not m or not n:
        return Score(precision=0, recall=0, fmeasure=0)
    left_ref = collections.Counter(itertools.chain.from_iterable(ref_sent))
    left_can = collections.Counter(itertools.chain.from_iterable(can_sent))
    hits = 0
    for sentence in ref_sent:
        for token in _union_lcs(sentence, can_sent):
            if left_can[token] > 0 and left_ref[token] > 0:
                hits += 1
                left_can[token] -= 1
                left_ref[token] -= 1
    recall = hits / m
    precision = hits / n
    return Score(precision=precision, recall=recall, fmeasure=scoring.fmeasure(precision, recall))


def _score_lcs(target_tokens, prediction_tokens):
    """rougeL's Score: LCS length over each side's token count (zeros when a side is empty)."""
    if not target_tokens or not prediction_tokens:
        return Score(precision=0, recall=0, fmeasure=0)
    lcs = _lcs_table(target_tokens, prediction_tokens)[-1][-1]
    precision = lcs / len(prediction_tokens)
    recall = lcs / len(target_tokens)
    return Score(precision=precision, recall=recall, fmeasure=scoring.fmeasure(precision, recall))
