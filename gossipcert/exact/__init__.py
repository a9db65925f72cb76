"""Exact search: solver back-ends, symmetry breaking, proofs, the round search and
certificates."""
