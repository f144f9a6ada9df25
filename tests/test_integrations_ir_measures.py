"""qascore's nugget and EXAM measures through ir_measures (qascore.integrations.ir_measures): equal per
query to what ``qascore nuggets rag`` / ``nuggets score`` / ``exam --graded`` write for the same inputs
(TREC 2024 RAG assignments, their answer key and judgements, the WikiQA EXAM benchmark), and the
qrels they travel in written and read back equal."""
import json
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

ir_measures = pytest.importorskip("ir_measures")

from qascore.cli import main  # noqa: E402
from qascore.errors import InputFormatError  # noqa: E402
from qascore.io import Qrel, read_qrels, write_qrels  # noqa: E402
from qascore.integrations import ir_measures as qim  # noqa: E402
from qascore.nuggets.formats import (AnswerKey, Judgements, Nugget, Question, RagTopic, Run,  # noqa: E402
                                     read_answer_key, read_rag_assignments, read_runs, write_answer_key,
                                     write_judgements, write_run)

RAG_RUNS = ("gpt4o", "command-r-plus")
RAG_SCORES = {
    "strict_vital_score": qim.NuggetVital(strict=True), "vital_score": qim.NuggetVital,
    "strict_weighted_score": qim.NuggetWeighted(strict=True), "weighted_score": qim.NuggetWeighted,
    "strict_all_score": qim.NuggetAll(strict=True), "all_score": qim.NuggetAll,
}
RESEARCH = Path(__file__).resolve().parents[1] / "research" / "exam"


def rag_file(shared_data, run: str) -> Path:
    return shared_data / "nuggets" / "rag24" / f"assignments.baseline_rag24.test_{run}_top20.jsonl"


def per_query(metrics) -> dict:
    out: dict = {}
    for m in metrics:
        out.setdefault(m.measure, {})[m.query_id] = m.value
    return out


# ---------------------------------------------------------------- TREC 2024 RAG scores


@pytest.mark.parametrize("run", RAG_RUNS)
def test_rag_scores_equal_the_cli_per_topic_and_in_the_mean(shared_data, tmp_path, run):
    path = rag_file(shared_data, run)
    out = tmp_path / "metrics.jsonl"
    assert main(["nuggets", "rag", "-p", str(path), "-o", str(out)]) == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    topics = read_rag_assignments(path)
    measures = list(RAG_SCORES.values())
    got = per_query(ir_measures.iter_calc(measures, qim.rag_key_qrels(topics), qim.rag_run(topics)))
    cli = {row["qid"]: row for row in lines[:-1]}
    assert len(cli) == 301
    for column, measure in RAG_SCORES.items():
        assert got[measure] == {qid: row[column] for qid, row in cli.items()}, column
    # the aggregate is the correctly rounded mean: the CLI's qid "all" line bit for bit
    aggregate = ir_measures.calc_aggregate(measures, qim.rag_key_qrels(topics), qim.rag_run(topics))
    assert {column: aggregate[m] for column, m in RAG_SCORES.items()} == {k: v for k, v in lines[-1].items() if k != "qid"}


def test_rag_qrels_round_trip_and_score_the_same(shared_data, tmp_path):
    topics = read_rag_assignments(rag_file(shared_data, "gpt4o"))
    key, assigned = qim.rag_key_qrels(topics), qim.rag_assignment_qrels(topics)
    write_qrels(key, tmp_path / "key.qrels")
    write_qrels(assigned, tmp_path / "assignments.qrels")
    key_back, assigned_back = read_qrels(tmp_path / "key.qrels"), read_qrels(tmp_path / "assignments.qrels")
    assert key_back == [Qrel(*row[:4]) for row in key]
    assert assigned_back == assigned
    # what the files hold: importance 1 vital / 0 okay / -1 other; grade 2 / 1 / 0
    first = topics[0].nuggets[0]
    assert (key_back[0].relevance, assigned_back[0].relevance) == (
        {"vital": 1, "okay": 0}.get(first.importance, -1), {"support": 2, "partial_support": 1}.get(first.assignment, 0))
    measures = list(RAG_SCORES.values())
    direct = per_query(ir_measures.iter_calc(measures, key, qim.rag_run(topics)))
    from_files = per_query(ir_measures.iter_calc(measures, key_back, qim.qrels_as_run(assigned_back)))
    assert from_files == direct


