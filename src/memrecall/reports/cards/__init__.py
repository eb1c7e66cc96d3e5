"""Report cards: the Markdown card (card.py) and its figures (figures.py)."""
