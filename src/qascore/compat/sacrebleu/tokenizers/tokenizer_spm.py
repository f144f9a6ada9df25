"""``sacrebleu.tokenizers.tokenizer_spm``: SentencePiece tokenisers (``spm`` = ``flores101``,
``flores200``, ``spBLEU-1K``; pip install "qascore[spm]") over a model file the user holds, found
where sacrebleu keeps it (``$SACREBLEU`` or ``~/.sacrebleu``, then ``models/``) or named by
``$QASCORE_SPM_MODEL``; never downloaded (:func:`qascore.text.sacrebleu_tokenizers.spm_model_path`)."""
from ....text.sacrebleu_tokenizers import SPM_MODELS, get_sacrebleu_tokenizer
from .tokenizer_base import NativeTokenizer

__all__ = ["SPM_MODELS", "Flores101Tokenizer", "Flores200Tokenizer", "TokenizerSPM", "spBLEU1KTokenizer"]


class TokenizerSPM(NativeTokenizer):
    def __init__(self, key: str = "spm") -> None:
        if key not in SPM_MODELS:
            raise ValueError(f"{key!r} is not a sentencepiece tokenizer; those are: {', '.join(SPM_MODELS)}")
        self._tokenizer = get_sacrebleu_tokenizer(key)
        self.name = self._tokenizer.signature()


class Flores101Tokenizer(TokenizerSPM):
    def __init__(self) -> None:
        super().__init__("flores101")


class Flores200Tokenizer(TokenizerSPM):
    def __init__(self) -> None:
        super().__init__("flores200")


class spBLEU1KTokenizer(TokenizerSPM):  # sacrebleu's name
    def __init__(self) -> None:
        super().__init__("spBLEU-1K")
