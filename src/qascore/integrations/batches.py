"""The column contract shared by the Ray and Spark adapters: score a batch of rows, keep its columns.

A :class:`BatchScorer` is a picklable callable that takes a batch of rows (a pyarrow ``Table`` or
``RecordBatch``, a pandas ``DataFrame``, or a dict of numpy arrays / lists, as Ray's and Spark's
batch formats give them) and returns the same kind of batch with every input column kept and the
score columns appended:

========  ==============================  =====================================================
metric    input columns                   output columns
========  ==============================  =====================================================
rouge     ``prediction``, ``reference``   ``<type>_precision``, ``<type>_recall``, ``<type>_fmeasure``
bleu      ``prediction``, ``reference``   ``bleu`` (sentence BLEU, 0-100)
chrf      ``prediction``, ``reference``   ``chrf`` (sentence chrF, 0-100)
ter       ``prediction``, ``reference``   ``ter`` (sentence TER, 0-100+)
ava       ``question``, ``reference``,    ``ava_proba`` (float64), ``ava_label`` (bool)
          ``prediction`` (the candidate)
========  ==============================  =====================================================

A reference cell holds a string or a list of strings (one type per column). The input column
names are options (``prediction_column=``, ``reference_column=``, ``question_column=``); every
other keyword is the metric's own, spelled as in the in-process API (``rouge_types=``,
``use_stemmer=``, ``tokenize=``, ``model=``, ...). Scores are those of the in-process metric on
the same rows, bit for bit: the scorer only moves columns in and out.

The metric object is built on first use in each process and cached there by its settings, so a
worker that scores many batches (a Spark Python worker, a Ray actor) loads a model once; pickling
a scorer sends its settings, never a built model.
"""
from __future__ import annotations

import threading
from typing import Any

import numpy as np

__all__ = ["METRICS", "BatchScorer"]
# metric name -> (module, class, columns renamed on output, defaults differing from the class's)
_METRICS: dict[str, tuple[str, str, dict[str, str], dict[str, Any]]] = {
    "rouge": ("qascore.lexical.rouge", "Rouge", {}, {}),
    # sentence BLEU as sacrebleu's sentence_bleu computes it (effective order on)
    "bleu": ("qascore.lexical.bleu", "BLEU", {}, {"effective_order": True}),
    "chrf": ("qascore.lexical.chrf", "CHRF", {}, {}),
    "ter": ("qascore.lexical.ter", "TER", {}, {}),
    "ava": ("qascore.ava.metric", "Ava", {"probability": "ava_proba", "label": "ava_label"}, {}),
}
METRICS = tuple(_METRICS)
# metrics whose references must be lists (sacrebleu's layout); a string cell becomes a one-item list
_LIST_REFERENCES = frozenset({"bleu", "chrf", "ter"})

_built: dict[tuple[str, str], Any] = {}
_built_lock = threading.Lock()


def _metric_key(metric: str, options: dict[str, Any]) -> tuple[str, str]:
    return metric, repr(sorted(options.items()))


def build_metric(metric: str, options: dict[str, Any]):
    """The metric object for ``metric`` with ``options``, built once per process and cached."""
    key = _metric_key(metric, options)
    with _built_lock:
        built = _built.get(key)
        if built is None:
            import importlib

            module, name, _, defaults = _METRICS[metric]
            built = getattr(importlib.import_module(module), name)(**{**defaults, **options})
            _built[key] = built
    return built


