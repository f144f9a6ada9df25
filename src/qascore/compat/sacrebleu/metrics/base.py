"""sacrebleu 2.6's ``Score``, ``Signature`` and ``Metric`` base, on qascore's compiled statistics.

Each metric class here wraps one native qascore metric (``qascore.lexical``) and turns sacrebleu's
call shapes into its: reference *streams* (``references[j][i]`` is the j-th reference of hypothesis
i, ``None`` for a missing one) are laid out for the kernels directly
(:func:`qascore.lexical.segments.segments_from_streams`); per-segment statistics come
back as one numpy array (one row per segment, sacrebleu's column layout), and sums of rows give
corpus scores.
"""
from __future__ import annotations

import json
import logging
import os
import statistics
from collections.abc import Sequence
from itertools import repeat
from typing import Any

import numpy as np

from ....lexical.segments import Segments, segments_from_streams, single_segment_lines
from ....validate import as_list
from ..version import __version__

logger = logging.getLogger("qascore.compat.sacrebleu")


class Score:
    """A metric's result: ``name`` and ``score``, with an optional bootstrap confidence interval."""

    def __init__(self, name: str, score: float):
        self.name = name
        self.score = score
        self._mean = -1.0
        self._ci = -1.0
        self._verbose = ""

    def format(self, width: int = 2, score_only: bool = False, signature: str = "", is_json: bool = False) -> str:
        """``NAME|signature = score (μ = mean ± ci) details``, the score alone, or a JSON object."""
        score = f"{self.score:.{width}f}"
        fields: dict[str, Any] = {"name": self.name, "score": float(score), "signature": signature}
        if self._mean > 0:
            mean, ci = f"{self._mean:.{width}f}", f"{self._ci:.{width}f}"
            interval = f"μ = {mean} ± {ci}"
            score += f" ({interval})"
            if is_json:
                fields.update(confidence_mean=float(mean), confidence_var=float(ci), confidence=interval)
        line = f"{self.name}|{signature}" if signature else self.name
        line = f"{line} = {score}"
        if self._verbose:
            line += f" {self._verbose}"
            fields["verbose_score"] = self._verbose
        if score_only:
            return score
        if is_json:
            for item in filter(None, signature.split("|")):
                key, value = item.split(":")
                fields[key] = value
            return json.dumps(fields, indent=1, ensure_ascii=False)
        return line

    def estimate_ci(self, scores) -> None:
        """Mean and half the width of the central 95% of ``scores`` (Score objects or numbers), as
        sacrebleu's bootstrap reports them."""
        values = sorted(getattr(s, "score", s) for s in scores)  # their own type: float32 ones average as such
        lower = len(values) // 40
        self._ci = 0.5 * (values[len(values) - lower - 1] - values[lower])
        self._mean = statistics.mean(values)

    def __repr__(self) -> str:
        return self.format()


class Signature:
    """sacrebleu's reproducibility signature: ``key:value`` pairs joined by ``|``, ``version`` last."""

    _ABBREVIATIONS = {"version": "v", "nrefs": "#", "test": "t", "lang": "l", "subset": "S", "origlang": "o",
                      "bs": "bs", "ar": "ar", "seed": "rs"}

    def __init__(self, args: dict, metric_info: dict | None = None, abbreviations: dict | None = None):
        if "num_refs" not in args:
            raise ValueError("Number of references unknown, please evaluate the metric first.")
        num_refs = args["num_refs"]
        self._abbr = {**self._ABBREVIATIONS, **(abbreviations or {})}
        self.info: dict[str, Any] = {
            "version": __version__, "nrefs": "var" if num_refs == -1 else num_refs,
            "bs": args.get("n_bootstrap"), "ar": None, "seed": args.get("seed"), "test": args.get("test_set"),
            "lang": args.get("langpair"), "origlang": args.get("origlang"), "subset": args.get("subset"),
            **(metric_info or {}),
        }

    def format(self, short: bool = False) -> str:
        keys = [k for k in self.info if k != "version"] + ["version"]
        pairs = []
        for key in keys:
            value = self.info[key]
            if value is None:
                continue
            if isinstance(value, bool):
                value = "yes" if value else "no"
            pairs.append(f"{self._abbr[key] if short else key}:{value}")
        return "|".join(pairs)

    def update(self, key: str, value: Any) -> None:
        self.info[key] = value

    def __str__(self) -> str:
        return self.format()

    __repr__ = __str__


