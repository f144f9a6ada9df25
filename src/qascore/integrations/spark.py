"""Score a Spark DataFrame: :func:`score_dataframe` on ``DataFrame.mapInArrow``.

``score_dataframe(df, "rouge", rouge_types=["rougeL"])`` returns a DataFrame with every input
column and the score columns of :mod:`qascore.integrations.batches`. Rows travel to Python as
Arrow record batches (no per-row UDF); each Python worker process builds the metric (loads the AVA
model) once and keeps it for every partition it scores. Metric options are the in-process
keywords; ``n_jobs`` defaults to 1, one thread per Spark task slot. Needs the ``spark`` extra
(``pyspark``) and Java 17.
"""
from __future__ import annotations

import warnings
from typing import Any

from .batches import BatchScorer

# pyspark 4 warns on every mapInArrow that it "does not yet fully support pandas >= 3.0.0" (it
# builds the call with its pandas UDF machinery); scoring moves Arrow batches only and never makes
# a pandas object, so the warning does not apply here and is not passed on to the user.
_PANDAS_3_WARNING = "PySpark does not yet fully support pandas"

__all__ = ["score_dataframe"]


def score_dataframe(df, metric: str, *, prediction_column: str = "prediction", reference_column: str = "reference",
                    question_column: str = "question", **options: Any):
    """``df`` with the score columns of ``metric`` appended (lazy, like any DataFrame transformation).

    Score columns are ``double`` (``ava_label``: ``boolean``). A column name that scoring would
    add and ``df`` already has, or an input column that ``df`` lacks, is an error here, before
    Spark runs anything. Rows per Arrow batch follow ``spark.sql.execution.arrow.maxRecordsPerBatch``.

    Example (not run as a doctest: it needs the ``spark`` extra and Java, and starts a Spark session)::

        >>> from pyspark.sql import SparkSession  # doctest: +SKIP
        >>> spark = SparkSession.builder.master("local[1]").getOrCreate()  # doctest: +SKIP
        >>> df = spark.createDataFrame([("the cat sat", "a cat sat")], ["prediction", "reference"])  # doctest: +SKIP
        >>> score_dataframe(df, "rouge", rouge_types=["rouge1"]).first()["rouge1_fmeasure"]  # doctest: +SKIP
        0.6666666666666666

    :param df: a Spark DataFrame with the text columns.
    :param metric: ``rouge``, ``bleu``, ``chrf``, ``ter`` or ``ava``.
    :param prediction_column: the column of predictions.
    :param reference_column: the column of references (a string or an array of strings per row).
    :param question_column: the column of questions (AVA).
    :param options: the metric's keywords.
    :returns: the lazy DataFrame with the score columns appended.
    :raises ValueError: for an unknown metric or option, a missing input column, or a score column
        that ``df`` already has.
    """
    from pyspark.sql.types import BooleanType, DoubleType, StructField, StructType

    options.setdefault("n_jobs", 1)
    scorer = BatchScorer(metric, prediction_column=prediction_column, reference_column=reference_column,
                         question_column=question_column, **options)
    scorer.check_columns(df.columns)
    kinds = {"float64": DoubleType(), "bool": BooleanType()}
    schema = StructType(list(df.schema.fields) + [StructField(name, kinds[kind], nullable=False)
                                                   for name, kind in scorer.output_columns.items()])

    def score_partition(batches):
        for batch in batches:
            yield scorer(batch)

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_PANDAS_3_WARNING, category=FutureWarning)
        return df.mapInArrow(score_partition, schema)
