"""Nuggeteer's behaviour as the paper describes it: exact scoring of judged responses, first-response
crediting, the null nugget, options, reports, assessment files and the CLI."""
import json
from importlib import resources

import pytest

from qascore.cli import main
from qascore.errors import InputFormatError
from qascore.nuggets.terms import Analyzer, IdfTable
from qascore.nuggets.formats import (
    AnswerKey, Judgements, Nugget, Question, Run, read_answer_key, read_judgements, read_runs, write_judgements,
)
from qascore.nuggets.nuggeteer import NULL_NUGGET, Nuggeteer, assessment, normalize_response, nugget_diagnostics

DEMO = resources.files("qascore") / "demo_data" / "nuggets"


def make_key():
    return AnswerKey({"q": Question("q", "target", [
        Nugget("q", "1", "born in London in 1815", "vital"),
        Nugget("q", "2", "wrote the first computer program", "vital"),
        Nugget("q", "3", "daughter of Lord Byron", "okay"),
    ])})


def make_run(tag, *texts, qid="q"):
    run = Run(tag)
    for t in texts:
        run.add(qid, "D", t)
    return run


def judged_with(run, nuggets_by_item):
    j = Judgements(runs={run.tag: run})
    for qid in run.responses:
        j.assigned[run.tag, qid] = {item: list(n) for item, n in nuggets_by_item.items()}
    return j


def credited(model, run, threshold=None):
    return model.assign([run], threshold)[0].credited["q"]


def test_exact_scoring_overrides_the_classifier():
    judged_run = make_run("J", "She was born in London in 1815.", "Byron's daughter wrote poems")
    model = Nuggeteer(make_key(), judgements=judged_with(judged_run, {1: [], 2: ["1"]}), threshold=0.0)
    run = make_run("R", "  SHE was born in   london in 1815. ", "byron's DAUGHTER wrote poems")
    items = credited(model, run)
    assert items[0] == []  # judged without a nugget: exact, whatever the n-grams say
    assert [(g.nugget_id, g.exact, g.score) for g in items[1]] == [("1", True, 1.0)]
    assert normalize_response("  A\tB  c ") == "a b c"


def test_first_response_gets_the_credit():
    model = Nuggeteer(make_key(), threshold=0.5)
    run = make_run("R", "nothing here", "Ada wrote the first computer program.", "She wrote the first computer program too.")
    items = credited(model, run)
    assert [[g.nugget_id for g in i] for i in items] == [[], ["2"], []]
    assert model.assign([run], 0.5)[0].matched() == {"q": ["2"]}


def test_null_nugget_blocks_background_responses():
    key = make_key()
    background = make_run("J", "London weather in 1815 was cold", "Lord Byron wrote poems")
    judged = judged_with(background, {1: [], 2: ["3"]})
    probe = make_run("R", "London weather in 1815")
    without = Nuggeteer(key, judgements=judged, learn_from_judgements=False, threshold=0.05)
    assert [g.nugget_id for g in credited(without, probe)[0]] == ["1"]
    learned = Nuggeteer(key, judgements=judged, threshold=0.05)
    table = learned.recall_table([probe])
    why = learned.explain(table, 0, "1", 0.05)
    assert why["score"] >= 0.05 and why["null_score"] > why["score"] and not why["assigned"]
    assert credited(learned, probe)[0] == []
    assert learned.index.questions[0].nugget_ids[-1] == NULL_NUGGET


def test_judged_responses_become_descriptions():
    key = make_key()
    judged_run = make_run("J", "Augusta Ada arrived at Piccadilly during December")
    judged = judged_with(judged_run, {1: ["1"]})
    probe = make_run("R", "Augusta Ada arrived at Piccadilly")
    assert credited(Nuggeteer(key, threshold=0.3), probe)[0] == []
    guesses = credited(Nuggeteer(key, judgements=judged, threshold=0.3), probe)[0]
    assert [g.nugget_id for g in guesses] == ["1"] and not guesses[0].exact


