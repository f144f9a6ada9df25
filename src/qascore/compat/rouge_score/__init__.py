"""Drop-in for the rouge-score 0.1.2 package, backed by qascore's compiled ROUGE.

Change ``from rouge_score import rouge_scorer, scoring, tokenizers, tokenize`` to
``from qascore.compat.rouge_score import ...`` and the same calls give the same floats, bit for
bit (rouge-score's own test suite runs against this package: ``peer_suites/rouge_score``):

- :mod:`.rouge_scorer`: ``RougeScorer`` (``score``, ``score_multi`` and, beyond rouge-score,
  ``score_batch`` on all cores), ``Score`` and the module's LCS / n-gram helpers;
- :mod:`.scoring`: ``Score``, ``AggregateScore``, ``BaseScorer``, ``BootstrapAggregator``
  (the same intervals under the same numpy random state), ``fmeasure``;
- :mod:`.tokenizers`: ``Tokenizer`` (abstract base), ``DefaultTokenizer(use_stemmer=False)``;
- :mod:`.tokenize`: ``tokenize(text, stemmer)`` and the module's regular expressions.

``RougeScorer`` and ``Score`` are also importable from this package itself.

Deliberate differences: an invalid ROUGE type (or a single string for ``rouge_types``) raises
``ValueError`` at construction, where rouge-score raises on the first ``score``; a text that is
not a ``str`` (rouge-score half-accepts ``bytes``) raises ``TypeError`` naming it; ``score_multi``
refuses a single string for ``targets`` (rouge-score would score it character by character).
"""
from __future__ import annotations

# The one-pair scorer's vocabulary (and the token caches the compiled encoder keeps in it) is
# dropped and rebuilt past MAX_VOCABULARY token types, so a long-lived scorer stays bounded in
# memory; checked every VOCABULARY_CHECK_PERIOD one-pair encodings (a check costs a noticeable part
# of a short pair). Kept here, read by rouge_scorer at run time, so they can be tuned in one place.
MAX_VOCABULARY = 1 << 20
VOCABULARY_CHECK_PERIOD = 256

from . import rouge_scorer, scoring, tokenize, tokenizers  # noqa: E402  (after the limits they read)
from .rouge_scorer import RougeScorer  # noqa: E402
from .scoring import Score  # noqa: E402

__all__ = ["RougeScorer", "Score", "rouge_scorer", "scoring", "tokenize", "tokenizers"]
