"""Free-text verification against the peers: rapidfuzz's fuzz.ratio and NLTK's Porter stemmer."""
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qascore.text.stopwords import STOPWORDS
from qascore.judges.matching import indel_ratio, normalise_workbench_answer, verify_free_text

fuzz = pytest.importorskip("rapidfuzz.fuzz")
nltk_porter = pytest.importorskip("nltk.stem.porter")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="abcde é日😀", max_size=25), st.text(alphabet="abcde é日😀", max_size=25))
def test_indel_ratio_equals_rapidfuzz(a, b):
    assert indel_ratio(a, b) == pytest.approx(fuzz.ratio(a, b), abs=1e-9)


@settings(max_examples=50, deadline=None)
@given(st.text(alphabet="abcdefgh ", min_size=60, max_size=400), st.text(alphabet="abcdefgh ", min_size=60, max_size=400))
def test_indel_ratio_long_texts_equals_rapidfuzz(a, b):
    """Over 64 characters the LCS runs over several machine words."""
    assert indel_ratio(a, b) == pytest.approx(fuzz.ratio(a, b), abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["Running", "runs", "the", "ponies", "Caresses", "of", "généralement", "x"]), max_size=6))
def test_normalize_matches_nltk_pipeline(words):
    stem = nltk_porter.PorterStemmer().stem
    text = " , ".join(words) + "!"
    expected = " ".join(stem(w) for w in re.findall(r"\w+", text.lower()) if w not in STOPWORDS)
    assert normalise_workbench_answer(text) == expected


def test_verification_rules():
    assert verify_free_text("The Antarctic!", ["antarctic"], mode="workbench")
    assert verify_free_text("photosynthesizes", ["photosynthesis"], mode="workbench")  # fuzzy > 80
    assert not verify_free_text("cat", ["bat"], mode="workbench")  # under 4 characters: exact only
    assert not verify_free_text("They live in Antarctica.", ["Antarctica"], mode="workbench")
    assert verify_free_text("They live in Antarctica.", ["Antarctica"], mode="contains")
    assert not verify_free_text("", ["x"]) and not verify_free_text("the of", ["the"])  # nothing left to compare
    with pytest.raises(ValueError, match="mode"):
        verify_free_text("a", ["a"], mode="loose")