def _as_lines(values, message: str, ndim: int = 1) -> list:
    """A sequence of strings as a new list: any ordered iterable (sacrebleu's sequences, numpy
    arrays, pandas Series, generators), read once; a single str, a set or a non-iterable is a
    TypeError with sacrebleu's ``message``. Str subclasses are made plain str when the lines are
    laid out (:func:`qascore.lexical.segments.segments_from_streams`)."""
    try:
        return as_list(values, "", ndim=ndim)
    except TypeError:
        raise TypeError(message) from None


def _all_str(items) -> bool:
    """Every item exactly a ``str``, in one C-level pass (a subclass takes the slow, exact path)."""
    return set(map(type, items)) <= {str}


def reference_streams(streams, n_hypotheses: int | None = None) -> list[list]:
    """sacrebleu's reference streams checked for shape: a non-empty sequence of sequences of
    equal length (``n_hypotheses`` when given), as lists."""
    message = "references must be a non-empty sequence of reference streams (sequences of strings)"
    streams = _as_lines(streams, message, ndim=2)  # a 2-D array: one stream per row
    if not streams:
        raise TypeError(message)
    streams = [s if type(s) is list else _as_lines(s, f"reference stream {j} must be a sequence of strings, got "
                                                      f"{type(s).__name__}") for j, s in enumerate(streams)]
    for j, stream in enumerate(streams):
        if len(stream) != len(streams[0]):
            raise ValueError(f"reference stream {j} has {len(stream)} lines but stream 0 has {len(streams[0])}")
    if n_hypotheses is not None and len(streams[0]) != n_hypotheses:
        raise ValueError(f"the reference streams have {len(streams[0])} lines but there are {n_hypotheses} hypotheses")
    return streams


