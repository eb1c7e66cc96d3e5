"""The EpiRec releases installed with memrecall, read through importlib.resources."""

# In a checkout the release files here are symbolic links to the frozen files in data/, so the repository
# holds one copy of each; building a wheel or an sdist copies the bytes they point at.

from __future__ import annotations

from importlib import resources
from pathlib import Path

RELEASES = ("epirec_v1.json", "epirec_v2.json", "epirec_v3.json")
DEFAULT_RELEASE = "epirec_v3.json"  # what `epirec` loads when no --data is given
DEFAULT_VERSION = DEFAULT_RELEASE.removeprefix("epirec_").removesuffix(".json")  # "v3", as help texts say it


def bundled_release(name: str) -> Path:
    """The installed copy of a release file such as `epirec_v2.json` (a path on disk)."""
    return Path(str(resources.files(__package__).joinpath(name)))
