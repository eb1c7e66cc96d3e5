"""Calls into a system's own code (user_code: whatever it raises becomes one named line), and config() values made
JSON-safe."""

from __future__ import annotations

import math
import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePath
from typing import Any

from memrecall.errors import MemrecallError, SystemFailure, SystemInterrupted

PACKAGE_DIR = str(Path(__file__).resolve().parents[1])


@contextmanager
def user_code(system_name: str, method: str, system: Any, context: str = "") -> Iterator[None]:
    """Run a block of the system's code; any exception, exit or interrupt from it becomes one named line."""
    try:
        yield
    except MemrecallError:
        raise
    except KeyboardInterrupt as exc:
        raise SystemInterrupted(_line(system_name, method + context, system, exc, "was interrupted")) from exc
    except SystemExit as exc:
        what = f"called sys.exit({exc.code!r})"
        raise SystemFailure(_line(system_name, method + context, system, exc, what)) from exc
    except Exception as exc:  # noqa: BLE001 - whatever a plug-in raises is reported, not a traceback
        message = str(exc).splitlines()[0][:200] if str(exc) else ""
        what = f"raised {type(exc).__name__}: {message}"
        raise SystemFailure(_line(system_name, method + context, system, exc, what)) from exc


def _line(system_name: str, method: str, system: Any, exc: BaseException, what: str) -> str:
    """ "system NAME: METHOD() [CONTEXT] WHAT (at FILE:LINE)", the plug-in's own frame when there is one."""
    where = plugin_frame(exc, system)
    name, _, context = method.partition(" ")
    call = f"{name}()" + (f" {context}" if context else "")
    return f"system {system_name}: {call} {what.rstrip(': ')}" + (f" (at {where})" if where else "")


def plugin_frame(exc: BaseException, system: Any) -> str | None:
    """FILE:LINE of the deepest traceback frame in the system's own module, else outside memrecall."""
    frames = traceback.extract_tb(exc.__traceback__)
    module = sys.modules.get(type(system).__module__)
    own_file = str(Path(module.__file__).resolve()) if getattr(module, "__file__", None) else None
    for wanted in (
        lambda f: own_file is not None and str(Path(f.filename).resolve()) == own_file,
        lambda f: not str(Path(f.filename).resolve()).startswith(PACKAGE_DIR),
    ):
        chosen = [f for f in frames if wanted(f)]
        if chosen:
            return f"{chosen[-1].filename}:{chosen[-1].lineno}"
    return f"{frames[-1].filename}:{frames[-1].lineno}" if frames else None


def json_safe_config(system_name: str, config: Any) -> dict:
    """config() as plain JSON (paths as text, numpy scalars as numbers), or one line saying what is wrong."""
    if not isinstance(config, dict):
        raise SystemFailure(f"system {system_name}: config() returned {type(config).__name__}, expected a dict")
    return _plain(system_name, config, "config()")


def _plain(system_name: str, value: Any, where: str) -> Any:
    """One value as JSON-safe data, refusing what has no faithful JSON form."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float) or type(value).__module__ == "numpy" and hasattr(value, "item"):
        item = value.item() if hasattr(value, "item") else value
        if isinstance(item, float) and not math.isfinite(item):
            raise SystemFailure(f"system {system_name}: {where} is {item}, which JSON cannot hold")
        if isinstance(item, (bool, int, float, str)):
            return item
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise SystemFailure(f"system {system_name}: {where} has a key that is not a string")
        return {k: _plain(system_name, v, f"{where}[{k!r}]") for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(system_name, v, f"{where}[{i}]") for i, v in enumerate(value)]
    raise SystemFailure(
        f"system {system_name}: {where} is a {type(value).__name__}; config() values must be JSON "
        "(str, number, bool, None, list, dict; paths and numpy scalars are converted)"
    )
