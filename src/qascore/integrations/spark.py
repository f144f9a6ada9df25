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


def score_dataframe(df, metric: str, *, prediction_column: str = "prediction", reference_column: str = "reference",
                    question_column: str = "question", **options: Any):
    """``df`` with the score columns of ``metric`` appended (lazy, like any DataFrame transformation).

    Score columns are ``double`` (``ava_label``: ``boolean``). A column name that scoring would
    add and ``df`` already has, or an input column that ``df`` lacks, is an error here, before
    Spark runs anything. Rows per Arrow batch follow ``spark.sql.execution.arrow.maxRecordsPerBatch``.
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
