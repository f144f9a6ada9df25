"""EXAM: answerability of held-out exam questions from system articles."""
