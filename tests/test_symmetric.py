"""Symmetric games: no first mover, m(a, b) = -m(b, a) exactly, in the layout and in a fit."""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning

from skcodex import BayesianMatchupClassifier, analysis, load
from skcodex._matchup.layout import Layout, ModelOptions
from skcodex._matchup.never_seen import extend_effects
from skcodex._matchup.padding import embedding, padded_layout
from skcodex.codex import Deck
from skcodex.data import MatchCodes
from skcodex.datasets import make_game_matches
from skcodex.exceptions import ApproximationWarning

from command_process import in_process as _run  # isort: skip

COMPONENTS = [f"c{i}" for i in range(6)]


def _codes(rng, n, P, S, K, k) -> MatchCodes:
    return MatchCodes(
        rng.integers(0, P, n), rng.integers(0, P, n), rng.integers(0, S, n),
        rng.integers(0, S, n), rng.integers(0, K, (n, k)), rng.integers(0, K, (n, k)),
        P, S, K, epoch=rng.integers(0, 3, n), n_epochs=3,
    )  # fmt: skip


def _swapped(codes: MatchCodes) -> MatchCodes:
    return MatchCodes(
        codes.player2, codes.player1, codes.starter2, codes.starter1, codes.specs2,
        codes.specs1, codes.n_players, codes.n_starters, codes.n_specs,
        epoch=codes.epoch, n_epochs=codes.n_epochs,
    )  # fmt: skip


# -- the layout ------------------------------------------------------------------------


@pytest.mark.parametrize("k", [0, 1, 3])
@pytest.mark.parametrize("extras", [{}, {"synergy": True, "familiarity": True}])
def test_symmetric_layout_is_antisymmetric_with_fewer_free_effects(k, extras):
    rng = np.random.default_rng(k)
    P, S, K = 6, 4, 5
    ordered = Layout(P, S, K, k, ModelOptions(**extras))
    layout = Layout(P, S, K, k, ModelOptions(symmetric=True, **extras))
    assert layout.size == ordered.size
    # stst and spsp: one free effect per unordered pair; spst: none of its own.
    fewer = S * (S + 1) // 2 + K * (K + 1) // 2 + K * S
    assert ordered.n_free - layout.n_free == fewer
    z = rng.normal(size=(4, layout.n_free))
    sd = np.exp(rng.normal(size=(4, len(layout.spreads))))
    b = layout.unflatten(layout.theta(z, sd))
    for name in ("stst", "spsp"):
        np.testing.assert_array_equal(b[name], -b[name].transpose(0, 2, 1))
        assert np.all(np.diagonal(b[name], axis1=1, axis2=2) == 0.0)
    np.testing.assert_array_equal(b["spst"], -b["stsp"].transpose(0, 2, 1))
    # Each free effect is a standard normal times its block's spread, used once above
    # the diagonal: the upper triangle of stst holds its z's in row-major order.
    first, second = np.triu_indices(S, 1)
    at = layout.free_offsets["stst"]
    np.testing.assert_array_equal(
        b["stst"][:, first, second], z[:, at : at + len(first)] * sd[:, [1]]
    )
    # Every match's log-odds are minus those of the same match with sides swapped.
    codes = _codes(rng, 200, P, S, K, k)
    theta = layout.theta(z, sd)
    q = theta[:, layout.index_matrix(codes)] @ layout.signs
    q_swapped = theta[:, layout.index_matrix(_swapped(codes))] @ layout.signs
    np.testing.assert_allclose(q, -q_swapped, atol=1e-12)


def test_symmetric_theta_agrees_in_pytensor_and_through_padding():
    import pytensor.tensor as pt

    layout = Layout(5, 3, 6, 2, ModelOptions(symmetric=True, time_varying=True), 3)
    rng = np.random.default_rng(2)
    z = rng.normal(size=layout.n_free)
    sd = np.exp(rng.normal(size=len(layout.spreads)))
    got = layout.theta(pt.as_tensor_variable(z), pt.as_tensor_variable(sd), pt).eval()
    np.testing.assert_allclose(got, layout.theta(z, sd), atol=1e-12)
    padded = padded_layout(layout)
    theta_pos, z_pos = embedding(layout, padded)
    zp = rng.normal(size=(3, padded.n_free))
    sdp = np.exp(rng.normal(size=(3, len(layout.spreads))))
    np.testing.assert_array_equal(
        padded.theta(zp, sdp)[:, theta_pos], layout.theta(zp[:, z_pos], sdp)
    )


