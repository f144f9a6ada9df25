"""Leaderboards: official files and tables, EXAM leaderboards, the ROUGE baseline, the plot, the demo."""
import struct

import pytest

from qascore.errors import InputFormatError
from qascore.exam.terms import LexicalAnalyzer
from qascore.exam.baseline import rouge1_baseline
from qascore.exam.leaderboard import (correlate, exam_leaderboard, plot_leaderboards, read_leaderboard,
                                      read_leaderboard_table)
from qascore.exam.records import Articles
from qascore.exam.scoring import evaluate
from qascore.exam.solvers.lexical import LexicalSolver
from qascore.exam.questions import read_simple_jsonl
from qascore.cli.demo import demo_data_dir

DEMO = demo_data_dir() / "exam"


def test_read_leaderboard_and_errors(tmp_path):
    path = tmp_path / "official.txt"
    path.write_text("# comment\nA 0.5 0.1\n\nB 0.3 0.1\nC 0.1 0\n", encoding="utf-8")
    board = read_leaderboard(path, name="off")
    assert board.systems == ("A", "B", "C")
    assert list(board.means) == pytest.approx([0.5, 0.3, 0.1])
    assert list(board.standard_errors) == pytest.approx([0.1, 0.1, 0.0])
    for bad, message in [("A 0.5\nA 0.4\n", ":2: duplicate system 'A'"), ("A x\nB 1\n", ":1: score and stderr must be numbers"),
                         ("A 1 2 3\n", ":1: expected 'system score"), ("A 1\n", "at least two systems"),
                         ("A nan\nB 1\n", ":1: score and stderr must be finite"), ("A 1 -1\nB 1\n", ":1: stderr must be >= 0")]:
        path.write_text(bad, encoding="utf-8")
        with pytest.raises(InputFormatError, match=message):
            read_leaderboard(path)


@pytest.fixture(scope="module")
def demo_result():
    bank = read_simple_jsonl(DEMO / "questions.jsonl")
    from qascore.exam.articles import read_original_jsonl

    systems = Articles()
    for name in ("good-system", "partial-system", "off-topic-system"):
        systems.merge(read_original_jsonl(DEMO / "systems" / f"{name}.jsonl"))
    gold = read_original_jsonl(DEMO / "gold.jsonl")
    return bank, systems, gold, evaluate(bank, systems, LexicalSolver(), gold=gold)


def test_exam_leaderboard_keeps_per_query_scores(demo_result):
    _, _, _, result = demo_result
    board = exam_leaderboard(result)
    for s, m, se in zip(board.systems, board.means, board.standard_errors):
        assert m == pytest.approx(result.systems[s].exam) and se == pytest.approx(result.systems[s].exam_stderr)
    official = read_leaderboard(DEMO / "official.txt")
    row = correlate(board, official)
    assert row.spearman_mean == pytest.approx(1.0) and row.kendall_mean == pytest.approx(1.0)


def test_read_leaderboard_table_and_errors(tmp_path):
    boards = read_leaderboard_table(DEMO / "car_y3_table4.tsv")
    assert list(boards) == ["EXAM", "n-EXAM", "Prec@R", "MAP", "nDCG20", "ROUGE"]
    assert len(boards["EXAM"].systems) == 16 and boards["EXAM"].systems[0] == "rerank2-bert"
    assert dict(zip(boards["n-EXAM"].systems, boards["n-EXAM"].means))["dangnt-nlp"] == 1.02
    path = tmp_path / "t.tsv"
    for bad, message in [("# c\nsystem\tA\nx\t1\nx\t2\n", ":4: duplicate system 'x'"),
                         ("system\tA\nx\t1\t2\ny\t1\n", ":2: expected 2 tab-separated columns"),
                         ("system\tA\nx\tnan\ny\t1\n", ":2: scores must be finite"),
                         ("system\tA\nx\tbad\n", ":2: scores must be numbers"),
                         ("system\tA\tA\n", ":1: expected a header"), ("system\tA\nx\t1\n", "at least two systems")]:
        path.write_text(bad, encoding="utf-8")
        with pytest.raises(InputFormatError, match=message):
            read_leaderboard_table(path)


