"""The newcomer's contract: documents cite only files that exist, and their tool commands parse."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
GENERATED = {"reproductions.md", "benchmarks.md"}
PATHLIKE = re.compile(r"`((?:packages|tools|docs|\.ci)/[^`\s]*|[\w.-]+\.(?:py|md|toml|sh|json))`")


def _cited(doc: Path) -> list[str]:
    text = doc.read_text()
    targets = [m.group(1) for m in re.finditer(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)]
    targets = [t for t in targets if not re.match(r"https?:|mailto:", t)]
    return targets + PATHLIKE.findall(text)


@pytest.mark.parametrize("doc", [d for d in DOCS if d.name not in GENERATED], ids=lambda d: d.name)
def test_cited_files_exist(doc):
    missing = []
    for target in _cited(doc):
        if any(c in target for c in "<>*{}X") or target.startswith(("dist/", "docs/results/")):
            continue  # placeholders (packages/<name>/...), globs, build outputs
        candidates = [doc.parent / target, ROOT / target]
        candidates += [p.path / target for p in _packages()]
        if "/" not in target and target in _tracked_names():
            continue  # a bare file name that some package carries (`__init__.py`)
        if not any(c.exists() for c in candidates):
            missing.append(target)
    assert not missing, f"{doc.name} cites files that do not exist: {missing}"


def _tracked_names() -> set[str]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout
    return {Path(f).name for f in out.split()}


def _packages():
    sys.path.insert(0, str(ROOT / "tools"))
    from _workspace import discover

    return discover(ROOT)


def _tool_commands() -> list[str]:
    cmds = []
    for doc in DOCS:
        text = doc.read_text().replace("\\\n", " ")  # shell line continuations
        for m in re.finditer(r"(?:^|`)(python3? tools/[\w_]+\.py[^`\n#]*)", text, re.M):
            cmds.append(" ".join(m.group(1).split()))
    return sorted(set(cmds))


@pytest.mark.parametrize("cmd", _tool_commands())
def test_tool_commands_parse(cmd, monkeypatch):
    """Every `python tools/X.py ...` in the docs names a tool that exists and whose parser accepts
    the documented arguments (new_package.py is parsed for real with the scaffold stubbed out)."""
    argv = shlex.split(cmd.replace("[", "").replace("]", ""))
    script = ROOT / argv[1]
    assert script.exists(), cmd
    if script.name == "new_package.py":
        sys.path.insert(0, str(ROOT / "tools"))
        import new_package

        made = []
        monkeypatch.setattr(
            new_package, "scaffold", lambda *a, **k: made.append(a) or ROOT / "packages" / a[0]
        )
        try:
            assert new_package.main(argv[2:]) == 0
        except SystemExit as e:
            raise AssertionError(f"documented command does not parse: {cmd}") from e
        assert made, cmd
        return
    proc = subprocess.run(
        [sys.executable, str(script), "--help"], capture_output=True, text=True, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr
