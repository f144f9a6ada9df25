"""sacrebleu's functional API: ``corpus_bleu``, ``raw_corpus_bleu``, ``sentence_bleu``,
``corpus_chrf``, ``sentence_chrf``, ``corpus_ter``, ``sentence_ter`` (2.6 signatures and defaults)."""
from __future__ import annotations

from .metrics import BLEU, CHRF, TER
from .metrics.base import Metric
from .metrics.bleu import BLEUScore
from .metrics.chrf import CHRFScore
from .metrics.ter import TERScore


_SENTENCE_METRICS: dict = {}  # (class, typed options) -> a metric built once for the sentence_* functions
_MAX_SENTENCE_METRICS = 64


def _sentence_metric(cls: type, **options) -> Metric:
    """The metric the ``sentence_*`` functions call, built once per set of options: building one
    (checks, tokeniser) costs more than scoring a short sentence. Options are keyed with their
    types (``1`` and ``1.0`` stay apart); a failing build raises every time, as sacrebleu's does."""
    try:
        key = (cls, *((name, type(value), value) for name, value in options.items()))
        metric = _SENTENCE_METRICS.get(key)
    except TypeError:  # an unhashable option: no cache
        return cls(**options)
    if metric is None:
        metric = cls(**options)
        if len(_SENTENCE_METRICS) >= _MAX_SENTENCE_METRICS:
            _SENTENCE_METRICS.clear()
        _SENTENCE_METRICS[key] = metric
    return metric


def corpus_bleu(hypotheses, references, smooth_method: str = "exp", smooth_value=None, force: bool = False,
                lowercase: bool = False, tokenize: str = BLEU.TOKENIZER_DEFAULT,
                use_effective_order: bool = False) -> BLEUScore:
    """Corpus BLEU of ``hypotheses`` against reference streams ``[[ref_1 of each line], ...]``."""
    metric = BLEU(lowercase=lowercase, force=force, tokenize=tokenize, smooth_method=smooth_method,
                  smooth_value=smooth_value, effective_order=use_effective_order)
    return metric.corpus_score(hypotheses, references)  # type: ignore[return-value]


def raw_corpus_bleu(hypotheses, references, smooth_value=BLEU.SMOOTH_DEFAULTS["floor"]) -> BLEUScore:
    """Corpus BLEU on already tokenised text: floor smoothing, no tokeniser, effective order."""
    return corpus_bleu(hypotheses, references, smooth_method="floor", smooth_value=smooth_value, force=True,
                       tokenize="none", use_effective_order=True)


def sentence_bleu(hypothesis: str, references, smooth_method: str = "exp", smooth_value=None,
                  lowercase: bool = False, tokenize: str = BLEU.TOKENIZER_DEFAULT,
                  use_effective_order: bool = True) -> BLEUScore:
    """BLEU of one hypothesis against its references ``[ref_1, ref_2, ...]``."""
    metric = _sentence_metric(BLEU, lowercase=lowercase, tokenize=tokenize, force=False, smooth_method=smooth_method,
                              smooth_value=smooth_value, effective_order=use_effective_order)
    return metric.sentence_score(hypothesis, references)  # type: ignore[return-value]


def corpus_chrf(hypotheses, references, char_order: int = CHRF.CHAR_ORDER, word_order: int = CHRF.WORD_ORDER,
                beta: int = CHRF.BETA, remove_whitespace: bool = True, eps_smoothing: bool = False) -> CHRFScore:
    """Corpus chrF (chrF++ with ``word_order=2``) against reference streams."""
    metric = CHRF(char_order=char_order, word_order=word_order, beta=beta, whitespace=not remove_whitespace,
                  eps_smoothing=eps_smoothing)
    return metric.corpus_score(hypotheses, references)  # type: ignore[return-value]


def sentence_chrf(hypothesis: str, references, char_order: int = CHRF.CHAR_ORDER,
                  word_order: int = CHRF.WORD_ORDER, beta: int = CHRF.BETA, remove_whitespace: bool = True,
                  eps_smoothing: bool = False) -> CHRFScore:
    """chrF of one hypothesis against its references."""
    metric = _sentence_metric(CHRF, char_order=char_order, word_order=word_order, beta=beta,
                              whitespace=not remove_whitespace, eps_smoothing=eps_smoothing)
    return metric.sentence_score(hypothesis, references)  # type: ignore[return-value]


def corpus_ter(hypotheses, references, normalized: bool = False, no_punct: bool = False,
               asian_support: bool = False, case_sensitive: bool = False) -> TERScore:
    """Corpus TER against reference streams."""
    metric = TER(normalized=normalized, no_punct=no_punct, asian_support=asian_support, case_sensitive=case_sensitive)
    return metric.corpus_score(hypotheses, references)  # type: ignore[return-value]


def sentence_ter(hypothesis: str, references, normalized: bool = False, no_punct: bool = False,
                 asian_support: bool = False, case_sensitive: bool = False) -> TERScore:
    """TER of one hypothesis against its references."""
    metric = _sentence_metric(TER, normalized=normalized, no_punct=no_punct, asian_support=asian_support,
                              case_sensitive=case_sensitive)
    return metric.sentence_score(hypothesis, references)  # type: ignore[return-value]
