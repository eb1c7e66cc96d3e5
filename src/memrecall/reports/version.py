"""The memrecall version, recorded in every report's content (so changing it changes every fingerprint)."""

__version__ = "0.1.0"
