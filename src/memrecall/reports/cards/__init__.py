"""Report cards: the Markdown card, its sections, figures, the cost and detectable-difference tables."""
