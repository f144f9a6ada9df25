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
    """Corpus BLEU of ``hypotheses`` against reference streams ``[[ref_1 of each line], ...]``.

    Example:

        >>> from qascore.compat.sacrebleu import corpus_bleu
        >>> hypotheses = ["the cat sat on the mat", "a dog barked"]
        >>> references = [["the cat sat on a mat", "the dog barked loudly"]]  # one stream: a reference per line
        >>> bleu = corpus_bleu(hypotheses, references)
        >>> print(bleu)
        BLEU = 44.15 77.8/57.1/40.0/33.3 (BP = 0.895 ratio = 0.900 hyp_len = 9 ref_len = 10)
        >>> bleu.score, bleu.counts, bleu.totals
        (44.15034607719596, [7, 4, 2, 1], [9, 7, 5, 3])

    :param hypotheses: the system's lines.
    :param references: reference streams, each a list with one reference per hypothesis.
    :param smooth_method: ``none``, ``floor``, ``add-k`` or ``exp``.
    :param smooth_value: the value of ``floor`` or ``add-k`` (None: sacrebleu's default).
    :param force: accept text that looks tokenised already (kept for sacrebleu's call shape).
    :param lowercase: lowercase before scoring.
    :param tokenize: a sacrebleu tokeniser name (``13a``, ``none``, ``intl``, ``zh``, ``char``, ...).
    :param use_effective_order: stop the geometric mean at the highest order with any n-gram.
    :returns: a :class:`~qascore.compat.sacrebleu.metrics.bleu.BLEUScore`.
    :raises ValueError: for an unknown tokeniser or smoothing method, or streams whose length is
        not the number of hypotheses.
    """
    metric = BLEU(lowercase=lowercase, force=force, tokenize=tokenize, smooth_method=smooth_method,
                  smooth_value=smooth_value, effective_order=use_effective_order)
    return metric.corpus_score(hypotheses, references)  # type: ignore[return-value]


def raw_corpus_bleu(hypotheses, references, smooth_value=BLEU.SMOOTH_DEFAULTS["floor"]) -> BLEUScore:
    """Corpus BLEU on already tokenised text: floor smoothing, no tokeniser, effective order.

    Example:

        >>> from qascore.compat.sacrebleu import raw_corpus_bleu
        >>> print(raw_corpus_bleu(["the cat sat on the mat"], [["the cat sat on a mat"]]))
        BLEU = 53.73 83.3/60.0/50.0/33.3 (BP = 1.000 ratio = 1.000 hyp_len = 6 ref_len = 6)

    :param hypotheses: the system's lines.
    :param references: reference streams, each a list with one reference per hypothesis.
    :param smooth_value: the floor smoothing value (0.1).
    :returns: a :class:`~qascore.compat.sacrebleu.metrics.bleu.BLEUScore`.
    :raises ValueError: for streams whose length is not the number of hypotheses.
    """
    return corpus_bleu(hypotheses, references, smooth_method="floor", smooth_value=smooth_value, force=True,
                       tokenize="none", use_effective_order=True)


def sentence_bleu(hypothesis: str, references, smooth_method: str = "exp", smooth_value=None,
                  lowercase: bool = False, tokenize: str = BLEU.TOKENIZER_DEFAULT,
                  use_effective_order: bool = True) -> BLEUScore:
    """BLEU of one hypothesis against its references ``[ref_1, ref_2, ...]``.

    Example:

        >>> from qascore.compat.sacrebleu import sentence_bleu
        >>> print(sentence_bleu("the cat sat on the mat", ["the cat sat on a mat"]))
        BLEU = 53.73 83.3/60.0/50.0/33.3 (BP = 1.000 ratio = 1.000 hyp_len = 6 ref_len = 6)

    :param hypothesis: one line.
    :param references: its references, a list of strings.
    :param smooth_method: ``none``, ``floor``, ``add-k`` or ``exp``.
    :param smooth_value: the value of ``floor`` or ``add-k`` (None: sacrebleu's default).
    :param lowercase: lowercase before scoring.
    :param tokenize: a sacrebleu tokeniser name.
    :param use_effective_order: stop the geometric mean at the highest order the sentence has.
    :returns: a :class:`~qascore.compat.sacrebleu.metrics.bleu.BLEUScore`.
    :raises ValueError: for an unknown tokeniser or smoothing method.
    """
    metric = _sentence_metric(BLEU, lowercase=lowercase, tokenize=tokenize, force=False, smooth_method=smooth_method,
                              smooth_value=smooth_value, effective_order=use_effective_order)
    return metric.sentence_score(hypothesis, references)  # type: ignore[return-value]


