"""reproduce.py's claims run on a tiny configuration."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def test_reproduce_claims_run(tmp_path):
    import reproduce

    rows = reproduce.claims(False, n_uni=20, n_biv=20, n_pois=50)
    assert len(rows) == 10
    assert all({"claim", "paper", "measured", "holds", "note"} <= set(r) for r in rows)
