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
    # p0-p3 play T000 to T003 (3 steps each, after their first); p4 and p5 play only
    # T003, where their walks start (no step); through every period: 6 players x 3 steps
    assert walk_size(codes) == (12, 18)
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
        "steps (one per player and period played after the player's first; 4,400 through every "
        "period)."
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


def _rotating_table(n_players: int, n_periods: int, group: int) -> pd.DataFrame:
    """Each period one group of ``group`` players plays, the groups in turn."""
    rows = []
    n_groups = n_players // group
    for t in range(n_periods):
        first = (t % n_groups) * group
        for i in range(first, first + group, 2):
            rows.append((f"p{i}", f"p{i + 1}", "MonoRed", "MonoBlue", f"T{t:03d}"))
    return pd.DataFrame(rows, columns=["player1", "player2", "deck1", "deck2", "period"])


def test_the_auto_walk_is_judged_by_the_integrated_walk():
    """Players who play in few periods: a small walk, though large through every period.

    200 players in ten groups, one group a period for 45 periods: 700 steps as fitted
    (900 periods played, less each player's first), 8,800 through every period; "auto"
    tries the walk (and takes it when the forward evidence favours it, here every part).
    """
    import pandas as pd

    from skcodex._matchup import part_choice

    def richest_wins(parts):
        return pd.DataFrame({"chosen": [False] * (2 ** len(parts) - 1) + [True]})

    table = check_match_table(_rotating_table(200, 45, 20))
    codes = encode(table, Vocabulary.from_table(table))
    n_steps, every_period = walk_size(codes)
    assert (n_steps, every_period) == (700, 8800)
    assert n_steps < WALK_STEPS_SLOW <= every_period
    clf = BayesianMatchupClassifier(part_selection="forward")
    assert clf.time_varying == "auto"
    assert clf._resolved_options(table, codes, richest_wins)[0].time_varying
    assert part_choice.candidates(["debut", "time_varying"])[-1]["time_varying"]
    # and a walk large as fitted is not tried
    table = check_match_table(_table(100, 45))
    codes = encode(table, Vocabulary.from_table(table))
    assert walk_size(codes)[0] >= WALK_STEPS_SLOW
    assert not clf._resolved_options(table, codes, richest_wins)[0].time_varying


def test_the_walk_is_counted_without_a_players_by_periods_table():
    """20,000 one-match periods among 4,000 players: a dense table would take 80 MB."""
    import tracemalloc
    from types import SimpleNamespace

    import numpy as np

    n, players = 20_000, 4_000
    rng = np.random.default_rng(0)
    a = rng.integers(0, players, n)
    b = (a + 1 + rng.integers(0, players - 1, n)) % players
    # what walk_size reads of the codes of such a table
    codes = SimpleNamespace(player1=a, player2=b, epoch=np.arange(n), n_players=players, n_epochs=n)
    played = np.zeros((players, n), dtype=bool)
    played[a, np.arange(n)] = played[b, np.arange(n)] = True
    expected = int(played.sum() - played.any(axis=1).sum())  # each after the player's first
    del played
    tracemalloc.start()
    try:
        steps, every = walk_size(codes)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (steps, every) == (expected, players * (n - 1))
    assert peak < 5 * 2**20, peak