class Metric:
    """sacrebleu's ``Metric``: ``corpus_score``, ``sentence_score``, ``get_signature`` and reference
    caching (``references=`` at construction), over a native qascore metric.

    Subclasses set ``_native`` (a :class:`qascore.metric.Metric` with ``segment_statistics``) and
    implement ``_segment_rows`` (a laid-out batch -> statistics rows) and
    ``_compute_score_from_stats`` (one summed row -> score object).
    """

    _SIGNATURE_TYPE = Signature
    _STAT_DTYPE: Any = np.int64

    def __init__(self, references=None):
        self._ref_cache: list | None = None
        self._force = True
        self.n_bootstrap: int | None = None
        self.seed: str | None = None
        if references is not None:
            self._ref_cache = reference_streams(references)
            _, self.num_refs = segments_from_streams([""] * len(self._ref_cache[0]), self._ref_cache)  # checks them

    # -- to implement ------------------------------------------------------------------------
    def _segment_rows(self, segments: Segments) -> np.ndarray:
        raise NotImplementedError

    def _compute_score_from_stats(self, stats) -> Score:
        raise NotImplementedError

    def _signature_info(self) -> tuple[dict, dict]:
        """(metric-specific signature entries, their abbreviations)."""
        raise NotImplementedError

    def _scores_from_stats(self, rows: np.ndarray) -> np.ndarray:
        """``_compute_score_from_stats(row).score`` for each row (the significance tests' many
        resamples); subclasses override it with one vectorised call."""
        return np.array([self._compute_score_from_stats(row).score for row in rows])  # float32 stays float32

    # -- sacrebleu's API ---------------------------------------------------------------------
    def _extract_corpus_statistics(self, hypotheses, references) -> np.ndarray:
        """Per-segment statistics, one row per hypothesis (sacrebleu's column layout)."""
        hypotheses = list(hypotheses)
        # sacrebleu's truth test (an empty list means the cache), safe for arrays and iterators
        if references is not None and (len(references) > 0 if hasattr(references, "__len__") else True):
            segments, self.num_refs = segments_from_streams(hypotheses, reference_streams(references, len(hypotheses)))
        elif self._ref_cache is not None:
            if len(self._ref_cache[0]) != len(hypotheses):
                raise ValueError(f"the cached references have {len(self._ref_cache[0])} lines but there are "
                                 f"{len(hypotheses)} hypotheses")
            segments, _ = segments_from_streams(hypotheses, self._ref_cache)
        else:
            raise RuntimeError("No references provided and the cache is empty.")
        if not self._force:
            if _all_str(hypotheses):
                endings = sum(map(str.endswith, hypotheses, repeat(" .")))
            else:
                endings = sum(1 for h in hypotheses if isinstance(h, str) and h.endswith(" ."))
            if endings >= 100:
                logger.warning("That's 100 lines that end in a tokenized period ('.'); it looks like you forgot "
                               "to detokenize your test data, which may hurt your score (force=True silences this).")
        return self._segment_rows(segments)

    def _aggregate_and_compute(self, stats) -> Score:
        rows = np.asarray(stats, dtype=self._STAT_DTYPE)
        return self._compute_score_from_stats(rows[0] if len(rows) == 1 else rows.sum(axis=0))

    def _check_sentence_score_args(self, hypothesis, references) -> list:
        """``references`` as a list, once the arguments are checked."""
        prefix = type(self).__name__
        if not isinstance(hypothesis, str):
            raise TypeError(f"{prefix}: The argument `hyp` should be a string.")
        references = _as_lines(references, f"{prefix}: The argument `refs` should be a sequence of strings.")
        if not references:
            raise ValueError(f"{prefix}: `refs` is empty; give at least one reference.")
        for k, ref in enumerate(references):
            if not isinstance(ref, str) and ref is not None:
                raise TypeError(f"{prefix}: refs[{k}] should be a string, got {type(ref).__name__}.")
        return references

    def _check_corpus_score_args(self, hypotheses, references) -> list:
        """``hypotheses`` as a list, once the arguments are checked."""
        prefix = type(self).__name__
        hypotheses = _as_lines(hypotheses, f"{prefix}: `hyps` should be a sequence of strings.")
        for i, hyp in enumerate(() if _all_str(hypotheses) else hypotheses):
            if not isinstance(hyp, str):
                what = "Undefined line in hypotheses stream" if hyp is None else f"got {type(hyp).__name__}"
                raise TypeError(f"{prefix}: hyps[{i}] should be a string ({what}).")
        if references is not None and (isinstance(references, str) or not hasattr(references, "__iter__")):
            raise TypeError(f"{prefix}: `refs` should be a sequence of sequence of strings.")
        return hypotheses

    def _sentence_score_of_lines(self, lines: list) -> Score:
        """The score of one segment ``[hypothesis, *references]`` (exact str each, checked by the
        caller); subclasses give it a road without the batch layout or arrays."""
        return self._aggregate_and_compute(self._extract_corpus_statistics(lines[:1], [[ref] for ref in lines[1:]]))

    def sentence_score(self, hypothesis: str, references: Sequence[str]) -> Score:
        """The metric of one hypothesis against its references (one string each)."""
        lines = single_segment_lines(hypothesis, references)
        if lines is not None:  # the plain call, the per-call cost of rerankers and per-example loops
            self.num_refs = len(lines) - 1
            return self._sentence_score_of_lines(lines)
        references = self._check_sentence_score_args(hypothesis, references)
        stats = self._extract_corpus_statistics([hypothesis], [[ref] for ref in references])
        return self._aggregate_and_compute(stats)

    def corpus_score(self, hypotheses: Sequence[str], references, n_bootstrap: int = 1) -> Score:
        """The metric of a corpus against reference streams (``None``: the cached references);
        ``n_bootstrap > 1`` adds a 95% bootstrap interval (seed: ``SACREBLEU_SEED``, default 12345).
        Hypotheses and streams may be any ordered iterables of strings (numpy arrays, pandas
        Series, generators: read once), str subclasses included, where sacrebleu takes sequences."""
        hypotheses = self._check_corpus_score_args(hypotheses, references)
        stats = self._extract_corpus_statistics(hypotheses, references)
        score = self._aggregate_and_compute(stats)
        if n_bootstrap > 1:
            self.n_bootstrap = n_bootstrap
            self.seed, samples = bootstrap_resample(stats, self, n_bootstrap)
            score.estimate_ci(samples)
        return score

    def get_signature(self) -> Signature:
        info, abbreviations = self._signature_info()
        return self._SIGNATURE_TYPE(vars(self), info, abbreviations)


def bootstrap_resample(stats: np.ndarray, metric: Metric, n_samples: int = 1000) -> tuple[str, list[Score]]:
    """sacrebleu's bootstrap: ``n_samples`` resamples of the segments drawn at once with numpy's
    ``default_rng(SACREBLEU_SEED)`` (``none``: unseeded), statistics summed in float32 as sacrebleu
    sums them, one score per resample."""
    seed = os.environ.get("SACREBLEU_SEED", "12345")
    rng = np.random.default_rng(None if seed.lower() == "none" else int(seed))
    rows = np.asarray(stats)
    indices = rng.choice(len(rows), size=(n_samples, len(rows)), replace=True)
    rows32 = rows.astype(np.float32)
    return seed.lower(), [metric._compute_score_from_stats(rows32[sample].sum(0)) for sample in indices]
