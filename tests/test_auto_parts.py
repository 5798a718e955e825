"""The default ``"auto"`` parts: which the table can hold, and the forward evidence."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from skcodex import BayesianMatchupClassifier
from skcodex._matchup import part_choice
from skcodex.analysis import part_evidence
from skcodex.cli._parser import build_parser
from skcodex.data import Vocabulary, check_match_table, encode
from skcodex.data._catalogues import WALK_STEPS_SLOW
from skcodex.data._codes import walk_size
from skcodex.datasets import make_matches
from skcodex.report import write_report


def _decided(clf: BayesianMatchupClassifier, X: pd.DataFrame) -> tuple[bool, bool]:
    """(time_varying, debut) as a fit of ``clf`` on ``X`` would decide them, had every part
    the table can hold won on the forward evidence."""
    table = check_match_table(X)
    codes = encode(table, Vocabulary.from_table(table))

    def richest_wins(parts):
        combos = part_choice.candidates(parts)
        evidence = pd.DataFrame({"chosen": [False] * (len(combos) - 1) + [True]})
        return evidence

    clf = clone(clf).set_params(part_selection="forward")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # auto never asks for a walk it would warn about
        options, _ = clf._resolved_options(table, codes, richest_wins)
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
    # without the forward evidence asked for, an auto part stays off
    assert clf.part_selection == "none"
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


def test_a_fitted_default_reports_what_it_fitted_and_a_refit_decides_afresh(monkeypatch):
    X, y = make_matches(
        n_players=12, n_matches=120, n_tournaments=3, random_state=3, return_X_y=True
    )
    # both parts on by choice: what a fit records of them
    clf = BayesianMatchupClassifier(
        draws=50, tune=50, chains=2, random_state=0, part_selection="forward"
    )
    monkeypatch.setattr(
        part_choice,
        "candidate_evidence",
        lambda table, outcome, combos, fit_and_forecast: pd.DataFrame(
            {"chosen": [False] * (len(combos) - 1) + [True]}
        ),
    )
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
    from skcodex.cli._commands import _part

    args = build_parser().parse_args(["fit", "matches.csv", "--out", "out", *flags])
    assert (_part(args, "time_varying"), _part(args, "debut")) == expected


# -- the forward evidence ------------------------------------------------------------------


def _periods_table(n_periods: int, per_period: int = 30) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(0)
    rows = [
        (f"p{rng.integers(12)}", f"q{rng.integers(12)}", "MonoRed", "MonoBlue", t)
        for t in range(n_periods)
        for _ in range(per_period)
    ]
    X = pd.DataFrame(rows, columns=["player1", "player2", "deck1", "deck2", "period"])
    return check_match_table(X), rng.integers(0, 2, len(X)).astype(float)


def _scripted(forecasts: dict[str, float], outcome: np.ndarray, sharpen: str | None = None):
    """A fit_and_forecast whose candidates forecast fixed numbers (``sharpen``: the truth)."""

    def fit_and_forecast(parts, train, test):
        label = part_choice.candidate_label(parts)
        if label == sharpen:  # this candidate knows the outcome well
            return np.where(outcome[test] == 1, 0.8, 0.2)
        return np.full(len(test), forecasts.get(label, 0.5))

    return fit_and_forecast


def test_each_candidate_forecasts_the_last_periods_from_the_ones_before():
    table, outcome = _periods_table(6)
    seen = []

    def fit_and_forecast(parts, train, test):
        periods = table["period"].to_numpy()
        # every training match ended before the fold's period began
        assert periods[train].max() < periods[test].min()
        seen.append((part_choice.candidate_label(parts), periods[test].min()))
        return np.full(len(test), 0.5)

    evidence = part_choice.forward_evidence(table, outcome, ["debut"], fit_and_forecast)
    assert sorted(seen) == sorted((c, t) for c in ("static", "debut") for t in (3, 4, 5))
    assert list(evidence.columns) == list(part_choice.EVIDENCE_COLUMNS)
    assert evidence["matches"].tolist() == [90, 90]
    assert evidence["chosen"].tolist() == [True, False]  # a tie keeps the simpler model


def test_a_clearly_better_candidate_is_chosen_and_its_figures_are_right():
    table, outcome = _periods_table(6)
    forward = part_choice.forward_evidence(
        table, outcome, ["debut", "time_varying"], _scripted({}, outcome, sharpen="walk")
    )
    assert forward.set_index("candidate")["chosen"].to_dict() == {
        "static": False,
        "walk": True,
        "debut": False,
        "debut + walk": False,
    }
    walk = forward.set_index("candidate").loc["walk"]
    y = outcome[-90:]
    # an independent computation: 90 forecasts of 0.8 on the outcome against 0.5
    assert walk["log score"] == pytest.approx(np.log(0.8))
    assert walk["brier"] == pytest.approx(0.04)
    assert walk["log score - simplest"] == pytest.approx(90 * (np.log(0.8) - np.log(0.5)))
    assert walk["se"] == pytest.approx(0.0, abs=1e-9)  # the same gain on every match
    assert len(y) == 90


def test_a_gain_inside_two_standard_errors_keeps_the_simpler_model():
    table, outcome = _periods_table(6)
    # the debut candidate forecasts 0.55 for every match: on outcomes near half
    # ones it gains on some matches and loses on others, inside its noise
    forward = part_choice.forward_evidence(
        table, outcome, ["debut"], _scripted({"debut": 0.55}, outcome)
    )
    row = forward.set_index("candidate").loc["debut"]
    assert abs(row["log score - simplest"]) < part_choice.MARGIN_SE * row["se"]
    assert forward["chosen"].tolist() == [True, False]


def test_the_rule_takes_the_largest_gain_beyond_the_margin():
    evidence = pd.DataFrame(
        {"log score - simplest": [0.0, 5.0, 9.0, 3.0], "se": [0.0, 2.0, 4.0, 1.0]}
    )
    # every richer row wins (5 > 2 * 2, 9 > 2 * 4, 3 > 2 * 1): the largest gain is chosen
    assert part_choice.choose(evidence) == 2
    evidence.loc[2, "se"] = 5.0  # 9 < 10: no longer a win
    assert part_choice.choose(evidence) == 1
    evidence["se"] = 100.0
    evidence.loc[0, "se"] = 0.0
    assert part_choice.choose(evidence) == 0


def test_a_table_too_short_to_test_keeps_the_simplest_and_says_why():
    table, outcome = _periods_table(2)
    calls = []
    forward = part_choice.forward_evidence(
        table, outcome, ["debut"], lambda parts, tr, te: calls.append(1)
    )
    assert calls == []
    assert forward["chosen"].tolist() == [True, False]
    assert "too few rating periods" in forward.attrs["note"]


def test_a_default_fit_keeps_its_evidence_and_none_skips_it(tmp_path):
    X, y = make_matches(
        n_players=12, n_matches=240, n_tournaments=6, random_state=3, return_X_y=True
    )
    small = {"draws": 60, "tune": 60, "chains": 2, "random_state": 0}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = BayesianMatchupClassifier(part_selection="forward", **small).fit(X, y)
        skipped = BayesianMatchupClassifier(**small).fit(X, y)  # the default: no evidence
    evidence = clf.part_evidence_
    assert evidence["candidate"].tolist() == ["static", "walk", "debut", "debut + walk"]
    assert evidence["chosen"].sum() == 1
    chosen = evidence.loc[evidence["chosen"], "candidate"].item()
    fitted = part_choice.candidate_label(
        {"debut": clf.layout_.options.debut, "time_varying": clf.layout_.options.time_varying}
    )
    assert chosen == fitted
    assert evidence["matches"].min() >= part_choice.MIN_FOLD_MATCHES
    assert skipped.part_evidence_ is None
    assert part_evidence(skipped).empty
    assert part_evidence(clf).equals(evidence)
    # the report shows the table and writes it beside the page
    page = write_report(clf, X, y, tmp_path, nash_draws=5).read_text(encoding="utf-8")
    assert 'id="table-part-evidence"' in page and "How the optional parts were chosen" in page
    written = pd.read_csv(tmp_path / "part_evidence.csv")
    assert written["candidate"].tolist() == evidence["candidate"].tolist()
    assert written["chosen"].tolist() == evidence["chosen"].tolist()
    assert not skipped.layout_.options.debut and not skipped.layout_.options.time_varying
    # no auto part: nothing to decide
    explicit = BayesianMatchupClassifier(
        time_varying=False, debut=False, part_selection="forward", **small
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert explicit.fit(X, y).part_evidence_ is None


def test_a_bad_part_selection_is_refused():
    X, y = make_matches(n_players=8, n_matches=40, random_state=0, return_X_y=True)
    with pytest.raises(ValueError, match=r"'part_selection' parameter .* must be"):
        BayesianMatchupClassifier(part_selection="loo").fit(X, y)


def test_the_command_line_prints_the_forward_evidence(capsys):
    import argparse

    from skcodex.cli import _commands as commands

    X, y = make_matches(
        n_players=12, n_matches=240, n_tournaments=6, random_state=3, return_X_y=True
    )
    args = argparse.Namespace(
        draws=40, tune=40, chains=2, seed=0, no_progress=True, prior="lognormal",
        target_accept=0.8, debut=None, time_varying=None, part_selection="forward",
    )  # fmt: skip
    clf = commands._fit(X, y, None, args, "on every match")
    out = capsys.readouterr().out
    assert "Parts left to the data" in out
    for candidate in clf.part_evidence_["candidate"]:
        assert f"    {candidate} " in out
    chosen = clf.part_evidence_.loc[clf.part_evidence_["chosen"], "candidate"].item()
    assert f"{chosen:<13} Brier" in out and out.count("<- chosen") == 1
    args.part_selection = "none"  # the default: nothing to print
    commands._fit(X, y, None, args, "on every match")
    assert "Parts left to the data" not in capsys.readouterr().out
