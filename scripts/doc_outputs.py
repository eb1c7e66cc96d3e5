"""Commands and their outputs in README and docs/, regenerated from a run or checked against the code: one mechanism.

    python scripts/doc_outputs.py build     regenerate every generated block and run every `run` fence
    python scripts/doc_outputs.py check     the same into a scratch folder; exit 1 naming each block that differs

Every fence of a page that quotes a command or its output is one of these:

- an output block, all of it generated: the command as a reader types it, then what it printed (stdout and
  stderr in the order it wrote them); `| first N` in the marker keeps the first N lines only:

      <!-- output: memrecall ARGS -->
      ```
      .venv/bin/memrecall ARGS
      ```

      ```
      what the command printed
      ```
      <!-- /output -->

- a synopsis block, generated from the command's own options (so it follows every change to them):

      <!-- synopsis: memrecall COMMAND -->
      ```
      memrecall COMMAND [--option VALUE] ...
      ```
      <!-- /synopsis -->

- a fence of commands under `<!-- commands: KIND; why -->`, KIND saying how it is checked (every `memrecall`
  line of every kind is parsed against the command line's own options, `python scripts/...`, `benchmarks/...`
  and `-m` modules are checked to exist and to take the options given, by the fast tests):
  `run` (build and check run each line in page order and need exit code 0), `reports` (each line writes a
  committed report, and is the very command scripts/check_signatures.py regenerates it with and compares
  fingerprints), `test tests/FILE.py` (that test runs it), `parsed` (only parsed: it needs real data, a model
  download or minutes of encoding; the why says which) or `external` (another project's commands).

A command quoted in the prose (a `memrecall ...` code span) is parsed the same way.

The commands of one page run in page order in one scratch folder holding `examples/`, `data/` and `docs/` (so
a later block may read what an earlier one wrote, and nothing lands in the checkout), with a home folder of
their own (no fetched encoders), without progress lines (MEMRECALL_PROGRESS=none, as a terminal's bar leaves
none behind), the scratch folder's and the checkout's paths shown as `/path/to/memrecall` and the home folder
as `/home/you`.
"""

from __future__ import annotations

import difflib
import importlib.util
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted(p.relative_to(ROOT).as_posix() for p in [*ROOT.glob("README*.md"), *(ROOT / "docs").glob("*.md")])
BLOCK = re.compile(r"<!-- output: (memrecall [^\n]*?) -->\n.*?<!-- /output -->", re.S)
SYNOPSIS = re.compile(r"<!-- synopsis: memrecall ([a-z-]+(?: [a-z-]+)*) -->\n.*?<!-- /synopsis -->", re.S)
FENCE = re.compile(r"^(?:<!-- commands: ([^>]*?) -->\n(?:<!-- [a-z-]+ -->\n)?)?```([A-Za-z]*)\n(.*?)^```", re.S | re.M)
GENERATED = re.compile(f"{BLOCK.pattern}|{SYNOPSIS.pattern}", re.S)
KINDS = ("run", "reports", "test", "parsed", "external")
SHOWN_ROOT = "/path/to/memrecall"
SHOWN_HOME = "/home/you"
LINKED = ("examples", "data", "docs", "site")
# a fence line that quotes a command or an output: these need a generated block or a `commands:` marker
QUOTED = re.compile(r"^(\$ |memrecall |\.venv/bin/|python |bash |cd |error: |valid: )")
SYNOPSIS_WIDTH = 110


def blocks(text: str) -> list[tuple[str, int | None]]:
    """(command, lines kept or None) of each output block of a page, in order."""
    out = []
    for match in BLOCK.finditer(text):
        command, _, keep = match.group(1).partition(" | first ")
        out.append((command.strip(), int(keep) if keep else None))
    return out


def run_output(command: str, folder: Path) -> str:
    """What `command` printed in `folder`, stdout and stderr interleaved, paths shown as a reader's would be."""
    home = folder.parent / "home"
    home.mkdir(exist_ok=True)
    args = shlex.split(command)[1:]
    env = {**os.environ, "MEMRECALL_PROGRESS": "none", "PYTHONUNBUFFERED": "1", "HOME": str(home)}
    for name in ("COLUMNS", "XDG_CACHE_HOME", "MEMRECALL_MODELS"):
        env.pop(name, None)
    done = subprocess.run(
        [sys.executable, "-m", "memrecall", *args],
        cwd=folder,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=900,
    )
    text = done.stdout
    for path, shown in ((home, SHOWN_HOME), (folder, SHOWN_ROOT), (ROOT, SHOWN_ROOT)):
        text = text.replace(str(path.resolve()), shown).replace(str(path), shown)
    lines = [line.rstrip() for line in text.splitlines()]
    if done.returncode != 0:
        lines.append(f"(exit code {done.returncode})")
    return "\n".join(lines)


