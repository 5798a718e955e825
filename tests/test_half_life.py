"""``half_life``: recent matches counted more, the half-life given or decided by the table.

A half-life of h weighs a match ``age`` periods older than the table's latest
``0.5 ** (age / h)``: exactly the fit given those weights by hand. ``"auto"`` picks a
half-life (or none) by the forward evidence of `skcodex._matchup.part_choice`, after the
``"auto"`` parts, reusing their forecasts rather than refitting them.
"""

import warnings
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest

from skcodex import BayesianMatchupClassifier, load
from skcodex._matchup import recency
from skcodex.analysis import half_life_evidence
from skcodex.data import MatchTableError, Vocabulary, check_match_table, encode
from skcodex.datasets import make_matches

FAST = {"draws": 100, "tune": 100, "chains": 2, "random_state": 0, "progressbar": False}
STATIC = {"time_varying": False, "debut": False}


def _fit(X, y, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # short chains: their convergence is not tested here
        sample_weight = params.pop("sample_weight", None)
        clf = BayesianMatchupClassifier(**{**FAST, **STATIC, **params})
        return clf.fit(X, y, sample_weight=sample_weight)


def _skills(clf) -> np.ndarray:
    return clf.idata_.posterior["skill"].to_numpy()


@pytest.fixture(scope="module")
def table():
    data = make_matches(n_players=12, n_matches=200, n_tournaments=5, random_state=11)
    return data.X, np.asarray(data.y)


def _ages(X: pd.DataFrame) -> np.ndarray:
    """Each match's age in periods, by hand: the tables here have one date per period."""
    order = X.groupby("period")["date"].min().sort_values().index
    position = X["period"].map({p: i for i, p in enumerate(order)}).to_numpy(dtype=float)
    return position.max() - position


def test_the_weights_halve_every_half_life_periods(table):
    X, _ = table
    codes = encode(check_match_table(X), Vocabulary.from_table(check_match_table(X)))
    np.testing.assert_allclose(recency.recency_weights(codes, 2.0), 0.5 ** (_ages(X) / 2.0))
    assert recency.recency_weights(codes, None) is None
    mine = np.full(len(X), 3.0)
    np.testing.assert_allclose(recency.weighted(mine, np.full(len(X), 0.5)), 1.5)
    assert recency.weighted(mine, None) is mine


def test_a_half_life_is_the_fit_with_those_weights_by_hand(table):
    X, y = table
    by_half_life = _fit(X, y, half_life=2.0)
    by_hand = _fit(X, y, sample_weight=0.5 ** (_ages(X) / 2.0))
    np.testing.assert_array_equal(_skills(by_half_life), _skills(by_hand))
    assert by_half_life.half_life_ == 2.0 and by_half_life.half_life_evidence_ is None
    # and it multiplies the user's own weights, which it leaves as they were
    mine = np.linspace(0.5, 1.5, len(y))
    kept = mine.copy()
    both = _fit(X, y, half_life=2.0, sample_weight=mine)
    by_hand = _fit(X, y, sample_weight=mine * 0.5 ** (_ages(X) / 2.0))
    np.testing.assert_array_equal(_skills(both), _skills(by_hand))
    np.testing.assert_array_equal(mine, kept)
    plain = _fit(X, y)
    assert plain.half_life_ is None
    assert not np.array_equal(_skills(plain), _skills(by_half_life))


@pytest.mark.parametrize(
    ("params", "error", "message"),
    [
        ({"half_life": 0}, ValueError, "'half_life' parameter"),
        ({"half_life": -2.0}, ValueError, "'half_life' parameter"),
        ({"half_life": "fast"}, ValueError, "'half_life' parameter"),
        ({"half_life": True}, ValueError, "half_life is a number of rating periods, 'auto'"),
        ({"half_life": 2.0, "method": "advi"}, ValueError, "half_life needs method='nuts'"),
    ],
)
def test_bad_half_lives_are_named(table, params, error, message):
    X, y = table
    with pytest.raises(error, match=message):
        BayesianMatchupClassifier(**FAST, **STATIC, **params).fit(X, y)


def test_a_half_life_needs_periods_to_count_ages_in(table):
    X, y = table
    with pytest.raises(MatchTableError, match=r"half_life .* needs a 'period' column"):
        BayesianMatchupClassifier(**FAST, **STATIC, half_life=4).fit(X.drop(columns="period"), y)
    # "auto" on such a table, or without forward selection, weighs nothing
    auto = _fit(X.drop(columns="period"), y, half_life="auto", part_selection="forward")
    assert auto.half_life_ is None and auto.half_life_evidence_ is None
    with pytest.warns(UserWarning, match="half_life='auto' is decided by the table's forward"):
        BayesianMatchupClassifier(**FAST, **STATIC, half_life="auto").fit(X, y)
    auto = _fit(X, y, half_life="auto")
    assert auto.half_life_ is None and auto.half_life_evidence_ is None
    np.testing.assert_array_equal(_skills(auto), _skills(_fit(X, y)))


class _Spy(BayesianMatchupClassifier):
    fits: ClassVar[list] = []

    def fit(self, X, y, *, luck=None, sample_weight=None):
        _Spy.fits.append((self.debut, self.half_life, len(X)))
        return super().fit(X, y, luck=luck, sample_weight=sample_weight)


def test_auto_is_decided_after_the_parts_and_reuses_their_forecasts(table):
    X, y = table
    _Spy.fits = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = _Spy(**FAST, time_varying=False, debut="auto", half_life="auto")
        clf.set_params(part_selection="forward").fit(X, y)
    parts, weighting = clf.part_evidence_, clf.half_life_evidence_
    assert list(parts["candidate"]) == ["static", "debut"]
    assert list(weighting["candidate"]) == [
        "no weighting",
        *(f"half-life {h:g}" for h in recency.HALF_LIVES),
    ]
    assert list(weighting.columns) == list(parts.columns)
    assert weighting["chosen"].sum() == 1
    chosen = weighting.loc[weighting["chosen"], "candidate"].item()
    assert clf.half_life_ == (None if chosen == "no weighting" else float(chosen.split()[-1]))
    # the simplest half-life candidate is the chosen parts' own forecasts, not a refit
    row = parts.loc[parts["chosen"]].iloc[0]
    first = weighting.iloc[0]
    assert (first["log score"], first["brier"]) == (row["log score"], row["brier"])
    folds = len({n for debut, half_life, n in _Spy.fits[1:]})
    # one fit of the whole table, two parts' candidates and three half-lives a fold
    assert len(_Spy.fits) == 1 + folds * (2 + len(recency.HALF_LIVES))
    # what the command line counts before the fit (`_forward_fits`) is what the fit made
    unfitted = BayesianMatchupClassifier(**FAST, time_varying=False, debut="auto")
    forward = unfitted.set_params(part_selection="forward", half_life="auto")
    rows, candidates, sampling = forward._forward_fits(X, y)
    assert sampling == {"chains": 2, "draws": 100, "tune": 100}  # at most the fit's own
    assert sorted(len(r) for r in rows) == sorted({n for _, _, n in _Spy.fits[1:]})
    assert len(rows) * candidates == len(_Spy.fits) - 1
    assert unfitted.set_params(part_selection="none")._forward_fits(X, y) == ([], 0, {})
    # with no part to decide, "no weighting" is fitted too: four candidates a fold
    _Spy.fits = []
    alone = {"debut": False, "half_life": "auto", "part_selection": "forward"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _Spy(**FAST, time_varying=False, **alone).fit(X, y)
    rows, candidates, _ = unfitted.set_params(**alone)._forward_fits(X, y)
    assert candidates == 1 + len(recency.HALF_LIVES)
    assert len(rows) * candidates == len(_Spy.fits) - 1
    for debut, half_life, _ in _Spy.fits[1:]:
        assert isinstance(debut, bool)  # the candidates' parts are decided, never "auto"
        assert half_life is None or half_life in recency.HALF_LIVES
    assert half_life_evidence(clf).equals(weighting)


def test_the_half_life_and_its_evidence_are_saved(table, tmp_path):
    X, y = table
    clf = _fit(X, y, half_life="auto", part_selection="forward", draws=30, tune=30)
    clf.save(tmp_path / "model")
    again = load(tmp_path / "model")
    assert again.half_life_ == clf.half_life_
    pd.testing.assert_frame_equal(again.half_life_evidence_, clf.half_life_evidence_)
    np.testing.assert_array_equal(again.predict_proba(X), clf.predict_proba(X))


def _drifting(seed=0, n_periods=9, per_period=40):
    """Ten players of equal skill but one, ``star``, who wins early and loses late."""
    rng = np.random.default_rng(seed)
    rows, outcome = [], []
    for t in range(n_periods):
        # the star's chance against anyone falls from 0.95 to 0.05 over the periods
        chance = np.linspace(0.95, 0.05, n_periods)[t]
        for _ in range(per_period):
            other = f"p{rng.integers(1, 10)}"
            star_first = rng.random() < 0.5
            one, two = ("star", other) if star_first else (other, "star")
            star_wins = rng.random() < chance
            rows.append((one, two, "MonoRed", "MonoRed", f"T{t}", f"2020-{t + 1:02d}-01"))
            outcome.append(int(star_wins == star_first))
    X = pd.DataFrame(rows, columns=["player1", "player2", "deck1", "deck2", "period", "date"])
    return X, np.asarray(outcome)


@pytest.mark.slow
def test_auto_weighs_a_drifting_table_and_not_a_steady_one(table):
    X, y = _drifting()
    drifting = _fit(X, y, half_life="auto", part_selection="forward", draws=250, tune=250)
    assert drifting.half_life_ is not None
    evidence = drifting.half_life_evidence_
    assert evidence.loc[evidence["chosen"], "log score - simplest"].item() > 0
    # the weighted fit reads the star as weak now, as their latest periods say
    star = list(drifting.vocabulary_.players).index("star")
    assert _skills(drifting)[..., star].mean() < -0.5
    X, y = table  # steady skills: no half-life beats no weighting by two standard errors
    steady = _fit(X, y, half_life="auto", part_selection="forward", draws=250, tune=250)
    assert steady.half_life_ is None


def test_the_report_and_the_command_line_show_the_evidence(table, tmp_path, capsys):
    import argparse

    from skcodex.cli import _commands as commands
    from skcodex.report import write_report

    X, y = table
    args = argparse.Namespace(
        draws=40, tune=40, chains=2, seed=0, no_progress=True, prior="lognormal",
        target_accept=0.8, debut=False, time_varying=False, part_selection="forward",
        half_life="auto",
    )  # fmt: skip
    clf = commands._fit(X, y, None, args, "on every match")
    out = capsys.readouterr().out
    assert "Half-life left to the data" in out and "Parts left to the data" not in out
    evidence = clf.half_life_evidence_
    for candidate in evidence["candidate"][1:]:
        assert f"    {candidate:<13} Brier" in out
    assert out.count("against no weighting") == len(recency.HALF_LIVES)
    assert out.count("<- chosen") == 1
    page = write_report(clf, X, y, tmp_path, nash_draws=5).read_text(encoding="utf-8")
    assert 'id="table-half-life-evidence"' in page and "How the half-life was chosen" in page
    assert "log score minus no weighting" in page
    written = pd.read_csv(tmp_path / "half_life_evidence.csv")
    assert written["candidate"].tolist() == evidence["candidate"].tolist()
    assert written["chosen"].tolist() == evidence["chosen"].tolist()
    # a fixed half-life decides nothing: no table, no lines
    args.half_life = 4.0
    commands._fit(X, y, None, args, "on every match")
    assert "Half-life left to the data" not in capsys.readouterr().out


@pytest.mark.parametrize(
    ("given", "expected"),
    [(["--half-life", "auto"], "auto"), (["--half-life", "4"], 4.0), ([], None)],
)
def test_the_command_line_reads_a_half_life(given, expected):
    from skcodex.cli._parser import build_parser

    args = build_parser().parse_args(["fit", "matches.csv", "--out", "out", *given])
    assert args.half_life == expected


@pytest.mark.parametrize("bad", ["0", "-1", "soon", "nan"])
def test_the_command_line_names_a_bad_half_life(bad, capsys):
    from skcodex.cli._parser import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(["fit", "matches.csv", "--out", "out", "--half-life", bad])
    assert "--half-life" in capsys.readouterr().err


def test_the_report_says_the_matches_were_weighed_by_recency(table, tmp_path):
    from skcodex.report import describe_model, write_report

    X, y = table
    weighed = _fit(X, y, half_life=4.0, draws=30, tune=30)
    assert describe_model(weighed)["half_life"] == 4.0
    page = write_report(weighed, X, y, tmp_path, nash_draws=5).read_text(encoding="utf-8")
    assert "halves every 4\nrating periods of age" in page
    assert describe_model(_fit(X, y, draws=30, tune=30))["half_life"] is None


def test_the_command_line_refuses_auto_without_the_evidence(tmp_path, capsys):
    from skcodex.cli import main

    X, y = make_matches(n_players=8, n_matches=60, n_tournaments=3, random_state=0,
                        return_X_y=True)  # fmt: skip
    X.assign(y=y).to_csv(tmp_path / "matches.csv", index=False)
    code = main(["fit", str(tmp_path / "matches.csv"), "--out", str(tmp_path / "out"),
                 "--half-life", "auto"])  # fmt: skip
    assert code != 0
    assert "--half-life auto is decided by the matches' own forward evidence" in (
        capsys.readouterr().err
    )
    assert not (tmp_path / "out").exists()
