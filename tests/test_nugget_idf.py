"""Where Nuggeteer's idf comes from: the shipped background table (default), so that a run's score
never depends on the runs scored with it, and the co-scored ``idf="runs"`` of earlier releases."""
import gzip
import json
import math
from importlib import resources

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qascore.cli import main
from qascore.nuggets.terms import BACKGROUND_IDF, Analyzer, IdfTable, background_idf
from qascore.nuggets.formats import AnswerKey, Judgements, Nugget, Question, Run, read_answer_key, read_judgements, read_runs
from qascore.nuggets.nuggeteer import Nuggeteer

DEMO = resources.files("qascore") / "demo_data" / "nuggets"
DATA = resources.files("qascore") / "nuggets" / "data"
# the demo's runs: RUN-C (run.txt, unjudged) and the judged RUN-A and RUN-B
SETTINGS = {
    "descriptions, unigrams, 0.5": dict(n=1, threshold=0.5),
    "stemmed unigrams, 0.45": dict(n=1, stem=True, threshold=0.45),
    "judgements, bigrams, 0.2": dict(judgements=True, threshold=0.2),
    "judgements, stopwords removed, trigrams": dict(judgements=True, n=3, stopwords=True, threshold=0.1),
}


@pytest.fixture(scope="module")
def demo():
    key = read_answer_key(DEMO / "answer_key.txt")
    judged = read_judgements(DEMO / "judgements.txt")
    runs = list(read_runs(DEMO / "run.txt").values()) + list(judged.runs.values())
    return key, judged, runs


def model(demo, setting, **options):
    key, judged, _ = demo
    setting = dict(SETTINGS[setting])
    if setting.pop("judgements", False):
        setting["judgements"] = judged
    return Nuggeteer(key, **setting, **options)


def alone_and_together(m, runs):
    together = {s.run_tag: s.mean for s in m.score(runs, beta=3)}
    alone = {r.tag: m.score([r], beta=3)[0].mean for r in runs}
    return alone, together


@pytest.mark.parametrize("setting", SETTINGS)
def test_default_scores_each_demo_run_alone_as_together(demo, setting):
    alone, together = alone_and_together(model(demo, setting), demo[2])
    assert alone == together


# What earlier releases (idf from the responses scored in the call) gave, to the last bit:
# RUN-C alone differs from RUN-C scored with RUN-A and RUN-B.
RUNS_IDF = {
    "descriptions, unigrams, 0.5": (
        {"RUN-C": 0.5233990147783251, "RUN-A": 0.689655172413793, "RUN-B": 0.17857142857142855},
        {"RUN-C": 0.689655172413793, "RUN-A": 0.689655172413793, "RUN-B": 0.17857142857142855},
    ),
    "stemmed unigrams, 0.45": (
        {"RUN-C": 0.5233990147783251, "RUN-A": 0.689655172413793, "RUN-B": 0.3571428571428571},
        {"RUN-C": 0.8448275862068966, "RUN-A": 0.689655172413793, "RUN-B": 0.3571428571428571},
    ),
    "judgements, bigrams, 0.2": (
        {"RUN-C": 0.689655172413793, "RUN-A": 0.689655172413793, "RUN-B": 0.3571428571428571},
        {"RUN-C": 0.689655172413793, "RUN-A": 0.689655172413793, "RUN-B": 0.3571428571428571},
    ),
}


@pytest.mark.parametrize("setting", RUNS_IDF)
def test_runs_option_reproduces_the_co_scored_numbers(demo, setting):
    m = model(demo, setting, idf="runs")
    assert alone_and_together(m, demo[2]) == RUNS_IDF[setting]
    assert "idf:runs" in m.signature() and "threshold:0.2" in m.assignment_signature(0.2)


