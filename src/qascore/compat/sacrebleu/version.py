"""The sacrebleu release whose numbers, signatures and call shapes this package reproduces; it is
the ``version`` printed in signatures, so a signature from here compares equal to sacrebleu's."""
__version__ = "2.6.0"
