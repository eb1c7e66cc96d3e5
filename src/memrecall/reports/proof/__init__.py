"""What a report proves: fingerprints, signatures, replay, verification, and the identity of the code."""
