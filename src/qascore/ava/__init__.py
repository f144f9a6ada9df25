"""AVA: answer correctness from (question, reference, candidate)."""
