"""Group axioms by brute force on tensors, and each action against a numpy reference."""

import numpy as np
import pytest
import torch
from lambda_equitune import groups as G

IMAGE_GROUPS = [G.Trivial(), G.Rot90(), G.HFlip(), G.VFlip(), G.Rot180Flip(), G.D4()]
ORDERS = {"Trivial": 1, "Rot90": 4, "HFlip": 2, "VFlip": 2, "Rot180Flip": 2, "D4": 8}


def _x():
    return torch.randn(2, 3, 5, 5, generator=torch.Generator().manual_seed(0))


def _which(group, y, x):
    """Brute force: every element whose action sends x to y."""
    return [k for k in group.elements if torch.equal(group.act(x, k), y)]


@pytest.mark.parametrize("group", IMAGE_GROUPS, ids=repr)
def test_order_and_faithful(group):
    x = _x()
    assert len(group.elements) == ORDERS[type(group).__name__] == len(group)
    images = [group.act(x, g) for g in group.elements]
    for i in range(len(images)):
        for j in range(i):
            assert not torch.equal(images[i], images[j]), (i, j)


@pytest.mark.parametrize("group", IMAGE_GROUPS, ids=repr)
def test_identity(group):
    x = _x()
    assert torch.equal(group.act(x, group.identity), x)
    assert _which(group, x, x) == [group.identity]


@pytest.mark.parametrize("group", IMAGE_GROUPS, ids=repr)
def test_closure_and_compose(group):
    x = _x()
    for g in group.elements:
        for h in group.elements:
            y = group.act(group.act(x, h), g)
            hits = _which(group, y, x)
            assert hits == [group.compose(g, h)], (g, h, hits)


@pytest.mark.parametrize("group", IMAGE_GROUPS, ids=repr)
def test_inverse(group):
    x = _x()
    for g in group.elements:
        gi = group.inverse(g)
        assert torch.equal(group.act(group.act(x, g), gi), x)
        assert torch.equal(group.act(group.act(x, gi), g), x)
        assert group.compose(g, gi) == group.identity


def test_actions_match_numpy():
    x = _x()
    a = x.numpy()
    for k in range(4):
        np.testing.assert_array_equal(G.Rot90().act(x, k).numpy(), np.rot90(a, k, axes=(-2, -1)))
    np.testing.assert_array_equal(G.HFlip().act(x, 1).numpy(), a[..., ::-1])
    np.testing.assert_array_equal(G.VFlip().act(x, 1).numpy(), a[..., ::-1, :])
    # the released CLIP code's "flip" flips both axes: the 180-degree rotation, not a mirror
    np.testing.assert_array_equal(G.Rot180Flip().act(x, 1).numpy(), np.rot90(a, 2, axes=(-2, -1)))
    d4 = {G.D4().act(x, g).numpy().tobytes() for g in G.D4().elements}
    ref = {np.rot90(b, k, axes=(-2, -1)).tobytes() for k in range(4) for b in (a, a[..., ::-1])}
    ref = {np.ascontiguousarray(np.frombuffer(r, dtype=a.dtype)).tobytes() for r in ref}
    assert d4 == ref
    transpose = np.ascontiguousarray(np.swapaxes(a, -1, -2)).tobytes()
    assert transpose in d4 and np.ascontiguousarray(a[..., ::-1, :]).tobytes() in d4


def test_non_square_rejected_for_rotations():
    x = torch.randn(1, 4, 5)
    for group in (G.Rot90(), G.D4()):
        with pytest.raises(ValueError, match="x"):
            group.act(x, 1)
    assert G.HFlip().act(x, 1).shape == x.shape


def test_token_swap_axioms():
    group = G.TokenSwap([(1, 2), (5, 7)])
    x = torch.tensor([[0, 1, 2, 5, 7, 3], [7, 7, 1, 0, 2, 5]])
    assert len(group.elements) == 4
    np.testing.assert_array_equal(group.act(x, 1).numpy(), [[0, 2, 1, 5, 7, 3], [7, 7, 2, 0, 1, 5]])
    np.testing.assert_array_equal(group.act(x, 2).numpy(), [[0, 1, 2, 7, 5, 3], [5, 5, 1, 0, 2, 7]])
    for g in group.elements:
        assert torch.equal(group.act(group.act(x, g), group.inverse(g)), x)
        for h in group.elements:
            assert _which(group, group.act(group.act(x, h), g), x) == [group.compose(g, h)]


@pytest.mark.parametrize(
    "pairs, exc",
    [
        ([], ValueError),
        ([(1, 1)], ValueError),
        ([(1, 2), (2, 3)], ValueError),
        ("ab", TypeError),
        ([(1, -2)], ValueError),
        ([(1.5, 2)], TypeError),
        ([(1, 2, 3)], TypeError),
    ],
)
def test_token_swap_bad_pairs(pairs, exc):
    with pytest.raises(exc, match="pairs"):
        G.TokenSwap(pairs)


@pytest.mark.parametrize("g", [-1, 4, 1.0, "1", None, True])
def test_bad_element(g):
    with pytest.raises((TypeError, ValueError), match="g"):
        G.Rot90().act(_x(), g)
