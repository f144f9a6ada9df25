"""Lexical metrics: ROUGE-N/L/Lsum, BLEU and the MRC adaptations of ROUGE-L and BLEU.

Each is offered as a function over batches and as a :class:`qascore.metric.Metric` (``Rouge``,
``BLEU``, ``DuReaderMrc``) with per-example scores, corpus scores, streaming and a signature.
"""
from typing import TYPE_CHECKING

from ..lazy import lazy_exports

# ``rouge`` is both a module and the function of that module exported here: importing the module
# rebinds the package attribute, so the ROUGE names are bound at import time, after it. BLEU and
# the MRC scores are imported on first use (the table below must agree with these imports).
from .rouge import Rouge, RougeResult, rouge

if TYPE_CHECKING:
    from .bleu import BLEU, corpus_bleu, sentence_bleu
    from .mrc import DuReaderMrc, score_dureader

__all__ = ["BLEU", "DuReaderMrc", "Rouge", "RougeResult", "corpus_bleu", "rouge", "score_dureader",
           "sentence_bleu"]

__getattr__, __dir__ = lazy_exports(__name__, {
    ".bleu": ("BLEU", "corpus_bleu", "sentence_bleu"),
    ".mrc": ("DuReaderMrc", "score_dureader"),
})
