"""``sacrebleu.metrics``: BLEU and chrF(++) with sacrebleu 2.6's classes and numbers (TER: not yet)."""
from .bleu import BLEU, BLEUScore
from .chrf import CHRF, CHRFScore

METRICS = {"BLEU": BLEU, "CHRF": CHRF}

__all__ = ["BLEU", "BLEUScore", "CHRF", "CHRFScore", "METRICS"]
