"""The compiled encode_batch against the readable path: vocab.pack(tokenizer.tokenize_batch(texts))."""
from __future__ import annotations

import re
import threading
from functools import cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qascore._kernels.text_encode import first_non_str, rouge_code_point_bytes
from qascore.text import CharTokenizer, RougeTokenizer, UnicodeWordTokenizer, Vocabulary, WhitespaceTokenizer
from qascore.text import encode as encode_module
from qascore.text.tokenizers import unicode_char_class
from test_text_corpus import all_texts, msmarco_pairs


_OTHER_TOKENIZERS = [
    WhitespaceTokenizer(),
    CharTokenizer(),
    UnicodeWordTokenizer(),
    UnicodeWordTokenizer(use_stemmer=True),
]
_OTHER_IDS = ["whitespace", "char", "unicode", "unicode-stemmed"]


def _reference_pack(tokenizer, texts):
    vocab = Vocabulary()
    return vocab.pack(tokenizer.tokenize_batch(texts)), vocab


def _assert_same_packing(packed, expected):
    assert packed.ids.dtype == np.int32 and packed.offsets.dtype == np.int64
    np.testing.assert_array_equal(packed.offsets, expected.offsets)
    np.testing.assert_array_equal(packed.ids, expected.ids)


def _rows_as_tokens(packed, vocab):
    return [[vocab.token(i) for i in packed.row(r)] for r in range(len(packed))]


@pytest.fixture(params=[1, 2], ids=["1-thread", "2-threads"])
def n_jobs(request, monkeypatch):
    # Let small batches use threads too, so the parallel path meets every generated case.
    monkeypatch.setattr(encode_module, "MIN_TEXTS_PER_THREAD", 1)
    return request.param


def test_kernel_code_point_table_matches_python_lower_on_all_of_unicode():
    """The kernel's per-code-point rule is exactly what lower() + [^a-z0-9] does to each one."""
    table = rouge_code_point_bytes()
    for code in range(0x110000):
        lowered = re.sub(r"[^a-z0-9]", " ", chr(code).lower())
        if code in table:
            byte, ends_token = table[code]
            assert lowered[0] == chr(byte) and (lowered[1:] == " ") == ends_token and len(lowered) <= 2, hex(code)
        else:
            assert lowered.strip() == "", hex(code)


@cache
def _corpus_reference(data_dir, use_stemmer):
    return _reference_pack(RougeTokenizer(use_stemmer), list(all_texts(data_dir)))


@pytest.mark.parametrize("use_stemmer", [False, True])
def test_encode_matches_reference_on_the_shared_data(shared_data, use_stemmer, n_jobs):
    texts = list(all_texts(shared_data))
    tokenizer = RougeTokenizer(use_stemmer=use_stemmer)
    expected, expected_vocab = _corpus_reference(shared_data, use_stemmer)
    vocab = Vocabulary()
    _assert_same_packing(tokenizer.encode_batch(texts, vocab, n_jobs=n_jobs), expected)
    assert vocab._tokens == expected_vocab._tokens


def test_msmarco_references_and_candidates_share_ids(shared_data):
    references, candidates = msmarco_pairs(shared_data)
    tokenizer, vocab = RougeTokenizer(use_stemmer=True), Vocabulary()
    packed_refs = tokenizer.encode_batch(references, vocab)
    packed_cands = tokenizer.encode_batch(candidates, vocab)
    assert _rows_as_tokens(packed_refs, vocab) == tokenizer.tokenize_batch(list(references))
    assert _rows_as_tokens(packed_cands, vocab) == tokenizer.tokenize_batch(list(candidates))


_TEXT = (
    st.text(alphabet=st.characters(codec=None), max_size=60)
    | st.text(alphabet="aAzZ09 İ\u212a\u0307-é中\U0001F600\n", max_size=40)
    | st.lists(st.sampled_from(["running", "runs", "ran", "a", "internationalization", "x" * 9, "ies"]), max_size=12).map(" ".join)
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_TEXT, max_size=8), st.booleans())
def test_encode_matches_reference_on_generated_batches(n_jobs, texts, use_stemmer):
    tokenizer = RougeTokenizer(use_stemmer)
    expected, _ = _reference_pack(tokenizer, texts)
    _assert_same_packing(tokenizer.encode_batch(texts, Vocabulary(), n_jobs=n_jobs), expected)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(_TEXT, max_size=5), min_size=1, max_size=4))
def test_a_vocabulary_shared_by_calls_and_stemming_modes_stays_consistent(n_jobs, batches):
    """Ids persist across calls; stemmed and unstemmed encoders share one vocabulary."""
    vocab = Vocabulary()
    for index, texts in enumerate(batches):
        tokenizer = RougeTokenizer(use_stemmer=index % 2 == 1)
        packed = tokenizer.encode_batch(texts, vocab, n_jobs=n_jobs)
        assert _rows_as_tokens(packed, vocab) == tokenizer.tokenize_batch(texts)
        assert vocab.pack(tokenizer.tokenize_batch(texts)).ids.tolist() == packed.ids.tolist()