def test_background_table_values_and_the_unseen_term():
    table = background_idf()
    assert table.source == BACKGROUND_IDF and table.n_documents == 1_000_000
    n = table.n_documents
    # an unlisted term has df 0: the largest idf, above the rarest listed term's
    assert "qzxjv" not in table.df
    assert table.idf("qzxjv") == math.log((n + 1) / 0.5) == pytest.approx(14.508658738524)
    rarest = min(table.df.values())
    assert table.idf("qzxjv") > math.log((n + 1) / (rarest + 0.5))
    assert table.df["the"] == n and table.idf("the") < 1e-6  # function words weigh almost nothing
    assert table.idf("the") < table.idf("computer") < table.idf("lovelace") < table.idf("qzxjv")
    assert "1815" in table.df and "123456" not in table.df  # numbers up to 4 digits are listed


def test_stemmed_table_is_keyed_by_the_analyzers_stems():
    plain, stemmed = background_idf(False), background_idf(True)
    assert Analyzer(stem=True).terms("computers computing") == ("comput", "comput")
    assert "comput" in stemmed.df and "computers" not in stemmed.df and "computers" in plain.df
    # words sharing a stem add up: "comput" is at least as frequent as "computer" alone
    assert stemmed.df["comput"] > plain.df["computer"]
    assert background_idf(True) is stemmed  # loaded once per process


def test_shipped_files_are_sorted_df_tables_with_their_licence():
    for name in ("wordfreq_en.df.gz", "wordfreq_en_stemmed.df.gz"):
        lines = gzip.decompress((DATA / name).read_bytes()).decode("ascii").splitlines()
        assert lines[0] == "N 1000000"
        terms = [line.split("\t")[0] for line in lines[1:]]
        assert terms == sorted(terms) and len(set(terms)) == len(terms)
    notice = (DATA / "README.md").read_text(encoding="utf-8")
    assert "CC BY-SA 4.0" in notice and "wordfreq" in notice


def test_shipped_files_are_what_the_build_script_makes(tmp_path):
    pytest.importorskip("wordfreq")
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    import build_background_idf

    assert build_background_idf.main(["--out", str(tmp_path)]) == 0
    for name in build_background_idf.FILES.values():
        assert (tmp_path / name).read_bytes() == (DATA / name).read_bytes()


def test_an_unseen_description_term_outweighs_common_ones():
    key = AnswerKey({"q": Question("q", "t", [Nugget("q", "1", "the zorbulated widget", "vital")])})
    m = Nuggeteer(key, n=1, threshold=0.0)
    recall = {}
    for text in ("the", "zorbulated", "widget"):
        table = m.recall_table([Run("R", {"q": []})] if not text else [_run(text)])
        recall[text] = table.recall[0]
    idf = background_idf()
    total = idf.idf("the") + idf.idf("zorbulated") + idf.idf("widget")
    assert recall["zorbulated"] == pytest.approx(math.log(1_000_001 / 0.5) / total, rel=1e-12)
    assert recall["the"] < 1e-7 < recall["widget"] < recall["zorbulated"]


def _run(*texts, tag="R"):
    run = Run(tag)
    for t in texts:
        run.add("q", "D", t)
    return run


WORDS = ["ada", "lovelace", "byron", "daughter", "first", "computer", "program", "london", "1815", "babbage",
         "engine", "grace", "hopper", "compiler", "cobol", "navy", "admiral", "moth", "the", "of", "a", "zorb"]
