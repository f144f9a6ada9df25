"""Fuzzing, a short fixed budget in CI and longer on demand.

- Differential: every ROUGE configuration (rouge1/2/L/Lsum x stemmer) against rouge-score and
  every sacrebleu metric (BLEU per tokenizer, chrF, chrF++, TER) against sacrebleu, on batches of
  realistic texts, with exact float equality (tests/fuzz_targets.py).
- Readers: random bytes never raise anything but InputFormatError (file:line), and valid text
  reads back exactly (lines, JSON lines, TSV columns).
- Kernels without a peer (nugget recall, EXAM lexical solver, AVA features, DuReader LCS/BLEU):
  random texts give finite scores in their range and no error.

Budget: ``QASCORE_FUZZ_EXAMPLES`` hypothesis examples per target (default 25; each example of a
differential target is a batch of up to 16 pairs). ``tools/fuzz.py`` runs the long budget with
a seeded generator and batch calls.
"""
from __future__ import annotations

import math
import os
import re

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzz_targets import (
    POOLS,
    ROUGE_CONFIGS,
    SACREBLEU_CONFIGS,
    SPACES,
    rouge_mismatches,
    sacrebleu_mismatches,
)
from qascore.errors import InputFormatError
from qascore.io import iter_jsonl, iter_lines, iter_texts

EXAMPLES = int(os.environ.get("QASCORE_FUZZ_EXAMPLES", "25"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                           HealthCheck.function_scoped_fixture])

_token = st.one_of(*[st.sampled_from(pool) for pool in POOLS],
                   st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=4))
_glue = st.one_of(st.sampled_from(SPACES), st.just(""))


@st.composite
def texts(draw, max_tokens: int = 24) -> str:
    tokens = draw(st.lists(st.tuples(_token, _glue), max_size=max_tokens))
    return "".join(a + b for a, b in tokens)


def pairs(max_tokens: int = 24, max_pairs: int = 16):
    return st.lists(st.tuples(texts(max_tokens), texts(max_tokens)), min_size=1, max_size=max_pairs)


# -- differential ---------------------------------------------------------------------------------
@pytest.mark.parametrize("rouge_type,use_stemmer", ROUGE_CONFIGS,
                         ids=[f"{t}-{'stem' if s else 'nostem'}" for t, s in ROUGE_CONFIGS])
@FUZZ
@given(batch=pairs())
def test_rouge_equals_rouge_score(rouge_type, use_stemmer, batch):
    preds, refs = [p for p, _ in batch], [r for _, r in batch]
    assert rouge_mismatches(rouge_type, use_stemmer, preds, refs) == []


@pytest.mark.parametrize("config", SACREBLEU_CONFIGS)
@FUZZ
@given(data=st.data())
def test_sacrebleu_metrics_equal_sacrebleu(config, data):
    # sacrebleu's TER is slow on long texts: shorter ones keep the budget
    batch = data.draw(pairs(max_tokens=10 if config == "ter" else 24))
    hyps, refs = [h for h, _ in batch], [r for _, r in batch]
    assert sacrebleu_mismatches(config, hyps, refs) == []


# -- readers --------------------------------------------------------------------------------------
def _read_or_named_error(read, path) -> list | None:
    """The records, or None after an InputFormatError naming the file and a line."""
    try:
        return list(read(path))
    except InputFormatError as exc:
        assert str(exc).startswith(f"{path}:"), str(exc)
        return None


def _write(tmp_path_factory, data: bytes, suffix: str):
    path = tmp_path_factory.mktemp("fuzz") / f"input{suffix}"
    path.write_bytes(data)
    return path


@FUZZ
@given(data=st.binary(max_size=300))
def test_lines_reader_on_random_bytes(tmp_path_factory, data):
    _read_or_named_error(iter_lines, _write(tmp_path_factory, data, ".txt"))


@FUZZ
@given(lines=st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"),
                              max_size=20), max_size=8),
       endings=st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=8, max_size=8),
       bom=st.booleans(), final=st.booleans())
def test_lines_reader_reads_back_every_line(tmp_path_factory, lines, endings, bom, final):
    body = "".join(line + end for line, end in zip(lines, endings))
    if lines and not final:
        body = body[: -len(endings[len(lines) - 1])]  # no ending after the last line
    data = (b"\xef\xbb\xbf" if bom else b"") + body.encode("utf-8")
    # universal newlines: LF, CRLF or a lone CR end a line; a last line needs no ending
    want = re.split(r"\r\n|\r|\n", body) if body else []
    if body.endswith(("\n", "\r")):
        want.pop()
    got = [text for _, text in iter_lines(_write(tmp_path_factory, data, ".txt"))]
    assert got == want


