"""``qascore exam`` grades one ``--articles`` input at a time (lexical solver, several inputs): the
output is byte for byte the one-batch run's, every input error comes before any output, and the
lexical solver's pooled idf gathered batch by batch equals the one pooled over every paragraph."""
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import qascore.cli.exam as exam_cli
import qascore.exam.scoring as scoring
from qascore.cli import main
from qascore.cli.demo import demo_data_dir
from qascore.exam.terms import LexicalAnalyzer
from qascore.exam.records import QuestionBank
from qascore.exam.questions import write_simple_jsonl
from qascore.exam.solvers.base import SentenceCorpus
from qascore.exam.solvers.lexical import LexicalSolver, PooledDocumentFrequency
from qascore.text import Vocabulary, porter_stem

DEMO = demo_data_dir() / "exam"
DEMO_SYSTEMS = [str(DEMO / "systems" / f"{n}.jsonl") for n in ("good-system", "partial-system", "off-topic-system")]
RESEARCH = Path(__file__).resolve().parents[1] / "research" / "exam"


@pytest.fixture(autouse=True)
def stream_any_size(monkeypatch):
    """Inputs of every size go one at a time here (by default only above 16 MiB)."""
    monkeypatch.setattr(exam_cli, "STREAM_ABOVE_BYTES", 0)


def write_articles(path: Path, per_query: dict) -> str:
    with path.open("w", encoding="utf-8") as fh:
        for query, paragraphs in per_query.items():
            record = {"squid": f"x:{query}", "title": query,
                      "paragraphs": [{"para_body": [{"text": text}]} for text in paragraphs]}
            fh.write(json.dumps(record) + "\n")
    return str(path)


def write_constructed(shared_data, folder: Path, n_queries: int | None = None):
    """The constructed leaderboards of EVOUNA-NQ (free-text questions, ten systems; the first
    ``n_queries`` queries), as files: the bank, one file per system, the gold articles."""
    sys.path.insert(0, str(RESEARCH))
    try:
        from constructed_leaderboards import build
    finally:
        sys.path.remove(str(RESEARCH))
    bank, articles, _ = build(shared_data / "ava" / "evouna" / "NQ.json", seed=0)
    queries = bank.query_ids[:n_queries]
    write_simple_jsonl(QuestionBank([q for query in queries for q in bank.questions(query)]), folder / "bank.jsonl")
    systems = [write_articles(folder / f"{s}.jsonl", {q: articles.articles(s)[q] for q in queries})
               for s in articles.systems]
    # gold: every question's first alias as its paragraph
    gold = {q: [bank.questions(q)[0].gold_answers[0]] for q in queries}
    return str(folder / "bank.jsonl"), systems, write_articles(folder / "gold.jsonl", gold)


@pytest.fixture(scope="module")
def constructed(shared_data, tmp_path_factory):
    return write_constructed(shared_data, tmp_path_factory.mktemp("constructed"))


def run(args, capsys, *, whole: bool, monkeypatch) -> str:
    with monkeypatch.context() as m:
        if whole:
            m.setattr(exam_cli, "_streams_files", lambda args: False)
        assert main(args) == 0
    return capsys.readouterr().out


def articles_args(systems):
    return [a for s in systems for a in ("--articles", s)]


OUTPUTS = [[], ["--per-example"], ["--json"], ["--json", "--per-example"], ["--jsonl", "--per-example"]]


@pytest.mark.parametrize("extra", OUTPUTS + [["--gold", str(DEMO / "gold.jsonl")],
                                             ["--official", str(DEMO / "official.txt"), "--json"],
                                             ["--margin", "0.2", "--per-example"]])
def test_demo_by_input_equals_one_batch(extra, capsys, monkeypatch):
    args = ["exam", "-q", str(DEMO / "questions.jsonl"), *articles_args(DEMO_SYSTEMS), "--n-jobs", "1", *extra]
    assert exam_cli._streams_files(exam_cli_args(args))
    assert run(args, capsys, whole=False, monkeypatch=monkeypatch) == run(args, capsys, whole=True,
                                                                          monkeypatch=monkeypatch)


def exam_cli_args(argv):
    from qascore.cli import build_parser

    return build_parser().parse_args(argv)


@pytest.mark.parametrize("extra", OUTPUTS + [["--gold", "GOLD", "--per-example"], ["--free-text", "sentence"],
                                             ["--judge", "containment", "--jsonl", "--per-example"]])
def test_constructed_leaderboards_by_input_equal_one_batch(constructed, extra, capsys, monkeypatch):
    bank, systems, gold = constructed
    extra = [gold if a == "GOLD" else a for a in extra]
    judge = [] if "--judge" in extra else ["--judge", "linear"]  # the model judge: the test below
    args = ["exam", "-q", bank, *articles_args(systems), *judge, *extra]
    assert run(args, capsys, whole=False, monkeypatch=monkeypatch) == run(args, capsys, whole=True,
                                                                          monkeypatch=monkeypatch)


def test_the_default_model_judge_by_input_equals_one_batch(shared_data, tmp_path, capsys, monkeypatch):
    """The default judge, the shipped AVA model, reading every paragraph: its verdicts do not depend
    on what shares their batch, so grading input by input changes nothing (three queries)."""
    pytest.importorskip("onnxruntime", reason="the default judge needs qascore[onnx]")
    bank, systems, gold = write_constructed(shared_data, tmp_path, n_queries=3)
    args = ["exam", "-q", bank, *articles_args(systems), "--gold", gold, "--jsonl", "--per-example", "--n-jobs", "2"]
    assert run(args, capsys, whole=False, monkeypatch=monkeypatch) == run(args, capsys, whole=True,
                                                                          monkeypatch=monkeypatch)


