"""Encoders and the embedding cache; imports only io, errors and progress."""
