"""Scorers across processes: forked children (after the parent ran its thread pools), spawn and
forkserver workers, and pickling (standard pickle and cloudpickle) before and after scoring.

Every scorer is first used in the parent; its results elsewhere must equal the parent's bit for
bit. Pools are always waited on with a timeout, so a child that hangs (or is killed) fails the
test instead of hanging the run.
"""
import dataclasses
import importlib.util
import multiprocessing as mp
import os
import pickle
import random
import signal
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Mapping
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

import qascore
from qascore import _parallel, stats
from qascore.ava import Ava
from qascore.compat import sacrebleu
from qascore.compat.rouge_score import RougeScorer
from qascore.exam import Articles, Exam, LexicalSolver
from qascore.exam.articles import read_original_jsonl
from qascore.exam.questions import read_simple_jsonl
from qascore.lexical import BLEU, DuReaderMrc, Rouge
from qascore.lexical.chrf import CHRF
from qascore.lexical.formats import read_dureader_predictions, read_dureader_references
from qascore.lexical.ter import TER
from qascore.nuggets import NuggetF, Nuggeteer, Pourpre, read_answer_key, read_judgements, read_runs

cloudpickle = pytest.importorskip("cloudpickle")

TIMEOUT = 300  # seconds a pool may take; a hang fails the test after this long
DEMO = resources.files("qascore") / "demo_data"
SRC = Path(qascore.__file__).resolve().parents[1]  # the qascore this test imported (installed in CI)
HAS_ONNX = all(importlib.util.find_spec(m) for m in ("onnx", "onnxruntime", "tokenizers"))


