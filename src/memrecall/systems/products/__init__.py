"""Memory products measured through their own public API, each behind its own optional extra (docs/adapters.md)."""
