"""Measure `memrecall diff` on LoCoMo turn (dense against hybrid) and the `gate` verdicts of issue 45's "done when".

Usage: python benchmarks/diff_gate.py [--locomo ../shared/data/locomo10.json] [--work FOLDER] [--screenshot PNG]
Runs dense and hybrid on LoCoMo turn and dense and hashing on EpiRec (v3 and v2) into --work (kept, and reused
when already there), then prints: the diff's fixed and broken counts against those counted from the two per-query
files, the page's size, its open time in headless Chromium (best of 3), and each gate's exit code and first line.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path

MEMRECALL = str(Path(sys.executable).with_name("memrecall"))
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]


def memrecall(*args: object) -> subprocess.CompletedProcess:
    """Run the memrecall command line, capturing its output."""
    return subprocess.run([MEMRECALL, *map(str, args)], capture_output=True, text=True)


def system_run(folder: Path, benchmark: str, system: str, data: Path) -> Path:
    """folder/SYSTEM.report.json with its rankings and per-query rows beside it (reused when present)."""
    report = folder / f"{system}.report.json"
    if not report.exists():
        folder.mkdir(parents=True, exist_ok=True)
        stem = folder / system
        beside = ["--export-rankings", f"{stem}.rankings.jsonl", "--per-query", f"{stem}.pq.jsonl"]
        done = memrecall("run", benchmark, "--system", system, "--data", data, "--output", report, *beside, "--quiet")
        if done.returncode:
            sys.exit(done.stderr)
    return report


def counted(first: Path, second: Path, k: int) -> dict[str, int]:
    """fixed and broken at k from two per-query files, headline queries only."""
    from memrecall.scoring.policy import strata_in_headline

    def hits(path: Path) -> dict[str, bool]:
        rows = [json.loads(line) for line in path.open(encoding="utf-8")]
        return {r["query_id"]: r["hit"][f"@{k}"] for r in rows if r["hit"] and strata_in_headline(r["strata"])}

    a, b = hits(first), hits(second)
    return {"fixed": sum(not a[q] and b[q] for q in a), "broken": sum(a[q] and not b[q] for q in a)}


def open_times(page: Path, screenshot: Path) -> list[tuple[float, float]]:
    """(wall seconds from goto, the page's own performance.now()) when its script has drawn every row, three times;
    one screenshot at 1400 px."""
    from playwright.sync_api import sync_playwright

    times = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for attempt in range(3):
            tab = browser.new_page(viewport={"width": 1400, "height": 1000})
            started = time.perf_counter()
            tab.goto(page.resolve().as_uri())
            tab.wait_for_selector("body[data-ready=true]")
            times.append((time.perf_counter() - started, tab.evaluate("performance.now()") / 1000))
            if attempt == 0:
                tab.click('button[data-outcome="broken"]')
                tab.locator("#rows tr.q:not([hidden])").first.click()
                tab.screenshot(path=str(screenshot))
            tab.close()
        browser.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--locomo", type=Path, default=Path("../shared/data/locomo10.json"))
    parser.add_argument("--work", type=Path, default=Path("results/diff_gate_benchmark"))
    parser.add_argument("--screenshot", type=Path, default=None)
    args = parser.parse_args()
    work = args.work
    locomo = work / "locomo_turn"
    reports = [system_run(locomo, "locomo-turn", s, args.locomo) for s in ("dense", "hybrid")]
    page = work / "locomo_turn_diff.html"
    started = time.perf_counter()
    done = memrecall("diff", *reports, "--data", args.locomo, "--output", page)
    seconds = time.perf_counter() - started
    if done.returncode:
        sys.exit(done.stderr)
    content = json.loads(re.search(r'id="diff-data">(.*?)</script>', page.read_text(encoding="utf-8"), re.S).group(1))
    overall = content["comparisons"][0]["groups"][0]
    files = counted(locomo / "dense.pq.jsonl", locomo / "hybrid.pq.jsonl", content["k"])
    times = open_times(page, args.screenshot or work / "locomo_turn_diff.png")
    print(f"diff dense hybrid, locomo-turn, {overall['n']} headline queries, k={content['k']}: {seconds:.1f} s")
    print(f"  page fixed {overall['counts']['fixed']}, broken {overall['counts']['broken']}; "
          f"per-query files fixed {files['fixed']}, broken {files['broken']}")  # fmt: skip
    print(
        f"  page size {page.stat().st_size / 1e6:.2f} MB; open in Chromium (wall from goto / in-page clock) "
        + ", ".join(f"{wall:.2f} / {inside:.2f} s" for wall, inside in times)
    )
    epirec = work / "epirec"
    dense = system_run(epirec, "epirec", "dense", Path("data/epirec_v3.json"))
    hashing = system_run(epirec, "epirec", "hashing", Path("data/epirec_v3.json"))
    other = system_run(work / "epirec_v2", "epirec", "dense", Path("data/epirec_v2.json"))
    guard = ["--metric", "recall@3", "--stratum", "probe_type=reflective_implicit", "--diff-page", work / "gate.html"]
    cases = {
        "dense (run) against dense, margin .02": ["--system", "dense", *guard, "--margin", "0.02"],
        "hashing against dense, margin .02": ["--candidate", hashing, *guard, "--margin", "0.02"],
        "dense against dense, 20-query sample, margin .01": ["--candidate", dense, *guard, "--margin", "0.01",
                                                             "--sample", "20", "--seed", "0"],
        "dense on EpiRec v2 against dense on v3": ["--candidate", other, *guard, "--margin", "0.02"],
    }  # fmt: skip
    for label, options in cases.items():
        done = memrecall("gate", "--baseline", dense, "--data", "data/epirec_v3.json", *options)
        print(f"gate {label}: exit {done.returncode}: {(done.stdout or done.stderr).splitlines()[0]}")


if __name__ == "__main__":
    main()