def _texts(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    words = "the a cat dog sat on mat quick brown fox jumps over lazy river bank money answer question".split()
    return [" ".join(rng.choice(words) for _ in range(rng.randint(4, 30))) + ". " +
            " ".join(rng.choice(words) for _ in range(8)) for _ in range(n)]


# 1200 pairs: enough for two threads in every batch kernel (n_jobs=2 below)
PRED, REF = _texts(1200, 0), _texts(1200, 1)
REFS = [[r] for r in REF]
QUESTIONS = [t.split(".")[0] + "?" for t in _texts(64, 2)]


def _nugget_data():
    key = read_answer_key(DEMO / "nuggets" / "answer_key.txt")
    judged = read_judgements(DEMO / "nuggets" / "judgements.txt")
    runs = list(read_runs(DEMO / "nuggets" / "run.txt").values())
    tag = next(iter(judged.runs))
    matched = {qid: [n for item in items for n in judged.nuggets_of(tag, qid, item.item)]
               for qid, items in judged.runs[tag].responses.items()}
    return key, judged, runs, matched, judged.runs[tag].responses


def _exam_data():
    d = DEMO / "exam"
    systems = Articles()
    for name in ("good-system", "partial-system", "off-topic-system"):
        systems.merge(read_original_jsonl(d / "systems" / f"{name}.jsonl"))
    return read_simple_jsonl(d / "questions.jsonl"), systems, read_original_jsonl(d / "gold.jsonl", system="gold")


NUGGETS = _nugget_data()
EXAM = _exam_data()
MRC = (read_dureader_predictions(DEMO / "mrc" / "pred.jsonl"), read_dureader_references(DEMO / "mrc" / "ref.jsonl"))


def _stats_calls(_):
    x = np.random.default_rng(0).random(3000)
    y = x + np.random.default_rng(1).random(3000)
    rows = np.random.default_rng(2).random((40, 300))
    return (stats.kendalltau(x, y), stats.spearmanr(x, y), stats.pearsonr(x, y),
            stats.kendalltau_rows(rows, rows[::-1], n_jobs=2),
            stats.bootstrap(x[:400], "mean", n_resamples=2000, seed=3, n_jobs=2),
            stats.bootstrap((x[:200], y[:200]), "kendall_tau_b", n_resamples=300, seed=4, n_jobs=2),
            stats.paired_bootstrap_means(x[:300], y[:300], n_resamples=500, seed=5))


def _tiny_pair_model() -> Path:
    """A sequence-pair ONNX graph: logits [0, 1e-4 * sum of the real input ids]."""
    from onnx import TensorProto, helper, save

    path = Path(tempfile.mkdtemp(prefix="qascore-pair-")) / "pair.onnx"
    nodes = [helper.make_node("Mul", ["input_ids", "attention_mask"], ["real"]),
             helper.make_node("Cast", ["real"], ["realf"], to=TensorProto.FLOAT),
             helper.make_node("ReduceSum", ["realf", "axis"], ["total"], keepdims=1),
             helper.make_node("Mul", ["total", "scale"], ["entail"]),
             helper.make_node("Mul", ["entail", "zero"], ["other"]),
             helper.make_node("Concat", ["other", "entail"], ["logits"], axis=1)]
    graph = helper.make_graph(
        nodes, "tiny_pair",
        [helper.make_tensor_value_info(name, TensorProto.INT64, ["b", "l"]) for name in ("input_ids", "attention_mask")],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["b", 2])],
        initializer=[helper.make_tensor("axis", TensorProto.INT64, [1], [1]),
                     helper.make_tensor("scale", TensorProto.FLOAT, [], [1e-4]),
                     helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    save(model, str(path))
    return path


def _pair_solver():
    from qascore.exam.solvers.pair import PairModelSolver
    from qascore.models import bundled_path

    return PairModelSolver(_tiny_pair_model(), bundled_path("minilm", "tokenizer.json"), device="cpu", n_threads=2)


def _embedding_solver():
    from qascore.exam.solvers.embedding import EmbeddingSolver
    from qascore.runtime import SentenceEncoder

    return EmbeddingSolver(SentenceEncoder(device="cpu", n_threads=2))


# name -> (make the scorer, score with it); make() returns None for plain functions
CASES = {
    "Rouge": (lambda: Rouge(["rouge1", "rouge2", "rougeL", "rougeLsum"], n_jobs=2), lambda m: m.score(PRED, REF)),
    "Rouge-stem": (lambda: Rouge(["rouge1", "rougeL"], use_stemmer=True, n_jobs=2), lambda m: m.score(PRED, REF)),
    "BLEU": (lambda: BLEU(n_jobs=2), lambda m: (m.score(PRED, REFS), m.corpus_score(PRED, REFS))),
    "CHRF": (lambda: CHRF(word_order=2, n_jobs=2), lambda m: m.score(PRED, REFS)),
    "TER": (lambda: TER(n_jobs=2), lambda m: m.score(PRED[:600], REFS[:600])),
    "DuReaderMrc": (lambda: DuReaderMrc(n_jobs=2), lambda m: m.score(*MRC)),
    "compat.RougeScorer": (lambda: RougeScorer(["rouge1", "rougeL", "rougeLsum"], use_stemmer=True),
                           lambda m: (m.score(REF[0], PRED[0]), m.score_batch(REF, PRED, n_jobs=2))),
    "compat.RougeScorer-lsum": (lambda: RougeScorer(["rougeLsum"]),
                                lambda m: [m.score(r.replace(". ", "\n"), p.replace(". ", "\n"))
                                           for r, p in zip(REF[:50], PRED[:50])]),
    "compat.BLEU": (lambda: sacrebleu.BLEU(), lambda m: m.corpus_score(PRED, [REF])),
    "compat.CHRF": (lambda: sacrebleu.CHRF(word_order=2), lambda m: m.corpus_score(PRED, [REF])),
    "compat.TER": (lambda: sacrebleu.TER(), lambda m: m.corpus_score(PRED[:600], [REF[:600]])),
    "NuggetF": (lambda: NuggetF(NUGGETS[0], beta=3), lambda m: m.score(NUGGETS[3], NUGGETS[4])),
    "Nuggeteer": (lambda: Nuggeteer(NUGGETS[0], judgements=NUGGETS[1], threshold=0.2),
                  lambda m: m.score(NUGGETS[2], beta=3, n_jobs=2)),
    "Pourpre": (lambda: Pourpre(NUGGETS[0]), lambda m: m.score(NUGGETS[2], beta=3, n_jobs=2)),
    "Exam-lexical": (lambda: Exam(LexicalSolver(n_jobs=2)), lambda m: m.score(*EXAM)),
    "stats": (lambda: None, _stats_calls),
    "Ava-linear": (lambda: Ava("linear", n_jobs=2), lambda m: m.score(QUESTIONS, REF[:64], PRED[:64])),
}
ONNX_CASES = {
    "Ava-onnx": (lambda: Ava("default", device="cpu", n_jobs=2), lambda m: m.score(QUESTIONS, REF[:64], PRED[:64])),
    "Exam-pair-model": (lambda: Exam(_pair_solver()), lambda m: m.score(*EXAM)),
    "Exam-embedding": (lambda: Exam(_embedding_solver()), lambda m: m.score(*EXAM)),
}
if HAS_ONNX:
    CASES.update(ONNX_CASES)
onnx_marks = [pytest.mark.skipif(not HAS_ONNX, reason="needs onnx, onnxruntime and tokenizers (the test extra)")]
ALL = [pytest.param(name, marks=onnx_marks if name in ONNX_CASES else ()) for name in {**CASES, **ONNX_CASES}]


def canonical(x):
    """A comparable form of a result in which equal means bit-identical (floats as hex, arrays as bytes)."""
    if isinstance(x, np.ndarray):
        return ("ndarray", x.dtype.str, x.shape, x.tobytes())
    if isinstance(x, (float, np.floating)):
        return ("float", float(x).hex())
    if isinstance(x, (np.integer, np.bool_)):
        return x.item()
    if x is None or isinstance(x, (str, bytes, int, bool)):
        return x
    if isinstance(x, Mapping):
        return ("mapping", tuple((canonical(k), canonical(v)) for k, v in x.items()))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, tuple(canonical(v) for v in x))
    if dataclasses.is_dataclass(x):
        return (type(x).__name__, tuple((f.name, canonical(getattr(x, f.name))) for f in dataclasses.fields(x)))
    if hasattr(x, "__dict__"):
        return (type(x).__name__, canonical(vars(x)))
    raise TypeError(f"no canonical form for {type(x).__name__}")


