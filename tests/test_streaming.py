"""Streaming: chunked reading and writing, bounded memory, and results that do not depend on the
chunk size (CLI output byte for byte, the Python accumulators bit for bit)."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import qascore
from qascore import io
from qascore.cli import main
from qascore.cli import rouge as cli_rouge
from qascore.lexical import Rouge
from qascore.lexical.rouge import rouge
from qascore.metric import ExactSum

SRC = Path(qascore.__file__).resolve().parents[1]  # the qascore this test imported (installed in CI)
WORDS = "the cat sat on a mat hello world there nothing at all of".split()


def corpus(n: int, seed: int = 0) -> tuple[list[str], list[str]]:
    rng = np.random.default_rng(seed)
    texts = [" ".join(rng.choice(WORDS, size=rng.integers(0, 9))) for _ in range(2 * n)]
    return texts[:n], texts[n:]


def files(tmp_path, n: int, seed: int = 0) -> tuple[str, str]:
    preds, refs = corpus(n, seed)
    p, r = tmp_path / "p.txt", tmp_path / "r.txt"
    p.write_text("".join(t + "\n" for t in preds), encoding="utf-8")
    r.write_text("".join(t + "\n" for t in refs), encoding="utf-8")
    return str(p), str(r)


def cli_output(capsysbinary, *argv) -> bytes:
    assert main(["rouge", *argv]) == 0
    return capsysbinary.readouterr().out


@pytest.mark.parametrize("output", [[], ["--json"], ["--jsonl"], ["--per-example"], ["--json", "--per-example"],
                                    ["--jsonl", "--per-example"]])
def test_cli_output_does_not_depend_on_the_chunk_size(tmp_path, capsysbinary, output):
    p, r = files(tmp_path, 21)  # 21 = 3 * 7: exact multiples of 1, 3 and 7, not of 2 or 4
    whole = cli_output(capsysbinary, "-p", p, "-r", r, *output, "--chunk-size", "1000")
    for size in (1, 2, 3, 4, 7, 21):
        assert cli_output(capsysbinary, "-p", p, "-r", r, *output, "--chunk-size", str(size)) == whole, size


def test_per_example_jsonl_is_orjson_of_each_record_and_aggregate_is_the_exact_mean(tmp_path, capsysbinary):
    p, r = files(tmp_path, 50, seed=1)
    lines = cli_output(capsysbinary, "-p", p, "-r", r, "--jsonl", "--per-example", "--chunk-size", "7").splitlines()
    preds, refs = corpus(50, seed=1)
    result = rouge(preds, refs)
    for i, line in enumerate(lines[:-1]):
        record = {"index": i, **{name: {f: float(getattr(result[name], f)[i]) for f in ("precision", "recall",
                                                                                        "fmeasure")}
                                 for name in result}}
        assert line == orjson.dumps(record)
    aggregate = json.loads(lines[-1])["aggregate"]
    for name in result:
        for f in ("precision", "recall", "fmeasure"):
            exact = sum(map(Fraction, getattr(result[name], f).tolist())) / 50
            assert aggregate[name][f] == float(exact) == result.mean()[name][f]


def test_several_reference_files_stream_like_one_call(tmp_path, capsysbinary):
    p, r = files(tmp_path, 13)
    r2 = tmp_path / "r2.txt"
    r2.write_text("".join(t + "\n" for t in corpus(13, seed=5)[0]), encoding="utf-8")
    args = ["-p", p, "-r", r, "-r", str(r2), "--jsonl", "--per-example"]
    assert cli_output(capsysbinary, *args, "--chunk-size", "2") == cli_output(capsysbinary, *args)


def test_stdin_to_stdout_through_a_pipe(tmp_path):
    p, r = files(tmp_path, 30)
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    command = [sys.executable, "-m", "qascore", "rouge", "-r", r, "--jsonl", "--per-example"]
    with open(p, "rb") as stdin:
        piped = subprocess.run([*command, "-p", "-", "--chunk-size", "4"], stdin=stdin, capture_output=True, env=env)
    direct = subprocess.run([*command, "-p", p], capture_output=True, env=env)
    assert piped.returncode == direct.returncode == 0, piped.stderr
    assert piped.stdout == direct.stdout and len(piped.stdout.splitlines()) == 31


def test_pipe_reader_gets_the_first_chunk_before_the_input_ends(tmp_path):
    """Rows of a chunk are flushed at once: a reader sees them while the writer still waits for input."""
    _, r = files(tmp_path, 10)
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    proc = subprocess.Popen([sys.executable, "-m", "qascore", "rouge", "-p", "-", "-r", r, "--jsonl",
                             "--per-example", "--chunk-size", "2"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b"the cat\nhello world\n")
    proc.stdin.flush()
    first = proc.stdout.readline()  # blocks until the first chunk is written: the input is still open
    assert json.loads(first)["index"] == 0
    proc.stdin.write(b"".join(b"x\n" for _ in range(8)))
    proc.stdin.close()
    rest = proc.stdout.read()
    assert proc.wait() == 0 and len(rest.splitlines()) == 10  # 9 more rows and the aggregate
    proc.stdout.close()
    proc.stderr.close()  # type: ignore[union-attr]


def test_an_error_midway_leaves_no_output_file(tmp_path, capsys):
    preds, refs = corpus(1000)
    p, r, out = tmp_path / "p.txt", tmp_path / "r.txt", tmp_path / "out.jsonl"
    p.write_bytes("".join(t + "\n" for t in preds[:900]).encode() + b"\xff bad\n"
                  + "".join(t + "\n" for t in preds[901:]).encode())
    r.write_text("".join(t + "\n" for t in refs), encoding="utf-8")
    code = main(["rouge", "-p", str(p), "-r", str(r), "--jsonl", "--per-example", "--chunk-size", "100",
                 "-o", str(out)])
    assert code == 2
    assert capsys.readouterr().err.startswith(f"qascore rouge: error: {p}:901: invalid UTF-8 (invalid start byte "
                                              "at byte 0); the input must be UTF-8")
    assert sorted(os.listdir(tmp_path)) == ["p.txt", "r.txt"]  # no output, no temporary file left


def test_length_mismatch_found_midway_names_both_counts(tmp_path, capsys):
    p, r = files(tmp_path, 25)
    short = tmp_path / "short.txt"
    short.write_text("".join(f"x{i}\n" for i in range(11)), encoding="utf-8")
    assert main(["rouge", "-p", p, "-r", str(short), "--chunk-size", "4", "-o", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err.strip() == f"qascore rouge: error: {p} has 25 examples but {short} has 11"
    assert not (tmp_path / "o").exists()


def test_the_cli_never_scores_more_than_a_chunk(tmp_path, capsysbinary, monkeypatch):
    """Memory is bounded by the chunk: every batch handed to the scorer holds at most --chunk-size
    examples, and the reader has pulled at most one chunk ahead of what was scored."""
    p, r = files(tmp_path, 23)
    sizes: list[int] = []
    original = Rouge.result

    def spy(self, predictions, references):
        sizes.append(len(predictions))
        return original(self, predictions, references)

    monkeypatch.setattr(Rouge, "result", spy)
    cli_output(capsysbinary, "-p", p, "-r", r, "--jsonl", "--per-example", "--chunk-size", "5")
    assert sizes == [0, 5, 5, 5, 5, 3]  # 0: the constructor checks its settings on an empty batch


def test_aligned_chunks_hold_one_chunk_at_a_time():
    pulled = [0, 0]

    def source(k: int, n: int):
        for i in range(n):
            pulled[k] += 1
            yield i

    consumed = 0
    for chunk in io.aligned_chunks([source(0, 17), source(1, 17)], ["a", "b"], 4):
        assert all(len(part) <= 4 for part in chunk) and chunk[0] == chunk[1]
        consumed += len(chunk[0])
        assert max(pulled) - consumed <= 0  # nothing read beyond the chunk being handed out
    assert consumed == 17


@pytest.mark.parametrize("block", [1, 2, 3, 7, 1 << 20])
def test_line_blocks_are_bounded_and_number_lines(tmp_path, monkeypatch, block):
    monkeypatch.setattr(io, "_BLOCK", block)
    path = tmp_path / "x.txt"
    path.write_bytes(b"\xef\xbb\xbfab\r\ncd\ref\n\ngh")
    blocks = list(io.iter_line_blocks(path))
    assert [line for _, lines in blocks for line in lines] == ["ab", "cd", "ef", "", "gh"]
    assert [first for first, _ in blocks] == list(np.cumsum([1] + [len(b) for _, b in blocks[:-1]]))
    if block < 8:  # a block of a few bytes holds a line or two: the reader never holds the file
        assert all(len(lines) <= 2 + block for _, lines in blocks)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64), max_size=40), st.integers(1, 40))
def test_exact_sum_is_exact_and_split_invariant(values, cut):
    whole = ExactSum.of(values)
    assert whole == ExactSum.of(values[:cut]) + ExactSum.of(values[cut:])
    exact = sum(map(Fraction, values))
    assert float(whole) == _rounded(exact)  # fsum's own overflow check fires on intermediate sums
    if values:
        assert whole.mean(len(values)) == _rounded(exact / len(values))


def _rounded(value: Fraction) -> float:
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def test_exact_sum_beyond_the_largest_double_is_infinite_and_its_mean_is_not():
    big = [1.7976931348623157e308] * 2
    assert float(ExactSum.of(big)) == math.inf and float(ExactSum.of([-x for x in big])) == -math.inf
    assert ExactSum.of(big).mean(2) == 1.7976931348623157e308


def test_exact_sum_of_non_finite_values():
    assert math.isnan(ExactSum.of([1.0, math.nan]).mean(2))
    assert (ExactSum.of([math.inf]) + ExactSum.of([2.0])).mean(2) == math.inf
    assert ExactSum.of([]).mean(0) == 0.0


@pytest.mark.parametrize("size", [1, 2, 7, 40])
def test_rouge_accumulator_streams_bit_for_bit(size):
    preds, refs = corpus(40, seed=3)
    one_shot = Rouge(["rouge1", "rougeL", "rougeLsum"]).corpus_score(preds, refs)
    streamed = Rouge(["rouge1", "rougeL", "rougeLsum"])
    for start in range(0, 40, size):
        streamed.update(preds[start:start + size], refs[start:start + size])
    assert streamed.compute() == one_shot
    result = rouge(preds, refs, ["rouge1", "rougeL", "rougeLsum"])
    assert one_shot.values == {f"{n}_{f}": v for n, means in result.mean().items() for f, v in means.items()}


def test_number_rows_equals_orjson_of_each_record():
    rng = np.random.default_rng(0)
    values = np.concatenate([rng.random(50) ** 40, [0.0, 1.0, 1e-5, 1e16, np.nan, 5e-324]])
    n = len(values)
    record = {"index": np.arange(n), "a": {"x": values, "y": values[::-1]}, "z": rng.integers(-5, 5, n)}
    rows = io.number_rows(record).splitlines()
    for i in range(n):
        want = {"index": i, "a": {"x": float(values[i]), "y": float(values[::-1][i])}, "z": int(record["z"][i])}
        assert rows[i] == orjson.dumps(want)
    assert io.number_rows({"i": np.arange(0)}) == b""
    with pytest.raises(TypeError, match="1-D numeric"):
        io.number_rows({"s": np.array(["a"])})


def test_chunk_size_must_be_positive(tmp_path, capsys):
    p, r = files(tmp_path, 3)
    with pytest.raises(SystemExit) as stop:
        main(["rouge", "-p", p, "-r", r, "--chunk-size", "0"])
    assert stop.value.code == 2 and "--chunk-size: must be an integer from 1" in capsys.readouterr().err


def test_report_writes_nothing_for_an_empty_input(tmp_path, capsys):
    empty = tmp_path / "e.txt"
    empty.write_text("", encoding="utf-8")
    assert main(["rouge", "-p", str(empty), "-r", str(empty), "--per-example"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "no prediction to score" in captured.err
    assert cli_rouge.CHUNK_SIZE >= 1000


# -- ava score ----------------------------------------------------------------------------------

AVA_DEMO = SRC / "qascore" / "demo_data" / "ava_demo.jsonl"


def ava_records(n: int) -> list[dict]:
    """``n`` JSONL triple records: the demo's, each candidate numbered so that no two score alike."""
    demo = [orjson.loads(line) for line in AVA_DEMO.read_bytes().splitlines()]
    return [{**demo[i % len(demo)], "candidate": f"{demo[i % len(demo)]['candidate']} {i}"} for i in range(n)]


