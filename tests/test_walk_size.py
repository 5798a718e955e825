"""The skill walk's size, counted by hand, and the warning before a slow fit."""

from __future__ import annotations

import warnings

import pandas as pd

from skcodex import BayesianMatchupClassifier
from skcodex.data import Vocabulary, check_match_table, encode
from skcodex.data._catalogues import WALK_STEPS_SLOW
from skcodex.data._codes import walk_size


def _table(n_players: int, n_periods: int) -> pd.DataFrame:
    """Player i plays player i + 1 once in every period (the last player wraps to 0)."""
    rows = []
    for t in range(n_periods):
        for i in range(0, n_players, 2):
            rows.append((f"p{i}", f"p{(i + 1) % n_players}", "MonoRed", "MonoBlue", f"T{t:03d}"))
    return pd.DataFrame(rows, columns=["player1", "player2", "deck1", "deck2", "period"])


def test_walk_size_counts_steps_into_played_periods():
    X = pd.concat([_table(4, 3), _table(6, 1).assign(period="T003")], ignore_index=True)
    table = check_match_table(X)
    codes = encode(table, Vocabulary.from_table(table))
    # p0-p3 play T001, T002 and T003 (3 steps each); p4 and p5 play only T003 (1 step each,
    # spanning three periods); through every period it would be 6 players x 3 steps
    assert walk_size(codes) == (14, 18)
    single = encode(table.iloc[:2], Vocabulary.from_table(table.iloc[:2]))
    assert walk_size(single) == (0, 0)


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
        "time_varying=True on 100 players and 45 rating periods: the skill walk takes 4,400 "
        "steps (one per player and period played after the first; 4,400 through every period)."
    )
    static = BayesianMatchupClassifier(time_varying=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        static._training_layout(vocab, codes)


def test_describe_model_reports_the_walk_of_a_fitted_model(small_matches):
    """``layout_`` is the layout as sampled: the integrated walk with its steps counted."""
    from sklearn.exceptions import ConvergenceWarning

    from skcodex.report import describe_model

    clf = BayesianMatchupClassifier(time_varying=True, draws=30, tune=30, chains=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(small_matches.X, small_matches.y)
    table = check_match_table(small_matches.X)
    codes = encode(table, Vocabulary.from_table(table))
    assert clf.layout_.integrated_walk and clf.layout_.walk_steps == walk_size(codes)[0]
    model = describe_model(clf)
    assert model["time_varying"] and "time_varying" in model["extensions"]
    assert model["n_epochs"] == small_matches.X["period"].nunique()