def test_never_seen_levels_keep_antisymmetry_in_any_batch():
    old = Layout(3, 2, 3, 2, ModelOptions(symmetric=True))
    new = Layout(6, 4, 6, 2, ModelOptions(symmetric=True))
    rng = np.random.default_rng(3)
    theta = old.theta(rng.normal(size=(50, old.n_free)), np.ones((50, 4)))
    sd = np.exp(rng.normal(size=(50, 4)))
    levels = {
        "player": ["a", "b", "c", "x", "y", "z"],
        "starter": ["S1", "S2", "N1", "N2"],
        "spec": ["s1", "s2", "s3", "n1", "n2", "n3"],
    }
    b = new.unflatten(extend_effects(theta, sd, old, new, levels=levels, seed=7))
    for name in ("stst", "spsp"):
        np.testing.assert_array_equal(b[name], -b[name].transpose(0, 2, 1))
    np.testing.assert_array_equal(b["spst"], -b["stsp"].transpose(0, 2, 1))
    # The new levels listed in another order get the same effects (keyed to names).
    order = [0, 1, 3, 2]
    swapped = {**levels, "starter": [levels["starter"][i] for i in order]}
    again = new.unflatten(extend_effects(theta, sd, old, new, levels=swapped, seed=7))
    np.testing.assert_array_equal(again["stst"], b["stst"][:, order][:, :, order])
    # Fresh cells are N(0, sd) draws, not zeros.
    assert np.std(b["stst"][:, 2, 3] / sd[:, 1]) == pytest.approx(1.0, abs=0.3)


def test_symmetric_refuses_a_first_move():
    with pytest.raises(ValueError, match="first_move=True cannot be combined with symmetric"):
        ModelOptions(symmetric=True, first_move=True)
    data = make_game_matches(n_players=6, n_matches=30, n_tournaments=1, random_state=0)
    clf = BayesianMatchupClassifier(symmetric=True, first_move=True, catalogue=data.catalogue)
    with pytest.raises(ValueError, match="symmetric game has no first mover"):
        clf.fit(data.X, data.y)
    with pytest.raises(ValueError, match="no first-move effect"):
        make_game_matches(symmetric=True, first_move=0.3)


def test_synthetic_symmetric_game_is_antisymmetric():
    data = make_game_matches(
        n_players=8, n_matches=60, n_tournaments=2, starters=4, components=COMPONENTS,
        specs_per_deck=2, symmetric=True, random_state=1,
    )  # fmt: skip
    p = data.params
    for name in ("stst", "spsp"):
        np.testing.assert_array_equal(p[name].to_numpy(), -p[name].to_numpy().T)
    np.testing.assert_array_equal(p["spst"].to_numpy(), -p["stsp"].to_numpy().T)


# -- fitted models ----------------------------------------------------------------------


def _fit(data, **kwargs):
    params = {"draws": 150, "tune": 150, "chains": 2, "random_state": 0, "symmetric": True}
    clf = BayesianMatchupClassifier(catalogue=data.catalogue, **{**params, **kwargs})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        # a few hundred matches barely inform each matchup: mean-field ADVI says so (these
        # tests are about the symmetry of what it fits)
        warnings.simplefilter("ignore", ApproximationWarning)
        return clf.fit(data.X, data.y)


@pytest.fixture(scope="module")
def hero_game():
    data = make_game_matches(
        n_players=14, n_matches=300, n_tournaments=3, starters=4, components=COMPONENTS,
        specs_per_deck=2, symmetric=True, random_state=2,
    )  # fmt: skip
    # the catalogue lists a starter and a component no match plays: forecasts meet them new
    listed = data.catalogue
    data.catalogue = replace(
        listed, starters=(*listed.starters, "char99"), components=(*listed.components, "c8", "c9")
    )
    return data, _fit(data)


def _batch_with_unseen(data) -> pd.DataFrame:
    """Training rows, rows with new players, a new starter and a new component."""
    seen = data.X.iloc[:20][["player1", "player2", "deck1", "deck2"]].reset_index(drop=True)
    seen = seen.astype(object)
    new = seen.iloc[:8].copy()
    new["player1"] = ["newcomer A", "newcomer B"] * 4
    new.loc[2:3, "deck1"] = pd.Series([Deck("char99", ["c0", "c9"])] * 2, index=[2, 3])
    new.loc[4:5, "deck2"] = pd.Series([Deck("char0", ["c8", "c9"])] * 2, index=[4, 5])
    return pd.concat([seen, new], ignore_index=True)


def _swap(X: pd.DataFrame) -> pd.DataFrame:
    return X.rename(
        columns={"player1": "player2", "player2": "player1", "deck1": "deck2", "deck2": "deck1"}
    )[X.columns]


def test_swapping_sides_gives_one_minus_p_and_mirrors_give_a_half(hero_game):
    data, clf = hero_game
    assert clf.layout_.options.symmetric
    X = _batch_with_unseen(data)
    p = clf.predict_proba(X)[:, 1]
    p_swapped = clf.predict_proba(_swap(X))[:, 1]
    np.testing.assert_allclose(p + p_swapped, 1.0, rtol=0, atol=1e-12)
    assert np.ptp(p) > 0.05  # not a trivial 0.5 everywhere
    # Per draw too.
    draws = clf.predict_proba_draws(X) + clf.predict_proba_draws(_swap(X))
    np.testing.assert_allclose(draws, 1.0, rtol=0, atol=1e-12)
    # Equally skilled players: a mirror match is 0.5 in every draw, new decks included,
    # and each pairing is one minus its reverse.
    decks = [*pd.unique(data.X["deck1"])[:4], Deck("char99", ["c0", "c9"])]
    m = analysis.matchup_draws(clf, decks)
    np.testing.assert_allclose(np.diagonal(m, axis1=1, axis2=2), 0.5, rtol=0, atol=1e-12)
    np.testing.assert_allclose(m + m.transpose(0, 2, 1), 1.0, rtol=0, atol=1e-12)
    assert np.ptp(m.mean(axis=0)) > 0.02


