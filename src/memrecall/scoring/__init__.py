"""Scoring: metrics, policy, paired tests, rank agreement, sufficiency, diagnostics, per-query rows; imports data."""
