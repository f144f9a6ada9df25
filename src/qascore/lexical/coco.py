"""coco-caption BLEU and ROUGE-L, the scorers behind the MS MARCO and DuReader baseline scripts.

Owns: corpus BLEU-1..N with coco's guards (``1e-15`` added to matches and the hypothesis length,
``1e-9`` to n-gram counts and the reference length, so a zero precision gives a tiny number rather
than 0) and closest reference length (ties -> shorter); ROUGE-L with beta 1.2 and independent
maxima of precision and recall over references, averaged over segments. Tokens follow coco:
``str.split()`` for BLEU and ``str.split(" ")`` for ROUGE-L (an empty text is one empty token).
"""
from __future__ import annotations

import math
from array import array
from dataclasses import dataclass

import numpy as np

from .._parallel import resolve_n_jobs, threads_for
from ..prf import f_scores
from ..signature import make_signature
from ..text import Vocabulary, WhitespaceTokenizer
from .bleu import closest_reference_lengths
from .formats import MsMarcoRecord
from .segments import segment_lines

_TINY = 1e-15
_SMALL = 1e-9


__all__ = ["CocoBleu", "MsMarcoScores", "MsMarcoTotals", "coco_bleu", "coco_rouge_l", "msmarco_pair",
           "score_msmarco"]


@dataclass
class CocoBleu:
    """coco-caption's cumulative BLEU-1..N with the n-gram sums behind them.

    Example:

        >>> result = coco_bleu(["the cat sat on the mat"], [["a cat sat on the mat"]])
        >>> [round(b, 4) for b in result.bleu], result.correct, result.guess
        ([0.8333, 0.8165, 0.7937, 0.7598], [5, 4, 3, 2], [6, 5, 4, 3])
    """

    bleu: list  # BLEU-1 .. BLEU-N, cumulative
    correct: list
    guess: list
    testlen: int
    reflen: int
    signature: str


def coco_bleu_counts(candidates, references, max_order: int = 4,
                     n_jobs: int | None = None) -> tuple[list[int], list[int], int, int]:
    """The sums behind coco BLEU: clipped n-gram matches and candidate n-grams per order, candidate
    length and closest reference length (integers, so runs of segments add up exactly)."""
    from .._kernels.ngram import clipped_ngram_matches, ngram_totals

    seg = segment_lines(candidates, references)
    packed = WhitespaceTokenizer().encode_batch(seg.lines, Vocabulary(), n_jobs)  # coco's str.split()
    lengths = packed.lengths()
    q = len(seg.hyp_rows)
    correct = clipped_ngram_matches(packed.ids, packed.offsets, seg.hyp_rows, packed.ids, packed.offsets,
                                    seg.ref_rows, seg.groups, max_order,
                                    threads_for(q, resolve_n_jobs(n_jobs))).sum(axis=0)
    hyp_len = lengths[seg.hyp_rows]
    guess = ngram_totals(hyp_len, max_order).sum(axis=0)
    reflen = closest_reference_lengths(hyp_len, lengths[seg.ref_rows], seg.groups).sum()
    return [int(c) for c in correct], [int(g) for g in guess], int(hyp_len.sum()), int(reflen)


def coco_bleu_of_counts(correct: list[int], guess: list[int], testlen: int, reflen: int) -> CocoBleu:
    """coco BLEU-1..N from :func:`coco_bleu_counts` (summed over any runs of segments)."""
    bleus, bleu = [], 1.0
    for k in range(len(correct)):
        bleu *= float(correct[k] + _TINY) / (guess[k] + _SMALL)
        bleus.append(bleu ** (1.0 / (k + 1)))
    ratio = (testlen + _TINY) / (reflen + _SMALL)
    if ratio < 1:
        bleus = [b * math.exp(1 - 1 / ratio) for b in bleus]
    return CocoBleu(bleus, list(correct), list(guess), testlen, reflen,
                    make_signature("coco-bleu", ngram=len(correct), tok="split", reflen="closest"))