def block_text(command: str, keep: int | None, output: str) -> str:
    """A whole block: the markers, the command as typed, its output."""
    marker = command + (f" | first {keep}" if keep is not None else "")
    shown = "\n".join(output.splitlines()[:keep]) if keep is not None else output
    typed = ".venv/bin/" + command
    return f"<!-- output: {marker} -->\n```\n{typed}\n```\n\n```\n{shown}\n```\n<!-- /output -->"


def cli_command(path: list[str]):
    """The click command `memrecall PATH...` names (a subcommand of a group included)."""
    import click

    from memrecall.cli import main

    command = main
    for name in path:
        found = command.get_command(click.Context(command), name) if isinstance(command, click.Group) else None
        if found is None:
            raise LookupError(f"memrecall {' '.join(path)}: no such command")
        command = found
    return command


def _value(param) -> str:
    """How a synopsis shows what an option takes: its choices, its default, or the kind of value."""
    import click

    if isinstance(param.type, click.Choice):
        return "|".join(str(c) for c in param.type.choices)
    default = param.default
    if isinstance(default, (str, int, float, Path)) and not isinstance(default, bool) and str(default) != "":
        return str(default)
    if param.metavar:
        return param.metavar
    if isinstance(param.type, click.Path):
        return "DIR" if not param.type.file_okay else "FILE" if not param.type.dir_okay else "PATH"
    if isinstance(param.type, (click.types.IntParamType, click.types.FloatParamType)):
        return "N"
    return param.name.upper()


def synopsis(path: str) -> str:
    """`memrecall PATH` with every argument and option it takes, wrapped, from the command's own definition."""
    import click

    command = cli_command(path.split())
    words = []
    for param in command.params:
        if isinstance(param, click.Argument):
            words.append(param.metavar or param.name.upper() + ("..." if param.nargs == -1 else ""))
        elif not getattr(param, "hidden", False):
            name = max(param.opts, key=len)
            word = name if param.is_flag else f"{name} {_value(param)}"
            word = word if param.required else f"[{word}]"
            words.append(word + ("..." if param.multiple else ""))
    head = f"memrecall {path} "
    lines, line = [], head
    for word in words:
        if len(line) + len(word) > SYNOPSIS_WIDTH and line.strip() != head.strip():
            lines.append(line.rstrip())
            line = " " * len(head)
        line += word + " "
    lines.append(line.rstrip())
    return "\n".join(lines)


def synopsis_text(path: str) -> str:
    """A whole synopsis block."""
    return f"<!-- synopsis: memrecall {path} -->\n```\n{synopsis(path)}\n```\n<!-- /synopsis -->"


def fences(text: str) -> list[tuple[str | None, str, int]]:
    """(marker, body, line) of each plain fence outside generated blocks that quotes a command or an output."""
    text = GENERATED.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    out = []
    for match in FENCE.finditer(text):
        marker, language, body = match.groups()
        if language or not any(QUOTED.match(line.strip()) for line in body.splitlines()):
            continue
        out.append((marker, body, text.count("\n", 0, match.start()) + (2 if marker else 1)))
    return out


def inline_commands(text: str) -> list[str]:
    """Each `memrecall ...` (or `python scripts/...`, `python benchmarks/...`) code span of a page's prose."""
    prose = FENCE.sub("", GENERATED.sub("", text))
    spans = re.findall(r"`((?:memrecall|python scripts/|python benchmarks/)[^`]*)`", prose)
    return [" ".join(span.split()) for span in spans]


def command_lines(body: str) -> list[list[str]]:
    """The words of each command in a fence: continuations joined, comments and `[ ]` of optional parts dropped."""
    out = []
    for line in body.replace("\\\n", " ").splitlines():
        line = line.strip().removeprefix("$ ")
        if not QUOTED.match(line) or line.startswith(("error: ", "valid: ")):
            continue
        for part in line.split("&&"):
            words = [w.strip("[]") for w in shlex.split(part, comments=True)]
            words = [w for w in words if w]
            if words and words[0] != "cd":
                out.append(words)
    return out


def parse_problem(words: list[str]) -> str | None:
    """Why `words` would not be taken as written (an unknown command, option or choice), or None."""
    import click

    if words[0].endswith("memrecall"):
        path, args = [], words[1:]
        while args and not args[0].startswith("-") and isinstance(cli_command(path), click.Group):
            if args[0].isupper():
                return None  # `memrecall COMMAND --help`: a placeholder for any command
            path.append(args.pop(0))
        try:
            command = cli_command(path)
            ctx = click.Context(command, info_name=" ".join(["memrecall", *path]))
            values, _, _ = command.make_parser(ctx).parse_args(list(args))
        except (LookupError, click.UsageError) as exc:
            return str(exc)
        for param in command.params:
            given = values.get(param.name)
            if isinstance(param.type, click.Choice) and isinstance(given, str) and given not in param.type.choices:
                return f"{param.opts[0]} {given!r} is not one of {list(param.type.choices)}"
        return None
    if words[0] in ("python", ".venv/bin/python") and len(words) > 2 and words[1] == "-m":
        return None if importlib.util.find_spec(words[2]) else f"no module {words[2]}"
    if words[0] in ("python", ".venv/bin/python", "bash") and len(words) > 1 and "/" in words[1]:
        script = ROOT / words[1]
        if not script.is_file():
            return f"no file {words[1]}"
        if script.suffix != ".py":
            return None
        source = script.read_text(encoding="utf-8")
        taken = set(re.findall(r"--[a-z][a-z-]*", source + script_help(script, words[2:], source)))
        unknown = [w.split("=")[0] for w in words[2:] if w.startswith("--") and w.split("=")[0] not in taken]
        return f"{words[1]} does not take {', '.join(unknown)}" if unknown else None
    return None