def ava_input(tmp_path, n: int) -> Path:
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in ava_records(n)))
    return path


def ava_output(capsysbinary, *argv) -> bytes:
    assert main(["ava", "score", "--model", "linear", "--label-field", "judged", *argv]) == 0
    return capsysbinary.readouterr().out


@pytest.mark.parametrize("output", [[], ["--json"]])
def test_ava_output_does_not_depend_on_the_chunk_size(tmp_path, capsysbinary, output):
    path = ava_input(tmp_path, 21)
    whole = ava_output(capsysbinary, str(path), *output, "--chunk-size", "1000")
    for size in (1, 7, 21):
        assert ava_output(capsysbinary, str(path), *output, "--chunk-size", str(size)) == whole, size
    rows = [orjson.loads(line) for line in ava_output(capsysbinary, str(path)).splitlines()]
    assert [{k: v for k, v in row.items() if k not in ("score", "judged")} for row in rows] == ava_records(21)
    if output:  # the document written piece by piece is orjson's text of the whole dict
        signature = orjson.loads(whole)["signature"]
        assert whole == orjson.dumps({"examples": rows, "n": 21, "signature": signature}) + b"\n"


def test_ava_aligned_files_stream_like_one_chunk(tmp_path, capsysbinary):
    records = ava_records(17)
    q, r, p = tmp_path / "q.txt", tmp_path / "r.jsonl", tmp_path / "p.txt"
    q.write_text("".join(x["question"] + "\n" for x in records), encoding="utf-8")
    r.write_bytes(b"".join(orjson.dumps({"reference": x["reference"]}) + b"\n" for x in records))
    p.write_text("".join(x["candidate"] + "\n" for x in records), encoding="utf-8")
    args = ["-q", str(q), "-r", str(r), "-p", str(p)]
    whole = ava_output(capsysbinary, *args, "--json", "--chunk-size", "100")
    assert ava_output(capsysbinary, *args, "--json", "--chunk-size", "4") == whole
    assert [x["candidate"] for x in orjson.loads(whole)["examples"]] == [x["candidate"] for x in records]


