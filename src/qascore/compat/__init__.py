"""Drop-in call shapes of peer packages (rouge-score, sacrebleu), backed by qascore."""