class BatchScorer:
    """Scores batches of rows with one metric and returns them with the score columns appended.

    ``metric``: one of :data:`METRICS`; ``options``: the metric's keywords. The column names of
    the inputs are ``prediction_column``, ``reference_column`` and (AVA) ``question_column``.
    A score column whose name is already an input column is an error (nothing is overwritten).

    Example:

        >>> import pickle
        >>> from qascore.integrations.batches import BatchScorer
        >>> scorer = BatchScorer("rouge", rouge_types=["rouge1"])
        >>> scorer.output_columns
        {'rouge1_precision': 'float64', 'rouge1_recall': 'float64', 'rouge1_fmeasure': 'float64'}
        >>> batch = scorer({"id": [7, 8], "prediction": ["the cat sat", "a dog"], "reference": ["a cat sat", "a dog"]})
        >>> batch["id"], batch["rouge1_fmeasure"].round(4).tolist()
        ([7, 8], [0.6667, 1.0])
        >>> pickle.loads(pickle.dumps(scorer)).options  # a worker gets the settings, and builds the metric once
        {'rouge_types': ['rouge1']}
        >>> scorer({"prediction": ["the cat sat"]})
        Traceback (most recent call last):
        KeyError: "rouge: the batch has no column 'reference' (its columns: 'prediction'); ..."

    :param metric: one of :data:`METRICS` (``rouge``, ``bleu``, ``chrf``, ``ter``, ``ava``).
    :param prediction_column: the column of predictions (AVA's candidates).
    :param reference_column: the column of references: a string or a list of strings per row.
    :param question_column: AVA's column of questions.
    :param options: the metric's own keywords, as the in-process class takes them.
    :raises ValueError: for an unknown metric or option.
    :raises TypeError: for a column name that is not a non-empty str, or an AVA model that is not a spec string.
    """

    def __init__(self, metric: str, *, prediction_column: str = "prediction", reference_column: str = "reference",
                 question_column: str = "question", **options: Any) -> None:
        if not isinstance(metric, str) or metric not in _METRICS:
            raise ValueError(f"metric must be one of {', '.join(METRICS)}, got {metric!r}")
        for name, value in (("prediction_column", prediction_column), ("reference_column", reference_column),
                            ("question_column", question_column)):
            if not isinstance(value, str) or not value:
                raise TypeError(f"{name} must be a non-empty str, got {value!r}")
        if metric == "ava" and not isinstance(options.get("model", "default"), str):
            raise TypeError("ava model= must be a judge spec string here (the scorer is shipped to workers by "
                            "its settings)")
        self.metric = metric
        self.options = dict(options)
        self.prediction_column, self.reference_column = prediction_column, reference_column
        self.question_column = question_column
        # the columns read, in the order the metric takes them
        self.input_columns = ([question_column, reference_column, prediction_column] if metric == "ava"
                              else [prediction_column, reference_column])
        # score column -> kind ("float64" or "bool"), known before any batch (a Spark schema);
        # computing it validates the options here, on the driver, rather than in a worker
        self.output_columns = self._output_kinds()

    def __reduce__(self):
        return _rebuild_scorer, (self.metric, self.input_names(), self.options)

    def input_names(self) -> dict[str, str]:
        """The input column options, by keyword."""
        return {"prediction_column": self.prediction_column, "reference_column": self.reference_column,
                "question_column": self.question_column}

    def _output_kinds(self) -> dict[str, str]:
        if self.metric == "ava":  # built lazily: loading a model on the driver is not needed for its columns
            return {"ava_proba": "float64", "ava_label": "bool"}
        built = build_metric(self.metric, self.options)
        if self.metric == "rouge":
            return {f"{t}_{f}": "float64" for t in built.rouge_types for f in ("precision", "recall", "fmeasure")}
        return {self.metric: "float64"}

    def metric_object(self):
        """The metric object of these settings, built once per process."""
        return build_metric(self.metric, self.options)

    # --- one batch -------------------------------------------------------------------------

    def score_columns(self, columns: dict[str, list]) -> dict[str, np.ndarray]:
        """Score columns of the texts in ``columns`` (input column name -> list of cells)."""
        metric = self.metric_object()
        texts = [columns[name] for name in self.input_columns]
        if self.metric in _LIST_REFERENCES:
            texts[1] = [[cell] if isinstance(cell, str) else cell for cell in texts[1]]
        scores = metric.score(*texts)
        rename = _METRICS[self.metric][2]
        out = {rename.get(name, name): np.asarray(values) for name, values in scores.columns.items()}
        if "ava_label" in out:
            out["ava_label"] = out["ava_label"].astype(bool)
        return out

    def __call__(self, batch):
        """``batch`` with the score columns appended, of the same kind as ``batch``."""
        import sys

        if "pyarrow" in sys.modules:
            import pyarrow as pa

            if isinstance(batch, (pa.Table, pa.RecordBatch)):
                return self._score_arrow(batch)
        if "pandas" in sys.modules:
            import pandas as pd

            if isinstance(batch, pd.DataFrame):
                return self._score_pandas(batch)
        if isinstance(batch, dict):
            return self._score_dict(batch)
        raise TypeError(f"a batch must be a pyarrow Table or RecordBatch, a pandas DataFrame or a dict of "
                        f"columns, got {type(batch).__name__}")

    def check_columns(self, names) -> None:
        """Check a batch's column names before scoring.

        :param names: the batch's column names.
        :raises KeyError: when an input column is missing.
        :raises ValueError: when a score column would overwrite one of the batch's columns.
        """
        missing = [c for c in self.input_columns if c not in names]
        if missing:
            raise KeyError(f"{self.metric}: the batch has no column {', '.join(map(repr, missing))} "
                           f"(its columns: {', '.join(map(repr, names))}); rename it or pass "
                           f"prediction_column= / reference_column= / question_column=")
        clash = [c for c in self.output_columns if c in names]
        if clash:
            raise ValueError(f"{self.metric}: the batch already has a column {', '.join(map(repr, clash))}, "
                             f"which scoring would overwrite; rename it first")

    def _score_arrow(self, batch):
        import pyarrow as pa

        self.check_columns(batch.schema.names)
        columns = {name: _arrow_cells(batch.column(name), name, name == self.reference_column)
                   for name in self.input_columns}
        scores = self.score_columns(columns)
        arrays = list(batch.columns) + [pa.array(v) for v in scores.values()]
        names = list(batch.schema.names) + list(scores)
        return (pa.Table if isinstance(batch, pa.Table) else pa.RecordBatch).from_arrays(arrays, names=names)

    def _score_pandas(self, frame):
        return frame.assign(**self._score_python(list(frame.columns), lambda name: frame[name].tolist()))

    def _score_dict(self, batch: dict):
        return {**batch, **self._score_python(list(batch), lambda name: list(batch[name]))}

    def _score_python(self, names: list, cells_of) -> dict[str, np.ndarray]:
        """Score columns of a batch whose column ``name`` holds the Python cells ``cells_of(name)``."""
        self.check_columns(names)
        return self.score_columns({name: _python_cells(cells_of(name), name, name == self.reference_column)
                                   for name in self.input_columns})


