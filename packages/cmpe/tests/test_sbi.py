"""sbi as an independent reference (test-sbi group, run by `nox -s tests_extras`): our C2ST
against sbi's implementation of the same protocol, and DeepSet as sbi's embedding network."""

import cmpe
import numpy as np
import pytest
import torch

sbi_metrics = pytest.importorskip("sbi.utils.metrics")


def test_c2st_agrees_with_sbi_mlp_c2st():
    # sbi's c2st with the sbibm MLP (two layers of 10 D units, adam, no early stopping) on the
    # same folds; it z-scores with the unbiased s.d. (ours: biased), so the numbers agree to
    # the fold-to-fold noise rather than bit for bit.
    rng = np.random.default_rng(0)
    kwargs = {
        "activation": "relu",
        "hidden_layer_sizes": (20, 20),
        "max_iter": 10000,
        "solver": "adam",
    }
    for shift in (0.7, 3.0):
        a = rng.standard_normal((400, 2))
        b = rng.standard_normal((400, 2)) + [shift, 0.0]
        ours = cmpe.c2st(a, b, folds=5, random_state=1)
        theirs = float(
            sbi_metrics.c2st(
                torch.as_tensor(a, dtype=torch.float32),
                torch.as_tensor(b, dtype=torch.float32),
                seed=1,
                n_folds=5,
                classifier="mlp",
                classifier_kwargs=kwargs,
            )
        )
        assert abs(ours - theirs) < 0.04, (shift, ours, theirs)
    # and the scale is right: a 3-s.d. shift is nearly separable
    assert ours > 0.9


def test_deepset_is_a_working_sbi_embedding_net(tmp_path):
    from sbi.inference import NPE
    from sbi.neural_nets import posterior_nn
    from sbi.utils.tracking import TensorBoardTracker
    from torch.utils.tensorboard import SummaryWriter

    theta, x = cmpe.gmm_bimodal(256, n_obs=6, rng=0)
    torch.manual_seed(0)
    net = posterior_nn("maf", embedding_net=cmpe.DeepSet(2, 4, width=16), num_transforms=2)
    prior = torch.distributions.MultivariateNormal(torch.zeros(2), torch.eye(2))
    tracker = TensorBoardTracker(SummaryWriter(str(tmp_path)))  # not ./sbi-logs
    inference = NPE(prior=prior, density_estimator=net, tracker=tracker, show_progress_bars=False)
    with pytest.warns(UserWarning):  # "max_num_epochs reached": two epochs on purpose
        inference.append_simulations(
            torch.as_tensor(theta, dtype=torch.float32), torch.as_tensor(x, dtype=torch.float32)
        ).train(max_num_epochs=2, training_batch_size=64, show_train_summary=False)
    post = inference.build_posterior()
    x_obs = torch.as_tensor(x[:1], dtype=torch.float32)
    draws = post.sample((50,), x=x_obs, show_progress_bars=False)
    assert draws.shape == (50, 2) and bool(torch.isfinite(draws).all())
    # the embedding is permutation invariant, so is sbi's posterior density given it
    lp = post.log_prob(draws, x=x_obs)
    lp_perm = post.log_prob(draws, x=x_obs[:, torch.randperm(6)])
    np.testing.assert_allclose(lp.detach().numpy(), lp_perm.detach().numpy(), rtol=1e-4, atol=1e-4)
