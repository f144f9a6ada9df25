"""sacrebleu's ``BLEU`` (2.6) on :class:`qascore.lexical.BLEU`'s compiled statistics."""
from __future__ import annotations

import numpy as np

from ....lexical.bleu import BLEU as NativeBLEU
from ....lexical.bleu import SMOOTH_DEFAULTS, bleu_from_statistics, bleu_of_counts
from .base import Metric, Score, Signature, logger

MAX_NGRAM_ORDER = 4
# sacrebleu's tokenisers, in its order; ja-mecab / ko-mecab need the extras ja / ko, the sentencepiece ones
# the extra spm and a model file (qascore.text.sacrebleu_tokenizers.spm_model_path)
_TOKENIZERS = ("none", "zh", "13a", "intl", "char", "ja-mecab", "ko-mecab", "spm", "flores101", "flores200",
               "spBLEU-1K")


def _as_numbers(values) -> list:
    """sacrebleu's counts and totals: integers stay ints unless add-k made them fractional."""
    return [int(v) if float(v).is_integer() else float(v) for v in values]


class BLEUSignature(Signature):
    pass


class BLEUScore(Score):
    """sacrebleu's BLEU result: ``score``, ``counts``, ``totals``, ``precisions``, ``bp``,
    ``sys_len``, ``ref_len``, ``ratio``.

    Example:

        >>> from qascore.compat.sacrebleu import BLEUScore
        >>> print(BLEUScore(50.0, [3, 2, 1, 0], [4, 3, 2, 1], [75.0, 66.66666666666667, 50.0, 0.0], 1.0, 4, 4))
        BLEU = 50.00 75.0/66.7/50.0/0.0 (BP = 1.000 ratio = 1.000 hyp_len = 4 ref_len = 4)

    :param score: BLEU (0-100).
    :param counts: matched n-grams per order.
    :param totals: hypothesis n-grams per order.
    :param precisions: n-gram precisions per order (percent).
    :param bp: the brevity penalty.
    :param sys_len: the hypotheses' length in tokens.
    :param ref_len: the closest references' length in tokens.
    """

    def __init__(self, score, counts, totals, precisions, bp, sys_len, ref_len):
        super().__init__("BLEU", score)
        self.bp = bp
        self.counts = counts
        self.totals = totals
        self.sys_len = sys_len
        self.ref_len = ref_len
        self.precisions = precisions
        # one %-format (the same digits as sacrebleu's f-strings), no generator: a sentence call pays for it
        self.prec_str = "/".join(["%.1f"] * len(precisions)) % tuple(precisions)
        self.ratio = sys_len / ref_len if ref_len else 0
        self._verbose = (f"{self.prec_str} (BP = {bp:.3f} ratio = {self.ratio:.3f} hyp_len = {sys_len:d} "
                         f"ref_len = {ref_len:d})")


