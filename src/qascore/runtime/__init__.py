"""ONNX Runtime sessions, tokenisation, batching and device choice for every transformer model."""
