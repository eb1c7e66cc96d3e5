"""One exception type per layer, each carrying where the problem is."""

from __future__ import annotations


class MemrecallError(Exception):
    """Base of every error the CLI turns into one readable line."""


class DatasetError(MemrecallError):
    """A dataset file cannot be turned into a Task: names the file and the JSON path or id."""

    def __init__(self, source: str, where: str, problem: str) -> None:
        self.source, self.where, self.problem = source, where, problem
        super().__init__(f"{source}: {where}: {problem}" if where else f"{source}: {problem}")


SHOWN_PROBLEMS = 20
ECHO_LIMIT = 80
_KINDS = (
    "missing query",
    "unknown query",
    "ranks unknown id",
    "more than once",
    "leaves out",
    "already ranked",
    "belongs to store",
    "invalid JSON",
    "nested more than",
    "expected a JSON object",
    "missing ",
    "must be",
    "unexpected field",
    "expected 6 fields",
    "finite number",
    "holds only",
    "duplicate key",
    "is not a number",
)


def short(value: object, limit: int = ECHO_LIMIT) -> str:
    """`value` as text, cut to about `limit` characters (a hostile 1 GB id must not reach the terminal)."""
    text = str(value)
    return text if len(text) <= limit else f"{text[: limit - 3]}... ({len(text)} characters)"


def problem_kind(problem: str) -> str:
    """The kind of a rankings problem, for the counts shown after the first 20."""
    return next((kind.strip() for kind in _KINDS if kind in problem), "other")


class RankingsError(MemrecallError):
    """Rankings (a file or a system's answers) are malformed or do not match the task; lists the first 20 problems.

    A hint (the likely cause, such as the wrong --benchmark) goes on the first line, before the list.
    """

    def __init__(self, source: str, problems: list[str], hint: str | None = None) -> None:
        self.source, self.problems = source, problems
        first = f"{source}: {len(problems)} problem(s)" + (f"; hint: {hint}" if hint else "")
        lines = [first, *(f"  {p}" for p in problems[:SHOWN_PROBLEMS])]
        if len(problems) > SHOWN_PROBLEMS:
            counts: dict[str, int] = {}
            for problem in problems:
                counts[problem_kind(problem)] = counts.get(problem_kind(problem), 0) + 1
            lines.append(
                f"  ... and {len(problems) - SHOWN_PROBLEMS} more; all {len(problems)} by kind: "
                + ", ".join(f"{kind} {n}" for kind, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
            )
        super().__init__("\n".join(lines))


class ConfigError(MemrecallError):
    """An option or configuration value is invalid."""


class SystemFailure(MemrecallError):
    """A system under test raised, exited or returned something unusable; names the system and the method."""


class SystemInterrupted(SystemFailure):
    """A KeyboardInterrupt came out of a system's own code (exit code 130, like Ctrl-C)."""


class UsageError(ConfigError):
    """A command-line value names something that is not there (exit code 2, like click's own usage errors)."""


def comma_list(text: str, option: str, spaces: bool = False, unique: bool = True) -> list[str]:
    """`a, b,c` as ['a', 'b', 'c']; an empty list, an empty item or (when `unique`) a repeat is a UsageError (exit 2).

    Every list option parses through this one rule; `spaces=True` lets whitespace separate items too.
    """
    import re

    if not isinstance(text, str) or not text.strip():
        raise UsageError(f"{option} is empty; give one or more comma-separated values")
    items = [item.strip() for item in re.split(r"\s*,\s*|\s+" if spaces else ",", text.strip())]
    if "" in items:
        raise UsageError(f"{option} {short(repr(text))}: item {items.index('') + 1} is empty")
    if unique:
        repeated = next((item for index, item in enumerate(items) if item in items[:index]), None)
        if repeated is not None:
            raise UsageError(f"{option} lists {short(repr(repeated))} twice")
    return items


def _loose_forms(value: str) -> tuple[tuple[str, str], ...]:
    """The looser readings of an id that a near miss is checked under, each with its name."""
    import unicodedata

    nfc = unicodedata.normalize("NFC", value)
    return (
        ("Unicode normalisation", unicodedata.normalize("NFKC", value)),
        ("case", nfc.casefold()),
        ("whitespace", "".join(value.split())),
        ("case and whitespace", "".join(unicodedata.normalize("NFKC", value).casefold().split())),
    )


class NearMiss:
    """Explains why an id that is not in `known` is not there: it differs from one only loosely.

    Ids are always compared exactly; this only words the error message.
    """

    def __init__(self, known) -> None:
        self._by_form: list[dict[str, str]] = [{}, {}, {}, {}]
        for candidate in known:
            if isinstance(candidate, str):
                for table, (_, form) in zip(self._by_form, _loose_forms(candidate), strict=True):
                    table.setdefault(form, candidate)

    def explain(self, given: object) -> str:
        """` (differs from 'Q1' only in case; ids are compared exactly)`, or `` when nothing is close."""
        if not isinstance(given, str):
            return ""
        for table, (what, form) in zip(self._by_form, _loose_forms(given), strict=True):
            candidate = table.get(form)
            if candidate is not None and candidate != given:
                return f" (differs from {short(repr(candidate))} only in {what}; ids are compared exactly)"
        return ""


def near_miss(given: object, known) -> str:
    """NearMiss(known).explain(given), for a single miss."""
    return NearMiss(known).explain(given)
