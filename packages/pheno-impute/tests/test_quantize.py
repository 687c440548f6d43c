"""ResidualQuantizer against a closed form, a naive greedy loop and the monotonicity property."""

import numpy as np
import pytest
from pheno_impute import ResidualQuantizer


def test_exact_sums_of_separated_codewords_are_recovered():
    rng = np.random.default_rng(0)
    coarse = rng.standard_normal((3, 3)) * 20  # level-1 codewords, far apart
    fine = rng.standard_normal((3, 3))  # level-2 codewords, much smaller
    # every (coarse, fine) pair equally often: each level-1 centre is coarse_i + mean(fine),
    # so the residuals take exactly 3 values and 3 level-2 codes reconstruct X exactly
    i, j = np.repeat(np.arange(3), 3 * 20), np.tile(np.repeat(np.arange(3), 20), 3)
    X = coarse[i] + fine[j]
    rq = ResidualQuantizer(levels=2, codebook_size=3, random_state=0).fit(X)
    codes = rq.encode(X)
    np.testing.assert_allclose(rq.decode(codes), X, atol=1e-8)
    # codes identify the generating codewords up to relabelling
    for level, truth in enumerate((i, j)):
        pairs = set(zip(codes[:, level].tolist(), truth.tolist()))
        assert len(pairs) == len(set(truth.tolist()))


def test_error_non_increasing_in_levels_and_codes_deterministic():
    X = np.random.default_rng(1).standard_normal((300, 5))
    rq = ResidualQuantizer(levels=4, codebook_size=8, random_state=0).fit(X)
    codes = rq.encode(X)
    errors = [np.mean(np.sum((X - rq.decode(codes[:, :L])) ** 2, 1)) for L in range(1, 5)]
    assert np.all(np.diff(errors) <= 1e-12)
    assert errors[0] < np.mean(np.sum((X - X.mean(0)) ** 2, 1))
    np.testing.assert_allclose(errors, rq.inertia_)
    np.testing.assert_array_equal(codes, rq.encode(X))
    again = ResidualQuantizer(levels=4, codebook_size=8, random_state=0).fit(X)
    np.testing.assert_array_equal(again.codebooks_, rq.codebooks_)


def test_encode_is_greedy_nearest_code_on_the_residual():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((50, 4))
    rq = ResidualQuantizer(levels=3, codebook_size=5, random_state=3).fit(
        rng.standard_normal((80, 4))
    )
    codes = rq.encode(X)
    for x, c in zip(X, codes):
        r = x.copy()
        for level, book in enumerate(rq.codebooks_):
            best = min(range(len(book)), key=lambda q: float(np.sum((r - book[q]) ** 2)))
            assert c[level] == best
            r = r - book[best]
    assert rq.codebooks_.shape == (3, 5, 4)


def test_too_few_rows_for_the_codebook():
    with pytest.raises(ValueError, match="codebook_size"):
        ResidualQuantizer(codebook_size=10).fit(np.ones((5, 2)))