_json = st.recursive(st.none() | st.booleans() | st.integers(-2**63, 2**63 - 1) | st.text(max_size=8)
                     | st.floats(allow_nan=False, allow_infinity=False),
                     lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=4), children,
                                                                                         max_size=3), max_leaves=8)


@FUZZ
@given(values=st.lists(_json, max_size=6), noise=st.binary(max_size=40))
def test_jsonl_reader(tmp_path_factory, values, noise):
    data = b"".join(orjson.dumps(v) + b"\n" for v in values)
    assert [v for _, v in iter_jsonl(_write(tmp_path_factory, data, ".jsonl"))] == values
    _read_or_named_error(iter_jsonl, _write(tmp_path_factory, data + noise, ".jsonl"))


_cell = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\t\r\n"), max_size=10)


@FUZZ
@given(rows=st.lists(st.lists(_cell, min_size=3, max_size=3), min_size=1, max_size=6), column=st.integers(0, 2),
       noise=st.binary(max_size=40))
def test_tsv_reader(tmp_path_factory, rows, column, noise):
    data = "".join("\t".join(row) + "\n" for row in rows).encode("utf-8")
    path = _write(tmp_path_factory, data, ".tsv")
    assert list(iter_texts(path, "tsv", str(column), tsv_header=False)) == [row[column] for row in rows]
    noisy = _write(tmp_path_factory, data + noise, ".tsv")
    _read_or_named_error(lambda p: iter_texts(p, "tsv", str(column), tsv_header=False), noisy)


# -- kernels without a peer -----------------------------------------------------------------------
def _in_unit_interval(values) -> bool:
    return all(math.isfinite(v) and 0.0 <= v <= 1.0 for v in values)


@FUZZ
@given(responses=st.lists(texts(16), min_size=1, max_size=6))
def test_nugget_recall_kernel(responses):
    from pathlib import Path

    from qascore.nuggets import Nuggeteer, Run, read_answer_key

    key = read_answer_key(Path(__file__).parents[1] / "src/qascore/demo_data/nuggets/answer_key.txt")
    run = Run("fuzz")
    for i, text in enumerate(responses):
        run.add("1.1", f"D{i}", text)
    (score,) = Nuggeteer(key).score([run], beta=3.0)
    assert _in_unit_interval([score.mean] + [q.f for q in score.questions.values()])


@FUZZ
@given(paragraphs=st.lists(texts(20), min_size=1, max_size=4), question=texts(8),
       choices=st.lists(texts(4), min_size=2, max_size=4))
def test_exam_lexical_kernel(paragraphs, question, choices):
    from qascore.exam import ExamQuestion, LexicalSolver

    labels = [chr(ord("a") + i) for i in range(len(choices))]
    q = ExamQuestion("q", "q1", question, dict(zip(labels, choices)), "a")
    (answers,) = LexicalSolver().solve([paragraphs], [[q]])
    (answer,) = answers
    assert answer.label is None or answer.label in labels


@FUZZ
@given(batch=st.lists(st.tuples(texts(12), texts(12), texts(12)), min_size=1, max_size=8))
def test_ava_features_kernel(batch):
    import numpy as np

    from qascore.ava import compute_features, default_linear_model

    q, r, t = (list(x) for x in zip(*batch))
    features = compute_features(q, r, t)
    assert features.shape == (len(batch), 4) and np.isfinite(features).all()
    assert _in_unit_interval(default_linear_model().predict_proba(q, r, t))


@FUZZ
@given(batch=st.lists(st.tuples(texts(12), texts(12)), min_size=1, max_size=6))
def test_dureader_kernels(batch):
    from qascore.lexical import score_dureader
    from qascore.lexical.formats import DuReaderPrediction, DuReaderReference

    preds = {i: DuReaderPrediction(i, (p,), (), "<fuzz>", i + 1) for i, (p, _) in enumerate(batch)}
    refs = {i: DuReaderReference(i, "DESCRIPTION", (r,), (), ((),), "<fuzz>", i + 1) for i, (_, r) in enumerate(batch)}
    if not any(re.sub(r"\s", "", r) for _, r in batch):
        return  # no reference with an answer: an error by design, covered by the adversarial suite
    scores = score_dureader(preds, refs)
    assert _in_unit_interval([scores.rouge_l, *scores.bleu])
