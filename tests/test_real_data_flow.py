"""A table read by `load_codex_matches` works everywhere without passing its catalogue again.

The fixture ``codexdata_variants`` has three tournaments of base-game decks and a
last tournament (CAFS21) where variant decks appear for the first time
(``DemonBash``, the P22 specs and the ``Black Bash`` nickname), as in the public
records from 2021 on: a time-ordered split trains on base decks and tests on
variant ones.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import cross_val_score, train_test_split

from skcodex import (
    BayesianMatchupClassifier,
    EloClassifier,
    Glicko2Classifier,
    MatchupEncoder,
    TournamentSplit,
    brier_scorer,
)
from skcodex._compat.scikit_learn import safe_indexing
from skcodex.analysis import deck_ranking, most_played_decks
from skcodex.codex import CODEX, Deck
from skcodex.data import MatchTableError, check_match_table, table_catalogue
from skcodex.datasets import load_codex_matches
from skcodex.evaluation import forward_forecasts
from skcodex.luck import fit_skills

VARIANTS = Path(__file__).parent / "fixtures" / "codexdata_variants"
LAST = "CAFS21"


@pytest.fixture(scope="module")
def loaded():
    X, y = load_codex_matches(VARIANTS, return_X_y=True)
    return X, y


def _split(X):
    last = (X["period"] == LAST).to_numpy()
    return np.flatnonzero(~last), np.flatnonzero(last)


def test_the_fixture_has_variant_decks_only_in_its_last_tournament(loaded):
    X, _ = loaded
    train, test = _split(X)
    words = ("DemonBash", "P22", "Black Bash")

    def variant(frame):
        text = pd.concat([frame["deck1"], frame["deck2"]])
        return text.str.contains("|".join(words)).to_numpy()

    assert not variant(X.iloc[train]).any()
    assert variant(X.iloc[test]).sum() >= 8
    # read against the base game alone, the last tournament is refused (the original problem)
    with pytest.raises(MatchTableError, match=r"DemonBash|AnarchyP22|GrowthP22|Black Bash"):
        check_match_table(X.iloc[test], CODEX)


def test_the_table_carries_its_catalogue_through_slicing_and_splitters(loaded):
    X, y = loaded
    cat = X.attrs["catalogue"]
    train, test = _split(X)
    assert X.iloc[test].attrs["catalogue"] is cat
    assert X.loc[X["period"] == LAST].attrs["catalogue"] is cat
    assert X[["player1", "player2", "deck1", "deck2"]].attrs["catalogue"] is cat
    assert safe_indexing(X, test).attrs["catalogue"] is cat  # what sklearn's CV uses
    Xa, Xb, _, _ = train_test_split(X, y, test_size=0.3, random_state=0)
    assert Xa.attrs["catalogue"] is cat and Xb.attrs["catalogue"] is cat
    assert pd.concat([X.iloc[train], X.iloc[test]]).attrs["catalogue"] is cat
    for _tr, te in TournamentSplit(n_splits=2).split(X):
        assert safe_indexing(X, te).attrs["catalogue"] is cat


def test_check_match_table_reads_decks_against_the_tables_catalogue(loaded):
    X, _ = loaded
    _, test = _split(X)
    out = check_match_table(X.iloc[test])
    assert Deck("Black", ["DemonBash", "Disease", "Necromancy"]) in set(out["deck1"])
    assert Deck("Red", ["AnarchyP22", "Growth", "Law"]) in set(out["deck2"])
    # a given catalogue wins over the table's own
    assert table_catalogue(X, CODEX) is CODEX
    assert table_catalogue(X) is X.attrs["catalogue"]
    assert table_catalogue(pd.DataFrame()) is None
    # a table without the attribute still refuses an unknown spec, naming it
    plain = X.iloc[test].copy()
    plain.attrs = {}
    with pytest.raises(MatchTableError, match="unknown spec or starter"):
        check_match_table(plain)
    assert X.attrs["catalogue"] is not None  # nothing the caller passed was modified


@pytest.mark.parametrize("Model", [Glicko2Classifier, EloClassifier])
def test_rating_models_forecast_the_variant_tournament(loaded, Model):
    X, y = loaded
    train, test = _split(X)
    p = Model().fit(X.iloc[train], y[train]).predict_proba(X.iloc[test])
    assert p.shape == (len(test), 2) and np.isfinite(p).all()


@pytest.mark.parametrize("Model", [Glicko2Classifier, EloClassifier])
def test_rating_models_ignore_deck_names_entirely(loaded, Model):
    """Decks are not read at all: any deck text, even nonsense, gives the same ratings."""
    X, y = loaded
    plain = X.copy()
    plain.attrs = {}
    nonsense = plain.assign(deck1="not a deck", deck2="[Nobody]/Knows/This")
    p = Model().fit(nonsense, y).predict_proba(nonsense)
    q = Model().fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(p, q)
    skills = fit_skills(nonsense, y)
    pd.testing.assert_series_equal(skills, fit_skills(X, y))


def test_cross_validation_over_the_loaded_table(loaded):
    X, y = loaded
    cv = TournamentSplit(n_splits=2)
    scores = cross_val_score(Glicko2Classifier(), X, y, cv=cv, scoring=brier_scorer)
    assert len(scores) == 2 and np.isfinite(scores).all()
    forecasts = forward_forecasts({"elo": EloClassifier()}, X, y, cv)
    assert set(forecasts["period"]) == {"CASS21", LAST}
    assert np.isfinite(forecasts["elo"]).all()


def test_matchup_encoder_on_the_loaded_table(loaded):
    X, _ = loaded
    train, test = _split(X)
    enc = MatchupEncoder().fit(X.iloc[train])
    codes = enc.transform(X.iloc[test])
    assert codes.shape[0] == len(test)


def test_bayesian_classifier_on_the_loaded_table_without_a_catalogue(loaded, tmp_path):
    X, y = loaded
    train, test = _split(X)
    clf = BayesianMatchupClassifier(draws=60, tune=60, chains=1, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X, y)  # the whole table, variants included
    assert clf.catalogue is None and clf.catalogue_ is X.attrs["catalogue"]
    assert "DemonBash" in clf.vocabulary_.specs and "AnarchyP22" in clf.vocabulary_.specs
    # a hand-written table without the attribute is read against the fitted catalogue
    one = pd.DataFrame(
        {"player1": ["ann"], "player2": ["bob"], "deck1": ["Black Bash"], "deck2": ["MonoRed"]}
    )
    p = clf.predict_proba(one)
    assert p.shape == (1, 2) and 0 < p[0, 1] < 1
    # the catalogue survives saving and loading
    import skcodex

    again = skcodex.load(clf.save(tmp_path / "model.skcodex"))
    assert again.catalogue_ == clf.catalogue_
    np.testing.assert_array_equal(again.predict_proba(one), p)
    # analyses read nicknames and variant decks against the same catalogue
    assert len(most_played_decks(X, 5)) == 5
    ranking = deck_ranking(clf, ["Black Bash", "[AnarchyP22]/Growth/Law", "MonoRed"])
    assert len(ranking) == 3

    # trained on base decks only, it forecasts the variant tournament
    clf2 = BayesianMatchupClassifier(draws=60, tune=60, chains=1, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf2.fit(X.iloc[train], y[train])
    assert "DemonBash" not in clf2.vocabulary_.specs
    p = clf2.predict_proba(X.iloc[test])
    assert p.shape == (len(test), 2) and np.isfinite(p).all()
