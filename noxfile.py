"""papershelf's session matrix. Every session is parametrized over the packages under packages/.

    nox -s tests                               # every package, each in its own environment
    nox -s "tests(package='stratppi')"         # one package
    nox -s reproduce                           # every reproduce.py, then docs/reproductions.md
    nox -s bench -- --quick                    # every bench.py, then docs/benchmarks.md
    nox -s lint check build

Environments are synced from uv.lock (`uv sync --frozen --package X`), so each package's
environment holds only the package, its declared dependencies and one of its own dependency
groups: an import that is not declared fails in `tests`. Torch and friends are hard-linked from
uv's cache, not downloaded again.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nox

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "tools"))
from _workspace import discover  # noqa: E402

PACKAGES = discover(ROOT)
NAMES = [p.name for p in PACKAGES]
BY_NAME = {p.name: p for p in PACKAGES}

nox.options.default_venv_backend = "uv"
nox.options.sessions = ["tests", "tools", "lint", "check"]
nox.options.reuse_venv = "yes"


def _sync(session: nox.Session, package: str, *groups: str, all_extras: bool = False) -> None:
    """Make the session's venv exactly: `package` + its dependencies + the given groups of it."""
    pkg = BY_NAME[package]
    args = ["uv", "sync", "--frozen", "--package", package, "--no-default-groups", "--exact"]
    if all_extras:
        args.append("--all-extras")
    for g in groups:
        if g in pkg.groups:
            args += ["--group", g]
    for extra in [] if all_extras else pkg.test_extras:
        args += ["--extra", extra]
    session.run_install(
        *args,
        env={"UV_PROJECT_ENVIRONMENT": session.virtualenv.location},
        silent=True,
    )


def _install_unlocked_peers(session: nox.Session, package: str) -> None:
    """Peers that cannot share the universal lock (e.g. jax-privacy, whose dp-accounting pins
    attrs < 24 while nox needs attrs >= 24.1), pinned exactly, into this session's venv only."""
    pins = BY_NAME[package].unlocked_peers
    if pins:
        python = str(Path(session.virtualenv.location) / "bin" / "python")
        session.run_install("uv", "pip", "install", "--python", python, *pins, silent=True)


def _env(package: str, session_kind: str) -> dict[str, str]:
    env = dict(BY_NAME[package].env.get(session_kind, {}))
    env.setdefault("PYTHONHASHSEED", "0")
    # Let each session's venv cache bytecode: with PYTHONDONTWRITEBYTECODE set (as on some
    # machines), every process that imports torch recompiles it (seconds per subprocess).
    env.setdefault("PYTHONDONTWRITEBYTECODE", "")
    if session_kind == "tests":
        # Tests run small tensors: with several BLAS/OpenMP threads on a shared or loaded machine
        # they wait on each other (pheno-impute, scalegmn measured 12-30x slower at 2 threads under
        # load). One thread per test process; timing sessions (bench, reproduce) are left alone.
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            env.setdefault(var, "1")
    return env


def _pytest(session: nox.Session, package: str, marker: str) -> None:
    pkg = BY_NAME[package]
    if marker == "slow":  # slow tests may need an integration: install all of them
        _sync(session, package, "test", *_integration_groups(package), all_extras=True)
        _install_unlocked_peers(session, package)
    else:
        _sync(session, package, "test")
    args = ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", marker]
    args += ["--doctest-modules", f"src/{pkg.import_name}", "tests"]
    args += session.posargs
    with session.chdir(pkg.path):
        # exit code 5 = no tests collected (e.g. a package without slow tests)
        session.run(
            *args, env=_env(package, "tests"), success_codes=[0, 5] if marker == "slow" else [0]
        )


@nox.session
@nox.parametrize("package", NAMES)
def tests(session: nox.Session, package: str) -> None:
    """Fast tests of one package, in an environment holding only what it declares."""
    _pytest(session, package, "not slow")


def _integration_groups(package: str) -> list[str]:
    return [g for g in BY_NAME[package].groups if g.startswith("test-")]


@nox.session
@nox.parametrize(
    "package",
    [
        n
        for n in NAMES
        if BY_NAME[n].optional or _integration_groups(n) or BY_NAME[n].unlocked_peers
    ],
)
def tests_extras(session: nox.Session, package: str) -> None:
    """Fast tests again with every optional extra and every `test-*` dependency group installed
    (and the package's `unlocked-peers`): the integrations (e.g. a torch-free package's torch/HF
    path) whose tests skip in `tests`. The torch-free assertion is deselected here."""
    _sync(session, package, "test", *_integration_groups(package), all_extras=True)
    _install_unlocked_peers(session, package)
    args = ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow", "tests"]
    args += ["-k", "not test_torch_free_means_no_torch"]
    with session.chdir(BY_NAME[package].path):
        session.run(*args, *session.posargs, env=_env(package, "tests"))


