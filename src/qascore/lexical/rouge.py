"""ROUGE-N (1..9), ROUGE-L and ROUGE-Lsum over batches, bit-identical to rouge-score 0.1.2.

Texts are tokenised once per batch into packed ids (:mod:`qascore.text`), the compiled kernels
count n-gram overlaps, LCS lengths and rougeLsum union hits, and precision / recall / F are
formed by :mod:`qascore.prf` with exactly rouge-score's floating-point operations.

Several references per prediction are reduced in one of two conventions:

* ``"best_f"`` (rouge-score ``score_multi``): for each ROUGE type, the reference with the
  largest F (the first one on ties) and that reference's whole (P, R, F) triple;
* ``"max_pr"`` (coco-caption / DuReader ROUGE-L): the maximum precision and the maximum recall
  over the references, taken independently, then F-gamma of the two.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from collections.abc import Mapping, Sequence

import numpy as np

from .._kernels.lcs import lcs_lengths, union_lcs_hits_batch
from .._kernels.ngram import clipped_ngram_matches
from .._kernels.rouge_pair import (pair_rouge_counts_ids, pair_rouge_counts_tokens, pair_union_hits_ids,
                                   pair_union_hits_tokens)
from .._kernels.rouge_raw import PairScorer
from .._kernels.rouge_raw import rouge_counts as raw_rouge_counts
from .._kernels.score_rows import score_rows
from .._kernels.text_encode import first_non_str
from .._parallel import pool_threads, resolve_n_jobs, threads_for
from ..validate import as_list, check_choice, check_flag, check_same_length, check_weight
from ..prf import count_ratios, f_scores, rouge_prf
from ..metric import CorpusScore, ExampleScores, ExactSum, Metric, Statistics, mean_statistics, mean_values
from ..signature import make_signature
from ..text import PackedTokens, RougeTokenizer, Vocabulary, get_tokenizer
from ..text.sentences import split_sentences
from ..text.tokenizers import check_texts

__all__ = ["Rouge", "RougeArrays", "RougeResult", "counts_from_raw_strings", "fmeasure", "ngram_order",
           "packed_pair_counts", "packed_pair_union_hits", "pair_counts", "pair_scorer", "pair_threads",
           "pair_union_hits", "parse_rouge_types", "rouge"]

MAX_NGRAM_ORDER = 9
MULTI_REF_MODES = ("best_f", "max_pr")
_NGRAM_TYPE = re.compile(r"rouge([1-9])")


def ngram_order(rouge_type: str) -> int:
    """n of a ROUGE-N type name (``rouge1`` .. ``rouge9``); 0 for any other name (``rougeL``,
    ``rougeLsum``).

    Example:

        >>> from qascore.lexical.rouge import ngram_order
        >>> ngram_order("rouge2"), ngram_order("rougeL")
        (2, 0)

    :param rouge_type: a ROUGE type name.
    :returns: the n-gram order, or 0.
    """
    match = _NGRAM_TYPE.fullmatch(rouge_type)
    return int(match.group(1)) if match else 0


def parse_rouge_types(rouge_types) -> tuple[str, ...]:
    """Validate ROUGE type names (``rouge1`` .. ``rouge9``, ``rougeL``, ``rougeLsum``).

    Example:

        >>> from qascore.lexical.rouge import parse_rouge_types
        >>> parse_rouge_types("rougeL"), parse_rouge_types(["rouge1", "rougeLsum"])
        (('rougeL',), ('rouge1', 'rougeLsum'))
        >>> parse_rouge_types(["rouge10"])
        Traceback (most recent call last):
        ValueError: Invalid rouge type: 'rouge10' (expected rouge1..rouge9, rougeL or rougeLsum)

    :param rouge_types: one name or a sequence of names.
    :returns: the names as a tuple, in the order given.
    :raises ValueError: for an empty sequence, an unknown name or a name given twice.
    """
    if isinstance(rouge_types, str):
        rouge_types = [rouge_types]
    types = tuple(rouge_types)
    if not types:
        raise ValueError("rouge_types is empty")
    for name in types:
        if not isinstance(name, str) or not (name in ("rougeL", "rougeLsum") or _NGRAM_TYPE.fullmatch(name)):
            raise ValueError(f"Invalid rouge type: {name!r} (expected rouge1..rouge9, rougeL or rougeLsum)")
    if len(set(types)) != len(types):
        raise ValueError(f"duplicate rouge types in {types}")
    return types


def fmeasure(precision: np.ndarray, recall: np.ndarray, gamma: float = 1.0) -> np.ndarray:
    """``(1 + gamma^2) P R / (R + gamma^2 P)``, 0 where P or R is 0.

    With gamma = 1 this is rouge-score's ``2 P R / (P + R)`` to the last bit: (1 + 1) = 2 and
    1 * P = P exactly, and addition commutes in IEEE arithmetic. One compiled pass
    (``kernels/prf.pyx``) over equal-length 1-D arrays; other shapes broadcast first.

    Example:

        >>> import numpy as np
        >>> from qascore.lexical.rouge import fmeasure
        >>> fmeasure(np.array([0.5, 1.0, 0.0]), np.array([1.0, 0.5, 0.3])).round(4).tolist()
        [0.6667, 0.6667, 0.0]
        >>> fmeasure(np.array([0.5]), np.array([1.0]), gamma=2).round(4).tolist()
        [0.8333]

    :param precision: precision values.
    :param recall: recall values, paired with ``precision``.
    :param gamma: recall's weight (1: the harmonic mean).
    :returns: F per pair, float64.
    """
    return f_scores(precision, recall, float(gamma) ** 2)


@dataclass(frozen=True)
class RougeArrays:
    """Precision, recall and F of one ROUGE type, one float64 entry per prediction.

    Example:

        >>> from qascore.lexical.rouge import rouge
        >>> arrays = rouge(["the cat sat", "a dog"], ["a cat sat", "a dog"], ["rouge1"])["rouge1"]
        >>> arrays.fmeasure.round(4).tolist(), {k: round(v, 4) for k, v in arrays.mean().items()}
        ([0.6667, 1.0], {'precision': 0.8333, 'recall': 0.8333, 'fmeasure': 0.8333})

    :param precision: precision per prediction.
    :param recall: recall per prediction.
    :param fmeasure: F per prediction.
    """

    precision: np.ndarray
    recall: np.ndarray
    fmeasure: np.ndarray

    def mean(self) -> dict[str, float]:
        """Mean over the batch, correctly rounded from the exact sum (:class:`~qascore.metric.ExactSum`,
        so streamed batches give the same bits; 0.0 for an empty batch)."""
        n = len(self.precision)
        return {name: ExactSum.of(getattr(self, name)).mean(n) for name in ("precision", "recall", "fmeasure")}


@dataclass(frozen=True)
class RougeResult(Mapping):
    """Scores of a batch by ROUGE type, with the signature of the settings that produced them.

    Example:

        >>> result = rouge(["the cat sat on the mat"], ["a cat sat on a mat"], ["rouge1", "rougeL"])
        >>> list(result), result["rouge1"].fmeasure.round(4).tolist()
        (['rouge1', 'rougeL'], [0.6667])
        >>> round(result.mean()["rougeL"]["recall"], 4)
        0.6667

    :param scores: a :class:`RougeArrays` per ROUGE type, in the order asked for.
    :param signature: the settings that produced the scores.
    :param n_predictions: the number of predictions scored.
    """

    scores: dict[str, RougeArrays]
    signature: str
    n_predictions: int = field(default=0)

    def __getitem__(self, rouge_type: str) -> RougeArrays:
        return self.scores[rouge_type]

    def __iter__(self):
        return iter(self.scores)

    def __len__(self) -> int:
        return len(self.scores)

    def mean(self) -> dict[str, dict[str, float]]:
        """Mean precision, recall and F of every type over the batch."""
        return {name: arrays.mean() for name, arrays in self.scores.items()}

    def rows(self, row_type: type) -> list[dict]:
        """The scores per prediction, ``{type: row_type(precision, recall, fmeasure)}`` each (the
        shape of rouge-score's ``RougeScorer.score``), built in C from the arrays.

        Example:

            >>> from collections import namedtuple
            >>> Score = namedtuple("Score", ["precision", "recall", "fmeasure"])
            >>> rows = rouge(["the cat sat", "a dog"], ["a cat sat", "a dog"], ["rouge1", "rougeL"]).rows(Score)
            >>> rows[1]  # doctest: +NORMALIZE_WHITESPACE
            {'rouge1': Score(precision=1.0, recall=1.0, fmeasure=1.0),
             'rougeL': Score(precision=1.0, recall=1.0, fmeasure=1.0)}
            >>> rows[0]["rouge1"].fmeasure
            0.6666666666666666

        :param row_type: a namedtuple class of three fields (precision, recall, F).
        :returns: one dict per prediction, the types in this result's order.
        :raises TypeError: when ``row_type`` is not a namedtuple class of three fields.
        """
        columns = [(arrays.precision, arrays.recall, arrays.fmeasure) for arrays in self.scores.values()]
        return score_rows(tuple(self.scores), columns, row_type)


@functools.lru_cache(maxsize=256)  # one string per setting; rebuilding it was a tenth of a one-pair call
def rouge_signature(rouge_types: tuple[str, ...], tokenizer_name, use_stemmer, multi_ref, gamma,
                    split_summaries) -> str:
    settings = dict(types=",".join(rouge_types), tok=tokenizer_name, stem=bool(use_stemmer), multiref=multi_ref)
    if multi_ref == "max_pr" or gamma != 1.0:
        settings["gamma"] = f"{float(gamma):g}"
    if "rougeLsum" in rouge_types:
        settings["sents"] = "nltk" if split_summaries else "newline"
    return make_signature("rouge", **settings)


# ---------------------------------------------------------------- input shaping
def _flatten_references(references, n_predictions: int) -> tuple[Sequence[str], np.ndarray]:
    """References as one flat sequence plus group offsets: prediction i owns refs[g[i]:g[i+1]]."""
    # a tuple goes to the raw-string kernel without another copy; any other ordered iterable (a
    # numpy array, 2-D too, a pandas Series, a generator) is read once by as_list
    references = tuple(references if isinstance(references, (list, tuple)) else
                       as_list(references, "references", "a sequence (one string or list of strings per prediction)",
                               ndim=2))
    check_same_length(references, range(n_predictions), "references", "predictions")
    if first_non_str(references) < 0:  # one reference each, without a Python loop
        return references, np.arange(n_predictions + 1, dtype=np.int64)
    flat: list[str] = []
    groups = np.zeros(n_predictions + 1, dtype=np.int64)
    for i, ref in enumerate(references):
        if isinstance(ref, str):
            flat.append(ref)
        elif isinstance(ref, (list, tuple)):
            if not ref:
                raise ValueError(f"references[{i}] is an empty list; give at least one reference")
            for j, r in enumerate(ref):
                if not isinstance(r, str):
                    raise TypeError(f"references[{i}][{j}] must be str, got {type(r).__name__}")
            flat.extend(ref)
        else:
            raise TypeError(f"references[{i}] must be str or a list of str, got {type(ref).__name__}")
        groups[i + 1] = len(flat)
    return flat, groups


@dataclass(frozen=True)
class _SentencePacked:
    """Texts as runs of sentences: text i owns sentences sent_offsets[i]..sent_offsets[i+1]-1."""

    tokens: PackedTokens
    sent_offsets: np.ndarray

    def token_counts(self) -> np.ndarray:
        return self.tokens.offsets[self.sent_offsets[1:]] - self.tokens.offsets[self.sent_offsets[:-1]]

    def sentence_counts(self) -> np.ndarray:
        return np.diff(self.sent_offsets)


def _encode_sentences(texts, tokenizer, vocab, split_summaries, n_jobs) -> _SentencePacked:
    sentences: list[str] = []
    sent_offsets = np.zeros(len(texts) + 1, dtype=np.int64)
    for i, text in enumerate(texts):
        if type(text) is not str:  # a str subclass (validated) is split by its characters, not its methods
            text = str.__str__(text)
        sentences.extend(split_sentences(text, "nltk" if split_summaries else "lines"))
        sent_offsets[i + 1] = len(sentences)
    return _SentencePacked(tokenizer.encode_batch(sentences, vocab, n_jobs=n_jobs), sent_offsets)


# ---------------------------------------------------------------- per-pair scores
def _token_counts(max_order, want_lcs, pred_rows, ref_rows, tokens: PackedTokens, n_jobs):
    """(clipped n-gram matches [K, max_order], LCS lengths or None, prediction lengths, reference
    lengths) of text ``pred_rows[k]`` (a prediction) vs text ``ref_rows[k]`` (a reference), both
    rows of the same packed batch."""
    pred_len = tokens.lengths()[pred_rows]
    ref_len = tokens.lengths()[ref_rows]
    n_jobs = pool_threads(n_jobs)
    matches = lcs = None
    if max_order:
        groups = np.arange(len(ref_rows) + 1, dtype=np.int64)
        matches = clipped_ngram_matches(tokens.ids, tokens.offsets, pred_rows, tokens.ids, tokens.offsets, ref_rows,
                                        groups, max_order, n_jobs)
    if want_lcs:
        lcs = lcs_lengths(tokens.ids, tokens.offsets, pred_rows, tokens.ids, tokens.offsets, ref_rows, n_jobs)
    return matches, lcs, pred_len, ref_len


def _scores_of_counts(orders, want_lcs, matches, lcs, pred_len, ref_len) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """(precision, recall) of the ROUGE-N ``orders`` and (``want_lcs``) of rougeL."""
    out = {}
    for n in orders:
        m = matches[:, n - 1]
        # a text of L tokens has L - n + 1 n-grams; rouge-score divides by max(count, 1) itself here
        out[f"rouge{n}"] = (count_ratios(m, pred_len, n - 1), count_ratios(m, ref_len, n - 1))
    if want_lcs:
        out["rougeL"] = (count_ratios(lcs, pred_len), count_ratios(lcs, ref_len))
    return out


def _arrays_of_counts(orders, want_lcs, matches, lcs, pred_len, ref_len, gamma) -> dict[str, RougeArrays]:
    """_scores_of_counts and F for one reference per prediction in one compiled call
    (``rouge_prf``): three numpy-wrapped calls a type were most of a small batch's time."""
    if matches is None:  # the packed route counts no n-grams when none are asked for
        matches = np.zeros((len(pred_len), 0), dtype=np.int64)
    prf = rouge_prf(matches, tuple(orders), lcs if want_lcs else None, np.asarray(pred_len, dtype=np.int64),
                    np.asarray(ref_len, dtype=np.int64), float(gamma) ** 2)
    names = [f"rouge{n}" for n in orders] + (["rougeL"] if want_lcs else [])
    return {name: RougeArrays(*arrays) for name, arrays in zip(names, prf)}


def _lsum_scores(pred_rows, ref_rows, sentences: _SentencePacked, n_jobs) -> tuple[np.ndarray, np.ndarray]:
    """(precision, recall) of rougeLsum for sentence-packed texts ``pred_rows[k]`` vs ``ref_rows[k]``."""
    hits = union_lcs_hits_batch(sentences.tokens.ids, sentences.tokens.offsets, sentences.sent_offsets, ref_rows,
                                sentences.tokens.ids, sentences.tokens.offsets, sentences.sent_offsets, pred_rows,
                                pool_threads(n_jobs))
    n = sentences.token_counts()[pred_rows]
    m = sentences.token_counts()[ref_rows]
    # rouge-score: no sentences or no tokens on either side -> 0; hits are 0 there
    return count_ratios(hits, n), count_ratios(hits, m)


def pair_threads(predictions: Sequence[str], references: Sequence[str], n_jobs: int | None) -> int:
    """Threads worth starting to count ROUGE over the pairs (``predictions[i]``, ``references[i]``)
    under ``n_jobs`` (None: all cores): the library's thread rule (``threads_for``) over the batch's size
    in units of a short pair, which is the pair count, or, for a few pairs (cheap to measure),
    their code points / 64, so that a few long texts still spread over threads. For callers that
    count ROUGE on the compiled kernels themselves (:mod:`qascore.compat.rouge_score`).

    Example:

        >>> from qascore.lexical.rouge import pair_threads
        >>> pair_threads(["the cat sat"] * 4, ["a cat sat"] * 4, n_jobs=4)  # too little work for a second thread
        1

    :param predictions: the predictions.
    :param references: one reference per pair, paired with ``predictions``.
    :param n_jobs: the caller's thread limit (None: all cores).
    :returns: the number of threads to count with.
    """
    if len(references) >= 512:
        work = len(references)
    else:
        work = (sum(map(len, predictions)) + sum(map(len, references))) // 64
    return threads_for(work, resolve_n_jobs(n_jobs))


def counts_from_raw_strings(tokenizer) -> bool:
    """True for rouge-score's tokeniser (with or without stemming): its counts are taken straight
    from the strings, tokens interned per pair and stemmed in C with a cache
    (``kernels/rouge_raw.pyx``), which skips the batch vocabulary and spreads over threads.
    Other tokenisers encode a batch first.

    Example:

        >>> from qascore.lexical.rouge import counts_from_raw_strings
        >>> from qascore.text import get_tokenizer
        >>> counts_from_raw_strings(get_tokenizer("rouge")), counts_from_raw_strings(get_tokenizer("whitespace"))
        (True, False)

    :param tokenizer: a tokenizer object.
    :returns: whether ROUGE counts of ``tokenizer``'s tokens come straight from the strings.
    """
    return type(tokenizer) is RougeTokenizer


# ---------------------------------------------------------------- one pair at a time
# The latency road of a caller that scores one (target, prediction) pair per call, as
# rouge-score's RougeScorer.score does (qascore.compat.rouge_score): no batch vocabulary, no
# threads, the counts of rouge() for that pair from the compiled pair kernels
# (kernels/rouge_pair.pyx, kernels/rouge_raw.pyx). Counts are (matches per n-gram order 1 ..
# max_order, LCS length or -1, target tokens, prediction tokens); P, R and F come from qascore.prf.


def pair_scorer(rouge_types, row_type: type, zero, use_stemmer: bool = False) -> PairScorer:
    """A compiled scorer of one pair at a time under rouge-score's tokeniser (rougeLsum's sentences
    are the lines): ``score(target, prediction)`` gives ``{type: row_type(P, R, F)}`` with
    rouge-score's floats, every type from one reading of each text, the result built in C;
    ``score_batch(targets, predictions, n_jobs)`` (tuples of str) gives a list of them, counted on
    ``n_jobs`` threads (:func:`pair_threads` says how many are worth it).

    Example:

        >>> from collections import namedtuple
        >>> from qascore.lexical.rouge import pair_scorer
        >>> Score = namedtuple("Score", ["precision", "recall", "fmeasure"])
        >>> scorer = pair_scorer(["rouge1", "rougeL"], Score, Score(0, 0, 0))
        >>> scorer.score("The cat sat.", "a cat sat down")["rouge1"]
        Score(precision=0.5, recall=0.6666666666666666, fmeasure=0.5714285714285715)
        >>> scorer.score("", "a cat")["rougeL"]  # a side without tokens: ``zero``
        Score(precision=0, recall=0, fmeasure=0)
        >>> [row["rougeL"].fmeasure for row in scorer.score_batch(("the cat", "one"), ("a cat", "two"), 1)]
        [0.5, 0.0]

    :param rouge_types: ROUGE type names (:func:`parse_rouge_types`).
    :param row_type: a namedtuple class of three fields (precision, recall, F).
    :param zero: what ``score`` gives rougeL and rougeLsum when a side has no tokens (rouge-score
        gives integer zeros there); ``score_batch`` gives the computed float zeros, as :func:`rouge`.
    :param use_stemmer: Porter-stem tokens longer than 3 characters, as rouge-score does.
    :returns: the compiled scorer.
    :raises ValueError: for an unknown or repeated type name.
    :raises TypeError: when ``row_type`` is not a namedtuple class.
    """
    types = parse_rouge_types(rouge_types)
    codes = tuple(ngram_order(name) or (-1 if name == "rougeLsum" else 0) for name in types)
    return PairScorer(types, codes, check_flag(use_stemmer, "use_stemmer"), row_type, zero)


def pair_counts(target: list, prediction: list, max_order: int, want_lcs: bool) -> tuple[tuple, int, int, int]:
    """ROUGE counts of one pair of token lists (any tokeniser's output; tokens compare as strings).

    Example:

        >>> from qascore.lexical.rouge import pair_counts
        >>> pair_counts(["the", "cat", "sat"], ["a", "cat", "sat", "down"], 2, True)
        ((2, 1), 2, 3, 4)

    :param target: the target's (reference's) tokens, a list of str.
    :param prediction: the prediction's tokens, a list of str.
    :param max_order: the highest n-gram order counted (0 to 9).
    :param want_lcs: count the LCS length too (else it is -1).
    :returns: (clipped matches per order 1 .. ``max_order``, LCS length, target tokens, prediction
        tokens).
    """
    return pair_rouge_counts_tokens(target, prediction, max_order, want_lcs)


def packed_pair_counts(ids: np.ndarray, offsets: np.ndarray, max_order: int, want_lcs: bool,
                       ) -> tuple[tuple, int, int, int]:
    """:func:`pair_counts` of a pair packed by a tokeniser's ``encode_batch`` (row 0 the target,
    row 1 the prediction): no token strings are made.

    Example:

        >>> from qascore.lexical.rouge import packed_pair_counts
        >>> from qascore.text import Vocabulary, get_tokenizer
        >>> packed = get_tokenizer("whitespace").encode_batch(["the cat sat", "a cat sat down"], Vocabulary())
        >>> packed_pair_counts(packed.ids, packed.offsets, 2, True)
        ((2, 1), 2, 3, 4)

    :param ids: contiguous int32 token ids of the two rows.
    :param offsets: contiguous int64 row offsets, three of them.
    :param max_order: the highest n-gram order counted (0 to 9).
    :param want_lcs: count the LCS length too (else it is -1).
    :returns: as :func:`pair_counts`.
    :raises TypeError: for arrays of another type, shape or layout.
    :raises ValueError: unless ``offsets`` holds exactly two rows.
    """
    return pair_rouge_counts_ids(ids, offsets, max_order, want_lcs)


def pair_union_hits(target_sentences: list, prediction_sentences: list) -> int:
    """rougeLsum's union-LCS hits of one pair, its sentences given as token lists; precision and
    recall are the hits over the prediction's and the target's token counts.

    Example:

        >>> from qascore.lexical.rouge import pair_union_hits
        >>> pair_union_hits([["the", "cat"], ["sat", "down"]], [["a", "cat", "sat"], ["down"]])
        3

    :param target_sentences: the target's sentences, each a list of str tokens.
    :param prediction_sentences: the prediction's sentences, each a list of str tokens.
    :returns: the number of hits.
    """
    return pair_union_hits_tokens(target_sentences, prediction_sentences)


def packed_pair_union_hits(ids: np.ndarray, offsets: np.ndarray, n_target_sentences: int) -> int:
    """:func:`pair_union_hits` of a pair's sentences packed in one batch, the target's first.

    Example:

        >>> from qascore.lexical.rouge import packed_pair_union_hits
        >>> from qascore.text import Vocabulary, get_tokenizer
        >>> sentences = ["the cat", "sat down", "a cat sat", "down"]  # two of the target, two of the prediction
        >>> packed = get_tokenizer("whitespace").encode_batch(sentences, Vocabulary())
        >>> packed_pair_union_hits(packed.ids, packed.offsets, 2)
        3

    :param ids: contiguous int32 token ids of the sentences.
    :param offsets: contiguous int64 row offsets, one row per sentence.
    :param n_target_sentences: how many of the rows, from the first, are the target's.
    :returns: the number of hits.
    """
    return pair_union_hits_ids(ids, offsets, n_target_sentences)


def _reduce_groups(precision, recall, groups, multi_ref, gamma) -> RougeArrays:
    """One (P, R, F) per prediction from the per-reference scores of its group."""
    f = fmeasure(precision, recall, gamma)
    starts = groups[:-1]
    if len(starts) == 0:
        empty = np.zeros(0)
        return RougeArrays(empty, empty.copy(), empty.copy())
    if len(f) == len(starts):  # one reference each: nothing to reduce
        return RougeArrays(precision, recall, f)
    if multi_ref == "max_pr":
        p = np.maximum.reduceat(precision, starts)
        r = np.maximum.reduceat(recall, starts)
        return RougeArrays(p, r, fmeasure(p, r, gamma))
    # best_f: first reference reaching the group's maximum F (np.argmax semantics)
    group_of = np.repeat(np.arange(len(starts)), np.diff(groups))
    best = np.maximum.reduceat(f, starts)
    candidates = np.where(f == best[group_of], np.arange(len(f)), len(f))
    pick = np.minimum.reduceat(candidates, starts)
    return RougeArrays(precision[pick], recall[pick], f[pick])


# ---------------------------------------------------------------- public API
class _TokenizeOnlyAdapter:
    """Batch encoding for a tokenizer that only has ``tokenize(text) -> list[str]`` (rouge-score's
    tokenizer protocol)."""

    def __init__(self, tokenizer) -> None:
        self._tokenizer = tokenizer
        self.name = f"custom:{type(tokenizer).__name__}"

    def encode_batch(self, texts, vocab: Vocabulary, n_jobs=None) -> PackedTokens:
        tokenize = self._tokenizer.tokenize
        return vocab.pack([tokenize(t) for t in texts])


def _resolve_tokenizer(tokenizer, use_stemmer: bool):
    if not isinstance(tokenizer, str):
        if hasattr(tokenizer, "encode_batch"):
            return tokenizer
        if hasattr(tokenizer, "tokenize"):
            return _TokenizeOnlyAdapter(tokenizer)
        raise TypeError("tokenizer must be a name or an object with tokenize(text) or encode_batch(texts, vocab)")
    if not use_stemmer:
        return get_tokenizer(tokenizer)
    try:
        return get_tokenizer(tokenizer, use_stemmer=True)
    except TypeError:
        raise ValueError(f"tokenizer {tokenizer!r} does not support stemming") from None


def rouge(
    predictions: Sequence[str],
    references,
    rouge_types=("rouge1", "rouge2", "rougeL"),
    *,
    use_stemmer: bool = False,
    tokenizer="rouge",
    multi_ref: str = "best_f",
    gamma: float = 1.0,
    split_summaries: bool = False,
    n_jobs: int | None = None,
) -> RougeResult:
    """ROUGE scores of each prediction against its reference(s).

    ``references[i]`` is one string or a list of strings (several references). ``tokenizer`` is
    a name from :func:`qascore.text.get_tokenizer` (``rouge`` = rouge-score's default, ``unicode``
    for scripts the rouge tokeniser deletes, ``whitespace``, ``char``) or a tokenizer object with
    ``encode_batch``. ``multi_ref`` is ``"best_f"`` (rouge-score) or ``"max_pr"`` (coco/DuReader);
    ``gamma`` weighs recall in F (1 = rouge-score's F1). Returns numpy arrays per type.

    Example:

        >>> result = rouge(["the cat sat"], [["a cat sat", "the cat sat down"]], ["rouge1", "rouge2"])
        >>> result["rouge2"].precision.tolist(), result["rouge2"].recall.round(4).tolist()
        ([1.0], [0.6667])

    :param predictions: the predicted texts.
    :param references: per prediction, one reference string or a list of them.
    :param rouge_types: ``rouge1`` .. ``rouge9``, ``rougeL``, ``rougeLsum``.
    :param use_stemmer: Porter-stem tokens (rouge-score's ``use_stemmer``).
    :param tokenizer: a tokenizer name or object (see above).
    :param multi_ref: ``best_f`` or ``max_pr``.
    :param gamma: recall's weight in F.
    :param split_summaries: split texts into sentences for ``rougeLsum`` (rouge-score's option).
    :param n_jobs: threads (None: the library's default; -1: every core).
    :returns: a :class:`RougeResult` of per-prediction precision, recall and F arrays per type.
    :raises ValueError: for an unknown ROUGE type or option, or predictions and references of
        different lengths.
    :raises TypeError: for a text that is not a ``str``.
    """
    types = parse_rouge_types(rouge_types)
    check_choice(multi_ref, MULTI_REF_MODES, "multi_ref")
    gamma = check_weight(gamma, "gamma")
    use_stemmer = check_flag(use_stemmer, "use_stemmer")
    split_summaries = check_flag(split_summaries, "split_summaries")
    # our own copy, read by the kernels without another (as_list: any other ordered iterable)
    predictions = tuple(predictions if isinstance(predictions, (list, tuple)) else as_list(predictions, "predictions"))
    check_texts(predictions, "predictions")
    flat_refs, groups = _flatten_references(references, len(predictions))
    tok = _resolve_tokenizer(tokenizer, use_stemmer)
    jobs = resolve_n_jobs(n_jobs)

    orders = [n for name in types if (n := ngram_order(name))]
    want_lcs = "rougeL" in types
    pred_rows = np.arange(len(predictions), dtype=np.int64)
    if len(flat_refs) != len(predictions):  # several references for some predictions
        pred_rows = np.repeat(pred_rows, np.diff(groups))
    pairs: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # per-reference (P, R), reduced below
    scores: dict[str, RougeArrays] = {}
    flat_ref_rows = np.arange(len(flat_refs), dtype=np.int64)
    # when tokens are packed, predictions and references are encoded in one call (one pass of the
    # encoder's fixed costs); references are rows len(predictions) .. of the same packed arrays
    vocab = Vocabulary()
    ref_rows = flat_ref_rows + len(predictions)
    raw = counts_from_raw_strings(tok)
    # rougeLsum over lines comes from the same reading of each pair as the other types
    raw_lsum = raw and "rougeLsum" in types and not split_summaries
    if orders or want_lcs or raw_lsum:
        if raw:
            *counts, lsum = raw_rouge_counts(predictions, flat_refs, pred_rows, flat_ref_rows, max(orders, default=0),
                                             want_lcs, pair_threads(predictions, flat_refs, jobs),
                                             want_lsum=raw_lsum, stem=tok.use_stemmer)
        else:
            counts = _token_counts(max(orders, default=0), want_lcs, pred_rows, ref_rows,
                                   tok.encode_batch([*predictions, *flat_refs], vocab, n_jobs=jobs), jobs)
        matches, lcs, pred_len, ref_len = counts
        if len(flat_refs) == len(predictions):  # one reference each: nothing to reduce
            scores.update(_arrays_of_counts(orders, want_lcs, matches, lcs, pred_len, ref_len, gamma))
        else:
            pairs.update(_scores_of_counts(orders, want_lcs, matches, lcs, pred_len, ref_len))
        if raw_lsum:  # hits are 0 where either side has no tokens, as rouge-score's early 0
            pairs["rougeLsum"] = (count_ratios(lsum, pred_len), count_ratios(lsum, ref_len))
    if "rougeLsum" in types and not raw_lsum:
        texts = [*predictions, *flat_refs]
        sentences = _encode_sentences(texts, tok, vocab, split_summaries, jobs)
        pairs["rougeLsum"] = _lsum_scores(pred_rows, ref_rows, sentences, jobs)
    scores.update((name, _reduce_groups(*pairs[name], groups, multi_ref, gamma)) for name in pairs)
    scores = {name: scores[name] for name in types}  # in the order asked for
    signature = rouge_signature(types, getattr(tok, "name", type(tok).__name__),
                                getattr(tok, "use_stemmer", use_stemmer), multi_ref, gamma, split_summaries)
    return RougeResult(scores, signature, len(predictions))


# The Metric interface over the functional API (one road: rouge()).


class Rouge(Metric):
    """ROUGE as a :class:`~qascore.metric.Metric`: :func:`rouge` per example, means over the corpus.

    The constructor takes :func:`rouge`'s settings. ``score(predictions, references)`` gives the
    columns ``<type>_precision``, ``<type>_recall`` and ``<type>_fmeasure`` of :func:`rouge`;
    ``statistics`` are the sums of those columns and the count; the corpus figures are their
    correctly rounded means (exact sums), equal to :meth:`RougeResult.mean` to the last bit for one
    batch or any split of it into batches.

    Example:

        >>> metric = Rouge(["rouge1"], use_stemmer=True)
        >>> score = metric.corpus_score(["the cats sat"], [["a cat sat", "the dog"]])
        >>> round(score["rouge1_fmeasure"], 4)
        0.6667
        >>> metric.signature().split("|")[:4]
        ['qascore:rouge', 'types:rouge1', 'tok:rouge', 'stem:yes']

    :param rouge_types: ``rouge1`` .. ``rouge9``, ``rougeL``, ``rougeLsum``.
    :param use_stemmer: Porter-stem tokens (rouge-score's ``use_stemmer``).
    :param tokenizer: a tokenizer name or object (as :func:`rouge` takes it).
    :param multi_ref: ``best_f`` or ``max_pr``.
    :param gamma: recall's weight in F.
    :param split_summaries: split texts into sentences for ``rougeLsum``.
    :param n_jobs: threads (None: the library's default; -1: every core).
    :raises ValueError: for an unknown ROUGE type or option.
    """

    name = "rouge"

    def __init__(self, rouge_types=("rouge1", "rouge2", "rougeL"), *, use_stemmer: bool = False,
                 tokenizer="rouge", multi_ref: str = "best_f", gamma: float = 1.0,
                 split_summaries: bool = False, n_jobs: int | None = None) -> None:
        self.rouge_types = parse_rouge_types(rouge_types)
        self.use_stemmer, self.tokenizer, self.multi_ref = use_stemmer, tokenizer, multi_ref
        self.gamma, self.split_summaries, self.n_jobs = gamma, split_summaries, n_jobs
        # An empty batch validates every setting now and yields the signature rouge() writes.
        self._signature = self.result([], []).signature

    def settings(self) -> dict:
        return {"rouge_types": self.rouge_types, "use_stemmer": self.use_stemmer, "tokenizer": self.tokenizer,
                "multi_ref": self.multi_ref, "gamma": self.gamma, "split_summaries": self.split_summaries}

    def signature(self) -> str:
        return self._signature

    def result(self, predictions, references) -> RougeResult:
        """:func:`rouge` of a batch with this metric's settings."""
        return rouge(predictions, references, self.rouge_types, use_stemmer=self.use_stemmer,
                     tokenizer=self.tokenizer, multi_ref=self.multi_ref, gamma=self.gamma,
                     split_summaries=self.split_summaries, n_jobs=self.n_jobs)

    @staticmethod
    def columns(result: RougeResult) -> dict[str, np.ndarray]:
        """``<type>_precision`` / ``_recall`` / ``_fmeasure`` arrays of a :class:`RougeResult`."""
        return {f"{name}_{figure}": getattr(arrays, figure)
                for name, arrays in result.items() for figure in ("precision", "recall", "fmeasure")}

    def score(self, predictions, references) -> ExampleScores:
        result = self.result(predictions, references)
        return ExampleScores(self.name, self.columns(result), result.signature)

    def statistics(self, predictions, references) -> Statistics:
        return self.result_statistics(self.result(predictions, references))

    @classmethod
    def result_statistics(cls, result: RougeResult) -> Statistics:
        """The statistics of a batch already scored (so a caller that writes the per-example scores
        too, like the CLI, scores each batch once)."""
        return mean_statistics(cls.columns(result), result.n_predictions)

    def aggregate(self, statistics: Statistics) -> CorpusScore:
        return CorpusScore(self.name, mean_values(statistics), statistics.n, self._signature)

    @staticmethod
    def table(result: RougeResult, per_example: bool = False) -> str:
        """A text report: every example's F per type (with ``per_example``), then mean P / R / F per
        type and the signature."""
        rows = Rouge.table_header(list(result)) + Rouge.table_rows(result, 0) + "\n" if per_example else ""
        return rows + Rouge.table_summary(result.mean(), result.n_predictions, result.signature)

    @staticmethod
    def table_header(rouge_types) -> str:
        return "index\t" + "\t".join(f"{n}_F" for n in rouge_types) + "\n"

    @staticmethod
    def table_rows(result: RougeResult, start: int) -> str:
        """The per-example lines of :meth:`table` for a batch whose first example is ``start``."""
        columns = [result[n].fmeasure.tolist() for n in result]
        return "".join(f"{start + i}\t" + "\t".join(f"{c[i]:.5f}" for c in columns) + "\n"
                       for i in range(result.n_predictions))

    @staticmethod
    def table_summary(means: Mapping[str, Mapping[str, float]], n: int, signature: str) -> str:
        """Mean P / R / F per type over ``n`` examples and the signature (the end of :meth:`table`)."""
        lines = [f"{'type':<10} {'precision':>10} {'recall':>10} {'F':>10}   (mean over {n})"]
        for name, mean in means.items():
            lines.append(f"{name:<10} {mean['precision']:>10.5f} {mean['recall']:>10.5f} {mean['fmeasure']:>10.5f}")
        lines.append(f"signature: {signature}")
        return "\n".join(lines) + "\n"
