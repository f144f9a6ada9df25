"""Ray Data for real (a local cluster of 2 CPUs): score_dataset on a few thousand real rows equals the
in-process metric, bit for bit for the lexical metrics, within 1e-5 with equal labels for AVA."""
import signal

import pytest

from integration_data import LEXICAL_CASES, assert_same_scores, pair_rows, triple_rows

ray = pytest.importorskip("ray", reason="Ray comes with the ray extra: pip install '.[ray]'")
pa = pytest.importorskip("pyarrow")
pytest.importorskip("ray.data")

from qascore.integrations.ray import ScoreBatches, score_dataset  # noqa: E402


@pytest.fixture(scope="module")
def local_ray():
    # ray.init installs a SIGTERM handler in this process that outlives ray.shutdown; a process
    # forked later (the multiprocessing tests' pool workers) would inherit it and survive the
    # SIGTERM its pool ends it with, hanging the run: the previous handler goes back after
    previous = signal.getsignal(signal.SIGTERM)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    yield ray
    ray.shutdown()
    signal.signal(signal.SIGTERM, previous)


def dataset(rows, blocks: int):
    """A Dataset of ``blocks`` blocks (so several tasks or actors share the work)."""
    table = pa.table(rows)
    step = -(-table.num_rows // blocks)
    return ray.data.from_arrow([table.slice(i, step) for i in range(0, table.num_rows, step)])


def collect(ds) -> pa.Table:
    return pa.concat_tables(ray.get(ds.to_arrow_refs())).sort_by("id")


def arrow_column(table):
    return lambda name: table.column(name).to_numpy(zero_copy_only=False)


@pytest.mark.parametrize("metric,options", LEXICAL_CASES, ids=[m for m, _ in LEXICAL_CASES])
def test_lexical_metrics_equal_in_process(local_ray, shared_data, metric, options):
    rows = pair_rows(shared_data)
    ds = dataset(rows, 4)
    out = collect(score_dataset(ds, metric, map_batches_kwargs={"batch_size": 500}, **options))
    assert out.num_rows == len(rows["id"])
    assert out.schema.names[:3] == ["id", "prediction", "reference"]
    assert out.column("prediction").to_pylist() == rows["prediction"]
    assert_same_scores(arrow_column(out), rows, metric, options)


def test_pandas_batches_and_renamed_columns(local_ray, shared_data):
    rows = pair_rows(shared_data, 1000)
    ds = ray.data.from_arrow(pa.table({"id": rows["id"], "answer": rows["prediction"], "gold": rows["reference"]}))
    out = collect(score_dataset(ds, "rouge", rouge_types=["rougeL"], prediction_column="answer",
                                reference_column="gold", batch_format="pandas"))
    assert_same_scores(arrow_column(out), rows, "rouge", {"rouge_types": ["rougeL"]})


def test_ava_linear_in_an_actor_pool(local_ray, shared_data):
    rows = triple_rows(shared_data)
    ds = dataset(rows, 4)
    out = collect(score_dataset(ds, "ava", model="linear", map_batches_kwargs={"batch_size": 256}))
    assert out.column("ava_label").type == pa.bool_() and out.column("ava_proba").type == pa.float64()
    assert_same_scores(arrow_column(out), rows, "ava", {"model": "linear"}, close=True)


def test_ava_onnx_model_in_actors(local_ray, shared_data):
    pytest.importorskip("onnxruntime", reason="the onnx extra runs the default AVA model")
    rows = triple_rows(shared_data, 300)
    ds = dataset(rows, 2)
    out = collect(score_dataset(ds, "ava", map_batches_kwargs={"batch_size": 64}))
    assert_same_scores(arrow_column(out), rows, "ava", {}, close=True)


def test_ray_options_stay_apart_from_metric_options(local_ray):
    ds = ray.data.from_items([{"prediction": "a b", "reference": "a b c"}])
    with pytest.raises(ValueError, match="may not set 'batch_format'"):
        score_dataset(ds, "rouge", map_batches_kwargs={"batch_format": "numpy"})
    with pytest.raises(TypeError):
        score_dataset(ds, "rouge", batch_size=10)  # a Ray option among the metric's keywords
    with pytest.raises(ValueError, match="batch_format"):
        score_dataset(ds, "rouge", batch_format="numpy")


def test_score_batches_is_a_callable_class(shared_data):
    rows = pair_rows(shared_data, 50)
    scored = ScoreBatches("rouge", rouge_types=["rouge2"])(pa.table(rows))
    assert scored.schema.names[-3:] == ["rouge2_precision", "rouge2_recall", "rouge2_fmeasure"]


class RecordingDataset:
    """Stands in for a Dataset: records what score_dataset passes to map_batches."""

    def map_batches(self, fn, **kwargs):
        self.fn, self.kwargs = fn, kwargs
        return self


def test_ava_actor_pool_uses_compute_not_the_deprecated_concurrency():
    # Ray 2.51 deprecated map_batches(concurrency=...) and warns on every call; the default AVA
    # pool is an autoscaling ActorPoolStrategy from one actor
    ds = score_dataset(RecordingDataset(), "ava", model="linear")
    assert ds.fn is ScoreBatches and "concurrency" not in ds.kwargs
    pool = ds.kwargs["compute"]
    assert isinstance(pool, ray.data.ActorPoolStrategy) and pool.min_size == 1 and pool.max_size >= 1
    fixed = ray.data.ActorPoolStrategy(size=2)
    ds = score_dataset(RecordingDataset(), "ava", model="linear", map_batches_kwargs={"compute": fixed})
    assert ds.kwargs["compute"] is fixed and "concurrency" not in ds.kwargs
    ds = score_dataset(RecordingDataset(), "rouge")  # lexical metrics: Ray tasks, no pool set
    assert "compute" not in ds.kwargs and "concurrency" not in ds.kwargs
