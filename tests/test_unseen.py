"""Never-seen levels: forecasts independent of the batch, repeatable, bounded in memory;
and a failed refit leaves the fitted state as it was."""

import tracemalloc
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning

from skcodex import BayesianMatchupClassifier, backend, design, load
from skcodex.data import Vocabulary, check_match_table
from skcodex.datasets import make_matches
from skcodex.design import Layout


@pytest.fixture(scope="module")
def data():
    return make_matches(n_players=12, n_matches=160, n_tournaments=3, random_state=11)


@pytest.fixture(scope="module")
def fitted(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = BayesianMatchupClassifier(draws=100, tune=100, chains=2, random_state=3)
        return clf.fit(data.X, data.y)


def _with_newcomers(X: pd.DataFrame) -> pd.DataFrame:
    out = X.iloc[:6].copy().reset_index(drop=True)
    out.loc[0, "player1"] = "newcomer A"
    out.loc[2, "player2"] = "newcomer B"
    out.loc[3, ["player1", "player2"]] = ["newcomer B", "newcomer A"]
    out.loc[4, "deck2"] = "[Demonology]/Anarchy/Peace"  # seen parts only
    return out


def test_a_rows_forecast_does_not_depend_on_the_rest_of_the_batch(fitted, data):
    X = _with_newcomers(data.X)
    together = fitted.predict_proba(X)[:, 1]
    for i in range(len(X)):
        alone = fitted.predict_proba(X.iloc[[i]])[0, 1]
        assert alone == together[i]
    reversed_ = fitted.predict_proba(X.iloc[::-1])[:, 1]
    np.testing.assert_array_equal(reversed_[::-1], together)
    # A newcomer's forecast differs from a coin only by the other player's skill and decks,
    # and repeats exactly in a later call.
    np.testing.assert_array_equal(fitted.predict_proba(X)[:, 1], together)


def test_newcomers_are_forecast_identically_after_save_and_load(fitted, data, tmp_path):
    X = _with_newcomers(data.X)
    again = load(fitted.save(tmp_path / "m.skcodex"))
    np.testing.assert_array_equal(again.predict_proba(X), fitted.predict_proba(X))


def test_unseen_cells_are_standard_normals_times_their_own_blocks_spread():
    """Per block: fresh draws over the block's spread are N(0, 1), independent of others."""
    rng = np.random.default_rng(0)
    n_draws = 400
    spreads = [np.full(n_draws, 1.0), rng.uniform(9, 11, n_draws), np.full(n_draws, 100.0)]
    sd = np.column_stack([*spreads, np.full(n_draws, 1000.0)])
    old = Layout(3, 2, 3, 2)
    new = Layout(60, 12, 14, 2)
    levels = {
        "player": [f"p{i}" for i in range(60)],
        "starter": [f"s{i}" for i in range(12)],
        "spec": [f"h{i}" for i in range(14)],
    }
    theta = rng.standard_normal((n_draws, old.size))
    grown = design.extend_effects(theta, sd, old, new, seed=5, levels=levels)
    blocks = new.unflatten(grown)
    old_blocks = old.unflatten(theta)
    for name, group in new.blocks:
        block = blocks[name]
        region = (slice(None), *(slice(0, n) for n in old.shapes[name]))
        np.testing.assert_array_equal(block[region], old_blocks[name])  # fitted draws kept
        mask = np.ones(block.shape[1:], dtype=bool)
        mask[tuple(slice(0, n) for n in old.shapes[name])] = False
        z = block[:, mask] / sd[:, group][:, None]
        assert abs(z.mean()) < 0.02, name
        assert abs(z.std() - 1) < 0.02, name
        # Draws are independent across cells: correlation of two cells near 0.
        assert abs(np.corrcoef(z[:, 0], z[:, 1])[0, 1]) < 0.2


def test_unseen_draws_are_keyed_to_names_not_positions():
    rng = np.random.default_rng(1)
    sd = np.abs(rng.normal(size=(50, 4))) + 0.1
    old = Layout(2, 1, 3, 1)
    new = Layout(4, 1, 3, 1)
    levels = {"player": ["a", "b", "x", "y"], "starter": ["s"], "spec": ["h0", "h1", "h2"]}
    swapped = {**levels, "player": ["a", "b", "y", "x"]}
    theta = rng.standard_normal((50, old.size))
    one = new.unflatten(design.extend_effects(theta, sd, old, new, 7, levels))["skill"]
    two = new.unflatten(design.extend_effects(theta, sd, old, new, 7, swapped))["skill"]
    np.testing.assert_array_equal(one[:, 2], two[:, 3])  # player "x" wherever it sits
    np.testing.assert_array_equal(one[:, 3], two[:, 2])
    other_seed = new.unflatten(design.extend_effects(theta, sd, old, new, 8, levels))["skill"]
    assert not np.array_equal(one[:, 2], other_seed[:, 2])


def test_forecasts_for_many_newcomers_stay_in_bounded_memory(data):
    """20,000 matches of never-seen players at 4,000 draws: chunked, far below the naive size."""
    table = check_match_table(data.X)
    vocab = Vocabulary.from_table(table)
    layout = Layout(*vocab.sizes, vocab.specs_per_deck)
    rng = np.random.default_rng(2)
    n_draws = 4000
    sd = np.exp(rng.normal(-1, 0.2, (n_draws, 4)))
    theta = rng.standard_normal((n_draws, layout.size)) * sd[:, layout.group]
    clf = BayesianMatchupClassifier()
    clf.idata_ = backend.from_effect_draws(theta, sd, layout, n_chains=4)
    clf.vocabulary_, clf.layout_, clf._unseen_seed = vocab, layout, 9
    clf.classes_ = np.array([0, 1])
    n = 20_000
    X = pd.DataFrame(
        {
            "player1": [f"new{2 * i}" for i in range(n)],
            "player2": [f"new{2 * i + 1}" for i in range(n)],
            "deck1": np.resize(data.X["deck1"].to_numpy(), n),
            "deck2": np.resize(data.X["deck2"].to_numpy(), n),
        }
    )
    clf.effect_draws_  # the flat view, computed once, is not part of the forecast's cost
    naive = n_draws * 2 * n * 8  # the newcomers' skill draws alone: 1.28 GB
    tracemalloc.start()
    p = clf.predict_proba(X)[:, 1]
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 300e6, peak / 1e6
    assert peak < naive / 4
    # Two newcomers of equal (unknown) skill: the forecasts average near the deck matchups'.
    assert 0.3 < p.mean() < 0.7
    # The first rows equal the same rows forecast on their own.
    np.testing.assert_array_equal(clf.predict_proba(X.iloc[:3])[:, 1], p[:3])


def test_a_failed_refit_leaves_the_fitted_state_as_it_was(fitted, data, monkeypatch):
    before = dict(vars(fitted))
    proba = fitted.predict_proba(data.X)
    with pytest.raises(ValueError):
        fitted.fit(data.X, np.full(len(data.X), 7))
    assert vars(fitted).keys() == before.keys()
    assert all(vars(fitted)[k] is before[k] for k in before)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(backend, "run", interrupted)
    with pytest.raises(KeyboardInterrupt):
        fitted.fit(data.X, data.y)
    assert all(vars(fitted)[k] is before[k] for k in before)
    np.testing.assert_array_equal(fitted.predict_proba(data.X), proba)