def test_unknown_question_is_reported_and_judgement_errors():
    model = Nuggeteer(make_key())
    run = make_run("R", "x")
    run.add("elsewhere", "D", "y")
    score = model.score([run], beta=3)[0]
    assert score.unknown_questions == ["elsewhere"] and set(score.questions) == {"q"}
    bad = judged_with(make_run("J", "a"), {1: ["9"]})
    with pytest.raises(ValueError, match=r"run J, question q, item 1 name nuggets \['9'\]"):
        Nuggeteer(make_key(), judgements=bad)


@pytest.mark.parametrize("options,text,expect", [
    ({"stem": True}, "wrote first computer programs", True),
    ({"stem": False}, "wrote first computer programs", False),
])
def test_stemming_option(options, text, expect):
    model = Nuggeteer(make_key(), weighting="count", threshold=0.6, **options)
    assert bool(credited(model, make_run("R", text))[0]) is expect


def test_options_are_recorded_and_validated():
    model = Nuggeteer(make_key(), n=3, stem=True, stopwords=True, weighting="count", informativeness="equation3")
    sig = model.assignment_signature(0.3)
    for part in ("n:3", "stem:yes", "stopwords:yes", "weighting:count", "informativeness:equation3", "threshold:0.3"):
        assert part in sig
    assert sig == model.signature().replace("|version:", "|threshold:0.3|version:")  # the settings, then the threshold
    assert "idf:background-wordfreq-en-3.1.1" in Nuggeteer(make_key()).signature()
    assert "idf:runs" in Nuggeteer(make_key(), idf="runs").signature()
    assert "idf:none" in Nuggeteer(make_key(), weighting="count").signature()
    assert "null_in_group:no" in Nuggeteer(make_key(), null_in_group=False).signature()
    with pytest.raises(ValueError, match=r"idf must be one of \('background', 'runs'\) or an IdfTable, got 'pool'"):
        Nuggeteer(make_key(), idf="pool")
    with pytest.raises(ValueError, match="got None"):
        Nuggeteer(make_key(), idf=None)
    with pytest.raises(ValueError, match="got 'pool'"):
        Nuggeteer(make_key(), weighting="count", idf="pool")
    with pytest.raises(ValueError, match="weighting"):
        Nuggeteer(make_key(), weighting="tf")
    with pytest.raises(ValueError, match="threshold"):
        Nuggeteer(make_key(), threshold=1.5)
    assert Analyzer(stopwords=True).terms("The daughter OF Byron") == ("daughter", "byron")


def test_idf_tables(tmp_path):
    table = IdfTable.from_documents(["a b", "a c", "a"], Analyzer())
    assert table.idf("a") == pytest.approx(0.13353139262452263) and table.idf("zzz") == pytest.approx(2.0794415416798357)
    path = tmp_path / "df"
    path.write_text("N 10\nlondon\t2\nbyron\t5\n", encoding="utf-8")
    df = IdfTable.from_df_file(path)
    model = Nuggeteer(make_key(), idf=df)
    assert f"idf:df:{path}" in model.signature()
    path.write_text("N 10\nlondon 2\n", encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"df:2: expected '<term>\\t<df>'"):
        IdfTable.from_df_file(path)
    path.write_text("N 10\nlondon\t11\n", encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"df of 'london' is 11"):
        IdfTable.from_df_file(path)


