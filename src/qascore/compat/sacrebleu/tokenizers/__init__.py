"""``sacrebleu.tokenizers``: the tokenisers qascore provides, under sacrebleu's module names."""
