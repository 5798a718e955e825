"""Components tied to their starter (a wargame's caster to its faction), and name case.

A `PlainCatalogue` can tie a component to the one starter it belongs to, declared
(``tied_to``, or a catalogue file's ``starter`` column) or learned from a table's
decks (`PlainCatalogue.learn_ties`, ``skcodex fit --tie-components``); a deck that
holds it under another starter is refused with the deck it was likely meant to be.
Open and listed catalogues treat case alike.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from skcodex import BayesianMatchupClassifier, load
from skcodex.codex import CatalogueFileError, Deck, DeckParseError, PlainCatalogue, parse_deck
from skcodex.data import MatchTableError, Vocabulary, check_match_table
from skcodex.data._catalogues import spelled_alike

from command_process import skcodex  # isort: skip

#: A wargame's factions and their casters: each caster belongs to one faction.
CASTERS = {
    "Cryx": ["Deneghra", "Skarre", "Asphyxious"],
    "Cygnar": ["Haley", "Stryker", "Nemo"],
    "Khador": ["Sorscha", "Butcher", "Irusk"],
}
TIES = {caster: faction for faction, casters in CASTERS.items() for caster in casters}
FAST = ["--draws", "60", "--tune", "60", "--chains", "1", "--no-progress", "--no-holdout"]


def wargame_table(n_matches=90, seed=0, spell=lambda d: d):
    """Matches of the wargame: random players with random faction/caster decks."""
    rng = np.random.default_rng(seed)
    players = [f"p{i}" for i in range(8)]
    decks = [f"{f}/{c}" for f, cs in CASTERS.items() for c in cs]
    rows = []
    for _ in range(n_matches):
        a, b = rng.choice(len(players), 2, replace=False)
        d1, d2 = rng.choice(decks, 2)
        rows.append((players[a], players[b], spell(d1), spell(d2)))
    X = pd.DataFrame(rows, columns=["player1", "player2", "deck1", "deck2"])
    return X, rng.integers(0, 2, n_matches)


# -- declared ties ---------------------------------------------------------------------------


@pytest.mark.parametrize("listed", [False, True], ids=["open", "listed"])
def test_a_component_under_the_wrong_starter_is_refused_naming_its_starter(listed):
    names = {"starters": list(CASTERS), "components": list(TIES)} if listed else {}
    cat = PlainCatalogue(specs_per_deck=1, tied_to=TIES, **names)
    assert parse_deck("Cryx/Deneghra", cat) == Deck("Cryx", ["Deneghra"])
    assert parse_deck("cryx/DENEGHRA", cat) == Deck("Cryx", ["Deneghra"])  # spelled as declared
    with pytest.raises(DeckParseError) as err:
        parse_deck("Cygnar/Deneghra", cat)
    assert str(err.value) == (
        "component 'Deneghra' belongs to starter 'Cryx', not 'Cygnar', in deck "
        "'Cygnar/Deneghra' (did you mean 'Cryx/Deneghra'?)"
    )
    assert cat.starter_of("deneghra") == "Cryx" and cat.starter_of("Haley") == "Cygnar"


def test_the_refusal_names_close_spellings_allowed_with_the_starter():
    cat = PlainCatalogue(
        specs_per_deck=1, tied_to={"Deneghra": "Cryx", "Denegra": "Cygnar"}, component_word="caster"
    )
    with pytest.raises(DeckParseError, match=re.escape(
        "caster 'Deneghra' belongs to starter 'Cryx', not 'Cygnar', in deck 'Cygnar/Deneghra' "
        "(did you mean 'Cryx/Deneghra'? Or one of 'Cygnar''s casters: 'Denegra'?)"
    )):  # fmt: skip
        parse_deck("Cygnar/Deneghra", cat)


def test_free_components_go_with_any_starter():
    cat = PlainCatalogue(specs_per_deck=2, tied_to={"Deneghra": "Cryx"})
    assert parse_deck("Cygnar/Haley/Arcnode", cat).specs == ("Arcnode", "Haley")
    assert parse_deck("Cryx/Deneghra/Arcnode", cat).starter == "Cryx"
    with pytest.raises(DeckParseError, match="belongs to starter 'Cryx', not 'Khador'"):
        parse_deck("Khador/Arcnode/Deneghra", cat)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"tied_to": "Deneghra"}, TypeError, "single string"),
        ({"tied_to": [("Deneghra",)]}, TypeError, "component, starter"),
        ({"tied_to": {"Deneghra": "Cryx", "deneghra": "Cygnar"}}, ValueError, "more than once"),
        ({"tied_to": {"Deneghra": "Cryx"}, "components": ["Haley"]}, ValueError, "not one of"),
        ({"tied_to": {"Deneghra": "Cryx"}, "starters": ["Cygnar"]}, ValueError, "not one of"),
        ({"tied_to": {"Cryx": "Deneghra", "Deneghra": "Cryx"}}, ValueError, "both as starter"),
        ({"tied_to": {"Dene/ghra": "Cryx"}}, ValueError, "without surrounding spaces or '/'"),
    ],
)
def test_bad_ties_are_refused(kwargs, error, message):
    with pytest.raises(error, match=re.escape(message)):
        PlainCatalogue(specs_per_deck=1, **kwargs)


def test_ties_take_the_listed_spelling_and_keep_the_catalogue_hashable():
    cat = PlainCatalogue(
        starters=["Cryx"], components=["Deneghra"], tied_to={"deneghra": "CRYX"}, specs_per_deck=1
    )
    assert cat.tied_to == (("Deneghra", "Cryx"),)
    assert hash(cat) == hash(PlainCatalogue(**{**cat.__dict__, "tied_to": cat.tied_to}))


def test_a_catalogue_file_ties_components_in_a_starter_column(tmp_path):
    path = tmp_path / "wargame.csv"
    rows = ["kind,name,starter", *(f"starter,{f}" for f in CASTERS)]
    rows += [f"component,{c},{f}" for c, f in TIES.items()] + ["component,Arcnode,"]
    path.write_text("\n".join(rows) + "\nspecs_per_deck,2\n")
    cat = PlainCatalogue.from_file(path)
    assert dict(cat.tied_to) == TIES and cat.starter_of("Arcnode") is None
    with pytest.raises(DeckParseError, match=r"did you mean 'Cryx/Arcnode/Deneghra'"):
        parse_deck("Cygnar/Deneghra/Arcnode", cat)
    path.write_text("kind,name,starter\nstarter,Cryx,Cygnar\ncomponent,Haley\n")
    with pytest.raises(CatalogueFileError, match="line 2: only a component row names a starter"):
        PlainCatalogue.from_file(path)
    path.write_text("kind,name,starter\nstarter,Cryx\ncomponent,Haley,Cygnar\n")
    with pytest.raises(CatalogueFileError, match="tied_to's starter 'Cygnar' is not one of"):
        PlainCatalogue.from_file(path)
    path.write_text("kind,name\nstarter,Cryx\ncomponent,Haley,Cryx\n")
    with pytest.raises(CatalogueFileError, match="line 3: expected 'kind,name'"):
        PlainCatalogue.from_file(path)


# -- learned ties ----------------------------------------------------------------------------


def test_learned_ties_recover_the_wargames_ties_and_leave_shared_components_free():
    X, _ = wargame_table(n_matches=200)
    X.loc[0, "deck1"] = "Khador/Arcnode"  # a component two factions field
    X.loc[1, "deck2"] = "cygnar/arcnode"
    cat = PlainCatalogue(specs_per_deck=1)
    learned = cat.learn_ties(X)
    assert dict(learned.tied_to) == TIES  # every caster, none of the shared ones
    assert cat.tied_to is None  # the catalogue given is unchanged
    with pytest.raises(DeckParseError, match="did you mean 'Khador/Sorscha'"):
        parse_deck("Cryx/Sorscha", learned)
    assert parse_deck("Cryx/Arcnode", learned).starter == "Cryx"


def test_learned_ties_keep_the_declared_ones_and_refuse_a_table_that_breaks_them():
    cat = PlainCatalogue(specs_per_deck=1, tied_to={"Haley": "Cygnar"})
    learned = cat.learn_ties([Deck("Cryx", ["Deneghra"]), "Cygnar/Haley"])
    assert dict(learned.tied_to) == {"Haley": "Cygnar", "Deneghra": "Cryx"}
    with pytest.raises(DeckParseError, match="'Haley' belongs to starter 'Cygnar'"):
        cat.learn_ties(["Cryx/Haley"])


# -- case, open and listed alike ---------------------------------------------------------------


def _spell(deck):
    """Half the decks in lower case: the same names, written differently."""
    return deck.lower() if len(deck) % 2 else deck


@pytest.mark.parametrize("listed", [False, True], ids=["open", "listed"])
def test_open_and_listed_catalogues_read_names_that_differ_in_case_as_one(listed):
    X, _ = wargame_table(spell=lambda d: d.lower() if d.endswith(("y", "e")) else d)
    X.loc[0, ["deck1", "deck2"]] = ["Cryx/Deneghra", "CRYX/deneghra"]
    names = {"starters": list(CASTERS), "components": list(TIES)} if listed else {}
    cat = PlainCatalogue(specs_per_deck=1, **names)
    table = spelled_alike(check_match_table(X, cat), cat)
    vocab = Vocabulary.from_table(table)
    # one level a name; an open catalogue spells it as the table's first match does
    assert sorted(s.casefold() for s in vocab.starters) == sorted(f.casefold() for f in CASTERS)
    assert sorted(c.casefold() for c in vocab.specs) == sorted(c.casefold() for c in TIES)
    assert "Deneghra" in vocab.specs and "Cryx" in vocab.starters  # the first match's spelling
    if listed:
        assert set(vocab.specs) == set(TIES)
    # and a later table is read in the fitted model's spelling
    later = pd.DataFrame(
        {
            "player1": ["p1"],
            "player2": ["p2"],
            "deck1": ["CRYX/DENEGHRA"],
            "deck2": ["khador/irusk"],
        }
    )
    again = spelled_alike(check_match_table(later, cat), cat, vocab)
    assert list(again["deck1"]) == [Deck("Cryx", ["Deneghra"])]
    assert list(again["deck2"]) == [Deck("Khador", ["Irusk"])]


def test_deck_values_are_checked_against_the_ties_too():
    cat = PlainCatalogue(specs_per_deck=1, tied_to=TIES)
    X = pd.DataFrame(
        {
            "player1": ["a", "b"],
            "player2": ["b", "a"],
            "deck1": [Deck("Cryx", ["Deneghra"]), Deck("Cygnar", ["deneghra"])],
            "deck2": [Deck("Cygnar", ["Haley"])] * 2,
        }
    )
    with pytest.raises(MatchTableError, match="did you mean 'Cryx/Deneghra'"):
        BayesianMatchupClassifier(catalogue=cat).fit(X, [1, 0])


@pytest.fixture(scope="module")
def tied_fit():
    """A small fit of the wargame against an open catalogue with learned ties."""
    X, y = wargame_table(n_matches=120, spell=_spell)
    cat = PlainCatalogue(specs_per_deck=1).learn_ties(X)
    clf = BayesianMatchupClassifier(catalogue=cat, draws=60, tune=60, chains=1, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence of a tiny fit is beside the point
        return clf.fit(X, y)


def test_a_fit_reads_case_alike_and_forecasts_in_the_fitted_spelling(tied_fit, tmp_path):
    clf = tied_fit
    # one level a name, spelled as the catalogue's (learned) ties spell it
    assert len(clf.vocabulary_.starters) == 3 and len(clf.vocabulary_.specs) == 9
    assert set(clf.vocabulary_.starters) == {s for _, s in clf.catalogue.tied_to}
    assert set(clf.vocabulary_.specs) == {c for c, _ in clf.catalogue.tied_to}
    one = pd.DataFrame({"player1": ["p1"], "player2": ["p2"]})
    right = one.assign(deck1=["Cryx/Deneghra"], deck2=["Khador/Irusk"])
    shouted = one.assign(deck1=["CRYX/DENEGHRA"], deck2=["khador/irusk"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "never seen" warning: the same names
        np.testing.assert_array_equal(clf.predict_proba(shouted), clf.predict_proba(right))
    wrong = one.assign(deck1=["Cygnar/Deneghra"], deck2=["Khador/Irusk"])
    with pytest.raises(MatchTableError, match=r"(?i)did you mean 'Cryx/Deneghra'"):
        clf.predict_proba(wrong)
    path = tmp_path / "m.skcodex"
    clf.save(path)
    back = load(path)
    assert back.catalogue.tied_to == clf.catalogue.tied_to
    with pytest.raises(MatchTableError, match=r"(?i)did you mean 'Cryx/Deneghra'"):
        back.predict_proba(wrong)


# -- the command line ------------------------------------------------------------------------


def test_command_line_ties_declared_and_learned(tmp_path):
    X, y = wargame_table(n_matches=100)
    X.assign(y=y).to_csv(tmp_path / "games.csv", index=False)
    names = tmp_path / "casters.csv"
    rows = ["kind,name,starter", *(f"starter,{f}" for f in CASTERS)]
    names.write_text("\n".join(rows + [f"component,{c},{f}" for c, f in TIES.items()]) + "\n")
    out = tmp_path / "declared"
    code, stdout, err = skcodex(
        "fit", tmp_path / "games.csv", "--catalogue", names, "--out", out, *FAST
    )
    assert code == 0, err
    predict = ["predict", out, "--p1", "p1", "--p2", "p2", "--deck2", "Khador/Irusk"]
    code, stdout, err = skcodex(*predict, "--deck1", "Cygnar/Deneghra")
    assert code == 2 and err.strip().splitlines() == [
        "skcodex: error: --deck1: component 'Deneghra' belongs to starter 'Cryx', not 'Cygnar', "
        "in deck 'Cygnar/Deneghra' (did you mean 'Cryx/Deneghra'?)"
    ]
    code, stdout, err = skcodex(*predict, "--deck1", "cryx/deneghra")
    assert code == 0, err
    assert "with Cryx/Deneghra" in stdout

    learned = tmp_path / "learned"
    code, stdout, err = skcodex(
        "fit", tmp_path / "games.csv", "--tie-components", "--out", learned, *FAST
    )
    assert code == 0, err
    assert "Tied 9 component(s) to the one starter the matches pair each with: " in stdout
    assert "Deneghra (Cryx)" in stdout and "0 component(s) seen with several starters" in stdout
    code, _, err = skcodex(
        "predict", learned, "--p1", "p1", "--p2", "p2", "--deck1", "Cygnar/Deneghra",
        "--deck2", "Khador/Irusk",
    )  # fmt: skip
    assert code == 2 and "did you mean 'Cryx/Deneghra'?" in err


def test_command_line_refuses_learned_ties_for_codex_decks(tmp_path):
    table = pd.DataFrame(
        {
            "player1": ["a", "b"],
            "player2": ["b", "a"],
            "deck1": ["MonoRed", "MonoBlue"],
            "deck2": ["MonoBlue", "MonoRed"],
            "y": [1, 0],
        }
    )
    table.to_csv(tmp_path / "codex.csv", index=False)
    code, _, err = skcodex(
        "fit", tmp_path / "codex.csv", "--tie-components", "--out", tmp_path / "o", *FAST
    )
    assert code == 2 and "--tie-components is for other games' decks" in err