class PaperTokenizer:
    """rouge-score's tokenizer protocol over the EXAM analyser (lowercase, no stopwords, Porter stemmed)."""

    def __init__(self):
        from qascore.text import porter_stem

        self._analyzer = LexicalAnalyzer(stem=porter_stem)

    def tokenize(self, text):
        return self._analyzer.terms(text)


def test_rouge_baseline_keeps_its_numbers(demo_result):
    """Pinned from the implementation over qascore.lexical.rouge that this one replaced."""
    _, systems, gold, _ = demo_result
    base = rouge1_baseline(systems, gold)
    assert base.scores == {"good-system": 0.669241482947569, "partial-system": 0.2470851804185137,
                           "off-topic-system": 0.0}
    assert base.stderr == {"good-system": 0.03443266511206256, "partial-system": 0.08667083040559813,
                           "off-topic-system": 0.0}
    assert base.per_query["partial-system"] == {"photosynthesis": 0.3243243243243243,
                                                "volcanoes": 0.34285714285714286, "tides": 0.07407407407407407}
    assert base.signature.startswith("qascore:exam-rouge1-baseline|terms:words-lower-nostop-porter|queries:3|")


def test_rouge_baseline_keeps_its_numbers_on_wikiqa(restricted_data):
    """240 (system, query) values on real text, pinned (as a digest) from the replaced implementation."""
    import hashlib
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "research" / "exam"))
    from wikiqa_bench import build_wikiqa_benchmark

    bench = build_wikiqa_benchmark(restricted_data / "ava" / "wikiqa", shares=(0.0, 0.3, 0.7, 1.0), max_queries=60)
    base = rouge1_baseline(bench.systems, bench.gold)
    values = [base.per_query[s][q] for s in sorted(base.per_query) for q in sorted(base.per_query[s])]
    assert hashlib.sha256(repr(values).encode()).hexdigest() == \
        "c53ad6095d65528863e875ebbef3654ab725c0047dd72ca3b86a3eaa9ae3d862"
    assert base.scores["share-030"] == 0.8676445456264287 and base.stderr["share-000"] == 0.02158613004396803


def test_rouge_baseline_matches_rouge_score_with_the_same_tokenizer(demo_result):
    rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")

    _, systems, gold, _ = demo_result
    base = rouge1_baseline(systems, gold)
    scorer = rouge_scorer.RougeScorer(["rouge1"], tokenizer=PaperTokenizer())
    gold_articles = gold.articles(gold.systems[0])
    for system in systems.systems:
        for q, ref in gold_articles.items():
            arts = systems.articles(system)
            want = scorer.score("\n".join(ref), "\n".join(arts[q])).get("rouge1").fmeasure if q in arts else 0.0
            assert base.per_query[system][q] == want
    with pytest.raises(ValueError, match="one system"):
        rouge1_baseline(systems, systems)


def test_plot_writes_png(tmp_path, demo_result):
    pytest.importorskip("matplotlib")
    _, _, _, result = demo_result
    path = tmp_path / "exam.png"
    plot_leaderboards(exam_leaderboard(result), read_leaderboard(DEMO / "official.txt", name="official"), path)
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (640, 480)


def test_demo_part_prints_scores_and_published_leaderboards():
    import io

    from qascore.exam.demo import run_demo

    out = io.StringIO()
    run_demo(demo_data_dir(), out)
    text = out.getvalue()
    assert "good-system                    1.000" in text and "partial-system                 0.222" in text
    assert "ROUGE-1 F1 baseline: good-system 0.669, partial-system 0.247" in text
    assert "EXAM vs nDCG20: Spearman +0.756" in text and "ties:exact" in text
    assert "gold articles                  1.000  0.000         1.000" in text
