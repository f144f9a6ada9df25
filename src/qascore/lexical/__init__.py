"""Lexical metrics: ROUGE-N/L/Lsum, BLEU and the MRC adaptations of ROUGE-L and BLEU.

Each is offered as a function over batches and as a :class:`qascore.metric.Metric` (``Rouge``,
``BLEU``, ``DuReaderMrc``) with per-example scores, corpus scores, streaming and a signature.
"""
from .bleu import BLEU, corpus_bleu, sentence_bleu
from .mrc import DuReaderMrc, score_dureader
from .rouge import Rouge, RougeResult, rouge

__all__ = ["BLEU", "DuReaderMrc", "Rouge", "RougeResult", "corpus_bleu", "rouge", "score_dureader",
           "sentence_bleu"]