def corpus_chrf(hypotheses, references, char_order: int = CHRF.CHAR_ORDER, word_order: int = CHRF.WORD_ORDER,
                beta: int = CHRF.BETA, remove_whitespace: bool = True, eps_smoothing: bool = False) -> CHRFScore:
    """Corpus chrF (chrF++ with ``word_order=2``) against reference streams.

    Example:

        >>> from qascore.compat.sacrebleu import corpus_chrf
        >>> hypotheses = ["the cat sat on the mat", "a dog barked"]
        >>> references = [["the cat sat on a mat", "the dog barked loudly"]]  # one stream: a reference per line
        >>> print(corpus_chrf(hypotheses, references))
        chrF2 = 58.53
        >>> print(corpus_chrf(hypotheses, references, word_order=2))
        chrF2++ = 59.26

    :param hypotheses: the system's lines.
    :param references: reference streams, each a list with one reference per hypothesis.
    :param char_order: the longest character n-gram.
    :param word_order: the longest word n-gram (0: chrF, 2: chrF++).
    :param beta: recall weighs ``beta`` times as much as precision.
    :param remove_whitespace: leave whitespace out of character n-grams.
    :param eps_smoothing: smooth zero statistics with an epsilon (chrF++.py's rule).
    :returns: a :class:`~qascore.compat.sacrebleu.metrics.chrf.CHRFScore`.
    :raises ValueError: for streams whose length is not the number of hypotheses.
    """
    metric = CHRF(char_order=char_order, word_order=word_order, beta=beta, whitespace=not remove_whitespace,
                  eps_smoothing=eps_smoothing)
    return metric.corpus_score(hypotheses, references)  # type: ignore[return-value]


def sentence_chrf(hypothesis: str, references, char_order: int = CHRF.CHAR_ORDER,
                  word_order: int = CHRF.WORD_ORDER, beta: int = CHRF.BETA, remove_whitespace: bool = True,
                  eps_smoothing: bool = False) -> CHRFScore:
    """chrF of one hypothesis against its references.

    Example:

        >>> from qascore.compat.sacrebleu import sentence_chrf
        >>> print(sentence_chrf("the cat sat on the mat", ["the cat sat on a mat"]))
        chrF2 = 72.08

    :param hypothesis: one line.
    :param references: its references, a list of strings.
    :param char_order: the longest character n-gram.
    :param word_order: the longest word n-gram (0: chrF, 2: chrF++).
    :param beta: recall weighs ``beta`` times as much as precision.
    :param remove_whitespace: leave whitespace out of character n-grams.
    :param eps_smoothing: smooth zero statistics with an epsilon.
    :returns: a :class:`~qascore.compat.sacrebleu.metrics.chrf.CHRFScore`.
    """
    metric = _sentence_metric(CHRF, char_order=char_order, word_order=word_order, beta=beta,
                              whitespace=not remove_whitespace, eps_smoothing=eps_smoothing)
    return metric.sentence_score(hypothesis, references)  # type: ignore[return-value]


def corpus_ter(hypotheses, references, normalized: bool = False, no_punct: bool = False,
               asian_support: bool = False, case_sensitive: bool = False) -> TERScore:
    """Corpus TER against reference streams.

    Example:

        >>> from qascore.compat.sacrebleu import corpus_ter
        >>> hypotheses = ["the cat sat on the mat", "a dog barked"]
        >>> references = [["the cat sat on a mat", "the dog barked loudly"]]  # one stream: a reference per line
        >>> print(corpus_ter(hypotheses, references))
        TER = 30.00

    :param hypotheses: the system's lines.
    :param references: reference streams, each a list with one reference per hypothesis.
    :param normalized: apply Tercom's normalisation (punctuation split, ...).
    :param no_punct: remove punctuation.
    :param asian_support: split Asian characters (with ``normalized``).
    :param case_sensitive: keep case (TER lowercases by default).
    :returns: a :class:`~qascore.compat.sacrebleu.metrics.ter.TERScore`.
    :raises ValueError: for streams whose length is not the number of hypotheses.
    """
    metric = TER(normalized=normalized, no_punct=no_punct, asian_support=asian_support, case_sensitive=case_sensitive)
    return metric.corpus_score(hypotheses, references)  # type: ignore[return-value]


def sentence_ter(hypothesis: str, references, normalized: bool = False, no_punct: bool = False,
                 asian_support: bool = False, case_sensitive: bool = False) -> TERScore:
    """TER of one hypothesis against its references.

    Example:

        >>> from qascore.compat.sacrebleu import sentence_ter
        >>> ter = sentence_ter("the cat sat on the mat", ["the cat sat on a mat"])
        >>> str(ter), ter.score, ter.num_edits, ter.ref_length
        ('TER = 16.67', 16.666666666666664, 1, 6.0)

    :param hypothesis: one line.
    :param references: its references, a list of strings.
    :param normalized: apply Tercom's normalisation.
    :param no_punct: remove punctuation.
    :param asian_support: split Asian characters (with ``normalized``).
    :param case_sensitive: keep case.
    :returns: a :class:`~qascore.compat.sacrebleu.metrics.ter.TERScore`.
    """
    metric = _sentence_metric(TER, normalized=normalized, no_punct=no_punct, asian_support=asian_support,
                              case_sensitive=case_sensitive)
    return metric.sentence_score(hypothesis, references)  # type: ignore[return-value]
