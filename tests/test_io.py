"""qascore.io, the one reader and writer of records: what a user's files meet."""
import gzip
import io as _io
import math
import os
import tempfile

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qascore import io
from qascore.errors import InputFormatError


def _stdin(monkeypatch, data: bytes) -> None:
    monkeypatch.setattr("sys.stdin", _io.TextIOWrapper(_io.BytesIO(data), encoding="utf-8"))


def test_lines_drop_a_bom_keep_empty_lines_and_read_gz(tmp_path):
    plain = tmp_path / "a.txt"
    plain.write_bytes(b"\xef\xbb\xbfone\r\n\ntwo")
    assert list(io.iter_lines(plain)) == [(1, "one"), (2, ""), (3, "two")]
    packed = tmp_path / "a.txt.gz"
    packed.write_bytes(gzip.compress("é\nb\n".encode()))
    assert [t for _, t in io.iter_lines(packed)] == ["é", "b"]


def test_invalid_utf8_names_file_line_and_byte(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok\nx\xffy\n")
    with pytest.raises(InputFormatError, match=r"bad.txt:2: invalid UTF-8 .* at byte 1"):
        list(io.iter_lines(bad))


def test_dash_reads_stdin_and_errors_name_it(monkeypatch):
    _stdin(monkeypatch, b'{"a": 1}\nnot json\n')
    with pytest.raises(InputFormatError, match=r"<stdin>:2: invalid JSON"):
        list(io.iter_jsonl("-"))
    _stdin(monkeypatch, b"p1\np2\n")
    assert list(io.iter_texts("-")) == ["p1", "p2"]


def test_jsonl_fields_and_lists(tmp_path):
    f = tmp_path / "r.jsonl"
    f.write_text('{"reference": "a"}\n{"reference": ["b", "c"]}\n', encoding="utf-8")
    assert list(io.iter_texts(f, "auto", "reference", allow_lists=True)) == ["a", ["b", "c"]]
    with pytest.raises(InputFormatError, match=r"r.jsonl:2: field 'reference' must be str, got list"):
        list(io.iter_texts(f, "jsonl", "reference"))
    f.write_text('{"reference": []}\n', encoding="utf-8")
    with pytest.raises(InputFormatError, match="non-empty list of strings"):
        list(io.iter_texts(f, "jsonl", "reference", allow_lists=True))
    f.write_text('{"other": "x"}\n', encoding="utf-8")
    with pytest.raises(InputFormatError, match=r":1: missing field 'reference'"):
        list(io.iter_texts(f, "jsonl", "reference"))


def test_tsv_header_must_be_said_when_the_first_line_looks_like_one(tmp_path):
    f = tmp_path / "x.tsv"
    f.write_text("id\tprediction\n1\tthe cat\n2\ta dog\n", encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"x.tsv:1: the first line looks like a header"):
        list(io.iter_texts(f, "tsv", "prediction"))
    with pytest.raises(InputFormatError, match="looks like a header"):
        list(io.iter_texts(f, "tsv", "1"))
    assert list(io.iter_texts(f, "tsv", "prediction", tsv_header=True)) == ["the cat", "a dog"]
    assert list(io.iter_texts(f, "tsv", "1", tsv_header=True)) == ["the cat", "a dog"]
    assert list(io.iter_texts(f, "tsv", "1", tsv_header=False)) == ["prediction", "the cat", "a dog"]
    data = tmp_path / "y.tsv"
    data.write_text("1\tthe cat\n2\ta dog\n", encoding="utf-8")
    assert list(io.iter_texts(data, "tsv", "1")) == ["the cat", "a dog"]  # no header-like line: fine
    with pytest.raises(InputFormatError, match=r"y.tsv:1: expected at least 4 tab-separated columns, got 2"):
        list(io.iter_texts(data, "tsv", "3"))


def test_dumps_is_strict_json():
    text = io.dumps({"nan": math.nan, "inf": -math.inf, "np": np.float32(0.5), "arr": np.arange(2), 1: "k"})
    assert text == '{"nan":null,"inf":null,"np":0.5,"arr":[0,1],"1":"k"}'


def test_open_output_replaces_the_target_only_on_success(tmp_path):
    target = tmp_path / "out.jsonl"
    target.write_text("old\n", encoding="utf-8")
    with pytest.raises(RuntimeError):
        with io.open_output(target) as out:
            out.write("partial\n")
            raise RuntimeError("scoring failed half way")
    assert target.read_text(encoding="utf-8") == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]  # no temporary file left
    with io.open_output(target) as out:
        io.write_jsonl([{"a": 1}, {"b": math.nan}], out)
    assert target.read_text(encoding="utf-8") == '{"a":1}\n{"b":null}\n'


def test_open_output_compresses_gz_and_writes_stdout_for_dash(tmp_path, capsys):
    target = tmp_path / "out.jsonl.gz"
    with io.open_output(target) as out:
        out.write("x\n")
    assert gzip.decompress(target.read_bytes()) == b"x\n"
    with io.open_output("-") as out:
        out.write("to stdout\n")
    assert capsys.readouterr().out == "to stdout\n"


def test_chunked():
    assert list(io.chunked(range(5), 2)) == [[0, 1], [2, 3], [4]]
    assert list(io.chunked([], 3)) == []
    with pytest.raises(ValueError, match="chunk size"):
        list(io.chunked([1], 0))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "é", "\n", "\r", "\r\n", " "]), max_size=20).map("".join))
def test_line_endings_are_python_universal_newlines(text):
    """LF, CRLF and a lone CR (old Mac files) all end a line, exactly as Python's text mode reads them."""
    expected = _io.TextIOWrapper(_io.BytesIO(text.encode()), encoding="utf-8", newline=None).read().split("\n")
    if expected[-1] == "":
        expected.pop()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "lines.txt")
        with open(path, "wb") as f:
            f.write(text.encode())
        assert [line for _, line in io.iter_lines(path)] == expected


def test_cr_only_file_reads_as_lines(tmp_path):
    old_mac = tmp_path / "cr.txt"
    old_mac.write_bytes(b"first\rsecond\rthird\r")
    assert list(io.iter_lines(old_mac)) == [(1, "first"), (2, "second"), (3, "third")]


# Line pieces that cover ASCII, 2-4 byte UTF-8, CR and invalid bytes (lone continuation, truncated
# sequence, surrogate, overlong).
_LINE_PIECES = [b"a", b"plain text", "é".encode(), "€".encode(), "𝄞".encode(), b"\r", b"\x80", b"\xe2\x82",
                b"\xed\xa0\x80", b"\xc0\xaf", b" "]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_LINE_PIECES), max_size=6).map(b"".join), max_size=8).map(b"\n".join))
def test_compiled_line_decoder_equals_split_then_decode(region):
    """The compiled line splitter gives Python's lines, or the same UnicodeDecodeError."""
    from qascore._kernels.text_lines import decode_lines

    try:
        expected = [line.decode("utf-8") for line in region.split(b"\n")]
    except UnicodeDecodeError:
        with pytest.raises(UnicodeDecodeError):
            decode_lines(region)
        return
    assert decode_lines(region) == expected
