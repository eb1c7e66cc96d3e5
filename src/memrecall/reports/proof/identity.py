"""Who made a system's rankings, in words: memrecall's own code, a plug-in (isolated or not), or a file."""

from __future__ import annotations

from memrecall.errors import short

OWN_CODE = "memrecall's own code"


def system_identity(content: dict, name: str) -> dict | None:
    """The signed identity of a system in a report's content (None: memrecall's own system, by its name)."""
    entry = (content.get("systems") or {}).get(name)
    identity = entry.get("identity") if isinstance(entry, dict) else None
    return identity if isinstance(identity, dict) else None


def isolation(content: dict, name: str) -> str:
    """`own code`, `sandbox` (a plug-in in its own worker inside bubblewrap), `process` (in its own worker,
    unsandboxed), `none` (a plug-in that shared the interpreter), or `rankings file` (scored from a file: the
    code is not recorded)."""
    identity = system_identity(content, name)
    if identity is None:
        return "own code"
    if identity.get("origin") == "rankings file":
        return "rankings file"
    return str(identity.get("isolation", "none"))


def describe_identity(content: dict, name: str) -> str:
    """One line on the code behind a system's rankings, from signed content only."""
    version = content.get("memrecall_version", "?")
    identity = system_identity(content, name)
    if identity is None:
        from memrecall.systems.registry import is_trusted_spec

        if not is_trusted_spec(name):
            return (
                f"not known: the report records no identity for {short(repr(name))}, and no system of memrecall's "
                "own is registered under that name"
            )
        return f"{OWN_CODE}, the system registered as {short(name)} in memrecall {version}"
    if identity.get("origin") == "rankings file":
        return "scored from a rankings file; the code that made the rankings is not recorded"
    source = (
        f"{identity['distribution']} {identity.get('distribution_version')}"
        if identity.get("distribution")
        else f"{identity.get('source_file')} sha256 {str(identity.get('source_sha256'))[:16]}"
        if identity.get("source_sha256")
        else "source file not found"
    )
    code = identity.get("code")
    if isinstance(code, dict) and code.get("manifest_sha256"):
        count = len(code.get("files") or ())
        source += f"; {count} code file(s), manifest sha256 {str(code['manifest_sha256'])[:16]}"
    where = WHERE.get(str(identity.get("isolation")), WHERE["none"])
    spec = identity.get("spec") or "a Python object"
    return f"plug-in {short(str(spec))} (class {short(str(identity.get('class')))}, {source}), run {where}"


WHERE = {
    "sandbox": "in its own worker process inside a bubblewrap sandbox (isolation: sandbox)",
    "process": "in its own worker process, unsandboxed (isolation: process)",
    "none": "in the scorer's own interpreter (isolation: none)",
}