def _score(name, scorer):
    return canonical(CASES[name][1](scorer))


# ---------------------------------------------------------------- fork after the parent scored

_INHERITED: dict = {}  # the parent's scorers, read by forked children


def _score_inherited(name):
    return _score(name, _INHERITED[name])


def _in_pool(method, func, args):
    """func(arg) for each arg in a fresh pool of two ``method`` workers; fails after TIMEOUT."""
    # workers end on SIGTERM whatever handler the test process holds (the pool's terminate sends it)
    with mp.get_context(method).Pool(2, initializer=signal.signal, initargs=(signal.SIGTERM, signal.SIG_DFL)) as pool:
        pending = pool.map_async(func, args)
        try:
            return pending.get(timeout=TIMEOUT)
        except mp.TimeoutError:
            pool.terminate()
            pytest.fail(f"{method} workers gave no result in {TIMEOUT} s (hung or killed)")


@pytest.fixture(scope="module")
def parent_ran_threads():
    """Start the parent's OpenMP pool (ROUGE on two threads) and Numba's pool before any fork."""
    Rouge(["rougeL"], n_jobs=2).score(PRED, REF)
    stats.bootstrap(np.arange(600.0), "mean", n_resamples=200, n_jobs=2)
    assert _parallel._started_threads and _parallel._numba_pool_launched()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
@pytest.mark.parametrize("name", ALL)
def test_forked_child_scores_as_the_parent_did(name, parent_ran_threads):
    make, call = CASES[name]
    scorer = make()
    expected = _score(name, scorer)
    _INHERITED[name] = scorer
    try:
        got = _in_pool("fork", _score_inherited, [name, name])
    finally:
        del _INHERITED[name]
    assert got == [expected, expected]
    assert _score(name, scorer) == expected  # and the parent still scores after forking


