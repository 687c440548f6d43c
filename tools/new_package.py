"""Scaffold a new papershelf package from tools/template.

    python tools/new_package.py my-method --description "One line." \\
        --paper "Full Title" --paper-url https://arxiv.org/abs/XXXX.XXXXX [--venue "NeurIPS 2024"] [--torch]

The result already passes `tools/check_packages.py`; fill in the method, the README's
quick example, the tests and reproduce.py.
"""

from __future__ import annotations

import argparse
import datetime as dt
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = Path(__file__).resolve().parent / "template"


def scaffold(
    name: str,
    description: str,
    *,
    paper: str,
    paper_url: str,
    venue: str = "NeurIPS 2024",
    torch: bool = False,
    root: Path = ROOT,
) -> Path:
    if not re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", name):
        raise ValueError(f"name must be kebab-case, got {name!r}")
    import_name = name.replace("-", "_")
    dest = root / "packages" / name
    if dest.exists():
        raise FileExistsError(f"{dest} already exists")
    subs = {
        "{{name}}": name,
        "{{import_name}}": import_name,
        "{{description}}": description,
        "{{date}}": dt.date.today().isoformat(),
        "{{paper}}": paper,
        "{{paper_url}}": paper_url,
        "{{venue}}": venue,
    }
    dirnames = {"__import_name__": import_name}
    for src in TEMPLATE.rglob("*"):
        if "__pycache__" in src.parts or src.suffix == ".pyc":
            continue
        rel = src.relative_to(TEMPLATE)
        target = dest / Path(*[dirnames.get(p, p) for p in rel.parts])
        if src.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        text = src.read_text()
        for k, v in subs.items():
            text = text.replace(k, v)
        target.write_text(text)
        shutil.copymode(src, target)
    if torch:
        pp = dest / "pyproject.toml"
        text = pp.read_text()
        text = text.replace(
            'dependencies = ["numpy>=1.26"]', 'dependencies = ["numpy>=1.26", "torch>=2.4"]'
        )
        text = text.replace("torch-free = true", "torch-free = false")
        pp.write_text(text)
    return dest


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("name", help="distribution name, kebab-case (import name is snake_case)")
    p.add_argument("--description", required=True)
    p.add_argument("--paper", required=True, help="the paper's full title")
    p.add_argument("--paper-url", required=True, help="link to the paper (arXiv or proceedings)")
    p.add_argument("--venue", default="NeurIPS 2024")
    p.add_argument("--torch", action="store_true", help="the method needs torch")
    a = p.parse_args(argv)
    dest = scaffold(
        a.name, a.description, paper=a.paper, paper_url=a.paper_url, venue=a.venue, torch=a.torch
    )
    print(
        f"created {dest.relative_to(ROOT)}; next: uv lock && nox -s \"tests(package='{a.name}')\""
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
