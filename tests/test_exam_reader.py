"""The EXAM Q/A reader (``--solver qa``): the shipped A0(q,t) sentence-selection network run by the
AVA runtime; free-text and multiple-choice answers, pairs read once, batch invariance, CLI."""
import json

import numpy as np
import pytest

pytest.importorskip("onnxruntime", reason="the qa solver needs qascore[onnx] (onnxruntime)")
pytest.importorskip("tokenizers", reason="the qa solver needs qascore[onnx] (tokenizers)")

from qascore.cli import main  # noqa: E402
from qascore.cli.demo import demo_data_dir  # noqa: E402
from qascore.exam.records import ExamQuestion  # noqa: E402
from qascore.exam.solvers.reader import ReaderSolver, default_reader_dir  # noqa: E402
from qascore.judges.onnx import default_model_dir  # noqa: E402

ARTICLE = [
    "The weather in Paris is mild in spring. Many tourists visit the Louvre.",
    "Hamlet is a tragedy. Hamlet was written by William Shakespeare around 1600.",
    "Bananas are rich in potassium.",
]


@pytest.fixture(scope="module")
def reader():  # the reader answers free-text questions itself
    return ReaderSolver(device="cpu", n_threads=1, free_text="paragraph")


def test_free_text_answer_is_the_paragraph_of_the_answering_sentence(reader):
    question = ExamQuestion("q", "1", "who wrote the play hamlet", gold_answers=("Shakespeare",))
    [[answer]] = reader.solve([ARTICLE], [[question]])
    assert answer.text == ARTICLE[1] and answer.label is None and answer.confidence >= reader.threshold
    sentence = ReaderSolver(device="cpu", n_threads=1, free_text="sentence")
    [[answer]] = sentence.solve([ARTICLE], [[question]])
    assert answer.text == "Hamlet was written by William Shakespeare around 1600."


def test_below_the_threshold_the_reader_abstains(reader):
    strict = ReaderSolver(device="cpu", n_threads=1, threshold=0.999999, free_text="paragraph")
    question = ExamQuestion("q", "1", "what is the boiling point of mercury", gold_answers=("356.7 C",))
    [[answer]] = strict.solve([ARTICLE], [[question]])
    assert not answer.answered and 0.0 <= answer.confidence < 0.999999
    [[empty]] = reader.solve([[]], [[question]])  # an empty article answers nothing
    assert not empty.answered


def test_any_paragraph_leaves_free_text_to_the_judge(monkeypatch):
    """Under the default free_text="any-paragraph" the reader reads no free-text pair: every
    paragraph is offered to the judge, the lexical solver's best match first."""
    solver = ReaderSolver(device="cpu", n_threads=1)
    monkeypatch.setattr(solver, "answer_probability", lambda q, s: pytest.fail("read a free-text pair"))
    question = ExamQuestion("q", "1", "who wrote the play hamlet", gold_answers=("Shakespeare",))
    [[answer]] = solver.solve([ARTICLE], [[question]])
    assert (answer.text, answer.alternatives) == (ARTICLE[1], (ARTICLE[0], ARTICLE[2]))
    assert solver.settings()["free_text"] == "any-paragraph"


def test_multiple_choice_picks_the_choice_whose_evidence_answers(reader):
    question = ExamQuestion("q", "2", "who wrote the play hamlet",
                            choices={"a": "William Shakespeare", "b": "bananas", "c": "the Louvre"}, key="a")
    [[answer]] = reader.solve([ARTICLE], [[question]])
    assert answer.label == "a"


def test_pairs_are_read_once_across_systems(reader, monkeypatch):
    question = ExamQuestion("q", "1", "who wrote the play hamlet", gold_answers=("Shakespeare",))
    seen = []
    real = reader.answer_probability

    def counting(questions, sentences):
        seen.append(len(questions))
        return real(questions, sentences)

    monkeypatch.setattr(reader, "answer_probability", counting)
    answers = reader.solve([ARTICLE, ARTICLE, ARTICLE[:2]], [[question]] * 3)
    assert seen == [5]  # five distinct sentences, one question
    assert answers[0] == answers[1] and answers[0][0].text == answers[2][0].text


def test_a_pair_reads_the_same_alone_and_in_any_batch(reader):
    questions = ["who wrote hamlet"] * 5 + ["where is the louvre", "what is in bananas"]
    sentences = [s for p in ARTICLE for s in p.split(". ")] + ["A much longer sentence " * 8]
    sentences = sentences[:len(questions)]
    questions = questions[:len(sentences)]
    together = reader.answer_probability(questions, sentences)
    alone = np.array([reader.answer_probability([q], [s])[0] for q, s in zip(questions, sentences)])
    np.testing.assert_allclose(together, alone, atol=1e-5, rtol=0)


def test_a_model_of_another_architecture_is_refused():
    with pytest.raises(ValueError, match=r"A0\(q,t\)"):
        ReaderSolver(default_model_dir(), device="cpu")


def test_shipped_reader_describes_itself():
    meta = json.loads((default_reader_dir() / "model.json").read_text())
    assert meta["arch"] == "A0(q,t)" and "TREC-QA" in meta["training_data"] and "activation_ranges" in meta


def test_cli_solver_qa(tmp_path, capsys):
    demo = demo_data_dir() / "exam"
    systems = [str(demo / "systems" / f"{n}.jsonl") for n in ("good-system", "partial-system", "off-topic-system")]
    argv = ["exam", "-q", str(demo / "questions.jsonl"), "--solver", "qa", "--device", "cpu", "--json"]
    for s in systems:
        argv += ["--articles", s]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["signature"].startswith("qascore:exam|solver:qa")
    exam = {s["system"]: s["exam"] for s in doc["systems"]}
    assert exam["good-system"] > exam["off-topic-system"]
