"""The default ``"auto"`` parts: the debut option and the skill walk, decided by the table."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from skcodex import BayesianMatchupClassifier
from skcodex.cli.parser import build_parser
from skcodex.data import Vocabulary, check_match_table, encode
from skcodex.data._catalogues import WALK_STEPS_SLOW
from skcodex.data._codes import walk_size
from skcodex.datasets import make_matches


def _decided(clf: BayesianMatchupClassifier, X: pd.DataFrame) -> tuple[bool, bool]:
    """(time_varying, debut) as a fit of ``clf`` on ``X`` would decide them."""
    table = check_match_table(X)
    codes = encode(table, Vocabulary.from_table(table))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # auto never asks for a walk it would warn about
        options = clf._resolved_options(table, codes)
    return options.time_varying, options.debut


def _rounds(n_players: int, n_periods: int) -> pd.DataFrame:
    """Player i plays player i + 1 once in every period (the last player wraps to 0)."""
    rows = [
        (f"p{i}", f"p{(i + 1) % n_players}", "MonoRed", "MonoBlue", f"T{t:03d}")
        for t in range(n_periods)
        for i in range(0, n_players, 2)
    ]
    return pd.DataFrame(rows, columns=["player1", "player2", "deck1", "deck2", "period"])


def test_the_defaults_are_auto():
    clf = BayesianMatchupClassifier()
    assert clf.time_varying == "auto" and clf.debut == "auto"
    # before a fit, an auto part counts as off: the fit decides it from the table
    assert not clf.options.time_varying and not clf.options.debut
    assert "step" not in clf.options.prior_names and "debut" not in clf.options.prior_names


def test_auto_takes_both_parts_with_two_periods_or_more():
    X = _rounds(6, 3)
    assert _decided(BayesianMatchupClassifier(), X) == (True, True)


@pytest.mark.parametrize(
    "change",
    [
        lambda X: X.drop(columns="period"),  # no period column
        lambda X: X.assign(period="T000"),  # a single period
    ],
    ids=["no period column", "one period"],
)
def test_auto_takes_neither_part_without_two_periods(change):
    assert _decided(BayesianMatchupClassifier(), change(_rounds(6, 3))) == (False, False)


def test_auto_takes_no_walk_when_a_date_is_missing_and_true_refuses():
    X = _rounds(6, 3).assign(date=pd.Timestamp("2020-01-01"))
    X.loc[2, "date"] = pd.NaT
    assert _decided(BayesianMatchupClassifier(), X) == (False, True)
    with pytest.raises(ValueError, match="column 'date' is missing a value at row 2"):
        _decided(BayesianMatchupClassifier(time_varying=True), X)


def test_auto_takes_no_walk_of_the_slow_size_and_says_nothing():
    X = _rounds(100, 45)
    table = check_match_table(X)
    assert walk_size(encode(table, Vocabulary.from_table(table)))[0] >= WALK_STEPS_SLOW
    assert _decided(BayesianMatchupClassifier(), X) == (False, True)
    # just under the size: the walk
    X = _rounds(100, 40)
    table = check_match_table(X)
    assert walk_size(encode(table, Vocabulary.from_table(table)))[0] < WALK_STEPS_SLOW
    assert _decided(BayesianMatchupClassifier(), X) == (True, True)


def test_auto_takes_no_walk_for_an_approximate_method():
    assert _decided(BayesianMatchupClassifier(method="advi"), _rounds(6, 3)) == (False, True)


def test_explicit_values_are_kept_whatever_the_table():
    X = _rounds(6, 3)
    assert _decided(BayesianMatchupClassifier(time_varying=False, debut=False), X) == (
        False,
        False,
    )
    assert _decided(BayesianMatchupClassifier(time_varying=False), X) == (False, True)
    assert _decided(BayesianMatchupClassifier(debut=False), X) == (True, False)
    with pytest.raises(ValueError, match="time_varying=True needs a 'period' column"):
        BayesianMatchupClassifier(time_varying=True).fit(
            X.drop(columns="period"), np.ones(len(X), dtype=int)
        )


@pytest.mark.parametrize("name", ["time_varying", "debut"])
def test_a_value_other_than_a_boolean_or_auto_is_refused(name):
    X = _rounds(6, 3)
    with pytest.raises(ValueError, match=rf"'{name}' parameter .* must be .*'auto'"):
        BayesianMatchupClassifier(**{name: "on"}).fit(X, np.ones(len(X), dtype=int))


def test_a_fitted_default_reports_what_it_fitted_and_a_refit_decides_afresh():
    X, y = make_matches(
        n_players=12, n_matches=120, n_tournaments=3, random_state=3, return_X_y=True
    )
    clf = BayesianMatchupClassifier(draws=50, tune=50, chains=2, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X, y)
    assert clf.layout_.options.time_varying and clf.layout_.options.debut
    assert clf.options == clf.layout_.options
    assert clf.get_params()["time_varying"] == "auto"  # the parameter is left as given
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X.drop(columns="period"), y)
    assert not clf.layout_.options.time_varying and not clf.layout_.options.debut
    assert clf.options == clf.layout_.options
    assert "step" not in clf.options.prior_names


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        ([], ("auto", "auto")),
        (["--time-varying", "--debut"], (True, True)),
        (["--no-time-varying", "--no-debut"], (False, False)),
        (["--no-time-varying"], (False, "auto")),
    ],
)
def test_the_command_line_flags_are_on_off_or_auto(flags, expected):
    from skcodex.cli.commands import _part

    args = build_parser().parse_args(["fit", "matches.csv", "--out", "out", *flags])
    assert (_part(args, "time_varying"), _part(args, "debut")) == expected
