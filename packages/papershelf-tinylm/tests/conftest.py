import pytest
import torch

# The models here are tiny: one thread avoids OpenMP spin-waiting on a shared 2-core machine.
torch.set_num_threads(1)


@pytest.fixture(scope="session")
def session_cache(tmp_path_factory):
    """One model cache for the whole test run: a model trained by one test (or by the README
    example, or reproduce.py --quick) is loaded, never retrained, by the next one that asks for
    the same content key. Never the user's ~/.cache."""
    return tmp_path_factory.mktemp("tinylm-cache")


@pytest.fixture(autouse=True)
def _shared_cache(session_cache, monkeypatch):
    monkeypatch.setenv("PAPERSHELF_TINYLM_CACHE", str(session_cache))


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    """An empty cache of the test's own (for tests that inspect what gets written)."""
    path = tmp_path / "cache"
    monkeypatch.setenv("PAPERSHELF_TINYLM_CACHE", str(path))
    return path
