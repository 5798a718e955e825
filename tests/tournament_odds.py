"""Win-probability matrices, entrant names and a Monte Carlo check shared by tournament tests."""

import numpy as np


def random_matrix(n, seed):
    """P(i beats j when i moves first): skill difference plus a first-move edge."""
    rng = np.random.default_rng(seed)
    skill = rng.normal(0, 1, n)
    p = 1 / (1 + np.exp(-(skill[:, None] - skill[None, :] + 0.3)))
    np.fill_diagonal(p, 0.5)
    return p


def coin_flip_odds(p):
    """P(i beats j) when a coin decides who moves first."""
    return 0.5 * (p + 1 - p.T)


def entrant_names(n):
    return [f"e{k}" for k in range(n)]


def within_error(simulated, exact, n_sims):
    """Each simulated chance within 4 Monte Carlo standard errors of the exact one."""
    se = np.sqrt(np.clip(exact * (1 - exact), 1e-12, None) / n_sims)
    assert np.all(np.abs(simulated - exact) <= 4 * se + 1e-12), (simulated, exact)
