"""The shared adapter helpers: unreturned ids, depth, versions, the model folder, the offline settings."""

from __future__ import annotations

import itertools
import os
from types import SimpleNamespace

import pytest

from memrecall.errors import ConfigError
from memrecall.systems.adapters import common

STORE = ["d0", "d1", "d2", "d3"]


@pytest.mark.parametrize("returned", [list(p) for n in range(5) for p in itertools.permutations(STORE, n)])
def test_with_unreturned_is_returned_then_store_order(returned):
    ranked = common.with_unreturned(returned, STORE)
    assert ranked[: len(returned)] == returned
    assert ranked[len(returned) :] == [d for d in STORE if d not in returned]


def test_with_unreturned_drops_duplicates_and_strangers_and_cuts_to_depth():
    assert common.with_unreturned(["d2", "x", "d2", "d0"], STORE) == ["d2", "d0", "d1", "d3"]
    assert common.with_unreturned(["d3"], STORE, depth=2) == ["d3", "d0"]


@pytest.mark.parametrize(("depth", "expected"), [(3, 3), (None, None), (0, None), (True, None), ("3", None)])
def test_task_depth_only_takes_positive_ints(depth, expected):
    assert common.task_depth(SimpleNamespace(depth=depth)) == expected
    assert common.task_depth(object()) is None


def test_stack_version_reads_metadata():
    import numpy

    assert common.stack_version("numpy") == numpy.__version__
    assert common.stack_version("no-such-distribution-memrecall") == "not installed"


def test_import_stack_names_the_extra():
    with pytest.raises(ConfigError, match=r"^chroma adapter needs `pip install 'memrecall\[chroma\]'`"):
        common.import_stack("no_such_module_memrecall", "chroma", "chroma")
    assert common.import_stack("json", "x", "x").__name__ == "json"


def test_offline_env_sets_and_overrides(monkeypatch):
    for key in common.OFFLINE_ENV:
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.delenv("MEMRECALL_TEST_EXTRA", raising=False)
    common.offline_env({"MEMRECALL_TEST_EXTRA": "yes"})
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    assert os.environ["MEMRECALL_TEST_EXTRA"] == "yes"


def test_local_model_path_refuses_a_hub_name(monkeypatch, tmp_path):
    monkeypatch.setenv("MEMRECALL_MODEL", "some/hub-model")
    with pytest.raises(ConfigError, match="adapters need a local model folder"):
        common.local_model_path()
    monkeypatch.setenv("MEMRECALL_MODEL", str(tmp_path))
    assert common.local_model_path() == str(tmp_path.resolve())
    assert common.model_config() == {"model": tmp_path.resolve().name, "model_path": tmp_path.resolve().name}


def test_offline_env_also_turns_off_a_hub_imported_before_it(monkeypatch):
    import huggingface_hub.constants as hub

    monkeypatch.setattr(hub, "HF_HUB_OFFLINE", False)  # as if imported while HF_HUB_OFFLINE was unset
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    common.offline_env()
    assert hub.HF_HUB_OFFLINE is True and hub.is_offline_mode() and os.environ["HF_HUB_OFFLINE"] == "1"


def test_on_this_machine_is_a_local_folder_or_the_cache_and_never_a_download(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "cache"))
    import huggingface_hub.constants as hub

    monkeypatch.setattr(hub, "HF_HUB_CACHE", str(tmp_path / "cache"))
    cached = tmp_path / "cache" / "models--org--cached" / "snapshots" / "abc"
    cached.mkdir(parents=True)
    (cached / "config.json").write_text("{}")
    (tmp_path / "cache" / "models--org--cached" / "refs").mkdir()
    (tmp_path / "cache" / "models--org--cached" / "refs" / "main").write_text("abc")
    assert common.on_this_machine(common.local_model_path()) and common.on_this_machine("org/cached")
    assert not common.on_this_machine("org/absent") and not common.on_this_machine(str(tmp_path / "no-folder"))
