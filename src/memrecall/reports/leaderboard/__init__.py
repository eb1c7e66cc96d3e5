"""The leaderboard: entries read and replayed, tables grouped by comparability, the page, its figures, README's table."""
