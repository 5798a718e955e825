"""The skill walk's size, counted by hand, and the warning before a slow fit."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

from skcodex import BayesianMatchupClassifier
from skcodex.data import Vocabulary, check_match_table, encode
from skcodex.data.catalogues import WALK_STEPS_SLOW
from skcodex.data.codes import walk_size


def _table(n_players: int, n_periods: int) -> pd.DataFrame:
    """Player i plays player i + 1 once in every period (the last player wraps to 0)."""
    rows = []
    for t in range(n_periods):
        for i in range(0, n_players, 2):
            rows.append((f"p{i}", f"p{(i + 1) % n_players}", "MonoRed", "MonoBlue", f"T{t:03d}"))
    return pd.DataFrame(rows, columns=["player1", "player2", "deck1", "deck2", "period"])


def test_walk_size_counts_steps_into_unplayed_periods():
    X = pd.concat([_table(4, 3), _table(6, 1).assign(period="T003")], ignore_index=True)
    table = check_match_table(X)
    codes = encode(table, Vocabulary.from_table(table))
    # 6 players x 3 steps; p4 and p5 play only in T003: their steps into T001, T002 are unplayed
    assert walk_size(codes) == (18, pytest.approx(4 / 18))
    single = encode(table.iloc[:2], Vocabulary.from_table(table.iloc[:2]))
    assert walk_size(single) == (0, 0.0)


def test_time_varying_warns_before_a_large_walk():
    small, large = _table(20, 5), _table(100, 45)
    clf = BayesianMatchupClassifier(time_varying=True)
    for X, warns in ((small, False), (large, True)):
        table = check_match_table(X)
        vocab = Vocabulary.from_table(table)
        codes = encode(table, vocab)
        assert (walk_size(codes)[0] >= WALK_STEPS_SLOW) == warns
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            clf._training_layout(vocab, codes)
        messages = [str(w.message) for w in caught]
        assert bool(messages) == warns, messages
    assert messages[0].startswith(
        "time_varying=True on 100 players and 45 rating periods: the skill walk adds 4,400 "
        "parameters, 0% of them steps into periods the player did not play."
    )
    static = BayesianMatchupClassifier()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        static._training_layout(vocab, codes)


def test_describe_model_reports_the_walk_of_a_fitted_model(small_matches):
    """``layout_`` is the prediction layout, without the walk; the posterior still holds it."""
    from sklearn.exceptions import ConvergenceWarning

    from skcodex.report import describe_model

    clf = BayesianMatchupClassifier(time_varying=True, draws=30, tune=30, chains=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(small_matches.X, small_matches.y)
    assert not clf.layout_.options.time_varying
    model = describe_model(clf)
    assert model["time_varying"] and "time_varying" in model["extensions"]
    assert model["n_epochs"] == small_matches.X["period"].nunique()
