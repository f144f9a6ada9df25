"""AVA: answer correctness from (question, reference, candidate) (Vu and Moschitti, NAACL 2021).

- :class:`Ava` -- the metric: per-example probability and label, corpus mean probability and
  fraction judged correct, streaming ``update`` / ``compute``; wraps one of the models below.
- :func:`load_default_model` -- the shipped transformer model (int8 ONNX, a2 on MiniLM-L6; the
  ``onnx`` extra); ``predict_proba(questions, references, candidates)`` gives p(correct),
  ``predict`` 0/1 at its tuned threshold; references may be lists (combined by ``refs``).
- :class:`LinearAva` / :func:`default_linear_model` -- the four-feature linear model (numpy).
- :func:`load_model` -- ``default``, ``linear`` or a path to either kind of model.
  The models are judges of :mod:`qascore.judges` (shared with EXAM and nuggets), re-exported here.
- :mod:`qascore.ava.evaluate` -- point-wise P/R/F1/accuracy and system-wise accuracy, P@1, MAP,
  MRR, threshold tuning, RMSE and Kendall tau-b; :func:`evaluate_triples` puts them in one report.
- Training (``qascore[train]``): :mod:`qascore.ava.training`; export: ``onnx_export/``.
"""
from typing import TYPE_CHECKING

from ..lazy import lazy_exports

# Each name is imported on first use (``import qascore.ava`` loads nothing else); the table below
# says where it comes from, and must agree with these imports, which type checkers read.
if TYPE_CHECKING:
    from .data import (Triples, calibration_split, load_as2_as_ava, load_evouna, load_jsonl_triples, read_as2,
                       split_by_question)
    from .evaluate import agreement, pointwise, ranking_metrics, systemwise_accuracy, tune_threshold
    from ..judges.features import compute_features
    from ..judges.linear import LinearAva, default_linear_model
    from ..judges.load import load_model
    from ..judges.onnx import OnnxAvaModel, load_default_model
    from .metric import Ava
    from .report import evaluate_triples, format_report

__all__ = [
    "Ava", "LinearAva", "OnnxAvaModel", "Triples", "agreement", "calibration_split", "compute_features",
    "default_linear_model", "evaluate_triples", "format_report", "load_as2_as_ava", "load_default_model",
    "load_evouna", "load_jsonl_triples", "load_model", "pointwise", "ranking_metrics", "read_as2",
    "split_by_question", "systemwise_accuracy", "tune_threshold",
]

__getattr__, __dir__ = lazy_exports(__name__, {
    ".data": ("Triples", "calibration_split", "load_as2_as_ava", "load_evouna", "load_jsonl_triples", "read_as2",
              "split_by_question"),
    ".evaluate": ("agreement", "pointwise", "ranking_metrics", "systemwise_accuracy", "tune_threshold"),
    "..judges.features": ("compute_features",),
    "..judges.linear": ("LinearAva", "default_linear_model"),
    "..judges.load": ("load_model",),
    "..judges.onnx": ("OnnxAvaModel", "load_default_model"),
    ".metric": ("Ava",),
    ".report": ("evaluate_triples", "format_report"),
})