def coco_bleu(candidates, references, max_order: int = 4, n_jobs: int | None = None) -> CocoBleu:
    """coco-caption's ``Bleu`` (closest reference length, whitespace tokens) of candidates against
    their references, the corpus BLEU-1..``max_order``.

    Example:

        >>> round(coco_bleu(["the cat sat on the mat"], [["a cat sat on the mat"]]).bleu[-1], 4)
        0.7598

    :param candidates: one text per segment.
    :param references: per segment, a list of reference texts.
    :param max_order: the longest n-gram.
    :param n_jobs: threads (None: the library's default).
    :returns: a :class:`CocoBleu`.
    :raises ValueError: for candidates and references of different lengths.
    """
    """coco-caption ``Bleu(max_order).compute_score`` corpus values (``option='closest'``)."""
    return coco_bleu_of_counts(*coco_bleu_counts(candidates, references, max_order, n_jobs))


def coco_rouge_l(candidates, references, beta: float = 1.2, n_jobs: int | None = None) -> np.ndarray:
    """coco-caption ``Rouge`` per-segment ROUGE-L (mean them for the corpus value).

    Example:

        >>> coco_rouge_l(["the cat sat on the mat"], [["a cat sat on the mat"]]).round(4).tolist()
        [0.8333]

    :param candidates: one text per segment.
    :param references: per segment, a list of reference texts (the best one counts).
    :param beta: recall's weight in F (coco-caption's 1.2).
    :param n_jobs: threads (None: the library's default).
    :returns: a float64 array, one ROUGE-L per segment.
    :raises ValueError: for candidates and references of different lengths.
    """
    from .._kernels.lcs import lcs_lengths

    seg = segment_lines(candidates, references)
    packed = Vocabulary().pack([line.split(" ") for line in seg.lines])
    lengths = packed.lengths()
    groups = seg.groups
    owner_rows = np.repeat(seg.hyp_rows, np.diff(groups))
    lcs = lcs_lengths(packed.ids, packed.offsets, owner_rows, packed.ids, packed.offsets, seg.ref_rows,
                      threads_for(len(owner_rows), resolve_n_jobs(n_jobs))).astype(np.float64)
    prec = np.maximum.reduceat(lcs / lengths[owner_rows], groups[:-1])
    rec = np.maximum.reduceat(lcs / lengths[seg.ref_rows], groups[:-1])
    return f_scores(prec, rec, beta ** 2)  # coco-caption squares beta with **


@dataclass
class MsMarcoScores:
    """MS MARCO's ROUGE-L and BLEU-1..N, the coco n-gram sums and per-query ROUGE-L.

    Example:

        >>> from qascore.lexical.formats import MsMarcoRecord
        >>> scores = score_msmarco({1: MsMarcoRecord(1, ("a cat sat on the mat",), "-", 1)},
        ...                        {1: MsMarcoRecord(1, ("the cat sat on the mat",), "-", 1)})
        >>> round(scores.to_dict()["ROUGE-L"], 4), scores.n_scored
        (0.8333, 1)
    """

    rouge_l: float
    bleu: list
    n_scored: int
    n_missing_candidates: int
    n_unused_candidates: int
    coco: CocoBleu
    signature: str
    question_ids: list
    rouge_l_per_question: np.ndarray

    def to_dict(self, per_question: bool = False) -> dict:
        out = {"ROUGE-L": self.rouge_l, "BLEU-4": self.bleu[-1] if len(self.bleu) >= 4 else None,
               "BLEU-1..N": list(self.bleu), "correct_ngram": self.coco.correct, "guess_ngram": self.coco.guess,
               "testlen": self.coco.testlen, "reflen": self.coco.reflen, "n_scored": self.n_scored,
               "n_missing_candidates": self.n_missing_candidates,
               "n_unused_candidates": self.n_unused_candidates, "signature": self.signature}
        if per_question:
            out["per_question"] = [{"query_id": q, "ROUGE-L": float(r)}
                                   for q, r in zip(self.question_ids, self.rouge_l_per_question)]
        return out