def test_assessment_file_feeds_back_as_judgements(tmp_path):
    key = read_answer_key(DEMO / "answer_key.txt")
    judged = read_judgements(DEMO / "judgements.txt")
    runs = list(read_runs(DEMO / "run.txt").values())
    model = Nuggeteer(key, judgements=judged, threshold=0.2)
    assignments = model.assign(runs)
    judged_out, comments = assessment(assignments)
    write_judgements(judged_out, tmp_path / "assess", comments)
    text = (tmp_path / "assess").read_text()
    assert "# guess: nugget" in text
    back = read_judgements(tmp_path / "assess")
    # adjudicated as is: the run is now scored exactly with the same nuggets
    exact = Nuggeteer(key, judgements=back, threshold=0.99)
    assert exact.assign(runs)[0].matched() == assignments[0].matched()
    rows = nugget_diagnostics(model, model.recall_table(runs))
    # diagnostics count every response that carries a nugget, the run credits its first one only
    assert len(rows) == 10 and sum(r["assigned"] for r in rows) >= sum(len(v) for v in assignments[0].matched().values())
    assert {(r["qid"], r["nugget"]) for r in rows if r["assigned"]} == {
        (qid, n) for qid, nuggets in assignments[0].matched().items() for n in nuggets}


def test_explain_lists_matched_ngrams():
    model = Nuggeteer(make_key(), threshold=0.1)
    table = model.recall_table([make_run("R", "Ada wrote the first program")])
    why = model.explain(table, 0, "2")
    grams = dict(why["matched_ngrams"])
    assert "wrote the" in grams and "first" in grams and "computer" not in grams
    assert why["assigned"] and why["threshold"] == 0.1


