"""Judges: is a candidate answer correct, given its question and the acceptable references?

One interface (:class:`Judge`): ``judge(questions, references, candidates)`` returns
:class:`Verdicts` (``proba`` p(correct) and ``labels``); ``predict_proba`` and ``predict`` give
each alone. ``references[i]`` is a string or a list of acceptable strings. Implementations:

- :class:`ContainmentJudge` -- a normalised reference contained in the candidate (no model);
  :class:`ExactMatchJudge`, :class:`TokenF1Judge` -- SQuAD's exact match and token F1;
- :class:`WorkbenchJudge` -- the rubric grading workbench's stemmed and fuzzy matching (EXAM's grader);
- :class:`LinearAva` -- AVA's four-feature linear model (numpy);
- :class:`OnnxAvaModel` -- AVA's transformer models (ONNX Runtime; the ``onnx`` extra);
- :class:`CascadeJudge` -- a first judge accepts what it can, the next judges the rest;
  :class:`CalibratedCascade` -- the default: a calibrated triage (:mod:`qascore.judges.triage`)
  settles the clear triples both ways, the network judges the rest;
- :class:`CachedJudge` -- any judge with its verdicts remembered in memory and on disk.

:func:`load_judge` turns a name (``containment``, ``workbench``, ``linear``, ``default``,
``cascade``, ``A>B``, a model path) into a judge. AVA, EXAM's free-text grading and nugget
assignment all take a judge.
"""
from .base import Judge, Verdicts
from .cache import CachedJudge
from .cascade import CalibratedCascade, CascadeJudge
from .linear import LinearAva, default_linear_model
from .load import JUDGE_SPECS, load_judge, load_model
from .matching import ContainmentJudge, ExactMatchJudge, TokenF1Judge, WorkbenchJudge, verify_free_text
from .onnx import OnnxAvaModel, load_default_model

__all__ = [
    "CachedJudge", "CalibratedCascade", "CascadeJudge", "ContainmentJudge", "ExactMatchJudge", "JUDGE_SPECS", "Judge",
    "LinearAva", "OnnxAvaModel", "TokenF1Judge", "Verdicts", "WorkbenchJudge", "default_linear_model",
    "load_default_model", "load_judge", "load_model", "verify_free_text",
]