def _rebuild_scorer(metric: str, names: dict[str, str], options: dict[str, Any]) -> BatchScorer:
    return BatchScorer(metric, **names, **options)


def _arrow_cells(array, name: str, allow_lists: bool) -> list:
    """A column of strings (or, for references, lists of strings) as Python cells; a null or a
    cell of another type is an error naming the column and the row of the batch."""
    import pyarrow as pa

    kind = array.type
    text = pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind)
    listed = allow_lists and (pa.types.is_list(kind) or pa.types.is_large_list(kind)) and (
        pa.types.is_string(kind.value_type) or pa.types.is_large_string(kind.value_type))
    if not (text or listed):
        wanted = "strings or lists of strings" if allow_lists else "strings"
        raise TypeError(f"column {name!r} must hold {wanted}, not {kind}")
    if array.null_count:
        row = next(i for i, v in enumerate(array.is_null().to_pylist()) if v)
        raise ValueError(f"column {name!r}: row {row} of the batch is null")
    if not listed:
        return array.to_pylist()
    cells: list = []
    chunks = array.chunks if isinstance(array, pa.ChunkedArray) else [array]
    for chunk in chunks:
        # the strings of all lists at once, then a slice per row: half the time of to_pylist()
        values = chunk.flatten()
        offsets = chunk.offsets.to_numpy() - chunk.offsets[0].as_py()  # a slice's offsets start past 0
        if values.null_count:
            position = next(i for i, v in enumerate(values.is_null().to_pylist()) if v)
            row = len(cells) + int(np.searchsorted(offsets, position, side="right")) - 1
            raise ValueError(f"column {name!r}: row {row} of the batch holds a null reference")
        strings, offsets = values.to_pylist(), offsets.tolist()
        cells.extend(strings[offsets[i]:offsets[i + 1]] for i in range(len(chunk)))
    return cells


def _python_cells(cells: list, name: str, allow_lists: bool) -> list:
    """Cells of a pandas or dict column as str, or (references) lists of str; anything else is an
    error naming the column and the row."""
    out: list[str | list[str]] = []
    for row, cell in enumerate(cells):
        if isinstance(cell, str):
            out.append(cell)
            continue
        if allow_lists and isinstance(cell, (list, tuple, np.ndarray)):
            cell = list(cell)
            if all(isinstance(x, str) for x in cell):
                out.append(cell)
                continue
        wanted = "a str or a list of str" if allow_lists else "a str"
        raise TypeError(f"column {name!r}: row {row} of the batch must be {wanted}, got {type(cell).__name__}")
    return out
