"""``python -m qascore.compat.sacrebleu REF -i SYSTEM ...``: sacrebleu's command line, the same
code as ``qascore bleu`` (:mod:`qascore.cli.bleu`)."""
import sys

from ...cli import main

sys.exit(main(["bleu", *sys.argv[1:]]))
