"""The debut offset: a player's skill shifted in the matches of their first rating period."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit, logit

from skcodex import BayesianMatchupClassifier
from skcodex._matchup.blocks import BLOCK_TABLE
from skcodex._matchup.layout import Layout, ModelOptions
from skcodex.data import Vocabulary, check_match_table, encode
from skcodex.data._codes import debut_flags
from skcodex.data._kinds import DEBUT_LEVELS
from skcodex.datasets import make_matches

from random_matches import period_table as _table  # isort: skip


def _entrants(base, n_players, n_periods, rng):
    """Each match's two players, entering at a random tournament (eight in the first).

    Returns players 1 and 2 (numbers) and whether each debuts: plays their
    first tournament.
    """
    entry = np.sort(rng.integers(0, n_periods, n_players))
    entry[:8] = 0
    tournament = pd.factorize(base["period"])[0]
    first, second = np.empty(len(base), dtype=int), np.empty(len(base), dtype=int)
    for row, t in enumerate(tournament):
        first[row], second[row] = rng.choice(np.flatnonzero(entry <= t), 2, replace=False)
    debut = np.full(n_players, n_periods)  # the tournament each player first plays in
    np.minimum.at(debut, first, tournament)
    np.minimum.at(debut, second, tournament)
    return first, second, debut[first] == tournament, debut[second] == tournament


def debut_matches(
    offset: float, *, factor=None, n_players=60, n_periods=12, per_period=120, seed=0
):
    """Tournaments players join one after another; a debutant's log-odds shift by ``offset``.

    Players enter at a random tournament (eight in the first) and may play in
    every tournament after; each match pairs two random entrants. A player
    debuts in the first tournament they play in. Decks have no effect, unless
    ``factor`` is given: then the deck part of a match's log-odds is
    make_matches' (its skills set to 0), strong enough to be learned, and
    multiplied by ``factor`` in a match where a side debuts.
    Returns the table, outcomes and the true debut flags of both sides.
    """
    rng = np.random.default_rng(seed)
    decks = (0.0, 0.0, 0.0) if factor is None else (1.2, 0.5, 0.3)
    data = make_matches(
        n_players=20,
        n_matches=n_periods * per_period,
        n_tournaments=n_periods,
        sd_stst=decks[0],
        sd_stsp=decks[1],
        sd_spsp=decks[2],
        random_state=seed,
        **({} if factor is None else {"sd_player": 0.0}),
    )
    base = data.X.reset_index(drop=True)
    deck_part = 0.0 if factor is None else logit(data.p_win)
    skill = rng.normal(0.0, 0.8, n_players)
    first, second, debut1, debut2 = _entrants(base, n_players, n_periods, rng)
    scale = 1.0 if factor is None else np.where(debut1 | debut2, factor, 1.0)
    p = expit(
        skill[first] - skill[second] + offset * (debut1.astype(float) - debut2) + scale * deck_part
    )
    y = (rng.random(len(p)) < p).astype(int)
    X = base.assign(player1=[f"P{i}" for i in first], player2=[f"P{i}" for i in second])
    return X, y, debut1, debut2


# -- declaration and layout ---------------------------------------------------------------


def test_the_debut_block_is_one_unscaled_offset_from_a_zero_baseline():
    block = next(b for b in BLOCK_TABLE if b.name == "debut")
    assert block.option == "debut" and block.spread is None and block.form == "baseline"
    layout = Layout(5, 2, 3, 1, ModelOptions(debut=True))
    assert layout.shapes["debut"] == (len(DEBUT_LEVELS),)
    assert layout.n_free_cells(block) == 1  # the seasoned level is 0, not drawn
    z = np.random.default_rng(0).standard_normal((4, layout.n_free))
    effects = layout.unflatten(layout.theta(z, np.ones((4, 4))))
    assert np.all(effects["debut"][:, 0] == 0.0)
    np.testing.assert_array_equal(effects["debut"][:, 1], z[:, layout.free_offsets["debut"]])


def _players_only(layout, seed):
    """Effect draws of ``layout`` with every deck effect 0, and their blocks."""
    theta = layout.theta(
        np.random.default_rng(seed).standard_normal((3, layout.n_free)),
        np.ones((3, len(layout.spreads))),
    )
    blocks = layout.unflatten(theta)
    for name in ("stst", "stsp", "spst", "spsp"):
        blocks[name] = np.zeros_like(blocks[name])
    return layout.flatten(blocks), blocks


def _log_odds(layout, codes, theta):
    return (theta[:, layout.index_matrix(codes)] * layout.signs).sum(axis=-1)


def test_a_match_reads_the_offset_for_the_debutant_side_only():
    table = check_match_table(_table(["a", "b", "a"], ["b", "c", "c"], ["t1", "t2", "t2"]))
    vocab = Vocabulary.from_table(table)
    layout = Layout(*vocab.sizes, vocab.specs_per_deck, ModelOptions(debut=True))
    theta, blocks = _players_only(layout, 1)
    skill, offset = blocks["skill"], blocks["debut"][:, 1]
    q = _log_odds(layout, encode(table, vocab), theta)
    a, b, c = (vocab.players.index(p) for p in "abc")
    np.testing.assert_allclose(q[:, 0], skill[:, a] - skill[:, b])  # both debut: cancels
    np.testing.assert_allclose(q[:, 1], skill[:, b] - skill[:, c] - offset)  # c debuts in t2
    np.testing.assert_allclose(q[:, 2], skill[:, a] - skill[:, c] - offset)

    later = check_match_table(_table(["a", "d"], ["d", "c"], ["t3", "t3"]))
    codes = encode(later, vocab)
    assert codes.debut1.tolist() == [False, True] and codes.debut2.tolist() == [True, False]
    grown = Layout(
        codes.n_players, *vocab.sizes[1:], vocab.specs_per_deck, ModelOptions(debut=True)
    )
    theta, blocks = _players_only(grown, 2)
    skill, offset = blocks["skill"], blocks["debut"][:, 1]
    q = _log_odds(grown, codes, theta)
    d = int(codes.player1[1])
    np.testing.assert_allclose(q[:, 0], skill[:, a] - skill[:, d] - offset)
    np.testing.assert_allclose(q[:, 1], skill[:, d] - skill[:, c] + offset)


def test_debut_periods_follow_time_not_rows():
    rows = _table(["a", "a", "b"], ["b", "c", "c"], ["late", "early", "early"])
    rows["date"] = pd.to_datetime(["2020-03-01", "2020-01-01", "2020-01-02"])
    vocab = Vocabulary.from_table(check_match_table(rows))
    assert dict(zip(vocab.players, vocab.debut_periods)) == {
        "a": "early",
        "b": "early",
        "c": "early",
    }
    codes = encode(check_match_table(rows), vocab)
    assert codes.debut1.tolist() == [False, True, True]
    assert codes.debut2.tolist() == [False, True, True]


def test_without_periods_only_a_never_seen_player_debuts():
    rows = _table(["a", "b"], ["b", "c"], ["t1", "t2"]).drop(columns="period")
    vocab = Vocabulary.from_table(check_match_table(rows))
    assert vocab.debut_periods == ()
    later = check_match_table(_table(["a", "x"], ["b", "a"], ["t3", "t3"]).drop(columns="period"))
    codes = encode(later, vocab)
    assert codes.debut1.tolist() == [False, True] and codes.debut2.tolist() == [False, False]
    d1, d2 = debut_flags(later, vocab, codes.player1, codes.player2)
    assert d1.tolist() == [False, True] and d2.tolist() == [False, False]


def test_swapping_sides_negates_the_debut_part_in_a_symmetric_game():
    table = check_match_table(_table(["a", "b"], ["b", "c"], ["t1", "t2"]))
    vocab = Vocabulary.from_table(table)
    layout = Layout(*vocab.sizes, vocab.specs_per_deck, ModelOptions(debut=True, symmetric=True))
    swapped = table.rename(
        columns={"player1": "player2", "player2": "player1", "deck1": "deck2", "deck2": "deck1"}
    )
    theta = layout.theta(
        np.random.default_rng(2).standard_normal((5, layout.n_free)), np.ones((5, 4))
    )
    q = (theta[:, layout.index_matrix(encode(table, vocab))] * layout.signs).sum(-1)
    q_swapped = (theta[:, layout.index_matrix(encode(swapped, vocab))] * layout.signs).sum(-1)
    np.testing.assert_allclose(q, -q_swapped, atol=1e-12)
    # and with the debut deck factor: a debut match is one whichever side is listed first
    from skcodex._matchup.debut import debut_rows, deck_columns, with_factor

    factor = np.array([0.2, 0.6, 0.9, 1.4, 1.8])
    raw = _table(["a", "b"], ["b", "c"], ["t1", "t2"]).assign(deck2="Blood/Fire/Growth/Green")
    table = check_match_table(raw)  # not a mirror match: the decks matter
    swapped = table.rename(
        columns={"player1": "player2", "player2": "player1", "deck1": "deck2", "deck2": "deck1"}
    )
    vocab = Vocabulary.from_table(table)
    layout = Layout(*vocab.sizes, vocab.specs_per_deck, ModelOptions(debut=True, symmetric=True))
    theta = layout.theta(
        np.random.default_rng(3).standard_normal((5, layout.n_free)), np.ones((5, 4))
    )
    scaled = []
    for t in (table, swapped):
        index = layout.index_matrix(encode(t, vocab))
        rows = debut_rows(layout, index)
        assert rows.all()  # b debuts in t1 and c in t2
        wide, moved = with_factor(theta, index, rows, deck_columns(layout), factor)
        scaled.append((wide[:, moved] * layout.signs).sum(-1))
    np.testing.assert_allclose(scaled[0], -scaled[1], atol=1e-12)
    plain = (theta[:, layout.index_matrix(encode(table, vocab))] * layout.signs).sum(-1)
    assert np.abs(scaled[0] - plain).min() > 1e-6  # the factor changed every match


def test_the_estimator_names_the_debut_prior():
    clf = BayesianMatchupClassifier(debut=True, debut_loc=-0.3, debut_scale=0.4)
    names = clf.options.prior_names
    assert names[-1] == "debut"
    assert clf.priors.loc[-1] == -0.3 and clf.priors.scale[-1] == 0.4
    assert "debut" not in BayesianMatchupClassifier().options.prior_names


def test_simulated_debuts_are_what_the_flags_say():
    X, _, debut1, debut2 = debut_matches(0.0, n_periods=6, per_period=40)
    table = check_match_table(X)
    codes = encode(table, Vocabulary.from_table(table))
    np.testing.assert_array_equal(codes.debut1, debut1)
    np.testing.assert_array_equal(codes.debut2, debut2)


# -- fitted against known truth ------------------------------------------------------------


def _fit(X, y, **params):
    """The debut option on static skills (the independent computations read them as drawn)."""
    return BayesianMatchupClassifier(
        debut=True, time_varying=False, draws=400, tune=400, chains=2, random_state=0, **params
    ).fit(X, y)


def _offset_draws(clf) -> np.ndarray:
    from skcodex._compat import posterior

    return posterior.draws(clf.idata_, "debut")[:, 1].astype(float)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_a_known_debut_handicap_is_recovered(tmp_path):
    X, y, *_ = debut_matches(-0.8)
    clf = _fit(X, y)
    draws = _offset_draws(clf)
    mean, sd = draws.mean(), draws.std()
    assert abs(mean - (-0.8)) < 3 * sd  # the truth within three posterior sds
    assert np.quantile(draws, 0.975) < 0.0  # and the handicap is found
    # saved and loaded, the model still knows who debuts when
    import skcodex

    again = skcodex.load(clf.save(tmp_path / "debut.skcodex"))
    assert again.vocabulary_.debut_periods == clf.vocabulary_.debut_periods
    later = X.tail(5).assign(player1="someone new")
    np.testing.assert_array_equal(again.predict_proba(later), clf.predict_proba(later))


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_no_debut_effect_is_found_where_there_is_none():
    X, y, *_ = debut_matches(0.0, seed=3)
    draws = _offset_draws(_fit(X, y))
    assert np.quantile(draws, 0.025) < 0.0 < np.quantile(draws, 0.975)
    assert abs(draws.mean()) < 0.3


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_a_newcomer_forecast_integrates_skill_around_the_offset():
    X, y, *_ = debut_matches(-0.8, n_periods=8, per_period=80, seed=5)
    clf = _fit(X, y)
    seen = clf.vocabulary_.players[0]
    match = X.iloc[[-1]].assign(player1="someone new", player2=seen, period="next")
    p = clf.predict_proba(match)[0, 1]
    # independent computation: per draw, E over the newcomer's skill x ~ N(0, sd_player)
    # of expit(offset + x - skill[seen] + decks), by Monte Carlo
    from skcodex._compat import posterior

    skill = posterior.draws(clf.idata_, "skill")[:, 0].astype(float)
    offset = _offset_draws(clf)
    sd_player = posterior.draws(clf.idata_, "sd")[:, 0].astype(float)
    # another seen player in the newcomer's place, neither debuting in a new period:
    # their log-odds per draw are skill[other] - skill[seen] + the deck part
    other = clf.vocabulary_.players[1]
    known = clf.predict_proba_draws(match.assign(player1=other))[:, 0]
    other_skill = posterior.draws(clf.idata_, "skill")[:, 1].astype(float)
    deck_logit = np.log(known / (1 - known)) - other_skill + skill
    # the newcomer debuts: the match shows the debut deck factor's share of the decks
    factor = posterior.draws(clf.idata_, "debut_deck_factor").astype(float)
    x = np.random.default_rng(0).standard_normal((400, len(skill))) * sd_player
    expected = expit(offset + x - skill + factor * deck_logit).mean()
    assert p == pytest.approx(expected, abs=0.01)
    # a never-seen player debuts in a training period too; the seen player does not
    # (their debut period is the first), so the forecast is the same
    last = X["period"].iloc[-1]
    assert clf.vocabulary_.debut_periods[0] != str(last)
    in_training_period = clf.predict_proba(match.assign(period=last))[0, 1]
    assert in_training_period == pytest.approx(p)
    # in the seen player's own debut period both sides debut: the offsets cancel
    both = clf.predict_proba(match.assign(period=clf.vocabulary_.debut_periods[0]))[0, 1]
    assert both > p


# -- the per-period skill offset ----------------------------------------------------------


def test_a_period_offset_is_read_for_the_match_period_by_label():
    table = check_match_table(_table(["a", "b", "a"], ["b", "c", "c"], ["t1", "t2", "t1"]))
    vocab = Vocabulary.from_table(table)
    assert vocab.periods == ("t1", "t2")
    codes = encode(table, vocab)
    layout = Layout(
        *vocab.sizes,
        vocab.specs_per_deck,
        ModelOptions(period_offset=True),
        n_periods=codes.n_periods,
    )
    theta, blocks = _players_only(layout, 3)
    shift = blocks["period_skill"]
    a, b, c = (vocab.players.index(p) for p in "abc")
    skill = blocks["skill"]
    q = _log_odds(layout, codes, theta)
    np.testing.assert_allclose(q[:, 0], skill[:, a] + shift[:, a, 0] - skill[:, b] - shift[:, b, 0])
    np.testing.assert_allclose(q[:, 1], skill[:, b] + shift[:, b, 1] - skill[:, c] - shift[:, c, 1])
    later = encode(check_match_table(_table(["a"], ["b"], ["t9"])), vocab)
    assert later.period.tolist() == [2] and later.unseen_periods == ("t9",)
    assert later.n_periods == 3


def test_the_period_offset_has_its_own_spread_and_prior():
    clf = BayesianMatchupClassifier(period_offset=True, log_sd_period_loc=-1.0)
    assert "period" in clf.options.spreads
    at = clf.options.prior_names.index("period")
    assert clf.priors.loc[at] == -1.0 and clf.priors.scale[at] == 0.5


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_a_table_without_periods_fits_without_debut_or_period_offsets():
    X, y, *_ = debut_matches(0.0, n_periods=4, per_period=40, seed=7)
    clf = BayesianMatchupClassifier(
        debut=True, period_offset=True, draws=100, tune=100, chains=1, random_state=0
    ).fit(X.drop(columns=["period"]), y)
    assert not clf.layout_.options.debut and not clf.layout_.options.period_offset
    p = clf.predict_proba(X.drop(columns=["period"]).assign(player1="someone new"))
    assert np.all((p > 0) & (p < 1))


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_a_forecast_for_a_new_period_integrates_the_new_offsets():
    X, y, *_ = debut_matches(0.0, n_periods=5, per_period=60, seed=11)
    train = X["period"] != X["period"].iloc[-1]
    clf = BayesianMatchupClassifier(
        period_offset=True,
        time_varying=False,
        debut=False,
        draws=300,
        tune=300,
        chains=2,
        random_state=0,
    ).fit(X[train], y[train])
    seen = set(X["player1"][train]) | set(X["player2"][train])
    test = X[~train & X["player1"].isin(seen) & X["player2"].isin(seen)].head(20)
    p = clf.predict_proba(test)[:, 1]
    # independent computation: per draw, a fresh N(0, sd_period) shift for each player
    from skcodex._compat import posterior

    sd_period = posterior.draws(clf.idata_, "sd")[:, clf.layout_.spreads.index("period")]
    known = clf.predict_proba_draws(test.assign(period=X["period"][train].iloc[-1]))
    shifts = clf.idata_.posterior["period_skill"].isel(period=-1)
    q = np.log(known / (1 - known))  # with the last training period's shifts: take them out
    players = list(clf.vocabulary_.players)
    flat = shifts.stack(sample=("chain", "draw")).transpose("sample", "player").to_numpy()
    f = [players.index(name) for name in test["player1"]]
    s = [players.index(name) for name in test["player2"]]
    q = q - flat[:, f] + flat[:, s]
    rng = np.random.default_rng(0)
    noise = rng.standard_normal((400, *q.shape)) * np.sqrt(2.0) * sd_period[None, :, None]
    expected = expit(q[None] + noise).mean(axis=(0, 1))
    np.testing.assert_allclose(p, expected, atol=0.01)


# -- the debut deck factor ---------------------------------------------------------------


def test_the_factor_scales_the_deck_columns_of_debut_rows_only():
    from skcodex._matchup.debut import with_factor

    rng = np.random.default_rng(1)
    theta = rng.normal(size=(5, 12))
    index = rng.integers(0, 12, size=(7, 4))
    index[2, 3] = 12  # a never-seen cell, integrated out: an effect of 0
    index[5, 0] = 12
    signs = np.array([1.0, -1.0, 1.0, 1.0])
    rows = np.array([True, False, True, False, True, True, False])
    columns = np.array([False, False, True, True])
    factor = rng.uniform(0.1, 1.9, 5)
    before = (theta.copy(), index.copy())
    wide, moved = with_factor(theta, index, rows, columns, factor, zero=12)
    np.testing.assert_array_equal(theta, before[0])  # nothing passed in is changed
    np.testing.assert_array_equal(index, before[1])
    padded = np.column_stack([wide, np.zeros(5)])  # the zero entry sits at the new width
    assert moved.max() <= wide.shape[1]
    got = (padded[:, moved] * signs).sum(axis=2)
    zeroed = np.column_stack([theta, np.zeros(5)])[:, index]  # (draws, rows, columns)
    weight = np.where(rows[:, None] & columns[None, :], factor[:, None, None], 1.0)
    np.testing.assert_allclose(got, (zeroed * weight * signs).sum(axis=2))


def test_the_deck_columns_and_spreads_are_those_of_deck_component_blocks():
    from skcodex._matchup.debut import deck_columns, deck_spreads

    layout = Layout(5, 3, 4, 2, ModelOptions(debut=True, synergy=True, familiarity=True))
    names = [b.name for b in layout.column_blocks]
    assert len(names) == len(layout.signs)
    deck = {"stst", "stsp", "spst", "spsp", "syn_stsp", "syn_spsp"}
    np.testing.assert_array_equal(deck_columns(layout), [n in deck for n in names])
    assert dict(zip(layout.spreads, deck_spreads(layout))) == {
        "player": False,
        "stst": True,
        "stsp": True,
        "spsp": True,
        "syn": True,
        "fam": False,
    }
    # a game without specs: the starter matchup alone
    plain = Layout(5, 3, 0, 0, ModelOptions(debut=True, first_move=True))
    assert [b.name for b in plain.column_blocks] == [
        "skill", "skill", "stst", "first_move", "debut", "debut"
    ]  # fmt: skip


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("factor", [0.25, 1.0])
def test_a_known_debut_deck_factor_is_recovered(factor, tmp_path):
    import skcodex

    X, y, debut1, debut2 = debut_matches(0.0, factor=factor, n_periods=10, per_period=150, seed=2)
    debuts = debut1 | debut2
    assert 0.15 < debuts.mean() < 0.5  # enough debut matches to learn from
    clf = _fit(X, y)
    from skcodex._compat import posterior

    draws = posterior.draws(clf.idata_, "debut_deck_factor").astype(float)
    low, high = np.quantile(draws, [0.005, 0.995])
    assert low < factor < high
    assert factor == 1.0 or high < 1.0  # a factor below 1 is found to be below 1
    assert draws.std() < 0.25  # and learned: the prior's sd is about 0.42
    # a newcomer's forecast: their skill integrated out, the deck part times the factor,
    # against an independent Monte Carlo computation from the posterior draws
    seen, other = clf.vocabulary_.players[:2]
    match = X.iloc[[-1]].assign(player1="someone new", player2=seen, period="next")
    p = clf.predict_proba(match)[0, 1]
    known = clf.predict_proba_draws(match.assign(player1=other))[:, 0]
    skill = posterior.draws(clf.idata_, "skill")[:, :2].astype(float)
    deck_logit = logit(known) - skill[:, 1] + skill[:, 0]
    offset = _offset_draws(clf)
    sd_player = posterior.draws(clf.idata_, "sd")[:, 0].astype(float)
    x = np.random.default_rng(0).standard_normal((400, len(draws))) * sd_player
    expected = expit(offset + x - skill[:, 0] + draws * deck_logit).mean()
    assert p == pytest.approx(expected, abs=0.01)
    full = expit(offset + x - skill[:, 0] + deck_logit).mean()
    assert abs(full - expected) > 0.03 or factor == 1.0  # the factor is what moved it
    # saved and loaded, the factor comes with the posterior
    again = skcodex.load(clf.save(tmp_path / "factor.skcodex"))
    np.testing.assert_array_equal(again.predict_proba(match), clf.predict_proba(match))


def test_the_model_reads_a_debut_match_with_its_deck_part_times_the_factor():
    from scipy.special import log_expit
    from scipy.stats import norm

    from skcodex._matchup.debut import FACTOR_LOGIT
    from skcodex._matchup.graph import build_model

    X, y, debut1, debut2 = debut_matches(0.0, factor=0.5, n_periods=4, per_period=40, seed=4)
    debuts = debut1 | debut2
    table = check_match_table(X)
    vocab = Vocabulary.from_table(table)
    codes = encode(table, vocab)
    np.testing.assert_array_equal(codes.debut1 | codes.debut2, debuts)
    layout = Layout(*vocab.sizes, vocab.specs_per_deck, ModelOptions(debut=True))
    model = build_model(layout.index_matrix(codes), y.astype(float), layout)
    logp = model.compile_logp()
    rng = np.random.default_rng(0)
    point = {"z": rng.normal(size=layout.n_free), "log_sd": rng.normal(-0.5, 0.3, 4)}
    names = [b.name for b in layout.declared]
    effects = model.compile_fn(
        [model[n] for n in names], inputs=model.free_RVs, on_unused_input="ignore"
    )({**point, FACTOR_LOGIT: 0.0})
    e = dict(zip(names, effects))
    # the log-odds by hand from the seed's formula, its deck part apart
    f, s, g, t, h, u = (
        codes.player1, codes.player2, codes.starter1, codes.starter2, codes.specs1, codes.specs2
    )  # fmt: skip
    deck = (
        e["stst"][g, t]
        + e["stsp"][g[:, None], u].sum(axis=1)
        + e["spst"][h, t[:, None]].sum(axis=1)
        + e["spsp"][h[:, :, None], u[:, None, :]].sum(axis=(1, 2))
    )
    rest = e["skill"][f] - e["skill"][s] + e["debut"][1] * (codes.debut1 * 1.0 - codes.debut2)

    def loglik(q):
        return np.sum(y * log_expit(q) + (1 - y) * log_expit(-q))

    at_one = logp({**point, FACTOR_LOGIT: 0.0})  # a factor of 1: the seed's formula
    for k in (-1.5, 0.7, 2.0):
        factor = 2.0 / (1.0 + np.exp(-k))
        want = loglik(rest + np.where(debuts, factor, 1.0) * deck) - loglik(rest + deck)
        want += norm.logpdf(k) - norm.logpdf(0.0)
        assert logp({**point, FACTOR_LOGIT: k}) - at_one == pytest.approx(want, abs=1e-8)