def _has_slow_tests(package: str) -> bool:
    tests = BY_NAME[package].path / "tests"
    return any("mark.slow" in f.read_text() for f in tests.rglob("*.py"))


@nox.session
@nox.parametrize("package", NAMES)
def tests_slow(session: nox.Session, package: str) -> None:
    """Tests marked `slow` (and `gpu` ones, which skip without a device), with every extra,
    `test-*` group and unlocked peer installed, so that a slow test of an integration (a torch
    extra's training run) runs here rather than skipping in every session."""
    if not _has_slow_tests(package):  # skip before the all-extras sync, which costs seconds
        session.skip(f"{package} has no test marked slow")
    _pytest(session, package, "slow")


@nox.session
@nox.parametrize("package", NAMES)
def reproduce(session: nox.Session, package: str) -> None:
    """Run reproduce.py (`-- --full` for the paper-scale version) and write its JSON to docs/results/."""
    pkg = BY_NAME[package]
    _sync(session, package, "bench")
    # peers measured beside ours (pfl-sim's dp-accounting, saliency-replay's avalanche-lib)
    _install_unlocked_peers(session, package)
    out = ROOT / "docs" / "results" / f"{package}.reproduce.json"
    with session.chdir(pkg.path):
        session.run(
            "python",
            "reproduce.py",
            "--json",
            str(out),
            *session.posargs,
            env=_env(package, "reproduce"),
        )
    session.notify("report")


@nox.session
@nox.parametrize("package", [n for n in NAMES if (BY_NAME[n].path / "bench.py").exists()])
def bench(session: nox.Session, package: str) -> None:
    """Run bench.py (`-- --quick` for the tiny configuration) and write its JSON to docs/results/."""
    pkg = BY_NAME[package]
    _sync(session, package, "bench")
    # peers measured beside ours (pfl-sim's dp-accounting, saliency-replay's avalanche-lib)
    _install_unlocked_peers(session, package)
    out = ROOT / "docs" / "results" / f"{package}.bench.json"
    with session.chdir(pkg.path):
        session.run(
            "python", "bench.py", "--json", str(out), *session.posargs, env=_env(package, "bench")
        )
    session.notify("report")


@nox.session(python=False)
def report(session: nox.Session) -> None:
    """Collect docs/results/*.json into docs/reproductions.md and docs/benchmarks.md; print the table."""
    session.run(sys.executable, str(ROOT / "tools" / "collect.py"), "--print")


@nox.session(python=False)
def lint(session: nox.Session) -> None:
    """ruff check + ruff format --check over the whole repository."""
    session.run("uv", "run", "--frozen", "--only-group", "dev", "ruff", "check", ".", external=True)
    session.run(
        "uv",
        "run",
        "--frozen",
        "--only-group",
        "dev",
        "ruff",
        "format",
        "--check",
        ".",
        external=True,
    )


@nox.session(python=False)
def tools(session: nox.Session) -> None:
    """Tests of the repository tooling itself (tools/tests)."""
    session.run(
        "uv",
        "run",
        "--frozen",
        "--only-group",
        "dev",
        "--only-group",
        "tools",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "tools/tests",
        external=True,
    )


@nox.session(python=False)
def check(session: nox.Session) -> None:
    """Package hygiene: metadata, README example, CHANGELOG entry, tests, reproduce.py, imports."""
    session.run(sys.executable, str(ROOT / "tools" / "check_packages.py"), *session.posargs)
    session.run(sys.executable, str(ROOT / "tools" / "collect.py"), "--catalogue", "--check")


@nox.session(reuse_venv=False)
@nox.parametrize("package", NAMES)
def build(session: nox.Session, package: str) -> None:
    """Build wheel + sdist with --no-sources, install the wheel ALONE into a clean venv and import it
    (the same code as tools/release.py: tools/_build.py)."""
    import _build

    pkg = BY_NAME[package]

    def run(cmd):
        return session.run(*cmd, external=True, silent=True)

    wheel = _build.build(pkg, ROOT, run)
    _build.install_alone(pkg, wheel, session.virtualenv.location, ROOT, run)
    session.run(
        "uv", "pip", "list", "--python", session.virtualenv.location, silent=False, external=True
    )