def msmarco_pair(record: MsMarcoRecord, candidate: MsMarcoRecord | None, lowercase: bool) -> tuple | None:
    """(candidate text, reference answers) as the v1.1 script scores a query (a missing candidate
    is the empty answer), for :meth:`MsMarcoTotals.add`; None for a query without reference
    answers, which it skips.

    Example:

        >>> from qascore.lexical.coco import msmarco_pair
        >>> from qascore.lexical.formats import MsMarcoRecord
        >>> reference = MsMarcoRecord(1, ("The cat sat", "A cat sat"), "references.jsonl", 1)
        >>> msmarco_pair(reference, MsMarcoRecord(1, ("A Cat",), "candidates.jsonl", 1), lowercase=True)
        ('a cat', ['the cat sat', 'a cat sat'])
        >>> msmarco_pair(reference, None, lowercase=False)  # no candidate: the empty answer
        ('', ['The cat sat', 'A cat sat'])
        >>> msmarco_pair(MsMarcoRecord(2, (), "references.jsonl", 2), None, lowercase=True) is None
        True

    :param record: the query's reference record.
    :param candidate: its candidate record, or None when the run has none.
    :param lowercase: lower-case both sides.
    :returns: ``(candidate text, answers)``, or None.
    """
    if not record.answers:
        return None
    text = candidate.answers[0] if candidate is not None and candidate.answers else ""
    answers = list(record.answers)
    if lowercase:
        text, answers = text.lower(), [a.lower() for a in answers]
    return text, answers


class MsMarcoTotals:
    """MS MARCO scores built up from runs of queries in reference order (:meth:`add`), equal to one
    pass over all of them: BLEU from integer sums, ROUGE-L the mean of every query's value (kept as
    8 bytes a query; the texts are not kept). ``per_question`` also keeps the query ids and
    per-query ROUGE-L for :class:`MsMarcoScores`. :func:`score_msmarco` is one run of it.

    Example:

        >>> from qascore.lexical.coco import MsMarcoTotals, msmarco_pair, score_msmarco
        >>> from qascore.lexical.formats import MsMarcoRecord
        >>> references = {1: MsMarcoRecord(1, ("the cat sat on the mat",), "-", 1),
        ...               2: MsMarcoRecord(2, ("a dog barked",), "-", 2)}
        >>> candidates = {1: MsMarcoRecord(1, ("a cat sat on the mat",), "-", 1),
        ...               2: MsMarcoRecord(2, ("the dog barked",), "-", 2)}
        >>> totals = MsMarcoTotals()
        >>> for qid, reference in references.items():  # a query at a time, in reference order
        ...     text, answers = msmarco_pair(reference, candidates.get(qid), lowercase=True)
        ...     _ = totals.add([qid], [text], [answers])
        >>> streamed = totals.result(n_missing_candidates=0, n_unused_candidates=0)
        >>> whole = score_msmarco(candidates, references)
        >>> (streamed.rouge_l, streamed.bleu) == (whole.rouge_l, whole.bleu), round(streamed.rouge_l, 4)
        (True, 0.75)

    :param lowercase: whether the texts given to :meth:`add` were lower-cased (recorded in the
        signature; :func:`msmarco_pair` does the lower-casing).
    :param max_order: the longest n-gram of BLEU.
    :param per_question: also keep each query's id and ROUGE-L.
    :param n_jobs: threads (None: the library's default).
    """

    def __init__(self, *, lowercase: bool = True, max_order: int = 4, per_question: bool = False,
                 n_jobs: int | None = None) -> None:
        self.lowercase, self.max_order, self.per_question, self.n_jobs = lowercase, max_order, per_question, n_jobs
        self.rouge = array("d")
        self.correct, self.guess = [0] * max_order, [0] * max_order
        self.testlen = self.reflen = 0
        self.question_ids: list = []

    def add(self, ids: list, candidates: list[str], references: list[list[str]]) -> np.ndarray:
        """Score the next queries (:func:`msmarco_pair`'s texts) and add them to the totals.

        :param ids: the queries' ids (kept with ``per_question``).
        :param candidates: one candidate text per query.
        :param references: the reference answers of each query.
        :returns: their ROUGE-L, one per query.
        """
        correct, guess, testlen, reflen = coco_bleu_counts(candidates, references, self.max_order, self.n_jobs)
        self.correct = [a + b for a, b in zip(self.correct, correct)]
        self.guess = [a + b for a, b in zip(self.guess, guess)]
        self.testlen += testlen
        self.reflen += reflen
        rouge = coco_rouge_l(candidates, references, n_jobs=self.n_jobs)
        self.rouge.extend(rouge.tolist())
        if self.per_question:
            self.question_ids.extend(ids)
        return rouge

    def result(self, n_missing_candidates: int, n_unused_candidates: int) -> MsMarcoScores:
        """The corpus figures of every query added, with the counts of reference queries without a
        candidate and of candidates without a reference (reported, not scored).

        :returns: :class:`MsMarcoScores`.
        :raises ValueError: when no query was added.
        """
        if not self.rouge:
            raise ValueError("no reference query has answers: there is nothing to score")
        rouge = np.frombuffer(self.rouge, dtype=np.float64).copy()
        bleu = coco_bleu_of_counts(self.correct, self.guess, self.testlen, self.reflen)
        return MsMarcoScores(float(np.mean(rouge)), bleu.bleu, len(rouge), n_missing_candidates, n_unused_candidates,
                             bleu, make_signature("msmarco", lowercase=self.lowercase, ngram=self.max_order,
                                                  tok="whitespace", rouge_beta=1.2),
                             list(self.question_ids), rouge if self.per_question else np.empty(0))