def test_pyterrier_shaped_frames_and_dicts_give_the_same_scores(shared_data):
    pd = pytest.importorskip("pandas")
    topics = [t for t in read_rag_assignments(rag_file(shared_data, "command-r-plus"))
              if all(n.importance in ("vital", "okay") for n in t.nuggets)][:40]  # NuggetF refuses other labels
    key, run = qim.rag_key_qrels(topics), qim.rag_run(topics)
    measures = list(RAG_SCORES.values()) + [qim.NuggetF]
    expected = per_query(ir_measures.iter_calc(measures, key, run))
    # PyTerrier's column names (qid, docno, label; its RAG answers in qanswer)
    qrels_frame = pd.DataFrame(key).rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    run_frame = pd.DataFrame(run).rename(columns={"query_id": "qid", "doc_id": "docno", "text": "qanswer"})
    assert per_query(ir_measures.iter_calc(measures, qrels_frame, run_frame)) == expected
    # ir_measures' own column names, and dicts of dicts (no text: the RAG scores only)
    assert per_query(ir_measures.iter_calc(measures, pd.DataFrame(key), pd.DataFrame(run))) == expected
    as_dict = {}
    for row in run:
        as_dict.setdefault(row.query_id, {})[row.doc_id] = row.score
    key_dict = {}
    for row in key:
        key_dict.setdefault(row.query_id, {})[row.doc_id] = row.relevance
    rag = list(RAG_SCORES.values())
    assert per_query(ir_measures.iter_calc(rag, key_dict, as_dict)) == {m: expected[m] for m in rag}
    # one call mixing a trec_eval measure (pytrec_eval) with qascore's: each provider gets its own
    mixed = per_query(ir_measures.iter_calc([ir_measures.P @ 5, qim.NuggetVital], key, run))
    assert mixed[qim.NuggetVital] == expected[qim.NuggetVital] and len(mixed[ir_measures.P @ 5]) == 40


def test_measures_are_registered_the_way_third_party_providers_are():
    assert ir_measures.providers.registry["qascore"] is qim.PROVIDER
    assert qim.PROVIDER in ir_measures.DefaultPipeline.providers
    for text in ("NuggetVital(strict=True)", "NuggetF(beta=5)", "Nuggeteer(threshold=0.3)", "EXAM@20"):
        assert str(ir_measures.parse_measure(text)) == text
    topic = read_small_topic()
    # Measure.calc / calc_aggregate, the per-measure calls PyTerrier makes too
    assert qim.NuggetAll.calc_aggregate(qim.rag_key_qrels([topic]), qim.rag_run([topic])) == 0.5


def read_small_topic() -> RagTopic:
    from qascore.nuggets.formats import RagNugget

    return RagTopic("t1", "an answer", (RagNugget("a", "vital", "support"), RagNugget("b", "okay", "not_support")))


def test_bad_rows_are_errors_naming_what_and_where():
    topic = read_small_topic()
    key = qim.rag_key_qrels([topic])
    with pytest.raises(ValueError, match="query 't1' assigns nugget 'x', which the qrels do not list"):
        ir_measures.calc_aggregate([qim.NuggetAll], key, [qim.RunRow("t1", "x", 2.0)])
    with pytest.raises(ValueError, match="grade 3"):
        ir_measures.calc_aggregate([qim.NuggetAll], key, [qim.RunRow("t1", "1", 3.0)])
    with pytest.raises(ValueError, match="assigned twice"):
        ir_measures.calc_aggregate([qim.NuggetAll], key, [qim.RunRow("t1", "1", 2.0), qim.RunRow("t1", "1", 0.0)])
    with pytest.raises(ValueError, match="NuggetF needs the answer of query 't1'"):
        ir_measures.calc_aggregate([qim.NuggetF], key, [qim.RunRow("t1", "1", 2.0, None)])
    with pytest.raises(ValueError, match="importance 5"):
        ir_measures.calc_aggregate([qim.NuggetAll], [Qrel("t1", "1", 5)], [qim.RunRow("t1", "1", 2.0)])
    with pytest.raises(ValueError, match="official nugget F knows vital"):
        ir_measures.calc_aggregate([qim.NuggetF], [Qrel("t1", "1", -1)], [qim.RunRow("t1", "1", 2.0, "x")])
    with pytest.raises(ValueError, match="EXAM and the nugget measures"):
        ir_measures.calc_aggregate([qim.NuggetF, qim.EXAM], key, [])
    with pytest.raises(ValueError, match="not counts"):
        ir_measures.calc_aggregate([qim.EXAM], [Qrel("q", "p", 3)], [qim.RunRow("q", "p", 1.0)])


# ---------------------------------------------------------------- the official nugget F and Nuggeteer


