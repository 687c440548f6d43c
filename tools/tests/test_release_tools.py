"""Release readiness tooling: name check, licence and link checks, result schema, CI timing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

TOOLS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TOOLS))

import check_packages  # noqa: E402
import collect  # noqa: E402
import new_package  # noqa: E402
import release  # noqa: E402
import session_times  # noqa: E402
from _workspace import discover  # noqa: E402


@pytest.fixture
def pkg_dir(tmp_path: Path) -> Path:
    (tmp_path / "packages").mkdir()
    return new_package.scaffold(
        "my-method",
        "A one-line description.",
        paper="A Paper",
        paper_url="https://arxiv.org/abs/0000.00000",
        root=tmp_path,
    )


def _errors(pkg_dir: Path) -> str:
    (pkg,) = discover(pkg_dir.parents[1])
    return "\n".join(check_packages.check(pkg, None))


def test_name_status_free_ours_taken():
    index = {
        "genai-pricing": {
            "info": {
                "name": "genai-pricing",
                "version": "1.0.2",
                "summary": "tiktoken costs",
                "project_urls": {"Homepage": "https://github.com/someone/else"},
            }
        },
        "stratppi": {
            "info": {
                "name": "stratppi",
                "version": "0.1.0",
                "project_urls": {"Repository": "https://github.com/papershelf/papershelf"},
            }
        },
    }
    assert release.name_status("nothing-here", index.get)[0] == "free"
    assert release.name_status("stratppi", index.get)[0] == "ours"
    status, detail = release.name_status("genai-pricing", index.get)
    assert status == "taken" and "1.0.2" in detail


def test_relative_readme_links_are_flagged(pkg_dir):
    readme = pkg_dir / "README.md"
    readme.write_text(
        readme.read_text()
        + "\nSee [bench](BENCHMARKS.md), [sib](../natten-lite), ![fig](figures/a.png),"
        ' <img src="figures/b.png">, [ok](https://x.org/a) and [anchor](#api).\n\n[ref]: docs/x.md\n'
    )
    errs = _errors(pkg_dir)
    for target in (
        "BENCHMARKS.md",
        "../natten-lite",
        "figures/a.png",
        "figures/b.png",
        "docs/x.md",
    ):
        assert f"links {target!r}" in errs
    assert "https://x.org" not in errs and "#api" not in errs


def test_licence_and_vendored_checks_are_enforced(pkg_dir):
    assert _errors(pkg_dir) == ""
    (pkg_dir / "LICENSE").write_text("All rights reserved.\n")
    checks = pkg_dir / "src" / "my_method" / "_checks.py"
    checks.write_text(checks.read_text() + "\n# local edit\n")
    errs = _errors(pkg_dir)
    assert "LICENSE differs" in errs and "_checks.py differs" in errs
    (pkg_dir / "LICENSE").unlink()
    assert "LICENSE missing" in _errors(pkg_dir)


def test_anatomy_and_harness_use_are_enforced(pkg_dir):
    (pkg_dir / "notes.py").write_text("x = 1\n")
    (pkg_dir / "tests" / "test_scripts.py").unlink()
    (pkg_dir / "reproduce.py").write_text("import argparse  # --json\n")
    errs = _errors(pkg_dir)
    assert "notes.py: not in the anatomy table" in errs
    assert "check_scripts" in errs and "reproduce_cli" in errs


def test_scaffolded_package_is_lint_clean_and_its_script_runs(pkg_dir, tmp_path):
    ruff = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--no-cache",
            "--config",
            str(TOOLS.parent / "pyproject.toml"),
            str(pkg_dir),
        ],
        capture_output=True,
        text=True,
    )
    assert ruff.returncode == 0, ruff.stdout + ruff.stderr
    harness = TOOLS.parent / "packages" / "papershelf-harness" / "src"
    site = tmp_path / "site"  # metadata of the package, as if installed
    (site / "my_method-0.1.0.dist-info").mkdir(parents=True)
    (site / "my_method-0.1.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: my-method\nVersion: 0.1.0\n"
    )
    out = tmp_path / "r.json"
    env = {"PYTHONPATH": f"{harness}:{pkg_dir / 'src'}:{site}", "PATH": "/usr/bin:/bin"}
    run = subprocess.run(
        [sys.executable, str(pkg_dir / "reproduce.py"), "--quick", "--json", str(out)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(out.read_text())["claims"][0]["holds"] is None


def test_collect_fails_loudly_on_a_malformed_result(tmp_path, monkeypatch):
    monkeypatch.setattr(collect, "RESULTS", tmp_path)
    monkeypatch.setattr(collect, "ROOT", tmp_path)
    (tmp_path / "x.reproduce.json").write_text(json.dumps({"package": "x", "claims": []}))
    with pytest.raises(SystemExit, match="x.reproduce.json"):
        collect.load("reproduce")
    (tmp_path / "x.reproduce.json").write_text("{not json")
    with pytest.raises(SystemExit, match="not valid JSON"):
        collect.load("reproduce")


def test_session_times_table():
    log = (
        "nox > Session tests(package='a') was successful in 12 seconds.\n"
        "nox > Session lint was successful in 1 minute 5 seconds.\n"
        "nox > Session build(package='b') failed in 3 seconds.\n"
    )
    rows = session_times.parse(log)
    assert rows == [
        ("tests(package='a')", "ok", 12),
        ("lint", "ok", 65),
        ("build(package='b')", "FAILED", 3),
    ]
    text = session_times.table(rows)
    assert text.index("lint") < text.index("tests(package='a')") < text.index("build")
    assert text.splitlines()[-1].split()[-1] == "80"
