"""Build Nuggeteer's shipped background idf tables from wordfreq's English word frequencies.

The paper weights n-grams by idf from AQUAINT (about a million newswire documents), which cannot be
shipped. This script turns wordfreq's English frequencies (``wordfreq==3.1.1``, the ``large`` list;
a build-time tool only, never imported by qascore) into document frequencies of a pseudo corpus of
the same order and writes them in the ``--df-table`` layout that ``IdfTable.from_df_file`` reads:

* terms are what Nuggeteer's analyser makes of each listed word (``Analyzer(stem=...).terms``: the
  rouge tokeniser, lower case, ASCII letters and digits, Porter stems of words longer than 3
  characters in the stemmed table); a word that splits into several terms ("don't" -> "don", "t")
  adds its frequency to each, and words sharing a term or a stem add up;
* wordfreq stores numbers of two or more digits only as shapes ("0000" for every 4-digit number);
  those shape entries are dropped and the numbers 10..9999 are added one by one with wordfreq's own
  estimate (``word_frequency``: the shape's frequency split by Benford's law, years by their own
  curve); longer numbers are unseen terms;
* a term of frequency f (a share of all word tokens) gets the expected document frequency of a
  Poisson model, df = round(N (1 - exp(-L f))), in a pseudo corpus of N = 1,000,000 documents of
  L = 400 tokens (the order of AQUAINT's size), so idf = ln((N + 1) / (df + 0.5)) behaves like a
  document idf: function words get almost 0, rare words about 11;
* terms with f below 10^-7.5 are left out to keep the package small (about 1.3 MB for both
  tables); they and every other unlisted term get df 0, idf ln((N + 1) / 0.5) = 14.51.

Output (sorted by term, gzip without a timestamp, so a rebuild is byte-identical):
``src/qascore/nuggets/data/wordfreq_en.df.gz`` and ``wordfreq_en_stemmed.df.gz``.

Usage: ``pip install wordfreq==3.1.1 && python tools/build_background_idf.py [--out DIR]``;
``--check`` rebuilds in memory and exits 1 when a shipped file differs.
"""
from __future__ import annotations

import argparse
import gzip
import io
import math
import re
import sys
from collections import defaultdict
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "qascore" / "nuggets" / "data"
WORDFREQ_VERSION = "3.1.1"
N_DOCUMENTS = 1_000_000
DOCUMENT_LENGTH = 400
MIN_FREQUENCY = 10 ** -7.5
FILES = {False: "wordfreq_en.df.gz", True: "wordfreq_en_stemmed.df.gz"}
# wordfreq's number shapes (its numbers.MULTI_DIGIT_RE): a digit followed by digits, '.' or ','
_NUMBER_SHAPE = re.compile(r"\d[\d.,]+")


def term_frequencies(stem: bool) -> dict[str, float]:
    import wordfreq

    try:
        from qascore.nuggets.terms import Analyzer
    except ImportError:  # a checkout without qascore installed: its src/ (kernels built in place)
        sys.path.insert(0, str(ROOT / "src"))
        from qascore.nuggets.terms import Analyzer

    found = metadata.version("wordfreq")
    if found != WORDFREQ_VERSION:
        raise SystemExit(f"wordfreq {WORDFREQ_VERSION} is required, found {found}")
    analyzer = Analyzer(stem=stem)
    freq: dict[str, float] = defaultdict(float)
    for word, f in wordfreq.get_frequency_dict("en", wordlist="large").items():
        if _NUMBER_SHAPE.search(word):
            continue
        for term in analyzer.terms(word):
            freq[term] += f
    for number in range(10, 10_000):
        for term in analyzer.terms(str(number)):
            freq[term] += wordfreq.word_frequency(str(number), "en", wordlist="large")
    return dict(freq)


def df_table(freq: dict[str, float]) -> bytes:
    lines = [f"N {N_DOCUMENTS}\n"]
    for term in sorted(freq):
        if freq[term] >= MIN_FREQUENCY:
            df = round(N_DOCUMENTS * -math.expm1(-DOCUMENT_LENGTH * freq[term]))
            lines.append(f"{term}\t{df}\n")
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=buffer, mtime=0) as out:
        out.write("".join(lines).encode("ascii"))
    return buffer.getvalue()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=OUT, help=f"output folder (default {OUT.relative_to(ROOT)})")
    parser.add_argument("--check", action="store_true", help="compare with the files in --out, write nothing")
    args = parser.parse_args(argv)
    status = 0
    for stem, name in FILES.items():
        data = df_table(term_frequencies(stem))
        path = args.out / name
        if args.check:
            same = path.exists() and path.read_bytes() == data
            print(f"{path}: {'identical' if same else 'DIFFERS'}")
            status |= not same
        else:
            path.write_bytes(data)
            print(f"{path}: {len(data):,} bytes")
    return status


if __name__ == "__main__":
    sys.exit(main())
