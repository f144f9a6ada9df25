"""Score a Ray Dataset: :func:`score_dataset` and the callable class :class:`ScoreBatches`.

``score_dataset(ds, "rouge", rouge_types=["rougeL"], use_stemmer=True)`` returns a Dataset with
every input column and the score columns of :mod:`qascore.integrations.batches`. Metric options
are the in-process keywords; Ray's own options for ``Dataset.map_batches`` go in one separate
argument, ``map_batches_kwargs`` (``num_gpus``, ``compute``, ``batch_size``, ``num_cpus``,
...), so no name means two things.

Lexical metrics run as Ray tasks, each scoring its batches on one thread. AVA runs in a pool of
actors (``compute=ray.data.ActorPoolStrategy(...)``; by default a pool that grows from one actor
to one per CPU of the cluster), each holding one ONNX Runtime session with ``num_cpus`` intra-op threads set explicitly
(Ray sets ``OMP_NUM_THREADS=1`` in workers, which would otherwise decide it); for CUDA pass
``device="cuda"`` and ``map_batches_kwargs={"num_gpus": 1}``. Needs the ``ray`` extra (``ray[data]``).
"""
from __future__ import annotations

from typing import Any

from .batches import BatchScorer

__all__ = ["ScoreBatches", "score_dataset"]

DEFAULT_BATCH_SIZE = 4096  # rows per batch: large enough to amortise a call, small enough to spread


class ScoreBatches:
    """A callable class for ``Dataset.map_batches`` (batch format ``pyarrow`` or ``pandas``):
    constructed once per actor with :class:`~qascore.integrations.batches.BatchScorer`'s arguments,
    it loads the metric (a model) there, once, and scores every batch it is given.

    Example (not run as a doctest: it needs the ``ray`` extra and starts a Ray cluster)::

        >>> import ray  # doctest: +SKIP
        >>> ds = ray.data.from_items([{"prediction": "the cat sat", "reference": "a cat sat"}])  # doctest: +SKIP
        >>> ds.map_batches(ScoreBatches, fn_constructor_args=("rouge",), batch_format="pyarrow",
        ...                compute=ray.data.ActorPoolStrategy(size=1)).take(1)[0]["rouge1_fmeasure"]  # doctest: +SKIP
        0.6666666666666666

    :param metric: ``rouge``, ``bleu``, ``chrf``, ``ter`` or ``ava``.
    :param arguments: :class:`~qascore.integrations.batches.BatchScorer`'s keywords.
    """

    def __init__(self, metric: str, **arguments: Any) -> None:
        self.scorer = BatchScorer(metric, **arguments)
        self.scorer.metric_object()

    def __call__(self, batch):
        return self.scorer(batch)


def score_dataset(ds, metric: str, *, prediction_column: str = "prediction", reference_column: str = "reference",
                  question_column: str = "question", batch_format: str = "pyarrow",
                  map_batches_kwargs: dict[str, Any] | None = None, **options: Any):
    """``ds`` with the score columns of ``metric`` appended (a lazy Ray Dataset).

    ``options``: the metric's keywords (as for :class:`qascore.lexical.Rouge`, ``BLEU``, ``CHRF``,
    ``TER`` or :class:`qascore.ava.Ava`); ``n_jobs`` defaults to the CPUs each task or actor is
    given (``num_cpus``, default 1). ``batch_format``: ``"pyarrow"`` (default) or ``"pandas"``.
    ``map_batches_kwargs``: passed to ``Dataset.map_batches`` as they are (``batch_size`` defaults
    to 4096; for AVA ``compute`` defaults to ``ray.data.ActorPoolStrategy(min_size=1, max_size=cluster CPUs //
    num_cpus)``, an autoscaling actor pool). Ray 2.51 deprecated ``concurrency`` in favour of ``compute``:
    pass ``compute=ray.data.ActorPoolStrategy(size=n)`` for a fixed pool of n actors.

    Example (not run as a doctest: it needs the ``ray`` extra and starts a Ray cluster)::

        >>> import ray  # doctest: +SKIP
        >>> ds = ray.data.from_items([{"prediction": "the cat sat", "reference": "a cat sat"}])  # doctest: +SKIP
        >>> score_dataset(ds, "rouge", rouge_types=["rouge1"]).take(1)[0]["rouge1_fmeasure"]  # doctest: +SKIP
        0.6666666666666666

    :param ds: a Ray Dataset with the text columns.
    :param metric: ``rouge``, ``bleu``, ``chrf``, ``ter`` or ``ava``.
    :param prediction_column: the column of predictions.
    :param reference_column: the column of references (a string or a list of strings per row).
    :param question_column: the column of questions (AVA).
    :param batch_format: ``pyarrow`` or ``pandas``.
    :param map_batches_kwargs: Ray's own options for ``Dataset.map_batches``.
    :param options: the metric's keywords.
    :returns: the lazy Dataset with the score columns appended.
    :raises ValueError: for an unknown metric, batch format or option, or a ``map_batches_kwargs``
        entry that scoring sets itself.
    """
    import ray

    if batch_format not in ("pyarrow", "pandas"):
        raise ValueError(f"batch_format must be 'pyarrow' or 'pandas', got {batch_format!r}")
    ray_options = dict(map_batches_kwargs or {})
    for name in ("fn_constructor_kwargs", "fn_constructor_args", "batch_format"):
        if name in ray_options:
            raise ValueError(f"map_batches_kwargs may not set {name!r}: score_dataset sets it")
    cpus = ray_options.setdefault("num_cpus", 1)
    ray_options.setdefault("batch_size", DEFAULT_BATCH_SIZE)
    options.setdefault("n_jobs", max(1, int(cpus)))
    arguments = {"prediction_column": prediction_column, "reference_column": reference_column,
                 "question_column": question_column, **options}
    scorer = BatchScorer(metric, **arguments)  # validates the settings here, before Ray runs anything
    if metric == "ava":
        if "concurrency" not in ray_options and "compute" not in ray_options:
            # an autoscaling pool from one actor: a pool pinned at every CPU would leave none to the
            # tasks that feed it (reads, repartitions) and stall them
            total = int(ray.cluster_resources().get("CPU", 1)) if ray.is_initialized() else 1
            # compute, not concurrency: Ray deprecated concurrency (2.51) and warns on every call
            from ray.data import ActorPoolStrategy

            ray_options["compute"] = ActorPoolStrategy(min_size=1, max_size=max(1, int(total // max(cpus, 1))))
        return ds.map_batches(ScoreBatches, fn_constructor_args=(metric,), fn_constructor_kwargs=arguments,
                              batch_format=batch_format, **ray_options)
    return ds.map_batches(scorer, batch_format=batch_format, **ray_options)
