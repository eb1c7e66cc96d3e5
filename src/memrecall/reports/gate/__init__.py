"""`memrecall gate`: a non-inferiority regression gate of a candidate against a committed baseline."""
