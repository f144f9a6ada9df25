"""``qascore compare``: against sacrebleu's own paired tests on real WMT17 systems (BLEU and chrF
recomputed from resampled segment statistics), against a plain-Python reference of sacrebleu's
tests for per-example means, Holm/Bonferroni against a plain reference and statsmodels, the other
commands' per-example outputs as input, and the one-line errors of misaligned inputs."""
import bz2
import importlib.util
import json
import math
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qascore.cli import main
from qascore.stats import adjust_pvalues

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "src" / "qascore" / "demo_data"


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def compare_json(capsys, *argv):
    code, out, err = run_cli(capsys, "compare", *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def write_jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


# ---------------------------------------------------------------- sacrebleu on WMT17


@pytest.fixture(scope="module")
def wmt17(tmp_path_factory):
    """The reference and four systems of sacrebleu's WMT17 en-de test data (its first 400
    segments), as files: located or fetched as the sentence-call benchmark does."""
    spec = importlib.util.spec_from_file_location("bench_sentence_calls",
                                                  ROOT / "benchmarks" / "test_bench_sentence_calls.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    path = bench.wmt17_path()
    if path is None or not path.is_file():
        pytest.skip("sacrebleu's WMT17 systems are not available (set QASCORE_WMT17 or allow pip download)")
    with bz2.open(path, "rb") as f:
        systems = dict(pickle.load(f))
    (reference,) = systems.pop("reference")
    folder = tmp_path_factory.mktemp("wmt17")
    names = sorted(systems)[:4]
    files = {}
    for name in ["reference", *names]:
        lines = (reference if name == "reference" else systems[name])[:400]
        files[name] = folder / f"{name}.txt"
        files[name].write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return files, names


@pytest.mark.parametrize("test, n", [("bs", 200), ("ar", 300)])
def test_corpus_scores_equal_sacrebleu_paired_test_on_wmt17(wmt17, capsys, monkeypatch, test, n):
    from sacrebleu.metrics import BLEU, CHRF
    from sacrebleu.significance import PairedTest

    files, names = wmt17
    monkeypatch.setenv("SACREBLEU_SEED", "12345")
    read = lambda p: p.read_text(encoding="utf-8").splitlines()  # noqa: E731
    refs = [read(files["reference"])]
    named = [(name, read(files[name])) for name in names]
    _, theirs = PairedTest(named, {"BLEU": BLEU(), "chrF": CHRF()}, refs, test_type=test, n_samples=n)()
    ours = compare_json(capsys, "-r", files["reference"], *(f"{name}={files[name]}" for name in names),
                        "-m", "bleu", "chrf", "--test", test, "-n", n, "--correction", "none")
    assert ours["metrics"] == ["BLEU", "chrF2"] and [s["system"] for s in ours["systems"]] == names
    for metric in ("BLEU", "chrF2"):
        for system, result in zip(ours["systems"], theirs[metric]):
            cell = system["scores"][metric]
            assert cell["score"] == result.score
            assert cell.get("p_value") == result.p_value and cell.get("mean") == result.mean
            assert cell.get("ci") == result.ci
            if result.p_value is not None:
                assert cell["p_corrected"] == result.p_value


def test_corpus_command_runs_installed(wmt17, tmp_path):
    """The installed command end to end: text output names the baseline and marks the p-values."""
    files, names = wmt17
    done = subprocess.run([sys.executable, "-m", "qascore", "compare", "-r", str(files["reference"]),
                           *(str(files[n]) for n in names[:2]), "-m", "bleu", "ter", "-n", "100"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"Baseline: {names[0]}" in done.stdout and "(p = " in done.stdout and "TER" in done.stdout


# ---------------------------------------------------------------- per-example means: a plain reference


def reference_means_test(baseline, system, test, n_resamples, seed):
    """sacrebleu's tests written out for a metric whose statistics are per-example scores and whose
    score is their mean: (score, p-value, bootstrap mean, half width)."""
    n = len(baseline)
    score_b, score_s = math.fsum(baseline) / n, math.fsum(system) / n
    observed = abs(score_b - score_s)
    rng = np.random.default_rng(seed)
    if test == "bs":
        indices = rng.choice(n, size=(n_resamples, n), replace=True)
        rb = [sum(baseline[i] for i in row) / n for row in indices]
        rs = [sum(system[i] for i in row) / n for row in indices]
        d = [abs(s - b) for s, b in zip(rs, rb)]
        centre = sum(d) / len(d)
        count = sum(1 for v in d if v - centre > observed)
        ordered = sorted(rs)
        low = n_resamples // 40
        return score_s, (count + 1) / (n_resamples + 1), sum(rs) / len(rs), 0.5 * (ordered[-low - 1] - ordered[low])
    swaps = rng.integers(2, size=(n_resamples, n), dtype=bool)
    count = 0
    for row in swaps:
        a = sum(b if w else s for w, b, s in zip(row, baseline, system)) / n
        c = sum(s if w else b for w, b, s in zip(row, baseline, system)) / n
        count += abs(a - c) > observed
    return score_s, (count + 1) / (n_resamples + 1), None, None


dyadic = st.integers(0, 64).map(lambda k: k / 64)  # sums of these are exact in any order


@settings(max_examples=25, deadline=None)
@given(data=st.data(), test=st.sampled_from(["bs", "ar"]), seed=st.integers(0, 2**32))
def test_means_equal_a_plain_reference_of_sacrebleus_tests(tmp_path_factory, data, test, seed):
    n = data.draw(st.integers(2, 40))
    columns = [data.draw(st.lists(dyadic, min_size=n, max_size=n)) for _ in range(3)]
    folder = tmp_path_factory.mktemp("means")
    paths = []
    for k, column in enumerate(columns):
        paths.append(folder / f"s{k}.txt")
        paths[-1].write_text("".join(f"{v!r}\n" for v in column))
    out = folder / "out.json"
    assert main(["compare", *map(str, paths), "--test", test, "-n", "300", "--seed", str(seed),
                 "--correction", "none", "--json", "-o", str(out)]) == 0
    table = json.loads(out.read_text())
    for k in (1, 2):
        cell = table["systems"][k]["scores"]["score"]
        score, p, mean, ci = reference_means_test(columns[0], columns[k], test, 300, seed)
        assert cell["score"] == score
        assert cell["p_value"] == (1.0 if columns[k] == columns[0] else p)
        if test == "bs":
            assert cell["mean"] == pytest.approx(mean, rel=1e-12) and cell["ci"] == pytest.approx(ci, abs=1e-12)


def test_a_system_equal_to_the_baseline_is_not_significant(tmp_path, capsys):
    """sacrebleu gives p = 1/(R+1) here (it counts only strictly larger differences, and none is)."""
    values = [0.1, 0.5, 0.25, 0.75]
    for name in ("a", "b"):
        (tmp_path / f"{name}.txt").write_text("".join(f"{v}\n" for v in values))
    for test in ("bs", "ar"):
        table = compare_json(capsys, tmp_path / "a.txt", tmp_path / "b.txt", "--test", test, "-n", "50")
        cell = table["systems"][1]["scores"]["score"]
        assert cell["p_value"] == 1.0 and cell["significant"] is False


# ---------------------------------------------------------------- corrections


def holm_reference(p):
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out, running = [0.0] * m, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=12))
def test_holm_and_bonferroni_equal_a_plain_reference(p):
    assert list(adjust_pvalues(p, "holm")) == holm_reference(p)
    assert list(adjust_pvalues(p, "bonferroni")) == [min(1.0, len(p) * v) for v in p]
    assert list(adjust_pvalues(p, "none")) == p


def test_holm_and_bonferroni_equal_statsmodels():
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    rng = np.random.default_rng(3)
    for _ in range(30):  # statsmodels takes about 0.1 s a call
        p = rng.random(rng.integers(1, 15)) ** 3
        p[rng.random(p.size) < 0.2] = p[0]  # ties
        for method in ("holm", "bonferroni"):
            assert np.array_equal(adjust_pvalues(p, method), multitest.multipletests(p, method=method)[1])


def test_correction_families(tmp_path, capsys):
    rng = np.random.default_rng(0)
    for k in range(4):
        write_jsonl(tmp_path / f"s{k}.jsonl", [{"id": i, "x": float(v), "y": float(w)} for i, (v, w)
                                                in enumerate(zip(rng.random(80) + 0.03 * k, rng.random(80)))])
    files = [tmp_path / f"s{k}.jsonl" for k in range(4)]
    raw = compare_json(capsys, *files, "--correction", "none")
    p = np.array([[s["scores"][m]["p_value"] for s in raw["systems"][1:]] for m in ("x", "y")])
    for family in ("metric", "table"):
        for method in ("holm", "bonferroni"):
            table = compare_json(capsys, *files, "--correction", method, "--family", family)
            got = np.array([[s["scores"][m]["p_corrected"] for s in table["systems"][1:]] for m in ("x", "y")])
            want = np.array([adjust_pvalues(row, method) for row in p]) if family == "metric" else \
                adjust_pvalues(p.ravel(), method).reshape(p.shape)
            assert np.array_equal(got, want)
            assert all(s["scores"][m]["significant"] == (s["scores"][m]["p_corrected"] <= 0.05)
                       for s in table["systems"][1:] for m in ("x", "y"))


# ---------------------------------------------------------------- the other commands' outputs


def test_rouge_per_example_outputs_jsonl_and_json(tmp_path, capsys):
    predictions = [json.loads(line) for line in (DEMO / "rouge/predictions.jsonl").read_text().splitlines()]
    worse = write_jsonl(tmp_path / "worse.jsonl", [{**r, "prediction": " ".join(r["prediction"].split()[::2])}
                                                   for r in predictions])
    outputs = {}
    for name, preds in (("base", DEMO / "rouge/predictions.jsonl"), ("worse", worse)):
        for fmt in ("jsonl", "json"):
            outputs[name, fmt] = tmp_path / f"{name}.out.{fmt}"
            assert main(["rouge", "-p", str(preds), "-r", str(DEMO / "rouge/references.jsonl"), "--per-example",
                         f"--{fmt}", "-o", str(outputs[name, fmt])]) == 0
    lines = compare_json(capsys, outputs["base", "jsonl"], outputs["worse", "jsonl"], "-m", "rouge1.fmeasure",
                         "rougeL.fmeasure")
    document = compare_json(capsys, outputs["base", "json"], outputs["worse", "json"], "-m", "rouge1.fmeasure",
                            "rougeL.fmeasure")
    assert lines["systems"][1]["system"] == "worse.out" and lines["n"] == len(predictions)
    assert [s["scores"] for s in lines["systems"]] == [s["scores"] for s in document["systems"]]
    aggregate = json.loads(outputs["base", "jsonl"].read_text().splitlines()[-1])["aggregate"]
    assert lines["systems"][0]["scores"]["rouge1.fmeasure"]["score"] == \
        pytest.approx(aggregate["rouge1"]["fmeasure"], rel=1e-15)


def test_mrc_and_nugget_outputs_skip_their_summaries(tmp_path, capsys):
    mrc = tmp_path / "mrc.jsonl"
    assert main(["mrc", "-p", str(DEMO / "mrc/pred.jsonl"), "-r", str(DEMO / "mrc/ref.jsonl"), "--per-example",
                 "--jsonl", "-o", str(mrc)]) == 0
    table = compare_json(capsys, f"one={mrc}", f"two={mrc}", "-m", "ROUGE-L")
    assert table["n"] == 4 and table["metrics"] == ["ROUGE-L"]
    rag = tmp_path / "rag.jsonl"
    assert main(["nuggets", "rag", "-p", str(DEMO / "nuggets/rag_assignments.jsonl"), "--jsonl", "-o", str(rag)]) == 0
    table = compare_json(capsys, f"one={rag}", f"two={rag}", "-m", "vital_score", "all_score")
    summary = json.loads(rag.read_text().splitlines()[-1])
    assert summary["qid"] == "all" and table["n"] == 3
    assert table["systems"][0]["scores"]["all_score"]["score"] == pytest.approx(summary["all_score"], rel=1e-15)


def test_exam_records_grouped_by_query_give_the_exam_scores(tmp_path, capsys):
    records, summary = tmp_path / "exam.jsonl", tmp_path / "exam.json"
    systems = sorted((DEMO / "exam/systems").glob("*.jsonl"))
    common = ["exam", "-q", str(DEMO / "exam/questions.jsonl"), *(a for s in systems for a in ("--articles", str(s))),
              "--judge", "containment"]
    assert main([*common, "--per-example", "--jsonl", "-o", str(records)]) == 0
    assert main([*common, "--json", "-o", str(summary)]) == 0
    table = compare_json(capsys, records, "-m", "correct", "--group-by", "query_id", "--baseline", "good-system")
    exam = {s["system"]: s["exam"] for s in json.loads(summary.read_text())["systems"]}
    assert {s["system"]: s["scores"]["correct"]["score"] for s in table["systems"]} == pytest.approx(exam)
    assert table["baseline"] == "good-system" and table["n"] == 3


def test_plain_score_files_with_and_without_header(tmp_path, capsys):
    (tmp_path / "a.tsv").write_text("id\tf1\tem\nq1\t0.5\t1\nq2\t0.25\t0\nq3\t1\t1\n")
    (tmp_path / "b.tsv").write_text("id\tf1\tem\nq3\t0.5\t0\nq1\t0.75\t1\nq2\t0.25\t0\n")
    table = compare_json(capsys, tmp_path / "a.tsv", tmp_path / "b.tsv", "-m", "f1", "em")
    assert table["systems"][1]["scores"]["f1"]["score"] == 0.5  # aligned by id: (0.75 + 0.25 + 0.5) / 3
    (tmp_path / "a.txt").write_text("0.5 1\n0.25 0\n")
    (tmp_path / "b.txt").write_text("0.75 1\n0.25 1\n")
    table = compare_json(capsys, tmp_path / "a.txt", tmp_path / "b.txt")
    assert table["metrics"] == ["col1", "col2"] and table["systems"][1]["scores"]["col2"]["score"] == 1.0


def test_text_and_latex_tables(tmp_path, capsys):
    write_jsonl(tmp_path / "base_sys.jsonl", [{"id": i, "f_1": i % 3 / 2} for i in range(60)])
    write_jsonl(tmp_path / "better.jsonl", [{"id": i, "f_1": 1.0} for i in range(60)])
    code, text, _ = run_cli(capsys, "compare", tmp_path / "base_sys.jsonl", tmp_path / "better.jsonl")
    assert code == 0
    assert "Baseline: base_sys" in text and "(p = 0.0010)*" in text and "μ = " in text
    code, latex, _ = run_cli(capsys, "compare", tmp_path / "base_sys.jsonl", tmp_path / "better.jsonl", "-f", "latex")
    assert code == 0 and r"\toprule" in latex and r"base\_sys (baseline)" in latex and r"f\_1" in latex
    assert r"1.0000$^\dagger$" in latex


# ---------------------------------------------------------------- errors: one line, file and line


@pytest.mark.parametrize("b_text, message", [
    ("0.1\n0.2\n", "a.txt:3: example 3 has no counterpart: <B> ends after 2 examples (line 2)"),
    ("0.1\n0.2\n0.3\n0.4\n", "b.txt:4: example 4 has no counterpart"),
    ("0.1\n\n0.3\n", "b.txt:2: blank line"),
    ("0.1\nx\n0.3\n", "b.txt:2: column 'score': 'x' is not a number"),
])
def test_misaligned_plain_files_name_file_and_line(tmp_path, capsys, b_text, message):
    (tmp_path / "a.txt").write_text("0.5\n0.6\n0.7\n")
    (tmp_path / "b.txt").write_text(b_text)
    code, out, err = run_cli(capsys, "compare", tmp_path / "a.txt", tmp_path / "b.txt")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert message.replace("<B>", str(tmp_path / "b.txt")) in err


@pytest.mark.parametrize("records, message", [
    ([{"id": 1, "s": 0.1}, {"id": 2, "s": 0.2}, {"id": 4, "s": 0.3}], "b.jsonl:3: example id 4 is not in the baseline"),
    ([{"id": 1, "s": 0.1}, {"id": 2, "s": 0.2}], "system 'b' has no example id 3, which the baseline has at"),
    ([{"id": 1, "s": 0.1}, {"id": 1, "s": 0.2}, {"id": 3, "s": 0.3}], "b.jsonl:2: example id 1 again (first at"),
    ([{"id": 1, "s": 0.1}, {"id": 2}, {"id": 3, "s": 0.3}], "b.jsonl:2: missing metric 's'"),
    ([{"id": 1, "s": 0.1}, {"id": 2, "s": None}, {"id": 3, "s": 0.3}], "b.jsonl:2: metric 's' is null"),
])
def test_misaligned_records_name_file_and_line(tmp_path, capsys, records, message):
    write_jsonl(tmp_path / "a.jsonl", [{"id": i, "s": i / 10} for i in (1, 2, 3)])
    write_jsonl(tmp_path / "b.jsonl", records)
    code, _, err = run_cli(capsys, "compare", tmp_path / "a.jsonl", tmp_path / "b.jsonl", "-m", "s")
    assert code == 2 and err.count("\n") == 1 and message in err


def test_bad_commands_are_one_line(tmp_path, capsys):
    (tmp_path / "a.txt").write_text("0.5\n0.6\n")
    for argv, message in ([[tmp_path / "a.txt"], "at least 2 systems"],
                          [[tmp_path / "a.txt", f"x={tmp_path / 'a.txt'}", "--baseline", "zz"], "--baseline 'zz'"],
                          [[tmp_path / "a.txt", tmp_path / "a.txt"], "a second system named 'a'"],
                          [[tmp_path / "a.txt", "-r", tmp_path / "a.txt", "-m", "rouge"], "with --references"]):
        code, _, err = run_cli(capsys, "compare", *argv)
        assert code == 2 and err.count("\n") == 1 and message in err, err
