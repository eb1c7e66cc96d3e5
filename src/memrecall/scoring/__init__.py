"""Scoring: metrics, scoring policy, paired tests, sufficiency, diagnostics, per-query rows; imports data and below."""
