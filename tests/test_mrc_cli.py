"""``qascore mrc`` and the demo part, run through the real command entry point."""
import json

import pytest

from qascore.cli import main


def run_cli(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_dureader_json_output_matches_official_numbers(shared_data, capsys):
    d = shared_data / "mrc/dureader2018_demo"
    code, out, _ = run_cli(capsys, "mrc", "--pred", str(d / "pred.json"), "--ref", str(d / "ref.json"), "--json")
    report = json.loads(out)
    assert code == 0
    assert report["ROUGE-L"] == pytest.approx(0.5666570178004583, abs=1e-9)
    assert report["BLEU-4"] == pytest.approx(0.24448926771350635, abs=1e-9)
    assert report["match_ngram"] == [330.0, 265.0, 238.0, 218.0] and report["c_total"] == 493
    assert report["signature"].startswith("qascore:mrc|variant:mrc2018|alpha:1.0|beta:1.0")


def test_dureader_text_output_and_per_question(shared_data, capsys):
    d = shared_data / "mrc/dureader2018_demo"
    code, out, _ = run_cli(capsys, "mrc", "--pred", str(d / "pred.json"), "--ref", str(d / "ref.json"),
                           "--alpha", "0", "--beta", "0", "--per-question")
    assert code == 0
    assert out.startswith("ROUGE-L: 53.48  BLEU-1: 28.95 BLEU-2: 25.94 BLEU-3: 24.24 BLEU-4: 23.03")
    assert len(out.strip().splitlines()) == 2 + 9


def test_msmarco_format(shared_data, capsys):
    d = shared_data / "mrc/msmarco"
    code, out, _ = run_cli(capsys, "mrc", "--format", "msmarco", "--pred", str(d / "same_answer_test_candidates.json"),
                           "--ref", str(d / "same_answer_test_references.json"), "--json")
    report = json.loads(out)
    assert code == 0 and report["ROUGE-L"] == pytest.approx(1.0) and report["BLEU-4"] == pytest.approx(1.0)


def test_bad_file_is_a_clean_error_with_line(tmp_path, capsys):
    pred = tmp_path / "pred.json"
    pred.write_text('{"question_id": 1, "answers": ["a"]}\n{"question_id": 1, "answers": ["b"]}\n')
    ref = tmp_path / "ref.json"
    ref.write_text('{"question_id": 1, "question_type": "DESCRIPTION", "answers": ["a"]}\n')
    code, _, err = run_cli(capsys, "mrc", "--pred", str(pred), "--ref", str(ref))
    assert code == 2 and "pred.json:2: duplicate question_id 1" in err


def test_demo_part_runs(capsys):
    from qascore.cli.demo import demo_data_dir
    from qascore.lexical.demo_mrc import run_demo
    import io
    buf = io.StringIO()
    run_demo(demo_data_dir(), buf)
    text = buf.getvalue()
    assert "BLEU = " in text and "alpha=1 beta=1: ROUGE-L" in text
