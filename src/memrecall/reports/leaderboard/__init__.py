"""The leaderboard: entries read and replayed, comparability tables, the page, its figures, README's table."""
