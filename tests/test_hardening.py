"""Regression tests for inputs that used to give a silent wrong number, each named after its input."""
import json

import numpy as np
import pytest
import scipy.stats

from qascore import stats
from qascore.cli import main
from qascore.lexical.bleu import BLEU, corpus_bleu


def test_kendalltau_of_integers_beyond_2_to_53_matches_scipy():
    x, y = [2**62, 2**62 + 1, -(2**62), 5], [1, 2, 3, 4]
    got = stats.kendalltau(x, y)
    want = scipy.stats.kendalltau(x, y)
    assert (got.statistic, got.pvalue) == (pytest.approx(want.statistic, abs=1e-15), pytest.approx(want.pvalue))
    assert got.statistic == pytest.approx(-1 / 3)  # float64 would have tied 2**62 and 2**62 + 1
    assert stats.spearmanr(x, y).statistic == pytest.approx(scipy.stats.spearmanr(x, y).statistic, abs=1e-15)
    huge = [2**70, 2**70 + 1, -(2**70), 5]  # beyond int64 too
    assert stats.kendalltau(huge, y).statistic == pytest.approx(-1 / 3)
    rows = stats.kendalltau_rows(np.array([x, x]), np.array([y, y]))
    assert rows.statistic.tolist() == pytest.approx([-1 / 3, -1 / 3])


@pytest.mark.parametrize("fn", [stats.kendalltau, stats.spearmanr, stats.pearsonr])
def test_none_inside_correlation_input_is_an_error_naming_the_index(fn):
    with pytest.raises(TypeError, match=r"x contains None at index 1"):
        fn([1, None, 3], [1, 2, 3])
    with pytest.raises(TypeError, match=r"y contains None at index 2"):
        fn([1, 2, 3], [1, 2, None])


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_bleu_floor_smoothing_with_non_finite_value_is_rejected(value):
    with pytest.raises(ValueError, match="smooth_value must be a finite number"):
        BLEU(smooth_method="floor", smooth_value=value)
    with pytest.raises(ValueError, match="smooth_value must be a finite number"):
        corpus_bleu(["a b c d"], [["a b c d"]], smooth_method="floor", smooth_value=value)
    with pytest.raises(TypeError, match="smooth_value must be a real number"):
        BLEU(smooth_method="add-k", smooth_value="1")


def test_rouge_cli_on_empty_prediction_and_reference_files_is_an_error(tmp_path, capsys):
    pred, ref = tmp_path / "p.txt", tmp_path / "r.txt"
    pred.write_text("", encoding="utf-8")
    ref.write_text("", encoding="utf-8")
    assert main(["rouge", "-p", str(pred), "-r", str(ref)]) == 2
    assert "no prediction to score" in capsys.readouterr().err


def test_rouge_cli_reads_cr_only_line_endings_as_lines(tmp_path, capsys):
    pred, ref = tmp_path / "p.txt", tmp_path / "r.txt"
    pred.write_bytes(b"the cat sat\ra dog ran\r")
    ref.write_bytes(b"the cat sat\ra dog ran\r")
    assert main(["rouge", "-p", str(pred), "-r", str(ref), "--types", "rougeL", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["n"] == 2 and doc["aggregate"]["rougeL"]["fmeasure"] == 1.0


def test_whitespace_tokenizer_does_not_glue_a_bom_to_the_first_token(tmp_path, capsys):
    pred, ref = tmp_path / "p.txt", tmp_path / "r.txt"
    pred.write_bytes(b"\xef\xbb\xbfcat sat\n")
    ref.write_bytes(b"cat sat\n")
    assert main(["rouge", "-p", str(pred), "-r", str(ref), "--types", "rouge1", "--tokenizer", "whitespace",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["aggregate"]["rouge1"]["fmeasure"] == 1.0


@pytest.mark.parametrize("refs,error,message", [
    ([None], TypeError, r"references\[0\] must be a str or a list of str, got NoneType"),
    ([["a", None]], TypeError, r"references\[0\] .* holding NoneType, str"),
    ([[]], ValueError, r"references\[0\] is empty"),
])
def test_linear_ava_with_a_none_reference_names_the_row(refs, error, message):
    from qascore.ava import default_linear_model

    with pytest.raises(error, match=message):
        default_linear_model().predict_proba(["who wrote hamlet"], refs, ["shakespeare"])