def test_empty_batch_and_empty_texts():
    packed = RougeTokenizer().encode_batch([], Vocabulary())
    assert len(packed) == 0 and packed.ids.shape == (0,) and packed.offsets.tolist() == [0]
    packed = RougeTokenizer().encode_batch(["", "!!", ""], Vocabulary())
    assert packed.offsets.tolist() == [0, 0, 0, 0] and packed.lengths().tolist() == [0, 0, 0]


@pytest.mark.parametrize(
    "text",
    [
        "a" * 1_000_000,  # one token of 1 MB
        "ab " * 300_000,  # many tokens of one type
        " ".join(f"w{i}" for i in range(100_000)),  # many types: the table grows while scanning
        ("İx\u212a " * 10_000) + "\U0001F600 end",  # UCS-4 text
        "中文 Wörd " * 30_000,  # UCS-2 text
    ],
    ids=["long-token", "many-tokens", "many-types", "ucs4", "ucs2"],
)
def test_huge_texts(text, n_jobs):
    tokenizer = RougeTokenizer()
    texts = [text, "tail text"] * 2
    expected, _ = _reference_pack(tokenizer, texts)
    _assert_same_packing(tokenizer.encode_batch(texts, Vocabulary(), n_jobs=n_jobs), expected)


def test_a_vocabulary_pickles_with_its_ids():
    import pickle

    vocab = Vocabulary()
    first = RougeTokenizer(use_stemmer=True).encode_batch(["Running cats", "the cat"], vocab)
    copy = pickle.loads(pickle.dumps(vocab))
    again = RougeTokenizer(use_stemmer=True).encode_batch(["Running cats", "the cat", "new words"], copy)
    assert again.ids[: len(first.ids)].tolist() == first.ids.tolist()
    assert _rows_as_tokens(again, copy)[2] == ["new", "word"]


@pytest.mark.parametrize("tokenizer", [RougeTokenizer(), *_OTHER_TOKENIZERS], ids=["rouge", *_OTHER_IDS])
def test_texts_may_be_any_iterable(tokenizer):
    vocab = Vocabulary()
    from_tuple = tokenizer.encode_batch(("a b", "b c"), vocab)
    from_generator = tokenizer.encode_batch((t for t in ["a b", "b c"]), vocab)
    assert _rows_as_tokens(from_tuple, vocab) == _rows_as_tokens(from_generator, vocab)
    assert _rows_as_tokens(from_tuple, vocab) == tokenizer.tokenize_batch(t for t in ["a b", "b c"])


def test_bad_n_jobs_is_an_error():
    with pytest.raises(ValueError, match="n_jobs"):
        RougeTokenizer().encode_batch(["a"] * 5000, Vocabulary(), n_jobs=0)


def test_threads_sharing_one_vocabulary_agree():
    texts = [f"token{i % 300} shared words {i}" for i in range(3000)]
    vocab, results = Vocabulary(), {}

    def encode(slot):
        results[slot] = RougeTokenizer().encode_batch(texts, vocab, n_jobs=1)

    threads = [threading.Thread(target=encode, args=(slot,)) for slot in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for packed in results.values():
        np.testing.assert_array_equal(packed.ids, results[0].ids)
    assert _rows_as_tokens(results[0], vocab) == RougeTokenizer().tokenize_batch(texts)




@pytest.mark.parametrize("tokenizer", _OTHER_TOKENIZERS, ids=_OTHER_IDS)
def test_other_tokenizers_encode_as_their_reference_on_the_shared_data(shared_data, tokenizer):
    texts = list(all_texts(shared_data))[::4]  # the references loop over characters in Python
    expected, expected_vocab = _reference_pack(tokenizer, texts)
    vocab = Vocabulary()
    _assert_same_packing(tokenizer.encode_batch(texts, vocab, n_jobs=1), expected)
    assert vocab._tokens == expected_vocab._tokens


_UNICODE_TEXT = _TEXT | st.text(alphabet="中文ภาษาไทยनमस्ते\u0301\u0e48 a1_\u3000\x1c\x85\ud800", max_size=30)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_UNICODE_TEXT, max_size=6), st.sampled_from(_OTHER_TOKENIZERS))
def test_other_tokenizers_encode_as_their_reference_on_generated_batches(n_jobs, texts, tokenizer):
    expected, _ = _reference_pack(tokenizer, texts)
    _assert_same_packing(tokenizer.encode_batch(texts, Vocabulary(), n_jobs=n_jobs), expected)


@settings(max_examples=300, deadline=None)
@given(st.characters(codec=None))
def test_unicode_class_table_follows_the_rule(char):
    table = encode_module.class_table(unicode_char_class, 0, 1, 2, 3)
    assert table[ord(char)] == unicode_char_class(char)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=5), st.none(), st.integers(), st.binary(max_size=3)), max_size=60))
def test_first_non_str_is_the_first_index_that_is_not_a_str(items):
    expected = next((i for i, x in enumerate(items) if not isinstance(x, str)), -1)
    for seq in (items, tuple(items), iter(items)):  # lists and tuples read in place, others copied
        assert first_non_str(seq) == expected
    with pytest.raises(TypeError, match="must be a sequence"):
        first_non_str(5)
