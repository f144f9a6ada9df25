"""Spark for real (local[2] on Java 17): score_dataframe on a few thousand real rows equals the
in-process metric, bit for bit for the lexical metrics, within 1e-5 with equal labels for AVA."""
import shutil
import warnings

import pytest

from integration_data import LEXICAL_CASES, assert_same_scores, pair_rows, triple_rows

pytest.importorskip("pyspark", reason="pyspark comes with the spark extra: pip install '.[spark]'")
if shutil.which("java") is None:
    pytest.skip("Spark needs Java 17 (no java on PATH)", allow_module_level=True)

from qascore.integrations.spark import score_dataframe  # noqa: E402


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[2]").appName("qascore-tests")
               .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
               .config("spark.driver.memory", "1g").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def frame(spark, rows, reference_type="array<string>", partitions=4):
    columns = list(rows)
    kinds = {"id": "long", "reference": reference_type}
    schema = ", ".join(f"{c} {kinds.get(c, 'string')}" for c in columns)
    return spark.createDataFrame(list(zip(*rows.values())), schema).repartition(partitions, "id")


def collect(df):
    return df.toPandas().sort_values("id").reset_index(drop=True)


def frame_column(out):
    return lambda name: out[name].to_numpy()


@pytest.mark.parametrize("metric,options", LEXICAL_CASES, ids=[m for m, _ in LEXICAL_CASES])
def test_lexical_metrics_equal_in_process(spark, shared_data, metric, options):
    rows = pair_rows(shared_data)
    out = collect(score_dataframe(frame(spark, rows), metric, **options))
    assert list(out.columns[:3]) == ["id", "prediction", "reference"]
    assert out["prediction"].tolist() == rows["prediction"]
    assert_same_scores(frame_column(out), rows, metric, options)


def test_string_references_and_renamed_columns(spark, shared_data):
    rows = pair_rows(shared_data, 1000)
    rows["reference"] = [refs[0] for refs in rows["reference"]]
    df = frame(spark, rows, "string").withColumnRenamed("prediction", "answer")
    out = collect(score_dataframe(df, "rouge", rouge_types=["rougeL"], prediction_column="answer"))
    assert_same_scores(frame_column(out), rows, "rouge", {"rouge_types": ["rougeL"]})


def test_ava_linear_and_schema(spark, shared_data):
    rows = triple_rows(shared_data)
    scored = score_dataframe(frame(spark, rows), "ava", model="linear")
    assert scored.schema["ava_proba"].dataType.typeName() == "double"
    assert scored.schema["ava_label"].dataType.typeName() == "boolean"
    assert_same_scores(frame_column(collect(scored)), rows, "ava", {"model": "linear"}, close=True)


def test_ava_onnx_model(spark, shared_data):
    pytest.importorskip("onnxruntime", reason="the onnx extra runs the default AVA model")
    rows = triple_rows(shared_data, 300)
    assert_same_scores(frame_column(collect(score_dataframe(frame(spark, rows, partitions=2), "ava"))), rows, "ava", {},
                       close=True)


def test_column_errors_before_spark_runs(spark):
    df = spark.createDataFrame([("a", "b", 1.0)], "prediction string, reference string, bleu double")
    with pytest.raises(ValueError, match="already has a column 'bleu'"):
        score_dataframe(df, "bleu")
    with pytest.raises(KeyError, match="no column 'question'"):
        score_dataframe(df, "ava", model="linear")


def test_a_null_cell_fails_the_job_naming_column_and_row(spark):
    df = spark.createDataFrame([("a", "a"), (None, "b")], "prediction string, reference string").coalesce(1)
    with pytest.raises(Exception, match="column 'prediction': row 1 of the batch is null"):
        score_dataframe(df, "rouge").collect()



def test_scoring_warns_nothing(spark):
    """pyspark 4 warns on mapInArrow that it does not fully support pandas 3; scoring never makes
    a pandas object, so a user scoring a DataFrame sees no warning from it."""
    df = spark.createDataFrame([("the cat sat", "a cat sat"), ("", "x")], "prediction string, reference string")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rows = score_dataframe(df, "rouge", rouge_types=["rouge1"]).collect()
    assert [row["rouge1_fmeasure"] for row in rows] == [2 / 3, 0.0]
    assert [f"{w.category.__name__}: {w.message}" for w in caught] == []
