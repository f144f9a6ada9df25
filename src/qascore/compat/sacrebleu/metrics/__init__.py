"""``sacrebleu.metrics``: BLEU, chrF(++) and TER with sacrebleu 2.6's classes and numbers."""
from .bleu import BLEU, BLEUScore
from .chrf import CHRF, CHRFScore
from .ter import TER, TERScore

METRICS = {"BLEU": BLEU, "CHRF": CHRF, "TER": TER}

__all__ = ["BLEU", "BLEUScore", "CHRF", "CHRFScore", "METRICS", "TER", "TERScore"]
