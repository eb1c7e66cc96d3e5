"""README's "measure your own system" example runs as written, fits its 15 lines, and its own assertion holds."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_python_api_example_runs(monkeypatch, capsys):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Measure your own system in 15 lines") :]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert 10 <= len([line for line in code.splitlines() if line.strip()]) <= 15
    monkeypatch.chdir(ROOT)
    exec(compile(code, "README.md", "exec"), {"__name__": "readme_example"})
    printed = capsys.readouterr().out
    assert printed.startswith("implicit recall@3: ")
    assert 0.0 <= float(printed.split(": ")[1]) <= 1.0
