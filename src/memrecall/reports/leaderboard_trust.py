"""TEMPORARY shim: report states and HTML escaping for the leaderboard until branch trust-reports is merged.

The agreed interfaces live in memrecall.reports.verification (verify_report, report_state, Check) and
memrecall.reports.escape (html_text, html_attr). When those modules exist they are used as they are;
until then the fallbacks below give the same names and result strings: "replayed", "fingerprint only",
"UNVERIFIED" (they check no signatures, so never "signed by KEY_ID"). Delete this module once both land.
"""

from __future__ import annotations

import hashlib
import html
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

try:  # pragma: no cover - depends on which branch is merged
    from memrecall.reports.escape import html_attr, html_text  # type: ignore[import-not-found]
except ImportError:

    def html_text(value: object) -> str:
        """Text for an HTML element body."""
        return html.escape(str(value), quote=False)

    def html_attr(value: object) -> str:
        """Text for a double- or single-quoted HTML attribute value."""
        return html.escape(str(value), quote=True)


try:  # pragma: no cover - depends on which branch is merged
    from memrecall.reports.verification import Check, report_state, verify_report  # type: ignore[import-not-found]

    SHIM = False
except ImportError:
    SHIM = True

    @dataclass(frozen=True)
    class Check:
        """One verification step: its name, whether it passed, and what was found."""

        name: str
        ok: bool
        detail: str

    def verify_report(report: dict, keys: Sequence = (), rankings: Sequence = (), data=None) -> list[Check]:
        """Fingerprint, rankings file hashes, and (with data) a replay that must give identical content."""
        from memrecall.reports.content import signature

        checks = [Check("fingerprint", report.get("signature") == signature(report.get("content", {})), "sha256")]
        content = report.get("content", {})
        names = content.get("system_order", [])
        for name, path in zip(names, rankings, strict=False):
            digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
            expected = content["systems"][name]["rankings_sha256"]
            checks.append(Check(f"rankings {name}", digest == expected, f"{digest[:12]} vs {expected[:12]}"))
        if data is not None and rankings:
            checks.append(_replay(report, rankings, data))
        return checks

    def _replay(report: dict, rankings: Sequence, data) -> Check:
        """Score the rankings again on the data; the content must come out identical."""
        from memrecall.benchmarks import get_benchmark
        from memrecall.errors import MemrecallError
        from memrecall.reports.content import round_floats
        from memrecall.reports.system_report import systems_report

        content = report["content"]
        bench = get_benchmark(content["benchmark"])
        bootstrap = content["scoring"]["bootstrap"]
        try:
            from memrecall.data.rankings import check_rows, parse_rankings_text

            loaded = data if hasattr(data, "task") else bench.load(Path(data))
            runs = []
            for name, path in zip(content["system_order"], rankings, strict=True):
                rows, problems = parse_rankings_text(Path(path).read_text(encoding="utf-8"), str(path))
                checked, mismatches = check_rows(rows, loaded.task, bench.require_full_rankings)
                if problems or mismatches:
                    return Check("replay", False, (problems + mismatches)[0])
                runs.append((name, checked))
            scoring = bench.scoring(seed=bootstrap["seed"], resamples=bootstrap["resamples"])
            again = systems_report(bench, loaded, runs, scoring)["content"]
        except MemrecallError as exc:
            return Check("replay", False, str(exc))
        same = round_floats(again) == content
        return Check("replay", same, "identical content" if same else "content differs")

    def report_state(report: dict, checks: Sequence[Check]) -> str:
        """'replayed', 'fingerprint only' or 'UNVERIFIED' (this shim checks no signatures)."""
        if not checks or not all(c.ok for c in checks):
            return "UNVERIFIED"
        return "replayed" if any(c.name == "replay" for c in checks) else "fingerprint only"
