"""The shared layer: file readers name file and line, packing round-trips, signatures, CLI."""
import subprocess
import sys

import numpy as np
import pytest

from qascore import __version__
from qascore.errors import InputFormatError
from qascore.validate import check_text_batch
from qascore.io import iter_jsonl, iter_lines, require_field
from qascore.signature import make_signature
from qascore.text import CharTokenizer, Vocabulary, WhitespaceTokenizer, get_tokenizer


def test_invalid_utf8_names_file_and_line(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_bytes(b"ok\n\xff\xfe broken\n")
    with pytest.raises(InputFormatError, match=r"bad.txt:2: invalid UTF-8"):
        list(iter_lines(path))


def test_malformed_jsonl_names_line(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text('{"a": 1}\n{"a": \n', encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"x.jsonl:2: invalid JSON"):
        list(iter_jsonl(path))


def test_require_field_names_missing_field(tmp_path):
    with pytest.raises(InputFormatError, match=r"f:3: missing field 'answers'"):
        require_field({"q": 1}, "answers", list, "f", 3)


def test_check_text_batch_names_index():
    with pytest.raises(TypeError, match=r"predictions\[1\] must be str"):
        check_text_batch(["a", None], "predictions")


def test_vocabulary_packs_shared_ids():
    vocab = Vocabulary()
    a = vocab.pack([["x", "y"], [], ["y", "é"]])
    b = vocab.pack([["é", "z"]])
    assert a.ids.dtype == np.int32 and a.offsets.dtype == np.int64
    assert [vocab.token(i) for i in a.row(2)] == ["y", "é"]
    assert len(a.row(1)) == 0
    assert b.row(0)[0] == a.row(2)[1]
    assert list(a.lengths()) == [2, 0, 2]


def test_char_tokenizer_drops_whitespace_keeps_code_points():
    assert CharTokenizer().tokenize("北京 大学\u3000!") == ["北", "京", "大", "学", "!"]
    assert WhitespaceTokenizer().tokenize("  a\tb \n") == ["a", "b"]
    with pytest.raises(ValueError, match="unknown tokenizer"):
        get_tokenizer("nope")


def test_signature_records_settings():
    sig = make_signature("rougeL", stemmer=True, tok="rouge")
    assert sig == f"qascore:rougeL|stemmer:yes|tok:rouge|version:{__version__}"


def test_cli_version():
    out = subprocess.run([sys.executable, "-m", "qascore", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and __version__ in out.stdout