def score_msmarco(candidates: dict, references: dict, *, lowercase: bool = True, max_order: int = 4,
                  n_jobs: int | None = None) -> MsMarcoScores:
    """MS MARCO QA scores (coco BLEU-1..4 and ROUGE-L) over the queries whose reference answer list
    is not empty (the v1.1 script's rule); a missing candidate scores as the empty answer.

    The official script tokenises with spaCy before scoring; here the text is lower-cased and split
    on whitespace, so feed spaCy-tokenised text (tokens joined by spaces) for its exact numbers.
    For inputs too large to hold, :class:`MsMarcoTotals` takes the queries a run at a time.

    Example:

        >>> import json, os, tempfile
        >>> from qascore.lexical.formats import read_msmarco
        >>> folder = tempfile.TemporaryDirectory()
        >>> with open(os.path.join(folder.name, "references.jsonl"), "w") as out:
        ...     _ = out.write(json.dumps({"query_id": 1, "answers": ["the cat sat on the mat"]}))
        >>> with open(os.path.join(folder.name, "candidates.jsonl"), "w") as out:
        ...     _ = out.write(json.dumps({"query_id": 1, "answers": ["a cat sat on the mat"]}))
        >>> scores = score_msmarco(read_msmarco(os.path.join(folder.name, "candidates.jsonl"), candidates=True),
        ...                        read_msmarco(os.path.join(folder.name, "references.jsonl")))
        >>> round(scores.rouge_l, 4), round(scores.bleu[-1], 4)
        (0.8333, 0.7598)
        >>> folder.cleanup()

    :param candidates: query_id -> :class:`~qascore.lexical.formats.MsMarcoRecord` (one answer each).
    :param references: query_id -> :class:`~qascore.lexical.formats.MsMarcoRecord`.
    :param lowercase: lower-case both sides first.
    :param max_order: the longest n-gram of BLEU.
    :param n_jobs: threads (None: the library's default).
    :returns: :class:`MsMarcoScores`.
    """
    ids, cands, refs, missing = [], [], [], 0
    for qid, record in references.items():
        candidate = candidates.get(qid)
        pair = msmarco_pair(record, candidate, lowercase)
        if pair is not None:
            missing += candidate is None
            ids.append(qid)
            cands.append(pair[0])
            refs.append(pair[1])
    totals = MsMarcoTotals(lowercase=lowercase, max_order=max_order, per_question=True, n_jobs=n_jobs)
    if ids:
        totals.add(ids, cands, refs)
    unused = sum(1 for qid in candidates if qid not in references)
    return totals.result(missing, unused)
