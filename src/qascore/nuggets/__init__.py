"""Nugget evaluation: TREC formats, the official nugget F, Nuggeteer, Pourpre, TREC RAG nugget scores."""
