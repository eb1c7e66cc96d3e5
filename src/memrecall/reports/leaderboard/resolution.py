"""The leaderboard's warning for tables whose few stores cannot reach significance at all."""

from __future__ import annotations

from memrecall.reports.leaderboard.tables import ALPHA, Table
from memrecall.scoring.paired import smallest_holm_p


def resolution_note(table: Table) -> list[str]:
    """A warning when whole-store flips over this table's few stores cannot reach p_Holm below alpha at all."""
    stores = table.rows[0].stores if table.rows else None
    floor = smallest_holm_p(stores, len(table.rows) - 1) if stores else 0.0
    if floor < ALPHA:
        return []
    return [
        f'<p class="note">Its queries come from {stores} stores, flipped whole: over {len(table.rows) - 1} rows no '
        f"p<sub>Holm</sub> can fall below about {floor:.3f}, so here &ldquo;not separable&rdquo; says the "
        f"benchmark has too few independent stores to tell, not that the rows are alike. Read the CIs.</p>"
    ]