def test_each_input_is_graded_alone(capsys, monkeypatch):
    seen = []
    grade = scoring.grade

    def spy(bank, articles, *a, **k):
        seen.append(articles.systems)
        return grade(bank, articles, *a, **k)

    monkeypatch.setattr(scoring, "grade", spy)
    assert main(["exam", "-q", str(DEMO / "questions.jsonl"), *articles_args(DEMO_SYSTEMS),
                 "--gold", str(DEMO / "gold.jsonl")]) == 0
    assert seen == [["good-system"], ["partial-system"], ["off-topic-system"], [scoring.GOLD_SYSTEM]]


def test_what_needs_every_article_reads_them_whole(tmp_path):
    base = ["exam", "-q", str(DEMO / "questions.jsonl"), *articles_args(DEMO_SYSTEMS)]
    assert exam_cli._streams_files(exam_cli_args(base))
    for extra in (["--graded", str(tmp_path / "g.jsonl.gz")], ["--solver", "embedding"],
                  ["--gold", str(DEMO / "gold.jsonl"), "--official", str(DEMO / "official.txt")]):
        assert not exam_cli._streams_files(exam_cli_args(base + extra))
    one = ["exam", "-q", str(DEMO / "questions.jsonl"), "--articles", DEMO_SYSTEMS[0]]
    assert not exam_cli._streams_files(exam_cli_args(one))


def test_small_inputs_are_graded_in_one_batch(monkeypatch):
    monkeypatch.setattr(exam_cli, "STREAM_ABOVE_BYTES", 16 << 20)
    assert not exam_cli._streams_files(exam_cli_args(["exam", "-q", str(DEMO / "questions.jsonl"),
                                                      *articles_args(DEMO_SYSTEMS)]))
    monkeypatch.setattr(exam_cli, "STREAM_ABOVE_BYTES", 1000)
    assert exam_cli._streams_files(exam_cli_args(["exam", "-q", str(DEMO / "questions.jsonl"),
                                                  *articles_args(DEMO_SYSTEMS)]))


@pytest.mark.parametrize("problem, message", [
    ("duplicate", "duplicate system 'good-system' among the article inputs"),
    ("unknown", "articles for 1 queries that have no exam questions: nowhere"),
    ("broken", "broken.jsonl"),
])
def test_input_errors_come_before_any_output(problem, message, tmp_path, capsys):
    last = tmp_path / "good-system.jsonl" if problem == "duplicate" else tmp_path / f"{problem}.jsonl"
    if problem == "broken":
        last.write_text('{"squid": "x:photosynthesis", "paragraphs": [\n', encoding="utf-8")
    else:
        write_articles(last, {"nowhere" if problem == "unknown" else "photosynthesis": ["A paragraph."]})
    out = tmp_path / "out.tsv"
    rc = main(["exam", "-q", str(DEMO / "questions.jsonl"), *articles_args([*DEMO_SYSTEMS, str(last)]),
               "--per-example", "-o", str(out)])
    captured = capsys.readouterr()
    assert rc == 2 and message in captured.err
    assert captured.out == "" and not out.exists() and list(tmp_path.iterdir()) == [last]


def test_records_stream_to_stdout_before_the_summary(capsys):
    assert main(["exam", "-q", str(DEMO / "questions.jsonl"), *articles_args(DEMO_SYSTEMS),
                 "--jsonl", "--per-example"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["system"] for r in lines[:-1]] == sorted((r["system"] for r in lines[:-1]),
                                                       key=["good-system", "partial-system",
                                                            "off-topic-system"].index)
    assert "systems" in lines[-1]


# ---- pooled idf, batch by batch ------------------------------------------------------------
WORDS = st.sampled_from(["volcano", "lava", "rock", "plant", "leaf", "green", "the", "of", "Running", "runs"])
PARAGRAPH = st.lists(WORDS, min_size=0, max_size=8).map(lambda w: " ".join(w) + ".")


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(PARAGRAPH, max_size=4), min_size=1, max_size=8), st.integers(1, 8))
def test_pooled_statistics_in_batches_equal_the_pooled_idf(articles, cut):
    analyzer = LexicalAnalyzer(stem=porter_stem)
    statistics = PooledDocumentFrequency(analyzer).add(articles[:cut]).add(articles[cut:])
    vocab = Vocabulary()
    corpus = SentenceCorpus(articles)
    sents = analyzer.encode_batch(corpus.sentences, vocab)
    pooled = LexicalSolver()._idf(vocab, sents, corpus)
    given_idf = LexicalSolver(idf_statistics=statistics)._idf(vocab, sents, corpus)
    assert statistics.n_documents == corpus.n_paragraphs
    np.testing.assert_array_equal(given_idf, pooled)


def test_idf_corpus_and_statistics_are_exclusive():
    with pytest.raises(ValueError, match="idf_corpus or idf_statistics"):
        LexicalSolver(idf_corpus=["a text"], idf_statistics=PooledDocumentFrequency(LexicalAnalyzer()))
