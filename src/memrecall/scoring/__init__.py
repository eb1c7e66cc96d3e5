"""Scoring: metrics, scoring policy, paired tests, rank agreement, sufficiency, diagnostics, per-query rows; imports
data and below."""
