"""Drop-in for sacrebleu 2.6: ``from qascore.compat import sacrebleu`` (or ``qascore.compat.sacrebleu.metrics``)
gives the same classes, functions, score objects, signatures and numbers, bit for bit, on qascore's
compiled kernels.

``BLEU``, ``CHRF`` and ``TER`` take sacrebleu's constructor arguments; ``corpus_score(hypotheses,
[ref_stream, ...], n_bootstrap=1)``, ``sentence_score(hypothesis, [ref, ...])`` and
``get_signature()`` behave as sacrebleu's. Differences (see docs/compat.md): reference streams of
unequal length, or a segment whose references are all ``None``, raise ``ValueError`` (sacrebleu
truncates or crashes); every tokeniser is provided (``ja-mecab`` / ``ko-mecab`` with the extras
``ja`` / ``ko``; the sentencepiece ones with the extra ``spm`` and a model file, never downloaded);
the test-set listings (``utils``, ``dataset``) are, test-set download is not.
``python -m qascore.compat.sacrebleu REF -i SYSTEM ...`` is sacrebleu's command line, as ``qascore bleu``.
"""
from .compat import corpus_bleu, corpus_chrf, corpus_ter, raw_corpus_bleu, sentence_bleu, sentence_chrf, sentence_ter
from .metrics import BLEU, CHRF, TER
from .metrics.bleu import BLEUScore
from .metrics.chrf import CHRFScore
from .metrics.ter import TERScore
from .metrics.helpers import extract_char_ngrams, extract_word_ngrams
from .version import __version__

__all__ = ["BLEU", "BLEUScore", "CHRF", "CHRFScore", "TER", "TERScore", "__version__", "corpus_bleu", "corpus_chrf",
           "corpus_ter", "extract_char_ngrams", "extract_word_ngrams", "raw_corpus_bleu", "sentence_bleu",
           "sentence_chrf", "sentence_ter"]