# ---------------------------------------------------------------- spawn and forkserver: pickled scorers

def _score_pickled(job):
    name, blob = job
    return _score(name, pickle.loads(blob))


@pytest.mark.parametrize("method", [m for m in ("spawn", "forkserver") if m in mp.get_all_start_methods()])
def test_spawn_and_forkserver_workers_score_pickled_scorers_as_the_parent_did(method):
    scorers = {name: make() for name, (make, _) in CASES.items()}
    expected = [_score(name, s) for name, s in scorers.items()]
    jobs = [(name, pickle.dumps(s)) for name, s in scorers.items()]  # pickled after scoring
    assert _in_pool(method, _score_pickled, jobs) == expected


# ---------------------------------------------------------------- pickling in one process

@pytest.mark.parametrize("module", [pickle, cloudpickle], ids=["pickle", "cloudpickle"])
@pytest.mark.parametrize("name", ALL)
def test_pickles_before_and_after_scoring(name, module):
    make, call = CASES[name]
    scorer = make()
    before = module.loads(module.dumps(scorer))
    expected = _score(name, scorer)
    after = module.loads(module.dumps(scorer))
    assert _score(name, before) == expected
    assert _score(name, after) == expected
    assert _score(name, module.loads(module.dumps(after))) == expected  # a copy that has scored, copied again


# ---------------------------------------------------------------- the rule itself, in fresh interpreters

def _run_fresh(code: str) -> str:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env,
                          timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_children_keep_their_threads_unless_the_parent_started_pools():
    out = _run_fresh("""
        import os
        from qascore import _parallel
        from qascore.lexical import Rouge

        def child_threads():
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.write(w, str(_parallel.pool_threads(4)).encode())
                os._exit(0)
            os.waitpid(pid, 0)
            return os.read(r, 16).decode()

        Rouge(["rougeL"], n_jobs=1).score(["a b"] * 600, ["a c"] * 600)  # serial: no pool started
        before = child_threads()
        Rouge(["rougeL"], n_jobs=2).score(["a b"] * 600, ["a c"] * 600)
        print(before, child_threads())
    """)
    assert out == "4 1"


@pytest.mark.skipif(not HAS_ONNX, reason="needs onnx, onnxruntime and tokenizers (the test extra)")
def test_a_cuda_session_used_after_fork_names_the_start_methods_that_work():
    from qascore.models import bundled_path
    from qascore.runtime import ForkedSessionError, OnnxSession

    session = OnnxSession(bundled_path("ava", "model.onnx"), device="cpu")
    session.device, session._pid = "cuda", -1  # as a child sees a session its parent opened on CUDA
    with pytest.raises(ForkedSessionError, match="'spawn'.*'forkserver'"):
        session.run({})


@pytest.mark.skipif(not hasattr(os, "fork") or not HAS_ONNX, reason="needs fork and the onnx extra")
def test_a_forked_child_may_drop_the_parents_onnx_model():
    out = _run_fresh("""
        import gc, os, time
        from qascore.ava import load_default_model

        q, r, c = ["who wrote hamlet?"] * 16, ["shakespeare wrote hamlet"] * 16, ["william shakespeare"] * 16
        model = load_default_model(device="cpu", n_threads=2)
        p = model.predict_proba(q, r, c)
        time.sleep(0.5)  # the session's pool threads now wait on their condition variables
        pid = os.fork()
        if pid == 0:
            same = (model.predict_proba(q, r, c) == p).all()
            del model
            gc.collect()  # would free the parent's session, whose destructor waits for those threads
            os._exit(0 if same else 3)
        for _ in range(1200):
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                print(os.waitstatus_to_exitcode(status))
                break
            time.sleep(0.05)
        else:
            os.kill(pid, 9)
            print("hung")
    """)
    assert out == "0"
