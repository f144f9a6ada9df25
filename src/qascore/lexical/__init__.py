"""Lexical metrics: ROUGE-N/L/Lsum, BLEU and the MRC adaptations of ROUGE-L and BLEU."""