def test_cli_on_demo_data(tmp_path, capsys):
    args = ["-r", str(DEMO / "answer_key.txt"), "-p", str(DEMO / "run.txt"), "--judgements", str(DEMO / "judgements.txt")]
    assert main(["nuggets", "score", *args, "--jsonl", "--per-example"]) == 0
    out, err = capsys.readouterr()
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows[-1]["qid"] == "all" and "qascore:nuggeteer" in rows[-1]["signature"]
    assert [r["qid"] for r in rows[:-1]] and all(r["qid"] != "all" for r in rows[:-1])
    assert "3.1" in err
    assert main(["nuggets", "score", *args]) == 0  # the default: a table
    table = capsys.readouterr().out
    assert "RUN-C" in table and "signature: qascore:nuggeteer" in table
    assert main(["nuggets", "score", *args, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["runs"][0]["f"] == rows[-1]["f"] and "per_question" not in doc["runs"][0]
    assert main(["nuggets", "assign", *args, "-o", str(tmp_path / "a"), "--diagnostics", str(tmp_path / "d")]) == 0
    assert read_judgements(tmp_path / "a").runs["RUN-C"]
    assert main(["nuggets", "score", "--method", "official", "-r", str(DEMO / "answer_key.txt"),
                 "--judgements", str(DEMO / "judgements.txt")]) == 0
    assert main(["nuggets", "score", "--method", "pourpre", "-r", str(DEMO / "answer_key.txt"), "-p", str(DEMO / "run.txt")]) == 0
    capsys.readouterr()
    assert main(["nuggets", "score", "-r", str(DEMO / "answer_key.txt")]) == 2
    assert "-p/--predictions" in capsys.readouterr().err


def test_cli_old_spellings_still_work_hidden(tmp_path, capsys):
    old = ["--key", str(DEMO / "answer_key.txt"), "--runs", str(DEMO / "run.txt"), "--judgements", str(DEMO / "judgements.txt")]
    assert main(["nuggets", "score", *old, "--jsonl"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["qid"] == "all"
    assert main(["nuggets", "assign", *old, "--assessment", str(tmp_path / "a")]) == 0
    assert read_judgements(tmp_path / "a").runs["RUN-C"]
    with pytest.raises(SystemExit):
        main(["nuggets", "score", "--help"])
    helptext = capsys.readouterr().out
    assert "--predictions" in helptext and "--runs" not in helptext and "--key" not in helptext


def test_cli_empty_inputs_are_errors(tmp_path, capsys):
    empty = tmp_path / "empty.txt"
    empty.write_text("", encoding="utf-8")
    assert main(["nuggets", "score", "-r", str(empty), "-p", str(DEMO / "run.txt")]) == 2
    assert "no question" in capsys.readouterr().err
    assert main(["nuggets", "score", "-r", str(DEMO / "answer_key.txt"), "-p", str(empty)]) == 2
    assert "no response" in capsys.readouterr().err


def test_cli_reads_the_run_from_stdin(monkeypatch, capsys):
    import io as _io

    data = (DEMO / "run.txt").read_bytes()
    monkeypatch.setattr("sys.stdin", _io.TextIOWrapper(_io.BytesIO(data), encoding="utf-8"))
    args = ["-r", str(DEMO / "answer_key.txt"), "--judgements", str(DEMO / "judgements.txt"), "--jsonl"]
    assert main(["nuggets", "score", *args, "-p", "-"]) == 0
    from_stdin = capsys.readouterr().out
    assert main(["nuggets", "score", *args, "-p", str(DEMO / "run.txt")]) == 0
    assert from_stdin == capsys.readouterr().out


# ---------------------------------------------------------------- threshold selection

JUDGED_RUNS = {
    "RUN-1": (["Lovelace was the daughter of the poet Lord Byron.", "She wrote the first computer program."], {1: ["3"], 2: ["2"]}),
    "RUN-2": (["Ada Lovelace was born in London in 1815.", "She liked horses."], {1: ["4"]}),
    "RUN-3": (["The Ada programming language was named after her.", "Babbage built engines.",
               "Daughter of Lord Byron, she wrote the first computer program."], {1: ["5"], 3: ["1", "2"]}),
    "RUN-4": (["Nothing relevant at all.", "Still nothing useful."], {}),
}


def judged_task():
    key = read_answer_key(DEMO / "answer_key.txt")
    judged = Judgements()
    for tag, (texts, nuggets) in JUDGED_RUNS.items():
        run = make_run(tag, *texts, qid="1.1")
        judged.runs[tag] = run
        judged.assigned[tag, "1.1"] = nuggets
    return key, judged


def plain_gamma(x, y):
    c = d = 0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            s = (x[i] - x[j]) * (y[i] - y[j])
            c += s > 0
            d += s < 0
    return (c - d) / (c + d) if c + d else float("nan")


def test_score_carries_a_95_percent_interval():
    key = read_answer_key(DEMO / "answer_key.txt")
    runs = list(read_runs(DEMO / "run.txt").values())
    score = Nuggeteer(key, judgements=read_judgements(DEMO / "judgements.txt")).score(runs, beta=3)[0]
    f = [q.f for q in score.questions.values()]
    mean = sum(f) / 2
    half = 1.959963984540054 * (abs(f[0] - f[1]) / 2 ** 0.5) / 2 ** 0.5  # sample sd of 2 values / sqrt(2)
    assert score.interval == pytest.approx((mean - half, mean + half), rel=1e-9)


def test_pourpre_partial_credit_hand_computed():
    from qascore.nuggets.pourpre import Containment, Pourpre

    key = AnswerKey({"q": Question("q", "t", [Nugget("q", "1", "Lord Byron's daughter", "vital"),
                                              Nugget("q", "2", "born in London", "okay")])})
    run = make_run("R", "She is the daughter of Byron", "Nothing about it")
    score = Pourpre(key, weighting="count", stem=False).score([run], beta=3)[0]
    q = score.questions["q"]
    # nugget 1 terms {lord, byron, s, daughter}: 2 of 4 matched; nugget 2: 0
    assert q.recall == 0.5 and q.allowance == 50.0 and q.length == 37 and q.precision == 1.0  # 37 < 50
    assert q.f == pytest.approx(10 * 0.5 / (9 + 0.5), rel=1e-12)
    strict = Pourpre(key, weighting="count", stem=False, threshold=0.6).score([run], beta=3)[0]
    assert strict.mean == 0.0
    _, carries, _ = Containment(key).carries(["London born", "born near London"], ["q", "q"])
    assert list(carries) == [False, True, False, True]
