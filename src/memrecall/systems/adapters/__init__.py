"""Adapters for outside retrieval stacks, each behind its own optional extra; import like systems.builtin."""
