"""Label placement for the leaderboard's figures: each label at the first of a fixed list of offsets around its point
where it overlaps no label placed before it, no point and stays inside the axes; deterministic, no solver."""

from __future__ import annotations

import math
from collections.abc import Sequence

Box = tuple[float, float, float, float]  # left, bottom, right, top, in points
RADII = (4.0, 9.0, 15.0, 22.0, 30.0, 40.0, 52.0)
ANGLES = (30, -30, 150, -150, 90, -90, 0, 180, 60, -60, 120, -120)
MARKER = 3.5  # half a marker's size in points


def overlaps(a: Box, b: Box) -> bool:
    """True when two boxes share any area."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def label_box(anchor: tuple[float, float], offset: tuple[float, float], size: tuple[float, float]) -> Box:
    """The box of a label of `size` whose nearest corner sits at `offset` from `anchor` (left of it when dx < 0)."""
    x, y = anchor[0] + offset[0], anchor[1] + offset[1]
    left = x - size[0] if offset[0] < 0 else x - size[0] / 2 if offset[0] == 0 else x
    bottom = y - size[1] if offset[1] < 0 else y - size[1] / 2 if offset[1] == 0 else y
    return left, bottom, left + size[0], bottom + size[1]


def candidate_offsets() -> list[tuple[float, float]]:
    """Every offset tried, nearest first, in a fixed order."""
    turns = [math.radians(a) for a in ANGLES]
    return [(round(r * math.cos(t), 3), round(r * math.sin(t), 3)) for r in RADII for t in turns]


def place_labels(
    anchors: Sequence[tuple[float, float]], sizes: Sequence[tuple[float, float]], bounds: Box
) -> list[tuple[float, float]]:
    """An offset in points per label, in order: the first candidate clear of earlier labels, every point and the
    bounds; when none is clear, the candidate overlapping fewest (ties: the nearest)."""
    points = [(x - MARKER, y - MARKER, x + MARKER, y + MARKER) for x, y in anchors]
    placed: list[Box] = []
    offsets = []
    for anchor, size in zip(anchors, sizes, strict=True):
        best, fewest = None, None
        for offset in candidate_offsets():
            box = label_box(anchor, offset, size)
            outside = box[0] < bounds[0] or box[1] < bounds[1] or box[2] > bounds[2] or box[3] > bounds[3]
            hits = sum(overlaps(box, other) for other in placed + points) + (100 if outside else 0)
            if fewest is None or hits < fewest:
                best, fewest = offset, hits
            if hits == 0:
                break
        placed.append(label_box(anchor, best, size))
        offsets.append(best)
    return offsets