other_runs = st.lists(
    st.tuples(st.sampled_from(["1.1", "2.1", "9.9"]), st.lists(st.sampled_from(WORDS), max_size=15).map(" ".join)),
    min_size=1, max_size=12,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(other=other_runs, setting=st.sampled_from(list(SETTINGS)))
def test_adding_any_other_run_never_changes_a_default_score(demo, other, setting):
    m = model(demo, setting)
    extra = Run("RUN-X")
    for qid, text in other:
        extra.add(qid, "D", text)
    runs = demo[2]
    before = {s.run_tag: (s.mean, {q: v.f for q, v in s.questions.items()}) for s in m.score(runs, beta=3)}
    after = {s.run_tag: (s.mean, {q: v.f for q, v in s.questions.items()}) for s in m.score([*runs, extra], beta=3)}
    assert {tag: after[tag] for tag in before} == before


def test_null_nugget_in_or_out_of_g_hand_computed():
    key = AnswerKey({"q": Question("q", "t", [Nugget("q", "1", "born in London", "vital")])})
    background = _run("London weather", tag="J")
    judged = Judgements(runs={"J": background}, assigned={("J", "q"): {1: []}})
    probe = [_run("London")]
    # count weights, unigrams: born, in, london; london is also a term of the null nugget
    inside = Nuggeteer(key, judgements=judged, n=1, weighting="count")
    outside = Nuggeteer(key, judgements=judged, n=1, weighting="count", null_in_group=False)
    # in G: |G| = 2 and london's I = 1 - 1/2, so recall = 0.5 / 2.5; out: |G| = 1, I = 1, recall 1/3
    assert inside.recall_table(probe).recall[0] == pytest.approx(0.5 / 2.5, rel=1e-15)
    assert outside.recall_table(probe).recall[0] == pytest.approx(1 / 3, rel=1e-15)
    # the null nugget's own n-grams: london is held by nugget 1 (I = 1/2 in G; 1 - 1/1 = 0 out of G)
    assert inside.recall_table(probe).recall[1] == pytest.approx(0.5 / 1.5, rel=1e-15)
    assert outside.recall_table(probe).recall[1] == 0.0


def test_cli_idf_options(tmp_path, capsys):
    key, runs = str(DEMO / "answer_key.txt"), str(DEMO / "run.txt")
    alone_file = tmp_path / "c.txt"
    alone_file.write_text((DEMO / "run.txt").read_text(encoding="utf-8"), encoding="utf-8")
    together_file = tmp_path / "all.txt"
    judged = read_judgements(DEMO / "judgements.txt")
    lines = [(DEMO / "run.txt").read_text(encoding="utf-8").rstrip("\n")]
    for tag, run in judged.runs.items():
        lines += [f"{r.qid} {tag} DOC {r.text}" for items in run.responses.values() for r in items]
    together_file.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def run_c(path, *options):
        assert main(["nuggets", "score", "-r", key, "-p", str(path), "-n", "1", "--threshold", "0.5", "--jsonl",
                     *options]) == 0
        rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        return next(r for r in rows if r["run"] == "RUN-C")

    default_alone, default_together = run_c(alone_file), run_c(together_file)
    assert default_alone["f"] == default_together["f"] and "idf:background-wordfreq-en-3.1.1" in default_alone["signature"]
    assert run_c(alone_file, "--idf", "runs")["f"] == 0.5233990147783251
    assert run_c(together_file, "--idf", "runs")["f"] == 0.689655172413793
    assert "null_in_group:no" in run_c(alone_file, "--null-outside-group")["signature"]
    df = tmp_path / "df"
    df.write_text("N 10\nlovelace\t1\n", encoding="utf-8")
    assert f"idf:df:{df}" in run_c(alone_file, "--df-table", str(df))["signature"]
    with pytest.raises(SystemExit):
        main(["nuggets", "score", "-r", key, "-p", runs, "--idf", "runs", "--df-table", str(df)])
    assert "not allowed with argument" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["nuggets", "score", "-r", key, "-p", runs, "--idf", "pool"])
    assert "invalid choice: 'pool'" in capsys.readouterr().err


def test_user_table_is_used_as_given():
    table = IdfTable({"london": 1}, 10, "mine")
    m = Nuggeteer(AnswerKey({"q": Question("q", "t", [Nugget("q", "1", "born in London", "vital")])}), idf=table)
    assert m.idf is table and "idf:mine" in m.assignment_signature(0.2)
