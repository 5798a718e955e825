"""Naming another game's decks in Python: detection, closed catalogues, unseen names."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning

from skcodex import BayesianMatchupClassifier
from skcodex.codex import PlainCatalogue
from skcodex.codex._notation import plain_catalogue_for
from skcodex.data import MatchTableError
from skcodex.datasets import make_game_matches

RACES = ["Zerg", "Terran", "Protoss"]


def _fit(X, y, **kwargs):
    clf = BayesianMatchupClassifier(draws=60, tune=60, chains=1, random_state=0, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return clf.fit(X, y)


@pytest.fixture(scope="module")
def races():
    return make_game_matches(
        n_players=12, n_matches=150, n_tournaments=3, starters=RACES, random_state=2
    )


def test_plain_catalogue_for_reads_deck_strings():
    assert plain_catalogue_for(RACES) == PlainCatalogue(specs_per_deck=0)
    assert plain_catalogue_for(["Tala/Red/Blue", "Oku/Red/Green"]).specs_per_deck == 2
    assert plain_catalogue_for(["MonoRed", "MonoBlue", "Zerg"]) is None  # mostly Codex
    assert plain_catalogue_for([]) is None
    with pytest.raises(ValueError, match=r"different numbers.*'Zerg' has 0; 'Tala/Red' has 1"):
        plain_catalogue_for(["Zerg", "Tala/Red"])


def test_python_api_reads_another_games_decks_as_the_command_line_does(races):
    X, y = races.X, races.y
    before = X.copy()
    with pytest.warns(UserWarning, match=r"not Codex decks.*PlainCatalogue\(specs_per_deck=0\)"):
        clf = _fit(X, y)
    pd.testing.assert_frame_equal(X, before)  # the caller's table is untouched
    assert clf.catalogue is None and clf.catalogue_ == PlainCatalogue(specs_per_deck=0)
    assert set(clf.vocabulary_.starters) == set(RACES)
    # the same fit with the catalogue passed explicitly: no warning, the same forecasts
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        explicit = _fit(X, y, catalogue=PlainCatalogue(specs_per_deck=0))
    np.testing.assert_allclose(clf.predict_proba(X), explicit.predict_proba(X))


def test_matchup_encoder_reads_another_games_decks_as_the_classifier_does(races):
    from skcodex import MatchupEncoder

    X = races.X
    before = X.copy()
    with pytest.warns(UserWarning, match=r"not Codex decks.*PlainCatalogue\(specs_per_deck=0\)"):
        found = MatchupEncoder().fit(X)
    pd.testing.assert_frame_equal(X, before)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # transform reads them without warning again
        design = found.transform(X)
        explicit = MatchupEncoder(catalogue=PlainCatalogue(specs_per_deck=0)).fit(X)
        assert (design != explicit.transform(X)).nnz == 0
    assert found.vocabulary_ == explicit.vocabulary_
    Xbad = X.copy()
    Xbad.loc[0, "deck1"] = "Zerg/Swarm"
    with pytest.raises(MatchTableError, match=r"different numbers.*PlainCatalogue\(specs_per_deck"):
        MatchupEncoder().fit(Xbad)


def test_decks_of_different_sizes_name_plain_catalogue(races):
    X = races.X.copy()
    X.loc[0, "deck1"] = "Zerg/Swarm"
    with pytest.raises(MatchTableError, match=r"different numbers.*PlainCatalogue\(specs_per_deck"):
        _fit(X, races.y)


def test_mostly_codex_decks_keep_the_codex_error(small_matches):
    X = small_matches.X.copy()
    X.loc[0, "deck1"] = "MonoRedd"
    with pytest.raises(MatchTableError, match="unknown spec or starter 'MonoRedd'"):
        _fit(X, small_matches.y)


def test_open_vocabulary_warns_once_per_unseen_name(races):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        clf = _fit(races.X, races.y)
    row = races.X.iloc[:2].copy()
    row["deck1"] = ["Protos", "Zerg"]
    with pytest.warns(UserWarning, match=r"starter 'Protos' was not in.*did you mean 'Protoss'"):
        clf.predict_proba(row)
    with warnings.catch_warnings():  # the same name again: no second warning
        warnings.simplefilter("error", UserWarning)
        clf.predict_proba(row)
    row["deck2"] = ["Terran", "Toss"]
    with pytest.warns(UserWarning) as caught:
        clf.predict_proba(row)
    assert [str(w.message).split(" was")[0] for w in caught] == ["starter 'Toss'"]


def test_closed_catalogue_refuses_unknown_names_with_a_suggestion(races):
    closed = PlainCatalogue(starters=tuple(RACES), specs_per_deck=0, starter_word="race")
    clf = _fit(races.X, races.y, catalogue=closed)
    row = races.X.iloc[:1].assign(deck1="Protos")
    with pytest.raises(ValueError, match=r"unknown race 'Protos'.*did you mean 'Protoss'"):
        clf.predict_proba(row)
    with warnings.catch_warnings():  # names it lists never warn
        warnings.simplefilter("error", UserWarning)
        clf.predict_proba(races.X.iloc[:5])
