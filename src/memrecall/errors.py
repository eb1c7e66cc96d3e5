"""One exception type per layer, each carrying where the problem is."""

from __future__ import annotations


class MemrecallError(Exception):
    """Base of every error the CLI turns into one readable line."""


class DatasetError(MemrecallError):
    """A dataset file cannot be turned into a Task: names the file and the JSON path or id."""

    def __init__(self, source: str, where: str, problem: str) -> None:
        self.source, self.where, self.problem = source, where, problem
        super().__init__(f"{source}: {where}: {problem}" if where else f"{source}: {problem}")


class RankingsError(MemrecallError):
    """A rankings file is malformed or does not match its task; carries every problem found."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source, self.problems = source, problems
        head = f"{source}: {len(problems)} problem(s)"
        super().__init__(head + "\n" + "\n".join(f"  {p}" for p in problems))


class CorpusViolation(MemrecallError):
    """The EpiRec sources break the generation spec; carries every violation."""

    def __init__(self, violations: list) -> None:
        self.violations = violations
        super().__init__(f"{len(violations)} corpus violation(s)\n" + "\n".join(f"  {v}" for v in violations))


class ConfigError(MemrecallError):
    """An option or configuration value is invalid."""


class SystemFailure(MemrecallError):
    """A system under test raised while indexing or ranking; names the system and the store."""


class UsageError(ConfigError):
    """A command-line value names something that is not there (exit code 2, like click's own usage errors)."""
