"""One error boundary around a plug-in's code: every method, every way out, one line with its file and line."""

from __future__ import annotations

import json
import textwrap

import pytest
from conftest import MINI_RELEASE, run
from helpers import assert_one_line_error

from memrecall.errors import ConfigError

METHODS = ("prepare", "config", "name", "index", "rank", "rank_many")
FAILURES = {
    "raise": ("raise RuntimeError('disk on fire')", "raised RuntimeError: disk on fire", 1),
    "exit": ("import sys; sys.exit(0)", "called sys.exit(0)", 1),
    "interrupt": ("raise KeyboardInterrupt", "was interrupted", 130),
}


def plugin_source(method: str, failure: str) -> tuple[str, int]:
    """A plug-in whose `method` fails the given way, and the line number of the failing statement."""
    body = {m: "pass" for m in METHODS}
    body["name"] = "return 'fragile'"
    body["config"] = "return {'name': 'fragile'}"
    body["index"] = "self.ids = [d.id for d in documents]"
    body["rank"] = "return list(self.ids)"
    body["rank_many"] = "return [list(self.ids) for _ in queries]"
    body[method] = FAILURES[failure][0]
    lines = [
        "class Fragile:",
        "    @property",
        "    def name(self):",
        f"        {body['name']}",
        "    def prepare(self, task):",
        f"        {body['prepare']}",
        "    def config(self):",
        f"        {body['config']}",
        "    def index(self, documents):",
        f"        {body['index']}",
        "    def rank(self, query):",
        f"        {body['rank']}",
    ]
    if method == "rank_many":
        lines += ["    def rank_many(self, queries):", f"        {body['rank_many']}"]
    failing = next(i for i, line in enumerate(lines, 1) if FAILURES[failure][0] in line)
    return "\n".join(lines) + "\n", failing


@pytest.mark.parametrize("failure", sorted(FAILURES))
@pytest.mark.parametrize("method", METHODS)
def test_every_method_and_every_way_out_is_one_line_naming_the_plug_in_line(tmp_path, monkeypatch, method, failure):
    source, line = plugin_source(method, failure)
    module = f"fragile_{method}_{failure}"
    (tmp_path / f"{module}.py").write_text(source)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    output = tmp_path / "out" / "r.json"
    result = run(
        "run",
        "epirec",
        "--system",
        f"{module}:Fragile",
        "--data",
        MINI_RELEASE,
        "--quiet",
        "--output",
        output,
        "--export-rankings",
        tmp_path / "out" / "r.jsonl",
    )
    _, what, code = FAILURES[failure]
    assert result.exit_code == code, result.output
    assert f"{method}()" in result.output and what in result.output, result.output
    assert f"{module}.py:{line})" in result.output, result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_debug_shows_the_plug_in_traceback(tmp_path, monkeypatch):
    source, _ = plugin_source("rank", "raise")
    (tmp_path / "fragile_debug.py").write_text(source)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    result = run(
        "--debug",
        "run",
        "epirec",
        "--system",
        "fragile_debug:Fragile",
        "--data",
        MINI_RELEASE,
        "--quiet",
        "--output",
        tmp_path / "r.json",
    )
    assert result.exit_code == 1
    assert "Traceback" in result.output and "RuntimeError: disk on fire" in result.output


CONFIGS = {
    "None": ("None", "config() returned NoneType, expected a dict"),
    "a set": ("{'k': {1, 2}}", "config()['k'] is a set"),
    "infinity": ("{'k': float('inf')}", "config()['k'] is inf"),
    "an int key": ("{1: 'x'}", "config() has a key that is not a string"),
}


@pytest.mark.parametrize("case", sorted(CONFIGS))
def test_a_config_with_no_json_form_is_one_line(tmp_path, monkeypatch, case):
    value, expected = CONFIGS[case]
    module = "cfg_" + case.replace(" ", "_")
    (tmp_path / f"{module}.py").write_text(
        textwrap.dedent(f"""
        class Cfg:
            name = "cfg"
            def config(self):
                return {value}
            def index(self, documents):
                self.ids = [d.id for d in documents]
            def rank(self, query):
                return self.ids
    """)
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    result = run(
        "run",
        "epirec",
        "--system",
        f"{module}:Cfg",
        "--data",
        MINI_RELEASE,
        "--quiet",
        "--output",
        tmp_path / "r.json",
    )
    assert_one_line_error(result, f"system cfg: {expected}")
    assert not (tmp_path / "r.json").exists()


def test_paths_and_numpy_scalars_in_config_become_plain_json(tmp_path, monkeypatch):
    (tmp_path / "np_plugin.py").write_text(
        textwrap.dedent("""
        from pathlib import Path
        import numpy as np
        class Np:
            name = "np"
            def config(self):
                return {"model": Path("/models/mini"), "k1": np.float64(1.5), "top": np.int64(3), "on": np.bool_(True)}
            def index(self, documents):
                self.ids = [d.id for d in documents]
            def rank(self, query):
                return self.ids
    """)
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    result = run(
        "run", "epirec", "--system", "np_plugin:Np", "--data", MINI_RELEASE, "--quiet", "--output", tmp_path / "r.json"
    )
    assert result.exit_code == 0, result.output
    config = json.loads((tmp_path / "r.json").read_text())["env"]["system_configs"]["np"]
    assert config == {"model": "/models/mini", "k1": 1.5, "top": 3, "on": True}


@pytest.mark.parametrize("call", ["run_system", "evaluate_rankings"])
@pytest.mark.parametrize(
    ("seed", "resamples", "expected"),
    [
        (0, 0, "resamples must be an integer from 100 to 100000, got 0"),
        (-1, 2000, "seed must be an integer from 0 to 2**63-1, got -1"),
        ("0", 2000, "seed must be an integer"),
        (0, 2000.0, "resamples must be an integer"),
    ],
)
def test_the_python_api_checks_its_arguments_as_the_cli_does(call, seed, resamples, expected):
    import memrecall

    class Never:
        def index(self, documents):
            raise AssertionError("the system must not run when the arguments are wrong")

        def rank(self, query):
            raise AssertionError("unreachable")

    first = Never() if call == "run_system" else [{"persona_id": "t01", "probe_id": "x", "ranked_episode_ids": []}]
    with pytest.raises(ConfigError, match=expected.replace("*", r"\*")):
        getattr(memrecall, call)(first, "epirec", data=MINI_RELEASE, seed=seed, resamples=resamples)


@pytest.mark.slow
def test_an_unpicklable_plug_in_runs_under_ray_since_each_worker_builds_its_own(tmp_path, monkeypatch):
    (tmp_path / "locked_plugin.py").write_text(
        textwrap.dedent("""
        import threading
        class Locked:
            name = "locked"
            def __init__(self):
                self.lock = threading.Lock()
            def index(self, documents):
                self.ids = [d.id for d in documents]
            def rank(self, query):
                return self.ids
    """)
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    result = run(
        "run",
        "epirec",
        "--system",
        "locked_plugin:Locked",
        "--data",
        MINI_RELEASE,
        "--quiet",
        "--output",
        tmp_path / "r.json",
        "--executor",
        "ray",
        "--workers",
        "1",
    )
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert report["content"]["systems"]["locked"]["identity"]["isolation"] == "sandbox"
    assert report["env"]["executor"] == "ray"
