"""qascore: fast, exact scoring of question answering and RAG output.

Methods live in their own subpackages (``lexical``, ``nuggets``, ``exam``, ``ava``); they share
the text layer (``qascore.text``), the compiled kernels (``qascore._kernels``), the statistics
(``qascore.stats``) and the ONNX runtime (``qascore.runtime``).
"""
__version__ = "0.1.0"
