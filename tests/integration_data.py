"""Real rows for the Ray and Spark tests: MS MARCO (prediction, references) pairs and EVOUNA-NQ
(question, aliases, answer) triples from ../shared/data, with the in-process scores to compare."""
import numpy as np

from qascore.ava.data import load_evouna
from qascore.integrations.batches import BatchScorer

from mrc_reference import msmarco_pairs

N_PAIRS = 3000
N_TRIPLES = 2000
LEXICAL_CASES = [
    ("rouge", {"rouge_types": ["rouge1", "rouge2", "rougeL", "rougeLsum"], "use_stemmer": True}),
    ("bleu", {}),
    ("chrf", {}),
    ("ter", {}),
]


def pair_rows(shared_data, n=N_PAIRS):
    predictions, references = msmarco_pairs(shared_data)
    # one reference column type per table: a string where a pair has one reference would need its own column
    return {"id": list(range(n)), "prediction": predictions[:n], "reference": references[:n]}


def triple_rows(shared_data, n=N_TRIPLES):
    triples = load_evouna(shared_data / "ava/evouna/NQ.json", aliases=True)
    return {"id": list(range(n)), "question": triples.questions[:n], "reference": triples.references[:n],
            "prediction": triples.candidates[:n]}


def assert_same_scores(column, rows, metric, options, close=False):
    """The scored output (``column(name)`` -> numpy array) equals the in-process scores of ``rows``:
    bit for bit, or (``close``, AVA) within 1e-5 with equal labels; dtypes equal."""
    want = BatchScorer(metric, **options).score_columns(rows)
    for name, values in want.items():
        got = column(name)
        assert got.dtype == values.dtype, name
        if close and got.dtype != bool:
            np.testing.assert_allclose(got, values, atol=1e-5, rtol=0)
        else:
            np.testing.assert_array_equal(got, values)