def script_help(script: Path, args: list[str], source: str) -> str:
    """The script's --help (for its first word, a subcommand, if any), asked only of one whose parser answers it."""
    if "ArgumentParser(" not in source and "from memrecall.cli import main" not in source:
        return ""  # a script without a parser would do its work instead: never run it here
    verbs = args[: next((i for i, w in enumerate(args) if w.startswith("-")), len(args))][:1]
    shown = subprocess.run(
        [sys.executable, str(script), *verbs, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    return shown.stdout


def _run_fence(body: str, folder: Path, where: str) -> None:
    """Run each command of a `run` fence in `folder`; raise naming the first that exits non-zero."""
    for words in command_lines(body):
        if not words[0].endswith("memrecall"):
            raise ValueError(f"{where}: a run fence holds memrecall commands only: {' '.join(words)}")
        output = run_output(shlex.join(["memrecall", *words[1:]]), folder)
        if output.endswith(")") and "(exit code " in output.splitlines()[-1]:
            raise RuntimeError(f"{where}: `{' '.join(words)}` failed:\n{output}")


def page_text(page: Path, folder: Path) -> str:
    """The page with every generated block regenerated and every `run` fence run, in page order, in `folder`."""
    text = page.read_text(encoding="utf-8")
    parts = re.compile(f"{GENERATED.pattern}|{FENCE.pattern}", re.S | re.M)

    def regenerate(match: re.Match) -> str:
        whole = match.group(0)
        if whole.startswith("<!-- output: "):
            command, _, keep = match.group(1).partition(" | first ")
            command = command.strip()
            keep = int(keep) if keep else None
            return block_text(command, keep, run_output(command, folder))
        if whole.startswith("<!-- synopsis: "):
            return synopsis_text(match.group(2))
        if (match.group(3) or "").split(";")[0].strip() == "run":
            _run_fence(match.group(5), folder, page.name)
        return whole

    return parts.sub(regenerate, text)


def scratch_folder(parent: Path) -> Path:
    """A folder with the checkout's examples/, data/ and docs/ linked in, as commands run from a clone see them."""
    folder = parent / "checkout"
    folder.mkdir()
    for name in LINKED:
        if (ROOT / name).is_dir():
            (folder / name).symlink_to(ROOT / name, target_is_directory=True)
    return folder


def has_work(text: str) -> bool:
    """Whether a page has anything build runs: a generated block or a `run` fence."""
    return bool(GENERATED.search(text)) or any((m or "").startswith("run") for m, _, _ in fences(text))


def fresh_pages() -> dict[Path, str]:
    """Every page that has blocks, with its blocks regenerated (each page in a scratch folder of its own)."""
    out = {}
    for name in PAGES:
        page = ROOT / name
        if not has_work(page.read_text(encoding="utf-8")):
            continue
        with tempfile.TemporaryDirectory(prefix="memrecall-docs-") as scratch:
            out[page] = page_text(page, scratch_folder(Path(scratch)))
    return out


def main() -> int:
    """build: rewrite the blocks; check: exit 1 naming every page whose blocks differ from a run."""
    if sys.argv[1:] in (["-h"], ["--help"]):
        print(f"usage: python scripts/doc_outputs.py build|check\n\n{__doc__}")
        return 0
    if len(sys.argv) != 2 or sys.argv[1] not in ("build", "check"):
        print("usage: python scripts/doc_outputs.py build|check", file=sys.stderr)
        return 2
    stale = []
    try:
        pages = fresh_pages()
    except RuntimeError as exc:
        print(f"doc outputs: {exc}", file=sys.stderr)
        return 1
    for page, text in pages.items():
        if page.read_text(encoding="utf-8") == text:
            continue
        if sys.argv[1] == "build":
            page.write_text(text, encoding="utf-8")
            print(f"doc outputs: rewrote {page.relative_to(ROOT)}")
        else:
            stale.append(page.relative_to(ROOT).as_posix())
            old, new = page.read_text(encoding="utf-8").splitlines(), text.splitlines()
            sys.stderr.writelines(line + "\n" for line in difflib.unified_diff(old, new, "committed", "a run", n=1))
    for name in stale:
        print(f"doc outputs: {name}: a generated block differs from the code or a run", file=sys.stderr)
    if stale:
        print("doc outputs: run `python scripts/doc_outputs.py build`, read the change, and commit", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
