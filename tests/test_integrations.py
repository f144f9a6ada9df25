"""The column contract of the Ray and Spark adapters (qascore.integrations.batches), without either
framework: every batch kind gives the in-process metric's scores bit for bit, keeps its columns,
and a bad column is an error naming the column and the row."""
import pickle

import numpy as np
import pytest

from qascore.integrations.batches import BatchScorer

pa = pytest.importorskip("pyarrow", reason="pyarrow comes with the ray and spark extras")
pd = pytest.importorskip("pandas", reason="pandas comes with the ray and spark extras")

PREDICTIONS = ["the cat sat on the mat", "a dog ran", "", "running runners ran", "Paris is the capital"]
REFERENCES = [["the cat is on the mat"], ["a dog ran home", "dogs run"], ["nothing"], ["the runner runs"],
              ["Paris"]]
QUESTIONS = ["where is the cat?", "what ran?", "what?", "who runs?", "capital of France?"]


def in_process(metric, options, predictions=PREDICTIONS, references=REFERENCES, questions=QUESTIONS):
    scorer = BatchScorer(metric, **options)
    obj = scorer.metric_object()
    args = (questions, references, predictions) if metric == "ava" else (predictions, references)
    return obj.score(*args).columns


CASES = [
    ("rouge", {"rouge_types": ["rouge1", "rouge2", "rougeL", "rougeLsum"], "use_stemmer": True}),
    ("rouge", {"rouge_types": ["rougeL"]}),
    ("bleu", {}),
    ("bleu", {"tokenize": "intl", "smooth_method": "floor"}),
    ("chrf", {"word_order": 2}),
    ("ter", {}),
    ("ava", {"model": "linear"}),
]


def expected_columns(metric, options):
    columns = in_process(metric, options)
    if metric == "ava":
        return {"ava_proba": columns["probability"], "ava_label": columns["label"].astype(bool)}
    return dict(columns)


@pytest.mark.parametrize("metric,options", CASES, ids=lambda x: x if isinstance(x, str) else None)
@pytest.mark.parametrize("kind", ["table", "record_batch", "pandas", "dict"])
def test_every_batch_kind_scores_as_in_process(metric, options, kind):
    data = {"id": np.arange(len(PREDICTIONS)), "question": QUESTIONS, "prediction": PREDICTIONS,
            "reference": REFERENCES}
    batch = {"table": lambda: pa.table(data), "record_batch": lambda: pa.RecordBatch.from_pydict(data),
             "pandas": lambda: pd.DataFrame(data), "dict": lambda: dict(data)}[kind]()
    out = BatchScorer(metric, **options)(batch)
    assert type(out) is type(batch)
    names = list(out.schema.names) if kind in ("table", "record_batch") else list(out.columns if kind == "pandas"
                                                                                   else out)
    want = expected_columns(metric, options)
    assert names == list(data) + list(want)
    for name, values in want.items():
        got = out.column(name).to_numpy(zero_copy_only=False) if kind in ("table", "record_batch") \
            else np.asarray(out[name])
        assert got.dtype == values.dtype
        np.testing.assert_array_equal(got, values)  # bit for bit
    if kind in ("table", "record_batch"):
        assert out.column("ava_label" if metric == "ava" else names[-1]).type in (pa.float64(), pa.bool_())


@pytest.mark.parametrize("metric", ["rouge", "bleu", "ava"])
def test_a_string_reference_column_is_one_reference_per_row(metric):
    singles = [refs[0] for refs in REFERENCES]
    options = {"model": "linear"} if metric == "ava" else {}
    out = BatchScorer(metric, **options)(pa.table({"question": QUESTIONS, "prediction": PREDICTIONS,
                                                   "reference": singles}))
    want = expected_columns(metric, options) if metric != "rouge" else None
    listed = BatchScorer(metric, **options)(pa.table({"question": QUESTIONS, "prediction": PREDICTIONS,
                                                      "reference": [[r] for r in singles]}))
    for name in out.schema.names[3:]:
        np.testing.assert_array_equal(out.column(name).to_numpy(zero_copy_only=False),
                                      listed.column(name).to_numpy(zero_copy_only=False))
    assert want is None or list(want) == out.schema.names[3:]


@pytest.mark.parametrize("string_type,list_type", [(pa.large_string(), pa.large_list), (pa.string_view(), pa.list_)])
def test_large_and_view_arrow_types(string_type, list_type):
    table = pa.table({"prediction": pa.array(PREDICTIONS, string_type),
                      "reference": pa.array(REFERENCES, list_type(pa.large_string()))})
    out = BatchScorer("rouge", rouge_types=["rougeL"])(table)
    np.testing.assert_array_equal(out.column("rougeL_fmeasure").to_numpy(),
                                  in_process("rouge", {"rouge_types": ["rougeL"]})["rougeL_fmeasure"])


def test_renamed_columns():
    table = pa.table({"q": QUESTIONS, "answer": PREDICTIONS, "gold": REFERENCES})
    out = BatchScorer("ava", model="linear", prediction_column="answer", reference_column="gold",
                      question_column="q")(table)
    np.testing.assert_array_equal(out.column("ava_proba").to_numpy(),
                                  in_process("ava", {"model": "linear"})["probability"])


