"""AVA: answer correctness from (question, reference, candidate) (Vogel et al., 2021).

- :func:`load_default_model` -- the shipped transformer model (int8 ONNX, a2 on MiniLM-L6);
  ``predict_proba(questions, references, candidates)`` gives p(correct), ``predict`` 0/1 at its
  tuned threshold; references may be lists (scores averaged).
- :class:`LinearAva` / :func:`default_linear_model` -- the four-feature linear model (numpy).
- :mod:`qascore.ava.evaluate` -- point-wise P/R/F1/accuracy and system-wise accuracy, P@1, MAP,
  MRR, threshold tuning, RMSE and Kendall tau-b.
- Training (``qascore[train]``): :mod:`qascore.ava.training`; export: ``onnx_export/``.
"""
from .data import Triples, calibration_split, load_as2_as_ava, load_evouna, load_jsonl_triples, split_by_question
from .evaluate import agreement, pointwise, ranking_metrics, systemwise_accuracy, tune_threshold
from .linear import LinearAva, compute_features, default_linear_model
from .transformer import OnnxAvaModel, load_default_model

__all__ = [
    "LinearAva", "OnnxAvaModel", "Triples", "agreement", "calibration_split", "compute_features", "default_linear_model",
    "load_as2_as_ava",
    "load_default_model", "load_evouna", "load_jsonl_triples", "pointwise", "ranking_metrics",
    "split_by_question", "systemwise_accuracy", "tune_threshold",
]