@pytest.fixture(scope="module")
def rag_as_trec(shared_data, tmp_path_factory):
    """gpt-4o's TREC 2024 RAG answers as TREC nugget files: the answer key (its vital and okay
    nuggets; a topic's answer is one response), the run, and judgements holding the supported
    nuggets; and the same as qascore objects."""
    folder = tmp_path_factory.mktemp("rag_trec")
    topics = []
    for t in read_rag_assignments(rag_file(shared_data, "gpt4o")):
        nuggets = tuple(n for n in t.nuggets if n.importance in ("vital", "okay"))
        if nuggets:  # a run line holds one line of text: the answer's line breaks become spaces
            topics.append(RagTopic(t.qid, " ".join(t.answer_text.split()), nuggets))
    key = AnswerKey({t.qid: Question(t.qid, t.qid, [Nugget(t.qid, str(i), n.text, n.importance)
                                                    for i, n in enumerate(t.nuggets, 1)]) for t in topics})
    run = Run("gpt4o")
    for t in topics:
        run.add(t.qid, "answer", t.answer_text)
    judged = Judgements({"gpt4o": run}, {("gpt4o", t.qid): {1: [str(i) for i, n in enumerate(t.nuggets, 1)
                                                               if n.assignment == "support"]} for t in topics})
    paths = {name: str(folder / name) for name in ("key", "run", "judged")}
    write_answer_key(key, paths["key"])
    write_run(run, paths["run"])
    write_judgements(judged, paths["judged"])
    return topics, paths


def cli_f(args, tmp_path) -> dict:
    out = tmp_path / "scores.jsonl"
    assert main(["nuggets", "score", *args, "--jsonl", "--per-example", "-o", str(out)]) == 0
    return {row["qid"]: row["f"] for row in map(json.loads, out.read_text().splitlines()) if row["qid"] != "all"}


def test_nugget_f_equals_the_official_cli_per_question(rag_as_trec, tmp_path):
    topics, paths = rag_as_trec
    cli = cli_f(["-r", paths["key"], "--judgements", paths["judged"], "--method", "official"], tmp_path)
    key = qim.answer_key_qrels(read_answer_key(paths["key"]))
    got = per_query(ir_measures.iter_calc([qim.NuggetF], key, qim.rag_run(topics)))[qim.NuggetF]
    assert got == cli and len(got) == len(topics) and any(0 < f < 1 for f in got.values())
    # beta and the least grade that matches are parameters: F(5) with partial support matching differs
    other = per_query(ir_measures.iter_calc([qim.NuggetF(beta=5, rel=1)], key, qim.rag_run(topics)))
    assert other[qim.NuggetF(beta=5, rel=1)] != got


def test_nuggeteer_equals_the_cli_per_question(rag_as_trec, tmp_path):
    _, paths = rag_as_trec
    cli = cli_f(["-r", paths["key"], "-p", paths["run"]], tmp_path)
    key = qim.answer_key_qrels(read_answer_key(paths["key"]))
    run = qim.response_run(read_runs(paths["run"])["gpt4o"])
    got = per_query(ir_measures.iter_calc([qim.Nuggeteer], key, run))[qim.Nuggeteer]
    assert got == cli and sum(f > 0 for f in got.values()) > 100
    threshold = qim.Nuggeteer(threshold=0.5)
    cli_half = cli_f(["-r", paths["key"], "-p", paths["run"], "--threshold", "0.5"], tmp_path)
    assert per_query(ir_measures.iter_calc([threshold], key, run))[threshold] == cli_half


# ---------------------------------------------------------------- EXAM


@pytest.fixture(scope="module")
def wikiqa_root(request) -> Path:
    """WikiQA may not travel with the tests: it is read from ../shared/data (``restricted_data``
    where conftest has that fixture)."""
    try:
        return request.getfixturevalue("restricted_data")
    except pytest.FixtureLookupError:
        return request.getfixturevalue("shared_data")


@pytest.fixture(scope="module")
def wikiqa_graded(wikiqa_root, tmp_path_factory):
    """The WikiQA EXAM benchmark (30 documents, four systems) graded per paragraph by ``qascore exam
    --graded``, read back; and the bank."""
    sys.path.insert(0, str(RESEARCH))
    try:
        from wikiqa_bench import build_wikiqa_benchmark
    finally:
        sys.path.remove(str(RESEARCH))
    from qascore.exam.articles import write_original_jsonl
    from qascore.exam.questions import write_simple_jsonl
    from qascore.exam.workbench import read_workbench_graded

    bench = build_wikiqa_benchmark(wikiqa_root / "ava" / "wikiqa", shares=(0.0, 0.4, 0.8, 1.0), max_queries=30)
    folder = tmp_path_factory.mktemp("wikiqa_exam")
    write_simple_jsonl(bench.bank, folder / "bank.jsonl")
    args = ["exam", "-q", str(folder / "bank.jsonl"), "--graded", str(folder / "graded.jsonl.gz"),
            "-o", str(folder / "exam.txt")]
    for system in bench.systems.systems:
        write_original_jsonl(bench.systems, system, folder / f"{system}.jsonl")
        args += ["--articles", str(folder / f"{system}.jsonl")]
    assert main(args) == 0
    return bench.bank, list(bench.systems.systems), read_workbench_graded(folder / "graded.jsonl.gz"), folder


