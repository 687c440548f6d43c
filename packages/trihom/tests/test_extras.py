"""The optional integrations on the real libraries: torch trainers (extra ``torch``) and the
classifier-based metric (extra ``sklearn``). They skip in the plain ``tests`` session and run in
``tests_extras``."""

import pytest
import trihom


def _graph(h_l, seed=0, n=500, feat_dim=4):
    return trihom.csbm3h(
        n, 3, degree_range=(8, 14), feat_dim=feat_dim, h_L=h_l, h_S=1.0, h_F=0.0, rng=seed
    )


def test_import_trihom_pulls_neither_torch_nor_sklearn():
    import importlib.util
    import subprocess
    import sys

    if all(importlib.util.find_spec(m) is None for m in ("torch", "sklearn")):
        return  # nothing to pull in this environment; the check runs in tests_extras

    code = "import sys, trihom; print('torch' in sys.modules, 'sklearn' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_gcn_beats_mlp_on_homophilous_graph_and_is_deterministic():
    torch = pytest.importorskip("torch")
    from trihom.models import TrainResult, train_gcn, train_mlp

    ei, x, y = _graph(0.95)
    g = train_gcn(ei, x, y, generator=torch.Generator().manual_seed(1))
    m = train_mlp(ei, x, y, generator=torch.Generator().manual_seed(1))
    assert isinstance(g, TrainResult)
    assert g.test_accuracy > m.test_accuracy + 0.1, (g, m)
    assert g.test_accuracy > 0.9
    again = train_gcn(ei, x, y, generator=torch.Generator().manual_seed(1))
    assert again == g
    # torch inputs (as a PyG user holds them) give the same result
    t = train_gcn(
        torch.as_tensor(ei),
        torch.as_tensor(x),
        torch.as_tensor(y),
        generator=torch.Generator().manual_seed(1),
    )
    assert t == g
    assert trihom.spectral_radius(torch.as_tensor(ei)) == trihom.spectral_radius(ei)


def test_gcn_near_chance_at_mid_homophily_with_weak_features():
    """h_L = 1/C and h_S = 1: every node's neighbourhood is label-uniform, so aggregation
    erases the class signal (J^G = 0); a GCN on barely informative features is near chance."""
    torch = pytest.importorskip("torch")
    from trihom.models import train_gcn

    ei, x, y = _graph(1 / 3, feat_dim=2)
    acc = train_gcn(ei, x, y, generator=torch.Generator().manual_seed(0)).test_accuracy
    assert acc < 0.5


def test_classifier_based_homophily_sides():
    pytest.importorskip("sklearn")
    from trihom.classifier import classifier_based_homophily

    ei, x, y = _graph(0.95, feat_dim=2)
    hi = classifier_based_homophily(ei, x, y, repeats=10, rng=0)
    ei, x, y = _graph(1 / 3, feat_dim=2)
    lo = classifier_based_homophily(ei, x, y, repeats=10, rng=0)
    assert hi > 0.95 and lo < 0.05, (hi, lo)
    assert classifier_based_homophily(ei, x, y, repeats=10, rng=0) == lo
    svm = classifier_based_homophily(ei, x, y, classifier="svm_linear", repeats=4, rng=0)
    assert 0.0 <= svm <= 1.0
