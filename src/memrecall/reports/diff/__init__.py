"""`memrecall diff`: two or more systems' rankings side by side per query, as a page and a summary."""