def test_empty_batch_keeps_the_schema():
    table = pa.table({"prediction": pa.array([], pa.string()), "reference": pa.array([], pa.string())})
    out = BatchScorer("rouge", rouge_types=["rouge1"])(table)
    assert out.num_rows == 0 and out.schema.names[2:] == ["rouge1_precision", "rouge1_recall", "rouge1_fmeasure"]


def test_missing_column_is_named():
    with pytest.raises(KeyError, match="no column 'prediction'.*prediction_column="):
        BatchScorer("rouge")(pa.table({"pred": ["a"], "reference": ["a"]}))


def test_score_column_already_present_is_an_error():
    with pytest.raises(ValueError, match="already has a column 'bleu'"):
        BatchScorer("bleu")(pa.table({"prediction": ["a"], "reference": ["a"], "bleu": [1.0]}))


def test_null_cell_names_column_and_row():
    table = pa.table({"prediction": ["a", "b", None], "reference": ["a", "b", "c"]})
    with pytest.raises(ValueError, match="column 'prediction': row 2 of the batch is null"):
        BatchScorer("rouge")(table)
    table = pa.table({"prediction": ["a", "b"], "reference": [["a"], ["b", None]]})
    with pytest.raises(ValueError, match="column 'reference': row 1 of the batch holds a null reference"):
        BatchScorer("rouge")(table)


def test_wrong_column_types_are_errors():
    with pytest.raises(TypeError, match="column 'prediction' must hold strings, not int64"):
        BatchScorer("rouge")(pa.table({"prediction": [1, 2], "reference": ["a", "b"]}))
    with pytest.raises(TypeError, match="column 'prediction' must hold strings, not list"):
        BatchScorer("rouge")(pa.table({"prediction": [["a"]], "reference": ["a"]}))
    with pytest.raises(TypeError, match="column 'reference': row 1 of the batch must be a str or a list of str"):
        BatchScorer("rouge")(pd.DataFrame({"prediction": ["a", "b"], "reference": ["a", 3]}))
    with pytest.raises(TypeError, match="a batch must be a pyarrow Table"):
        BatchScorer("rouge")([("a", "b")])


def test_bad_metric_and_options_fail_before_any_batch():
    with pytest.raises(ValueError, match="metric must be one of rouge, bleu, chrf, ter, ava"):
        BatchScorer("meteor")
    with pytest.raises(ValueError):
        BatchScorer("rouge", rouge_types=["rouge9x"])
    with pytest.raises(TypeError):
        BatchScorer("bleu", smoothing="exp")
    with pytest.raises(TypeError, match="must be a non-empty str"):
        BatchScorer("rouge", prediction_column="")


@pytest.mark.parametrize("metric,options", CASES, ids=lambda x: x if isinstance(x, str) else None)
def test_scorers_pickle_by_settings(metric, options):
    cloudpickle = pytest.importorskip("cloudpickle")
    scorer = BatchScorer(metric, prediction_column="p", **options)
    table = pa.table({"question": QUESTIONS, "p": PREDICTIONS, "reference": REFERENCES})
    want = scorer(table)
    for dumps in (pickle.dumps, cloudpickle.dumps):
        blob = dumps(scorer)
        assert len(blob) < 2000  # settings, never a built model
        assert pickle.loads(blob)(table).equals(want)


def test_a_process_builds_each_metric_once():
    """What lets a Spark Python worker or a Ray task load a model once for every batch it scores:
    scorers with the same settings, unpickled ones included, share one built metric."""
    first = BatchScorer("ava", model="linear", refs="max")
    again = pickle.loads(pickle.dumps(BatchScorer("ava", refs="max", model="linear", prediction_column="p")))
    assert first.metric_object() is again.metric_object()
    assert BatchScorer("ava", model="linear", refs="mean").metric_object() is not first.metric_object()


def test_sliced_and_chunked_reference_lists():
    """Ray blocks are slices and tables may hold several chunks: each row keeps its own references."""
    table = pa.table({"prediction": PREDICTIONS, "reference": REFERENCES})
    pieces = pa.concat_tables([table.slice(3), table.slice(0, 3)])  # two chunks, the first a slice
    assert pieces.column("reference").num_chunks == 2
    out = BatchScorer("rouge", rouge_types=["rouge1"])(pieces)
    want = in_process("rouge", {"rouge_types": ["rouge1"]}, PREDICTIONS[3:] + PREDICTIONS[:3],
                      REFERENCES[3:] + REFERENCES[:3])
    np.testing.assert_array_equal(out.column("rouge1_fmeasure").to_numpy(), want["rouge1_fmeasure"])
    nulls = pa.table({"prediction": ["a", "b", "c"], "reference": [["a"], ["b"], ["c", None]]})
    with pytest.raises(ValueError, match="row 2 of the batch holds a null reference"):
        BatchScorer("rouge")(pa.concat_tables([nulls.slice(0, 1), nulls.slice(1)]))