def test_ava_never_scores_more_than_a_chunk(tmp_path, capsysbinary, monkeypatch):
    from qascore.ava import Ava

    sizes: list[int] = []
    original = Ava.probabilities

    def spy(self, questions, references, candidates):
        sizes.append(len(questions))
        return original(self, questions, references, candidates)

    monkeypatch.setattr(Ava, "probabilities", spy)
    ava_output(capsysbinary, str(ava_input(tmp_path, 23)), "--chunk-size", "5")
    assert sizes == [5, 5, 5, 5, 3]


def test_ava_stdin_streams_and_flushes_each_chunk(tmp_path):
    path = ava_input(tmp_path, 10)
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    command = [sys.executable, "-m", "qascore", "ava", "score", "--model", "linear", "--label-field", "judged"]
    direct = subprocess.run([*command, str(path)], capture_output=True, env=env)
    proc = subprocess.Popen([*command, "-", "--chunk-size", "2"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    lines = path.read_bytes().splitlines(keepends=True)
    proc.stdin.write(b"".join(lines[:2]))
    proc.stdin.flush()
    first = proc.stdout.readline()  # blocks until the first chunk is written: the input is still open
    proc.stdin.write(b"".join(lines[2:]))
    proc.stdin.close()
    piped = first + proc.stdout.read()
    assert proc.wait() == 0 and direct.returncode == 0, proc.stderr.read()
    assert piped == direct.stdout and len(piped.splitlines()) == 10
    proc.stdout.close()
    proc.stderr.close()


@pytest.mark.parametrize("output", [[], ["--json"]])
def test_ava_bad_record_in_a_later_chunk_leaves_no_output_file(tmp_path, capsys, output):
    path = ava_input(tmp_path, 30)
    lines = path.read_bytes().splitlines(keepends=True)
    lines[24] = b'{"question": "q", "reference": [], "candidate": "c"}\n'  # line 25, in the 5th chunk of 6
    path.write_bytes(b"".join(lines))
    out = tmp_path / "out.jsonl"
    assert main(["ava", "score", "--model", "linear", "--label-field", "judged", str(path), *output, "--chunk-size", "6", "-o", str(out)]) == 2
    assert capsys.readouterr().err.strip() == (f"qascore ava: error: {path}:25: field 'reference' must be a string "
                                               "or a non-empty list of strings")
    assert sorted(os.listdir(tmp_path)) == ["in.jsonl"]  # no output, no temporary file left


def test_ava_short_aligned_file_found_in_a_later_chunk(tmp_path, capsys):
    q, r, p = tmp_path / "q.txt", tmp_path / "r.txt", tmp_path / "p.txt"
    q.write_text("q\n" * 12, encoding="utf-8")
    r.write_text("r\n" * 12, encoding="utf-8")
    p.write_text("c\n" * 9, encoding="utf-8")
    assert main(["ava", "score", "--model", "linear", "--label-field", "judged", "-q", str(q), "-r", str(r), "-p", str(p), "--chunk-size", "4",
                 "-o", str(tmp_path / "o.jsonl")]) == 2
    assert capsys.readouterr().err.strip() == f"qascore ava: error: {q} has 12 examples but {p} has 9"
    assert not (tmp_path / "o.jsonl").exists()


def test_ava_empty_input_is_an_error_with_no_output(tmp_path, capsys):
    empty = tmp_path / "e.jsonl"
    empty.write_bytes(b"")
    assert main(["ava", "score", "--model", "linear", "--label-field", "judged", str(empty), "--json", "-o", str(tmp_path / "o.json")]) == 2
    assert capsys.readouterr().err.strip() == f"qascore ava: error: {empty}: no triple to score (the input is empty)"
    assert sorted(os.listdir(tmp_path)) == ["e.jsonl"]
