"""``sacrebleu.tokenizers.tokenizer_ter``: the Tercom tokeniser TER uses."""
from ....text.tercom import TercomTokenizer

__all__ = ["TercomTokenizer"]
