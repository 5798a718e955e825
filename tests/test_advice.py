"""What to bring (`skcodex.analysis.deck_advice`): known truth, independent computations, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit
from sklearn.exceptions import ConvergenceWarning, NotFittedError

from skcodex import BayesianMatchupClassifier
from skcodex.analysis import deck_advice
from skcodex.datasets import make_game_matches
from skcodex.tournament import TournamentError, simulate_tournament

CHARACTERS = ["char0", "char1", "char2", "char3"]

#: char0 is built to be the best pick: +1.5 log-odds against every other character.
EDGE = 1.5


def _fit(X, y, **kwargs):
    clf = BayesianMatchupClassifier(draws=300, tune=300, chains=2, random_state=0, **kwargs)
    with warnings.catch_warnings():
        # short chains: the convergence checks may rightly find them short
        warnings.simplefilter("ignore", ConvergenceWarning)
        return clf.fit(X, y)


@pytest.fixture(scope="module")
def game():
    """A fighting game whose outcomes are drawn from a matchup matrix where char0 is best."""
    data = make_game_matches(
        n_players=16, n_matches=1200, n_tournaments=4, starters=4, random_state=0
    )
    X = data.X
    skill = data.params["skill"]
    m = np.zeros((4, 4))
    m[0, 1:], m[1:, 0] = EDGE, -EDGE
    i1 = X["deck1"].map(CHARACTERS.index).to_numpy()
    i2 = X["deck2"].map(CHARACTERS.index).to_numpy()
    p = expit(skill[X["player1"]].to_numpy() - skill[X["player2"]].to_numpy() + m[i1, i2])
    y = (np.random.default_rng(1).random(len(X)) < p).astype(int)
    clf = _fit(X, y, catalogue=data.catalogue)
    return clf, skill, m


def _field():
    return pd.DataFrame(
        {
            "player": [f"player{k:02d}" for k in range(2, 9)],
            "deck": ["char1", "char2", "char3", "char1", "char2", "char3", "char0"],
        }
    )


def test_the_deck_built_to_be_best_ranks_first_with_high_probability(game):
    clf, skill, m = game
    field = _field()
    candidates = ["char1", "char0", "char2"]
    advice = deck_advice(
        clf, "player01", candidates, field, format="swiss:3+knockout:4", random_state=0
    )
    assert advice["deck"].iloc[0] == "char0"
    best = advice.set_index("deck").loc["char0"]
    assert best["rank_win_rate"] == 1 and best["rank_event"] == 1
    assert best["p_best_win_rate"] >= 0.9
    assert best["p_best_event"] >= 0.6
    np.testing.assert_allclose(advice["p_best_win_rate"].sum(), 1.0)
    np.testing.assert_allclose(advice["p_best_event"].sum(), 1.0)
    # the true win rates (coin-flip turn order; the game has no first-move effect)
    opponents = [int(p[-2:]) for p in field["player"]]
    me = skill["player01"]
    truth = {
        c: np.mean(
            [
                expit(me - skill[f"player{o:02d}"] + m[CHARACTERS.index(c), CHARACTERS.index(d)])
                for o, d in zip(opponents, field["deck"])
            ]
        )
        for c in candidates
    }
    assert max(truth, key=truth.get) == "char0"
    # (the construction: char0 is the best pick by a clear margin in truth)
    assert truth["char0"] - max(truth["char1"], truth["char2"]) > 0.1


def _independent_win_rate(clf, player, candidates, names, decks):
    """Per draw: mean over the field of (P(win moving first) + 1 - P(lose moving second)) / 2."""
    rows = []
    for c in candidates:
        for name, deck in zip(names, decks):
            rows.append((player, name, c, deck))
            rows.append((name, player, deck, c))
    table = pd.DataFrame(rows, columns=["player1", "player2", "deck1", "deck2"])
    p = clf.predict_proba_draws(table).reshape(-1, len(candidates), len(names), 2)
    return (0.5 * (p[..., 0] + 1.0 - p[..., 1])).mean(axis=2)


def test_win_rates_equal_an_independent_computation_from_predict_proba_draws(game):
    clf = game[0]
    field = _field()
    candidates = ["char2", "char3", "char0"]
    advice = deck_advice(clf, "player01", candidates, field, n_draws=None).set_index("deck")
    win = _independent_win_rate(clf, "player01", candidates, field["player"], field["deck"])
    lower, upper = np.quantile(win, [0.05, 0.95], axis=0)
    best = np.bincount(win.argmax(axis=1), minlength=3) / len(win)
    got = advice.loc[candidates]
    np.testing.assert_allclose(got["win_rate"], win.mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(got["win_rate_lower"], lower, rtol=1e-12)
    np.testing.assert_allclose(got["win_rate_upper"], upper, rtol=1e-12)
    np.testing.assert_allclose(got["p_best_win_rate"], best, rtol=1e-12)
    assert "p_event" not in advice.columns
    assert advice.attrs["n_draws"] == len(clf.effect_draws_)


def test_shares_average_over_anonymous_opponents_as_predict_proba_integrates_them(game):
    # predict_proba integrates a never-seen opponent's skill by quadrature; the advice
    # averages over anonymous opponents drawn from the population: the two agree.
    clf = game[0]
    shares = {"char1": 0.5, "char2": 0.3, "char0": 0.2}
    advice = deck_advice(clf, "player03", ["char0", "char3"], shares, n_draws=None)
    for c in ("char0", "char3"):
        rows = [("player03", "newcomer", c, d) for d in shares]
        rows += [("newcomer", "player03", d, c) for d in shares]
        table = pd.DataFrame(rows, columns=["player1", "player2", "deck1", "deck2"])
        p = clf.predict_proba(table)[:, 1].reshape(2, -1)
        expected = np.dot(list(shares.values()), 0.5 * (p[0] + 1.0 - p[1]))
        got = advice.set_index("deck").loc[c, "win_rate"]
        assert abs(got - expected) < 0.015, (c, got, expected)


def test_the_event_chance_agrees_with_simulate_tournament(game):
    clf = game[0]
    field = _field()
    fmt = "swiss:3+knockout:4"
    advice = deck_advice(
        clf, "player01", ["char1", "char0"], field, format=fmt, n_draws=None,
        n_simulations=12_000, random_state=1,
    ).set_index("deck")  # fmt: skip
    for c in ("char1", "char0"):
        entrants = pd.concat(
            [pd.DataFrame({"player": ["player01"], "deck": [c]}), field], ignore_index=True
        )
        forecast = simulate_tournament(fmt, entrants, clf, n_simulations=12_000, random_state=2)
        direct = forecast.p_win[0]
        se_direct = np.sqrt(direct * (1 - direct) / 12_000)
        got, se = advice.loc[c, "p_event"], advice.loc[c, "p_event_se"]
        assert abs(got - direct) < 4 * np.hypot(se, se_direct), (c, got, direct)
        assert advice.loc[c, "p_event_lower"] <= got <= advice.loc[c, "p_event_upper"]


def test_the_players_seed_and_a_field_of_shares_play_an_event(game):
    clf = game[0]
    shares = pd.DataFrame({"deck": ["char1", "char2", "char3"], "share": [0.5, 0.25, 0.25]})
    kept = shares.copy()
    advice = deck_advice(
        clf, "someone new", ["char0", "char1"], shares, format="knockout:8", n_entrants=8,
        seed=8, n_draws=50, n_simulations=2000, random_state=0,
    )  # fmt: skip
    pd.testing.assert_frame_equal(shares, kept)  # nothing the user passed is modified
    assert advice.attrs["field"] == "shares" and advice.attrs["n_entrants"] == 8
    assert advice.attrs["simulations_per_draw"] == 40
    assert advice["deck"].iloc[0] == "char0"
    assert ((advice["p_event"] > 0) & (advice["p_event"] < 1)).all()
    # the same call repeats exactly
    again = deck_advice(
        clf, "someone new", ["char0", "char1"], shares, format="knockout:8", n_entrants=8,
        seed=8, n_draws=50, n_simulations=2000, random_state=0,
    )  # fmt: skip
    pd.testing.assert_frame_equal(advice, again)


def test_unnamed_entrants_are_never_seen_opponents(game):
    clf = game[0]
    advice = deck_advice(clf, "player01", ["char0", "char1"], ["char1", "char2", "char3"])
    assert advice.attrs["field"] == "entrants" and advice.attrs["n_entrants"] == 4
    assert advice["deck"].iloc[0] == "char0"


def test_a_symmetric_game_gives_the_same_rate_whoever_moves_first():
    data = make_game_matches(
        n_players=12, n_matches=300, n_tournaments=2, starters=4, symmetric=True, random_state=3
    )
    clf = _fit(data.X, data.y, catalogue=data.catalogue, symmetric=True)
    field = {"player02": "char1", "player03": "char2", "player04": "char3"}
    candidates = ["char0", "char1"]
    advice = deck_advice(clf, "player01", candidates, field, n_draws=None).set_index("deck")
    rows = [("player01", n, c, d) for c in candidates for n, d in field.items()]
    p = clf.predict_proba_draws(
        pd.DataFrame(rows, columns=["player1", "player2", "deck1", "deck2"])
    )
    first_only = p.reshape(len(p), 2, 3).mean(axis=2)  # moving first is no different here
    np.testing.assert_allclose(advice.loc[candidates, "win_rate"], first_only.mean(axis=0))
    event = deck_advice(
        clf, "player01", candidates, field, format="round-robin", n_draws=20,
        n_simulations=400, random_state=0,
    )  # fmt: skip
    assert set(event["deck"]) == set(candidates)


# -- bad inputs --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"candidates": ["char9"]}, "char9"),
        ({"candidates": []}, "at least one deck"),
        ({"candidates": ["char1", "char1"]}, "more than once"),
        ({"candidates": 3}, "list of decks"),
        ({"field": []}, "field is empty"),
        ({"field": pd.DataFrame({"player": [], "deck": []})}, "field is empty"),
        ({"field": {"char1": 0.5, "char2": 0.3}}, "sum to 0.8"),
        ({"field": {"char1": 1.5, "char2": -0.5}}, "0 or more"),
        (
            {"field": pd.DataFrame({"deck": ["char1", "char1"], "share": [0.5, 0.5]})},
            "two shares",
        ),
        ({"field": pd.DataFrame({"player": ["a"], "deck": ["char1"], "share": [1.0]})}, "not both"),
        ({"field": pd.DataFrame({"who": ["a"]})}, "'deck' column"),
        ({"field": {"player01": "char1", "player02": "char2"}}, "the player being advised"),
        ({"field": {"player02": "char1;char2"}}, "lists 2 decks"),
        ({"field": {"player02": "char7"}}, "char7"),
        (
            {"field": pd.DataFrame({"player": ["a", "a"], "deck": ["char1", "char2"]})},
            "more than once",
        ),
        ({"field": pd.DataFrame({"player": [None], "deck": ["char1"]})}, "has no name"),
        ({"field": 3.5}, "field must be"),
        ({"player": None}, "name the player"),
        ({"player": "  "}, "name the player"),
        ({"format": "swiss:3", "field": {"char1": 1.0}}, "n_entrants"),
        ({"n_entrants": 8}, "n_entrants is for a field of shares"),
        ({"format": "swiss:3", "seed": 9}, "seed must be between 1 and 3"),
        ({"format": "nonsense:3"}, "nonsense"),
        ({"format": "groups:4"}, "needs at least 8 entrants, got 3"),
        ({"n_simulations": 0}, "n_simulations"),
        ({"interval": 1.5}, "interval"),
        ({"n_draws": 0}, "n_draws"),
    ],
)
def test_bad_inputs_are_refused_by_name(game, kwargs, message):
    clf = game[0]
    args = {"player": "player01", "candidates": ["char0"]}
    args["field"] = {"player02": "char1", "player03": "char2"}
    args.update(kwargs)
    player, candidates, field = args.pop("player"), args.pop("candidates"), args.pop("field")
    with pytest.raises(ValueError, match=message):
        deck_advice(clf, player, candidates, field, **args)


def test_a_format_error_is_the_tournament_error(game):
    with pytest.raises(TournamentError):
        deck_advice(game[0], "player01", ["char0"], {"player02": "char1"}, format="swiss:x")


def test_an_unfitted_classifier_is_refused():
    with pytest.raises(NotFittedError):
        deck_advice(BayesianMatchupClassifier(), "a", ["MonoRed"], ["MonoBlue"])


def test_a_codex_deck_outside_the_catalogue_is_refused_with_its_name(small_fit):
    clf, X = small_fit
    with pytest.raises(ValueError, match="Nonsense"):
        deck_advice(clf, X["player1"].iloc[0], ["[Nonsense]/Blood/Fire"], ["MonoRed"])
    candidates = ["MonoBlack", "[Demonology]/Anarchy/Law"]
    advice = deck_advice(clf, X["player1"].iloc[0], candidates, ["MonoRed", "MonoBlue"])
    assert set(advice["deck"]) == {"MonoBlack", "[Demonology]/Anarchy/Law"}


@pytest.fixture(scope="module")
def small_fit():
    from skcodex.datasets import make_matches

    data = make_matches(n_players=8, n_matches=80, n_tournaments=2, random_state=0)
    clf = BayesianMatchupClassifier(draws=50, tune=50, chains=1, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return clf.fit(data.X, data.y), data.X


def test_the_docs_table_is_the_backtests():
    import importlib.util
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location(
        "advice_backtest", root / "benchmarks" / "advice_backtest.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    results = json.loads((root / "benchmarks" / "results" / "advice_backtest.json").read_text())
    page = (root / "docs" / "what-to-bring.md").read_text(encoding="utf-8")
    assert module.markdown(results) in page
    s = results["summary"]
    flat = " ".join(page.split())
    assert f"{results['seconds']:.0f} s" in flat
    assert f"({s['followed_cases']} cases in {s['n_cases_a']})" in flat
    lo, hi = s["within_realised_gain_interval"]
    assert f"({100 * lo:.1f} to +{100 * hi:.1f} points over {s['n_cases_b']} cases" in flat
    assert f"by {100 * s['within_realised_gain']:.1f} points" in flat


def test_the_advice_page_holds_the_table_and_refuses_other_tables(game):
    from skcodex.report import render_advice_html

    advice = deck_advice(game[0], "player01", ["char0", "char1"], _field(), n_draws=50)
    page = render_advice_html(advice, deck_word="character")
    assert "Bring <strong>char0</strong>" in page and "<th>Character</th>" in page
    for deck, rate in zip(advice["deck"], advice["win_rate"]):
        assert f"<td>{deck}</td>\n      <td>{rate:.3f}</td>" in page
    assert "who moves first" in page
    assert "who moves first" not in render_advice_html(advice, symmetric=True)
    with pytest.raises(ValueError, match=r"the table skcodex\.analysis\.deck_advice returns"):
        render_advice_html(pd.DataFrame({"deck": ["a"]}))
    bare = pd.DataFrame(advice.to_dict("list"))  # a copy without the attrs
    with pytest.raises(ValueError, match="lost its attrs"):
        render_advice_html(bare)