class BLEU(Metric):
    """``sacrebleu.metrics.BLEU(lowercase, force, tokenize, smooth_method, smooth_value,
    max_ngram_order, effective_order, trg_lang, references)``.

    Example:

        >>> from qascore.compat.sacrebleu import BLEU
        >>> hypotheses = ["the cat sat on the mat", "a dog barked"]
        >>> references = [["the cat sat on a mat", "the dog barked loudly"]]
        >>> bleu = BLEU()
        >>> print(bleu.corpus_score(hypotheses, references))
        BLEU = 44.15 77.8/57.1/40.0/33.3 (BP = 0.895 ratio = 0.900 hyp_len = 9 ref_len = 10)
        >>> bleu.get_signature().format()
        'nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0'
        >>> print(BLEU(effective_order=True).sentence_score("the cat sat on the mat", ["the cat sat on a mat"]))
        BLEU = 53.73 83.3/60.0/50.0/33.3 (BP = 1.000 ratio = 1.000 hyp_len = 6 ref_len = 6)

    :param lowercase: lowercase before scoring.
    :param force: accept text that looks tokenised already (kept for sacrebleu's call shape).
    :param tokenize: a sacrebleu tokeniser name (None: from ``trg_lang``, else ``13a``).
    :param smooth_method: ``none``, ``floor``, ``add-k`` or ``exp``.
    :param smooth_value: the value of ``floor`` or ``add-k`` (None: sacrebleu's default).
    :param max_ngram_order: the highest n-gram order.
    :param effective_order: stop the geometric mean at the highest order with any n-gram.
    :param trg_lang: the target language (``zh``, ``ja``, ``ko`` pick their tokenisers).
    :param references: reference streams to cache for later ``corpus_score(hypotheses, None)`` calls.
    :raises ValueError: for an unknown tokeniser or smoothing method or a setting out of range.
    """

    SMOOTH_DEFAULTS = SMOOTH_DEFAULTS
    TOKENIZERS = _TOKENIZERS
    TOKENIZER_DEFAULT = "13a"
    _TOKENIZER_MAP = {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}
    _SIGNATURE_TYPE = BLEUSignature

    def __init__(self, lowercase: bool = False, force: bool = False, tokenize: str | None = None,
                 smooth_method: str = "exp", smooth_value=None, max_ngram_order: int = MAX_NGRAM_ORDER,
                 effective_order: bool = False, trg_lang: str = "", references=None):
        if tokenize is None:
            tokenize = self._TOKENIZER_MAP.get(trg_lang, self.TOKENIZER_DEFAULT)
        self._native = NativeBLEU(tokenize, lowercase=lowercase, smooth_method=smooth_method,
                                  smooth_value=smooth_value, max_ngram_order=max_ngram_order,
                                  effective_order=effective_order)
        self.trg_lang = trg_lang
        self.lowercase = lowercase
        self.smooth_method = smooth_method
        self.smooth_value = smooth_value
        self.max_ngram_order = max_ngram_order
        self.effective_order = effective_order
        self.tokenizer_signature = self._native.tokenizer.signature()
        super().__init__(references)
        self._force = force

    @staticmethod
    def compute_bleu(correct, total, sys_len: int, ref_len: int, smooth_method: str = "none", smooth_value=None,
                     effective_order: bool = False, max_ngram_order: int = MAX_NGRAM_ORDER) -> BLEUScore:
        """BLEU from its sufficient statistics (sacrebleu's static ``compute_bleu``)."""
        correct = np.asarray(correct)[:max_ngram_order]
        total = np.asarray(total)[:max_ngram_order]
        if len(correct) < max_ngram_order or len(total) < max_ngram_order:
            raise ValueError(f"correct and total need {max_ngram_order} entries (max_ngram_order)")
        score, precisions, bp, counts, totals = bleu_from_statistics(
            correct, total, sys_len, ref_len, smooth_method=smooth_method, smooth_value=smooth_value,
            effective_order=effective_order)
        return BLEUScore(float(score[0]), _as_numbers(counts[0]), _as_numbers(totals[0]),
                         precisions[0].tolist(), float(bp[0]), int(sys_len), int(ref_len))

    def _segment_rows(self, segments) -> np.ndarray:
        stats = self._native.segment_statistics_of(segments)
        return np.column_stack([stats.sys_len, stats.ref_len, stats.correct, stats.total]).astype(np.int64)

    def _compute_score_from_stats(self, stats) -> BLEUScore:
        n = self.max_ngram_order
        return self.compute_bleu(stats[2:2 + n], stats[2 + n:], int(stats[0]), int(stats[1]),
                                 smooth_method=self.smooth_method, smooth_value=self.smooth_value,
                                 effective_order=self.effective_order, max_ngram_order=n)

    def _scores_from_stats(self, rows) -> np.ndarray:
        n = self.max_ngram_order
        rows = np.asarray(rows)
        return bleu_from_statistics(rows[:, 2:2 + n], rows[:, 2 + n:2 + 2 * n], rows[:, 0].astype(np.int64),
                                    rows[:, 1].astype(np.int64), smooth_method=self.smooth_method,
                                    smooth_value=self.smooth_value, effective_order=self.effective_order)[0]

    def _sentence_score_of_lines(self, lines: list) -> BLEUScore:
        sys_len, ref_len, correct, total = self._native.sentence_statistics(lines)
        score, precisions, bp, counts, totals = bleu_of_counts(
            correct, total, sys_len, ref_len, smooth_method=self.smooth_method, smooth_value=self.smooth_value,
            effective_order=self.effective_order)
        if self.smooth_method == "add-k":  # only add-k makes counts other than ints
            counts, totals = _as_numbers(counts), _as_numbers(totals)
        return BLEUScore(score, counts, totals, precisions, bp, sys_len, ref_len)

    def sentence_score(self, hypothesis, references) -> BLEUScore:
        if not self.effective_order:
            logger.warning("It is recommended to enable `effective_order` for sentence-level BLEU.")
        return super().sentence_score(hypothesis, references)  # type: ignore[return-value]

    def _signature_info(self) -> tuple[dict, dict]:
        smooth = self.smooth_method
        default = SMOOTH_DEFAULTS[smooth]
        if default is not None:
            smooth += f"[{default if self.smooth_value is None else self.smooth_value:.2f}]"
        info = {"case": "lc" if self.lowercase else "mixed", "eff": "yes" if self.effective_order else "no",
                "tok": self.tokenizer_signature, "smooth": smooth}
        return info, {"case": "c", "eff": "e", "tok": "tok", "smooth": "s"}
