"""sacrebleu's ``TER`` (2.6) on :class:`qascore.lexical.ter.TER`'s compiled shift search."""
from __future__ import annotations

import numpy as np

from ....lexical.ter import TER as NativeTER
from ....lexical.ter import summed_rows, ter_from_statistics, ter_from_statistics_batch
from .base import Metric, Score, Signature


class TERSignature(Signature):
    pass


class TERScore(Score):
    """sacrebleu's TER result: ``score`` (percent), ``num_edits`` (an int) and ``ref_length`` (the
    summed mean reference lengths).

    Example:

        >>> from qascore.compat.sacrebleu import TERScore
        >>> score = TERScore(25.0, num_edits=1, ref_length=4.0)
        >>> str(score), score.num_edits
        ('TER = 25.00', 1)

    :param score: TER (percent).
    :param num_edits: the number of edits.
    :param ref_length: the summed mean reference lengths.
    """

    def __init__(self, score: float, num_edits: float, ref_length: float):
        super().__init__("TER", score)
        self.num_edits = int(num_edits)
        self.ref_length = ref_length


class TER(Metric):
    """``sacrebleu.metrics.TER(normalized, no_punct, asian_support, case_sensitive, references)``.

    Segment statistics are sacrebleu's ``[fewest edits, mean reference length]`` rows (float64);
    a corpus sums them left to right, as sacrebleu does, and bootstrap resamples in float32.

    Example:

        >>> from qascore.compat.sacrebleu import TER
        >>> hypotheses = ["the cat sat on the mat", "a dog barked"]
        >>> references = [["the cat sat on a mat", "the dog barked loudly"]]
        >>> ter = TER()
        >>> print(ter.corpus_score(hypotheses, references))
        TER = 30.00
        >>> ter.get_signature().format()
        'nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:2.6.0'

    :param normalized: apply Tercom's normalisation (punctuation split, ...).
    :param no_punct: remove punctuation.
    :param asian_support: split Asian characters (with ``normalized``).
    :param case_sensitive: keep case (TER lowercases by default).
    :param references: reference streams to cache for later calls.
    """

    _SIGNATURE_TYPE = TERSignature
    _STAT_DTYPE = np.float64

    def __init__(self, normalized: bool = False, no_punct: bool = False, asian_support: bool = False,
                 case_sensitive: bool = False, references=None):
        self._native = NativeTER(normalized, no_punct, asian_support, case_sensitive)
        self.no_punct = no_punct
        self.normalized = normalized
        self.asian_support = asian_support
        self.case_sensitive = case_sensitive
        self.tokenizer = self._native.tokenizer
        self.tokenizer_signature = self.tokenizer.signature()
        super().__init__(references)

    def _segment_rows(self, segments) -> np.ndarray:
        return self._native.segment_statistics_of(segments)

    def _compute_score_from_stats(self, stats) -> TERScore:
        num_edits, ref_length = stats[0], stats[1]
        return TERScore(ter_from_statistics(num_edits, ref_length), num_edits, ref_length)

    def _sentence_score_of_lines(self, lines: list) -> TERScore:
        num_edits, ref_length = self._native.sentence_statistics(lines)
        return TERScore(ter_from_statistics(num_edits, ref_length), num_edits, ref_length)

    def _aggregate_and_compute(self, stats) -> TERScore:
        num_edits, ref_length = summed_rows(stats)  # edits as an int, lengths summed left to right
        return TERScore(ter_from_statistics(num_edits, ref_length), num_edits, ref_length)

    def _scores_from_stats(self, rows) -> np.ndarray:
        rows = np.asarray(rows)
        return ter_from_statistics_batch(rows[:, 0], rows[:, 1])

    def _signature_info(self) -> tuple[dict, dict]:
        info = {"case": "mixed" if self.case_sensitive else "lc", "tok": self.tokenizer_signature,
                "norm": self.normalized, "punct": not self.no_punct, "asian": self.asian_support}
        return info, {"case": "c", "tok": "t", "norm": "nr", "punct": "pn", "asian": "as"}