@pytest.mark.parametrize("top_k", [20, 3])
def test_exam_equals_the_workbench_cover_exam_of_the_cli_grades_per_query(wikiqa_graded, tmp_path, top_k):
    from qascore.exam.scoring import exam_scores
    from qascore.exam.workbench import cover_records

    bank, systems, graded, _ = wikiqa_graded
    expected = exam_scores(bank, cover_records(bank, graded, systems, top_k=top_k))
    write_qrels(qim.exam_qrels(graded), tmp_path / "exam.qrels")
    qrels = read_qrels(tmp_path / "exam.qrels")
    assert qrels == qim.exam_qrels(graded)
    measure = qim.EXAM @ top_k
    for system in systems:
        got = per_query(ir_measures.iter_calc([measure], qrels, qim.exam_run(graded, system)))[measure]
        assert got == expected.systems[system].per_query, system
        assert ir_measures.calc_aggregate([measure], qrels, qim.exam_run(graded, system))[measure] == pytest.approx(
            expected.systems[system].exam, abs=1e-15)
    # the best system answers more than the worst: the measure is not constant
    exams = [expected.systems[s].exam for s in systems]
    assert max(exams) > min(exams)


def test_exam_grades_round_trip_in_both_layouts(wikiqa_graded, tmp_path):
    from qascore.exam.solvers.lexical import LexicalSolver
    from qascore.exam.workbench import grade_paragraphs

    bank, systems, graded, folder = wikiqa_graded
    counts = qim.exam_qrels(graded, layout="counts")
    write_qrels(counts, tmp_path / "counts.qrels")
    assert read_qrels(tmp_path / "counts.qrels") == counts
    assert {(r.query_id, r.doc_id): r.relevance for r in counts} == {(g.query_id, g.paragraph_id): len(g.correct)
                                                                     for g in graded}
    # the file the CLI wrote holds the grades the Python API gives
    from qascore.exam import read_articles

    articles = read_articles(str(folder / f"{systems[0]}.jsonl"))
    for s in systems[1:]:
        articles = articles.merge(read_articles(str(folder / f"{s}.jsonl")))
    python = {(g.query_id, g.paragraph_id): sorted(g.correct) for g in grade_paragraphs(bank, articles, LexicalSolver())}
    assert {(g.query_id, g.paragraph_id): sorted(g.correct) for g in graded} == python
    with pytest.raises(ValueError, match="layout"):
        qim.exam_qrels(graded, layout="rows")


# ---------------------------------------------------------------- the qrels files


ids = st.text(st.characters(blacklist_categories=("Cs", "Zs", "Zl", "Zp", "Cc")), min_size=1, max_size=8).filter(
    lambda s: not any(c.isspace() for c in s))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(ids, ids, st.integers(-3, 10**12), ids), max_size=20, unique_by=lambda r: (r[0], r[1], r[3])))
def test_qrels_round_trip(tmp_path_factory, rows):
    path = tmp_path_factory.mktemp("qrels") / "q.txt"
    qrels = [Qrel(q, d, r, it) for q, d, r, it in rows]
    write_qrels(qrels, path)
    assert read_qrels(path) == qrels
    # ir_measures reads what we write
    assert [(q.query_id, q.doc_id, q.relevance) for q in ir_measures.read_trec_qrels(str(path))] == [
        (q.query_id, q.doc_id, q.relevance) for q in qrels]


@pytest.mark.parametrize("text, message", [
    ("q1 0 d1 1\nq1 0 d2\n", "q.txt:2: expected 4 columns 'query-id iteration doc-id relevance', got 3"),
    ("q1 0 d1 1\n\nq1 0 d2 1.5\n", "q.txt:3: relevance must be an integer, got '1.5'"),
    ("q1 0 d1 1\nq1 0 d1 0\n", "q.txt:2: document 'd1' of query 'q1' (iteration '0') repeats line 1"),
])
def test_malformed_qrels_name_the_file_and_line(tmp_path, text, message):
    path = tmp_path / "q.txt"
    path.write_text(text)
    with pytest.raises(InputFormatError) as info:
        read_qrels(path)
    assert str(info.value).endswith(message)


def test_unwritable_qrels_rows_are_refused_before_writing(tmp_path):
    with pytest.raises(ValueError, match="qrels row 2: doc id 'a b'"):
        write_qrels([Qrel("q", "d", 1), Qrel("q", "a b", 1)], tmp_path / "q.txt")
    with pytest.raises(ValueError, match="qrels row 1: relevance must be an integer"):
        write_qrels([Qrel("q", "d", 0.5)], tmp_path / "q.txt")
    assert not (tmp_path / "q.txt").exists()