def test_one_nash_vector_for_both_sides(hero_game):
    _, clf = hero_game
    eq = analysis.nash_equilibria(clf, n_draws=30)
    np.testing.assert_array_equal(eq.player1, eq.player2)
    np.testing.assert_array_equal(eq.player1, eq.both)
    np.testing.assert_allclose(eq.value, 0.5, atol=1e-9)
    summary = eq.summary()
    by_role = {role: g["mean"].to_numpy() for role, g in summary.groupby("role")}
    np.testing.assert_array_equal(by_role["player 1"], by_role["player 2"])


def test_convergence_checks_judge_each_free_effect_once(hero_game):
    from skcodex._matchup.diagnostics import convergence_summary, monitored_draws

    _, clf = hero_game
    drawn = monitored_draws(clf.idata_, clf.layout_)
    S, K = clf.layout_.n_starters, clf.layout_.n_specs
    assert (~np.isnan(drawn["stst"][0, 0])).sum() == S * (S - 1) // 2
    assert (~np.isnan(drawn["spsp"][0, 0])).sum() == K * (K - 1) // 2
    assert np.isnan(drawn["spst"]).all() and not np.isnan(drawn["stsp"]).any()
    summary = convergence_summary(clf)
    assert np.isfinite(summary["min_ess_bulk"]) and np.isfinite(summary["max_rhat"])


def test_symmetric_fit_saves_and_loads(hero_game, tmp_path):
    data, clf = hero_game
    back = load(clf.save(tmp_path / "symmetric.skcodex"))
    assert back.symmetric and back.layout_ == clf.layout_ and back.layout_.options.symmetric
    X = _batch_with_unseen(data)
    np.testing.assert_array_equal(back.predict_proba(X), clf.predict_proba(X))


@pytest.mark.parametrize("method", ["nuts", "advi"])
def test_symmetric_fit_without_side_components(method):
    data = make_game_matches(
        n_players=12, n_matches=200, n_tournaments=2, starters=5, symmetric=True, random_state=4
    )
    clf = _fit(data, method=method)
    b = clf.layout_.static().unflatten(clf.effect_draws_)
    np.testing.assert_array_equal(b["stst"], -b["stst"].transpose(0, 2, 1))
    X = data.X.iloc[:30]
    p = clf.predict_proba(X)[:, 1] + clf.predict_proba(_swap(X))[:, 1]
    np.testing.assert_allclose(p, 1.0, rtol=0, atol=1e-12)


def test_symmetric_model_recovers_a_symmetric_game():
    """The posterior of the matchup effects is centred on the truth, within its own spread.

    15 free starter-vs-starter effects (6 starters): their standardised errors
    ``(mean - truth) / sd`` have a mean square near 1 (chi-square over 15,
    99% between 0.3 and 2.3), and their spread is recovered.
    """
    data = make_game_matches(
        n_players=30, n_matches=2500, n_tournaments=5, starters=6, sd_stst=0.6,
        symmetric=True, random_state=6,
    )  # fmt: skip
    clf = _fit(data, draws=300, tune=300)
    names = list(clf.vocabulary_.starters)
    draws = clf.layout_.static().unflatten(clf.effect_draws_)["stst"]
    truth = data.params["stst"].loc[names, names].to_numpy()
    upper = np.triu_indices(len(names), 1)
    est, sd = draws.mean(axis=0)[upper], draws.std(axis=0)[upper]
    assert 0.3 < np.mean(((est - truth[upper]) / sd) ** 2) < 2.3
    assert np.corrcoef(est, truth[upper])[0, 1] > 0.75
    sd_stst = clf.spread_draws_[:, 1]
    assert np.quantile(sd_stst, 0.02) < 0.6 < np.quantile(sd_stst, 0.98)


def test_command_line_fits_a_symmetric_game(tmp_path, capsys):
    data = make_game_matches(
        n_players=10, n_matches=120, n_tournaments=2, starters=4, symmetric=True, random_state=5
    )
    winner = np.where(data.y == 1, data.X["player1"], data.X["player2"])
    csv = tmp_path / "game.csv"
    data.X.assign(winner=winner).to_csv(csv, index=False)
    fast = ["--draws", "60", "--chains", "1", "--no-progress", "--no-holdout", "--nash-draws", "5"]
    code, _, err = _run(
        ["fit", csv, "--out", tmp_path / "both", "--symmetric", "--first-move"], capsys
    )
    assert code == 2 and "not allowed with argument" in err and len(err.splitlines()) == 1
    code, _, err = _run(["fit", csv, "--out", tmp_path / "model", "--symmetric", *fast], capsys)
    assert code == 0, err
    clf = load(tmp_path / "model" / "model.skcodex")
    assert clf.symmetric and clf.layout_.options.symmetric
