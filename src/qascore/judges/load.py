"""Which judge a name means: the one place that turns a spec into a judge.

- ``containment`` -- SQuAD-normalised reference contained in the candidate (no model);
  ``exact-match`` and ``token-f1`` -- SQuAD's exact match and token F1 >= 0.5;
- ``workbench`` -- the rubric grading workbench's free-text verification (``contains`` mode);
- ``linear`` -- the shipped four-feature linear AVA model (numpy);
- ``default`` or ``ava`` -- the shipped AVA judge: a calibrated triage, and the shipped transformer
  network (int8 ONNX; the ``onnx`` extra) for what the triage leaves; ``network`` -- that network
  alone, judging every triple;
- a linear model ``.json`` file or an ONNX model directory;
- ``A>B`` -- a cascade: ``A`` accepts what it can, ``B`` judges the rest (``containment>default``);
  ``cascade`` is ``containment>default``.
"""
from __future__ import annotations

from pathlib import Path

from ..errors import require_extra
from .base import Judge
from .cache import CachedJudge
from .cascade import CascadeJudge
from .linear import LinearAva, default_linear_model
from .matching import ContainmentJudge, ExactMatchJudge, TokenF1Judge, WorkbenchJudge
from .onnx import ONNX_MODULES, load_default_model, load_default_network, load_model_dir

MODEL_SPECS = "'default' (the shipped judge: calibrated triage, then the transformer network), 'network' (the " \
              "network alone), 'linear' (the shipped linear model), or a model directory / linear .json"
JUDGE_SPECS = "containment, exact-match, token-f1, workbench, linear, default (or ava: calibrated triage, then the " \
              "shipped transformer network), network (the network alone), cascade (containment>default), A>B for " \
              "any two, or a model directory / linear .json"
NAMED_MODELS = ("default", "ava", "network", "linear")
CASCADE = "containment>default"
STRING_JUDGES = {"containment": ContainmentJudge, "exact-match": ExactMatchJudge, "token-f1": TokenF1Judge}
MATCHING_SPECS = (*STRING_JUDGES, "workbench")


def is_onnx_spec(spec: str) -> bool:
    """True when ``spec`` names an ONNX model (``default``/``ava``, a model directory, or a cascade
    with one of them)."""
    if spec == "cascade" or ">" in spec:
        return any(is_onnx_spec(part) for part in (CASCADE if spec == "cascade" else spec).split(">"))
    return spec not in ("linear", *MATCHING_SPECS) and not str(spec).endswith(".json")


def load_model(spec: str = "default", *, refs: str = "max", device: str = "auto",
               n_threads: int | None = None) -> Judge:
    """The AVA model ``spec`` names: ``default`` (the shipped judge: calibrated triage, then the
    int8 ONNX network), ``network`` (that network alone), ``linear`` (the
    shipped linear model), a linear model ``.json`` file, or an ONNX model directory, under the
    reference rule ``refs`` (``max`` or ``mean``) with that rule's tuned threshold.

    An ONNX model needs the ``onnx`` extra (:class:`~qascore.errors.MissingExtraError` otherwise);
    ``device`` and ``n_threads`` apply to ONNX models only.

    Example:

        >>> type(load_model("linear")).__name__
        'LinearAva'

    :param spec: ``default``, ``network``, ``linear``, a linear ``.json`` file or an ONNX model directory.
    :param refs: the reference rule, ``max`` or ``mean``.
    :param device: ``auto``, ``cpu`` or ``cuda`` (ONNX models).
    :param n_threads: intra-op threads of an ONNX session (None: the library's default).
    :returns: the model, a :class:`~qascore.judges.base.Judge`.
    :raises ValueError: for a judge spec that is not a model (use :func:`load_judge`) or an unknown name.
    :raises qascore.errors.MissingExtraError: for an ONNX model without the ``onnx`` extra.
    """
    if spec in (*MATCHING_SPECS, "cascade") or ">" in spec:
        raise ValueError(f"{spec!r} is a judge, not an AVA model; use load_judge (models: {MODEL_SPECS})")
    if spec not in NAMED_MODELS and "/" not in spec and not spec.endswith(".json") \
            and not Path(spec).exists():
        raise ValueError(f"unknown judge {spec!r}: not a name and no such model directory; expected {JUDGE_SPECS}")
    path = Path(spec)
    if spec not in NAMED_MODELS and path.exists() and not path.is_dir():
        # a model is read by path: a directory (ONNX) or a regular file (a linear model's JSON)
        if not path.is_file():
            raise ValueError(f"model {spec}: not a regular file or a directory (a pipe or a device cannot hold a "
                             f"model); save the model to a file and name that")
        return LinearAva.load(path, refs=refs)
    if not is_onnx_spec(spec):
        return default_linear_model(refs) if spec == "linear" else LinearAva.load(path, refs=refs)
    require_extra("onnx", *ONNX_MODULES)
    if spec in ("default", "ava"):
        return load_default_model(device=device, n_threads=n_threads, refs=refs)
    if spec == "network":
        return load_default_network(device=device, n_threads=n_threads, refs=refs)
    return load_model_dir(Path(spec), device=device, n_threads=n_threads, refs=refs)


def load_judge(spec: str = "default", *, refs: str = "max", device: str = "auto",
               n_threads: int | None = None, cache=None) -> Judge:
    """The judge ``spec`` names (see the module's list), under the reference rule ``refs`` where
    the judge has one; ``device`` and ``n_threads`` apply to ONNX models.

    A judge that runs a network remembers the network's verdicts in memory (:meth:`Judge.cached`:
    each distinct triple goes through the network once per process); ``cache`` (a directory) keeps
    the verdicts of any judge on disk as well, for later runs.

    Example:

        >>> judge = load_judge("containment>linear")
        >>> judge.first.name, judge.then.name
        ('containment', 'ava-linear')
        >>> judge.predict(["capital of France?"], ["Paris"], ["Paris, of course"]).tolist()
        [1]

    :param spec: a name in :data:`JUDGE_SPECS` (``containment``, ``workbench``, ``linear``,
        ``default``, ``cascade``, ``A>B``, ...) or a model path.
    :param refs: the reference rule, ``max`` or ``mean``, where the judge has one.
    :param device: ``auto``, ``cpu`` or ``cuda`` (ONNX models).
    :param n_threads: intra-op threads of an ONNX session.
    :param cache: a directory that keeps the verdicts on disk, or None.
    :returns: a :class:`~qascore.judges.base.Judge`.
    :raises ValueError: for an empty or unknown spec.
    :raises qascore.errors.MissingExtraError: for an ONNX judge without the ``onnx`` extra.
    """
    judge = _load_judge(spec, refs=refs, device=device, n_threads=n_threads)
    if cache is not None or is_onnx_spec(spec):
        return judge.cached(lambda inner: CachedJudge(inner, cache))
    return judge


def _load_judge(spec: str, *, refs: str, device: str, n_threads: int | None) -> Judge:
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"a judge spec must be a non-empty string: {JUDGE_SPECS}")
    if spec == "cascade":
        spec = CASCADE
    if ">" in spec:
        first, rest = spec.split(">", 1)
        return CascadeJudge(_load_judge(first, refs=refs, device=device, n_threads=n_threads),
                            _load_judge(rest, refs=refs, device=device, n_threads=n_threads))
    if spec in STRING_JUDGES:
        return STRING_JUDGES[spec](refs)
    if spec == "workbench":
        return WorkbenchJudge()
    return load_model(spec, refs=refs, device=device, n_threads=n_threads)
