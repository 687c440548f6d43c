"""Test helpers shared by every package: the script smoke test and the bad-input assertions.

``tests/test_scripts.py`` of a package is three lines::

    from papershelf_harness.testing import check_scripts

    def test_scripts(tmp_path):
        check_scripts(__file__, tmp_path, reproduce=["--quick"], bench=["--quick"])

The bad-input test of a package uses :func:`assert_rejects` and the strategies in
:mod:`papershelf_harness.strategies`; a package whose core must not import torch checks that
with :func:`check_lazy_extra`.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from .schema import validate_bench, validate_reproduce


def load_script(path: str | Path) -> ModuleType:
    """Import a script (``reproduce.py``, ``bench.py``) from its path under a private name."""
    path = Path(path).resolve()
    name = f"_papershelf_script_{path.parent.name.replace('-', '_')}_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise FileNotFoundError(path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def run_script(path: str | Path, argv: Sequence[str], json_path: str | Path) -> dict[str, Any]:
    """Run ``main(argv + ["--json", json_path])`` of the script at ``path``; return its JSON."""
    module = load_script(path)
    code = module.main([*argv, "--json", str(json_path)])
    if code not in (0, None):
        raise AssertionError(f"{Path(path).name} main() returned {code}")
    return json.loads(Path(json_path).read_text())


def check_scripts(
    test_file: str | Path,
    tmp_path: str | Path,
    *,
    reproduce: Sequence[str] | None = ("--quick",),
    bench: Sequence[str] | None = ("--quick",),
    min_claims: int = 1,
) -> dict[str, dict[str, Any]]:
    """Run the package's ``reproduce.py`` and ``bench.py`` at a tiny scale and validate the JSON.

    ``test_file`` is the calling test's ``__file__`` (the package root is its parent's parent).
    Pass ``None`` to skip a script the package does not have. Returns the results by script name.
    """
    root = Path(test_file).resolve().parents[1]
    tmp = Path(tmp_path)
    out: dict[str, dict[str, Any]] = {}
    if reproduce is not None:
        result = run_script(root / "reproduce.py", reproduce, tmp / "reproduce.json")
        validate_reproduce(result)
        if len(result["claims"]) < min_claims:
            raise AssertionError(f"reproduce.py gave {len(result['claims'])} claims")
        out["reproduce"] = result
    if bench is not None:
        result = run_script(root / "bench.py", bench, tmp / "bench.json")
        validate_bench(result)
        out["bench"] = result
    return out


_PYTHON_BLOCK = re.compile(r"^```python[^\n]*\n(.*?)^```", flags=re.M | re.S)


def run_readme_examples(test_file: str | Path) -> int:
    """Run every ```python block of the README beside ``tests/`` (``test_file``'s package) in
    order, in one namespace, as a reader would paste them; returns how many ran. A fence ends
    only at a line that starts with three backticks, so an example may hold them mid-line."""
    readme = Path(test_file).resolve().parents[1] / "README.md"
    blocks = _PYTHON_BLOCK.findall(readme.read_text())
    assert blocks, f"{readme} has no ```python block"
    namespace: dict[str, Any] = {"__name__": "__readme__"}
    for block in blocks:
        exec(compile(block, str(readme), "exec"), namespace)
    return len(blocks)


def assert_rejects(
    exc: type[BaseException] | tuple[type[BaseException], ...],
    name: str,
    fn: Callable[..., Any],
    /,
    *args: Any,
    **kwargs: Any,
) -> BaseException:
    """Assert that ``fn(*args, **kwargs)`` raises ``exc`` whose message names ``name``.

    ``exc`` is ``TypeError`` (wrong type), ``ValueError`` (wrong value) or a tuple of them; the
    argument's name must appear in the message as a word (``x`` does not match ``max``).
    ``exc``, ``name`` and ``fn`` are positional-only, so ``fn``'s own keyword arguments of those
    names pass through.
    """
    try:
        fn(*args, **kwargs)
    except exc as e:  # type: ignore[misc]
        message = str(e)
        if not re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", message):
            raise AssertionError(f"{type(e).__name__} does not name {name!r}: {message!r}") from e
        return e
    except BaseException as e:
        raise AssertionError(
            f"expected {_names(exc)} naming {name!r}, got {type(e).__name__}: {e}"
        ) from e
    raise AssertionError(f"expected {_names(exc)} naming {name!r}; nothing was raised")


def _names(exc: type[BaseException] | tuple[type[BaseException], ...]) -> str:
    if isinstance(exc, tuple):
        return " or ".join(e.__name__ for e in exc)
    return exc.__name__


def assert_close(actual: Any, desired: Any, *, rtol: float = 1e-7, atol: float = 0.0) -> None:
    """``numpy.testing.assert_allclose`` that also takes torch tensors (detached, moved to the
    CPU). ``torch.testing.assert_close`` imports torch's distributed-tensor support on first use,
    which costs seconds per test process on a loaded machine; this costs nothing."""
    import numpy as np

    def arr(x: Any) -> Any:
        if hasattr(x, "detach") and hasattr(x, "cpu"):
            return x.detach().cpu().numpy()
        return np.asarray(x)

    np.testing.assert_allclose(arr(actual), arr(desired), rtol=rtol, atol=atol)


def check_lazy_extra(
    module: str,
    *,
    names: Sequence[str],
    extra: str,
    heavy: Sequence[str] = ("torch",),
    run: str = "",
) -> None:
    """The contract of a package whose core keeps an extra's names lazy (PEP 562 ``__getattr__``).

    - In a fresh interpreter, ``import module``, ``from module import *`` and the statements
      ``run`` (which may use the module as ``m``) import none of ``heavy``;
    - every one of ``names`` is listed by ``dir(module)``; when the first of ``heavy`` is not
      installed, each raises an ``ImportError`` whose message names ``extra`` (for example
      ``"dag-sidigraph[torch]"``, said as given);
    - an unknown attribute is an ``AttributeError`` naming it.
    """
    if not names:
        raise ValueError("names must list at least one lazy name")
    code = "\n".join(
        [
            "import sys",
            f"import {module} as m",
            f"from {module} import *",
            run,
            f"print([h for h in {list(heavy)!r} if h in sys.modules])",
        ]
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if out.returncode != 0:
        raise AssertionError(f"importing {module} failed:\n{out.stderr}")
    loaded = out.stdout.strip().splitlines()[-1]
    if loaded != "[]":
        raise AssertionError(f"importing {module} (and running {run!r}) imported {loaded}")
    mod = importlib.import_module(module)
    missing = [n for n in names if n not in dir(mod)]
    if missing:
        raise AssertionError(f"dir({module}) does not list {missing}")
    if importlib.util.find_spec(heavy[0]) is None:
        for name in names:
            try:
                getattr(mod, name)
            except ImportError as e:
                if extra not in str(e):
                    raise AssertionError(
                        f"{module}.{name} without {heavy[0]}: the ImportError does not name "
                        f"{extra!r}: {e}"
                    ) from e
            else:
                raise AssertionError(f"{module}.{name} without {heavy[0]} raised nothing")
    try:
        mod.no_such_name  # noqa: B018
    except AttributeError as e:
        if "no_such_name" not in str(e):
            raise AssertionError(f"the AttributeError does not name the attribute: {e}") from e
    else:
        raise AssertionError(f"{module}.no_such_name raised nothing")
