"""Shared fixtures: tiny tasks you can check by hand, and a shared embedding cache."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
from network_guard import no_network_attempts, pytest_sessionstart  # noqa: F401 - adapter tests: no network

from memrecall.data.model import JudgedQuery, LabelledDocument

FIXTURES = Path(__file__).parent / "fixtures"
MINI_RELEASE = FIXTURES / "epirec_mini.json"
SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
LOCOMO_MISSING = (
    f"the real LoCoMo release is not here: put locomo10.json (github.com/snap-research/LoCoMo, data/locomo10.json, "
    f"CC BY-NC 4.0) in {SHARED_DATA}/ to run this test"
)
LONGMEMEVAL_MISSING = (
    f"the real LongMemEval sample is not here: put longmemeval_oracle_sample.json (two records of "
    f"longmemeval_oracle.json from huggingface.co/datasets/xiaowu0162/longmemeval-cleaned) in {SHARED_DATA}/"
)

REQUIRE_SHARED_DATA = "MEMRECALL_REQUIRE_SHARED_DATA"


def shared_file(*parts: str) -> Path:
    """A path under ../shared/data; the test skips where it is absent (fails in CI: pytest_runtest_makereport)."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is not here (../shared/data holds the real benchmark files; its README says whence)")
    return path


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):  # noqa: ANN001, ANN201 - pytest's hook
    """Under MEMRECALL_REQUIRE_SHARED_DATA=1 (CI) a skip because ../shared/data lacks a file is a failure instead."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and os.environ.get(REQUIRE_SHARED_DATA) == "1" and str(SHARED_DATA) in str(report.longrepr):
        report.outcome = "failed"
        report.longrepr = f"{REQUIRE_SHARED_DATA}=1, and this test skipped for want of real data: {report.longrepr}"


@pytest.fixture(scope="session")
def embedding_cache(tmp_path_factory) -> Path:
    """One embedding cache folder for the whole test session."""
    return tmp_path_factory.mktemp("embedding-cache")


def run(*args):
    """Invoke the memrecall CLI in-process with string arguments."""
    from click.testing import CliRunner

    from memrecall.cli import main

    return CliRunner().invoke(main, list(map(str, args)))


def doc(doc_id: str, text: str, day: int = 1) -> LabelledDocument:
    """A scorer-side document dated 2025-01-<day> UTC."""
    return LabelledDocument(doc_id, text, datetime(2025, 1, day, tzinfo=UTC))


def query(text: str, targets=("a",), query_id: str = "q") -> JudgedQuery:
    """A scorer-side query against store s asked at 2025-02-01 UTC."""
    return JudgedQuery(query_id, "s", text, datetime(2025, 2, 1, tzinfo=UTC), frozenset(targets))


FETCHED_BY_TESTS = ("potion-8m", "mpnet")


@pytest.fixture(scope="session")
def fetched():
    """Fetch the encoders the tests need (potion-8m, mpnet) into the models folder when they are not there."""
    from memrecall.encoding.fetch import fetch
    from memrecall.encoding.registry import model_folder, named

    for name in FETCHED_BY_TESTS:
        if not model_folder(named(name)).is_dir():
            fetch(named(name))


@pytest.fixture(scope="session")
def onnx_cache(tmp_path_factory) -> Path:
    """A cache folder holding the bundled MiniLM's fp32 and int8 ONNX exports, made once per test session."""
    from memrecall.encoding.encoders import export_for

    folder = tmp_path_factory.mktemp("onnx-cache")
    for precision in ("fp32", "int8"):
        export_for(folder, precision)
    return folder


LONG_MODULE = 500  # past about this many lines a module probably holds two things


def pytest_terminal_summary(terminalreporter) -> None:  # noqa: ANN001 - pytest's hook
    """Name each source module past LONG_MODULE lines, as a prompt to look (size alone is no reason to split)."""
    package = Path(__file__).resolve().parents[1] / "src" / "memrecall"
    for path in sorted(package.rglob("*.py")):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > LONG_MODULE:
            terminalreporter.write_line(f"note: {path.relative_to(package)} has {lines} lines: two things in one?")


ADAPTER_TESTS = Path(__file__).resolve().parent / "adapters"


def pytest_collection_modifyitems(items) -> None:  # noqa: ANN001 - pytest's hook
    """Every test under tests/adapters/ drives an outside stack: it carries the `adapters` marker."""
    for item in items:
        if ADAPTER_TESTS in Path(item.fspath).resolve().parents:
            item.add_marker(pytest.mark.adapters)
