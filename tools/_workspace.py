"""Discover the workspace's packages and what each declares (shared by the noxfile and tools)."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(req: str) -> str:
    m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", req)
    if not m:
        raise ValueError(f"cannot parse requirement {req!r}")
    return canonical(m.group(1))


@dataclass
class Package:
    name: str
    path: Path
    pyproject: dict
    version: str
    import_name: str
    dependencies: list[str]
    optional: dict[str, list[str]]
    groups: dict[str, list]
    torch_free: bool
    env: dict[str, dict[str, str]] = field(default_factory=dict)
    test_extras: list[str] = field(default_factory=list)
    workspace_deps: list[str] = field(default_factory=list)
    #: peers that cannot share the universal lock (exact pins, installed by `tests_extras` and
    #: `bench` after the locked sync; see docs/design-notes.md)
    unlocked_peers: list[str] = field(default_factory=list)


def load(path: Path, names: set[str] | None = None) -> Package:
    data = tomllib.loads((path / "pyproject.toml").read_text())
    proj = data.get("project", {})
    cfg = data.get("tool", {}).get("papershelf", {})
    deps = list(proj.get("dependencies", []))
    name = proj.get("name", path.name)
    ws = [requirement_name(d) for d in deps if names and requirement_name(d) in names]
    return Package(
        name=name,
        path=path,
        pyproject=data,
        version=proj.get("version", ""),
        import_name=cfg.get("import-name", canonical(name).replace("-", "_")),
        dependencies=deps,
        optional=dict(proj.get("optional-dependencies", {})),
        groups=dict(data.get("dependency-groups", {})),
        torch_free=bool(cfg.get("torch-free", False)),
        env={k: {kk: str(vv) for kk, vv in v.items()} for k, v in cfg.get("env", {}).items()},
        test_extras=list(cfg.get("test-extras", [])),
        workspace_deps=ws,
        unlocked_peers=_exact_pins(cfg.get("unlocked-peers", []), path),
    )


def _exact_pins(reqs: list[str], path: Path) -> list[str]:
    for r in reqs:
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*==[0-9][A-Za-z0-9.+!-]*", r):
            raise ValueError(
                f"{path}/pyproject.toml: unlocked-peers entry {r!r} is not name==version"
            )
    return list(reqs)


def discover(root: Path) -> list[Package]:
    dirs = sorted(p for p in (root / "packages").iterdir() if (p / "pyproject.toml").exists())
    names = {
        canonical(tomllib.loads((d / "pyproject.toml").read_text())["project"]["name"])
        for d in dirs
    }
    return [load(d, names) for d in dirs]
