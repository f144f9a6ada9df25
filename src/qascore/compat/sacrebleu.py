"""Drop-in replacements for ``sacrebleu.corpus_bleu`` and ``sacrebleu.sentence_bleu``.

Same call shapes, defaults and numbers (sacrebleu 2.6); the result objects carry ``score``
(0-100), ``counts``, ``totals``, ``precisions``, ``bp``, ``sys_len``, ``ref_len`` and a qascore
``signature``. Deliberate differences: reference streams of unequal length, or a hypothesis whose
references are all ``None``, raise ``ValueError`` (sacrebleu truncates silently or crashes).
"""
from __future__ import annotations

from ..lexical.bleu import BLEU, BLEUScore

__all__ = ["BLEU", "BLEUScore", "corpus_bleu", "sentence_bleu"]


def _per_hypothesis_references(n_hyps: int, streams) -> list[list[str]]:
    """sacrebleu's reference streams -> one list per hypothesis; ``None`` marks a missing reference."""
    if isinstance(streams, str) or not streams:
        raise TypeError("references must be a non-empty sequence of reference streams (lists of strings)")
    streams = [list(s) for s in streams]
    for j, stream in enumerate(streams):
        if len(stream) != n_hyps:
            raise ValueError(f"reference stream {j} has {len(stream)} lines but there are {n_hyps} hypotheses")
    return [[r for r in refs if r is not None] for refs in zip(*streams)]


def corpus_bleu(hypotheses, references, smooth_method: str = "exp", smooth_value=None, force: bool = False,
                lowercase: bool = False, tokenize: str = "13a", use_effective_order: bool = False,
                n_jobs: int | None = None) -> BLEUScore:
    """``sacrebleu.corpus_bleu(hypotheses, [refs_stream_1, ...], ...)``; ``force`` is accepted
    for compatibility and has no effect on the score (sacrebleu only uses it for a warning)."""
    hypotheses = list(hypotheses)
    refs = _per_hypothesis_references(len(hypotheses), references)
    metric = BLEU(tokenize, lowercase=lowercase, smooth_method=smooth_method, smooth_value=smooth_value,
                  effective_order=use_effective_order, n_jobs=n_jobs)
    return metric.corpus_score(hypotheses, refs)


def sentence_bleu(hypothesis: str, references, smooth_method: str = "exp", smooth_value=None,
                  lowercase: bool = False, tokenize: str = "13a", use_effective_order: bool = True) -> BLEUScore:
    """``sacrebleu.sentence_bleu(hypothesis, [ref_1, ref_2, ...], ...)``."""
    if not isinstance(hypothesis, str):
        raise TypeError("hypothesis must be a string")
    if isinstance(references, str):
        raise TypeError("references must be a sequence of strings, not a single string")
    refs = [r for r in references if r is not None]
    metric = BLEU(tokenize, lowercase=lowercase, smooth_method=smooth_method, smooth_value=smooth_value,
                  effective_order=use_effective_order, n_jobs=1)
    return metric.sentence_score(hypothesis, refs)
