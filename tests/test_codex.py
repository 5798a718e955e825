"""The Codex catalogue, the Deck value type and forum deck notation."""

import re
from collections import Counter
from math import comb

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from skcodex.codex import (
    CODEX,
    NICKNAMES,
    Catalogue,
    Deck,
    DeckParseError,
    PlainCatalogue,
    format_deck,
    legal_decks,
    parse_deck,
)
from skcodex.data import MatchTableError, check_match_table

# The base game, written out by hand (independent of the catalogue module).
BASE_SPECS_BY_COLOUR = {
    "Black": {"Demonology", "Disease", "Necromancy"},
    "Blue": {"Law", "Peace", "Truth"},
    "Green": {"Balance", "Feral", "Growth"},
    "Purple": {"Future", "Past", "Present"},
    "Red": {"Anarchy", "Blood", "Fire"},
    "White": {"Discipline", "Ninjitsu", "Strength"},
    "Neutral": {"Bashing", "Finesse"},
}
COLOUR_OF = {spec: colour for colour, specs in BASE_SPECS_BY_COLOUR.items() for spec in specs}


# -- catalogue -------------------------------------------------------------------------------


def test_base_catalogue_has_seven_starters_and_twenty_specs():
    assert sorted(CODEX.starters) == sorted(BASE_SPECS_BY_COLOUR)
    assert len(CODEX.starters) == 7
    assert len(CODEX.specs) == 20
    assert len(set(CODEX.specs)) == 20


def test_three_specs_per_colour_and_neutral_has_bashing_and_finesse():
    counts = Counter(CODEX.colour(s) for s in CODEX.specs)
    assert counts.pop("Neutral") == 2
    assert set(counts.values()) == {3}
    assert len(counts) == 6
    for spec in CODEX.specs:
        assert CODEX.colour(spec) == COLOUR_OF[spec], spec
    assert {s for s in CODEX.specs if CODEX.colour(s) == "Neutral"} == {"Bashing", "Finesse"}


def test_catalogue_lookup_is_case_insensitive():
    assert CODEX.canonical("  demonOLOGY ") == "Demonology"
    assert CODEX.canonical("purple") == "Purple"
    assert CODEX.canonical("Demon") is None
    assert CODEX.nickname("monored") == NICKNAMES["MonoRed"]
    assert CODEX.nickname("Red") is None


def test_catalogue_rejects_a_name_used_as_spec_and_starter():
    with pytest.raises(ValueError, match="Red"):
        CODEX.with_specs({"Red": "Blue"})


def test_extending_the_catalogue_leaves_the_original_alone():
    variant = CODEX.with_specs({"DemonBash": "Black"}).with_starters(["RedF20"])
    assert variant.colour("DemonBash") == "Black"
    assert "RedF20" in variant.starters
    assert "DemonBash" not in CODEX.specs
    assert "RedF20" not in CODEX.starters
    with pytest.raises(DeckParseError, match="DemonBash"):
        parse_deck("[DemonBash/Disease/Necromancy]")
    assert parse_deck("[DemonBash/Disease/Necromancy]", variant) == Deck(
        "Black", ("DemonBash", "Disease", "Necromancy")
    )


def test_legal_deck_counts():
    # Independent count: a colour with c specs, out of 20, is missing from C(20 - c, 3) triples.
    multi = sum(comb(20, 3) - comb(20 - len(s), 3) for s in BASE_SPECS_BY_COLOUR.values())
    assert multi == 3084
    assert len(legal_decks("multicolour")) == 3084
    assert len(legal_decks()) == 3084
    assert len(legal_decks("monocolour")) == 6
    assert len(legal_decks("draft")) == 7 * comb(20, 3) == 7980


@pytest.mark.parametrize("kind", ["multicolour", "monocolour", "draft"])
def test_legal_decks_are_distinct_well_formed_and_follow_their_rule(kind):
    decks = legal_decks(kind)
    assert len(set(decks)) == len(decks)
    for deck in decks:
        assert len(deck.specs) == len(set(deck.specs)) == 3
        own = sum(COLOUR_OF[s] == deck.starter for s in deck.specs)
        if kind == "multicolour":
            assert own >= 1
        elif kind == "monocolour":
            assert own == 3
            assert set(deck.specs) == BASE_SPECS_BY_COLOUR[deck.starter]


def test_multicolour_decks_are_exactly_the_draft_decks_sharing_a_colour():
    expected = {d for d in legal_decks("draft") if any(COLOUR_OF[s] == d.starter for s in d.specs)}
    assert set(legal_decks("multicolour")) == expected


def test_legal_decks_rejects_an_unknown_kind():
    with pytest.raises(ValueError, match="sealed"):
        legal_decks("sealed")


# -- Deck ----------------------------------------------------------------------------------


def test_deck_normalises_order_and_hashes_equal():
    a = Deck("Red", ["Fire", "Anarchy", "Blood"])
    b = Deck("Red", ("Blood", "Fire", "Anarchy"))
    assert a == b
    assert hash(a) == hash(b)
    assert a.specs == ("Anarchy", "Blood", "Fire")
    assert len({a, b}) == 1
    assert Deck("Blue", a.specs) != a


@given(
    st.sampled_from(CODEX.starters),
    st.lists(st.sampled_from(CODEX.specs), min_size=3, max_size=3, unique=True),
    st.randoms(use_true_random=False),
)
def test_deck_is_independent_of_spec_order(starter, specs, rnd):
    shuffled = list(specs)
    rnd.shuffle(shuffled)
    assert Deck(starter, specs) == Deck(starter, shuffled)
    assert hash(Deck(starter, specs)) == hash(Deck(starter, shuffled))


def test_deck_rejects_repeated_specs():
    with pytest.raises(ValueError, match="Fire"):
        Deck("Red", ("Fire", "Fire", "Law"))


@pytest.mark.parametrize(
    ("starter", "specs", "error"),
    [
        ("", ("a", "b"), ValueError),
        (None, ("a", "b"), ValueError),
        ("Knight", "ab", TypeError),
        ("Knight", ("a", ""), ValueError),
        ("Knight", ("a", 3), ValueError),
    ],
)
def test_deck_rejects_malformed_parts(starter, specs, error):
    with pytest.raises(error):
        Deck(starter, specs)


def test_decks_of_another_game_need_no_catalogue():
    knight = Deck("Knight", ("b", "a"))
    assert knight.specs == ("a", "b")
    assert knight == Deck("Knight", ["a", "b"])
    table = pd.DataFrame(
        {
            "player1": ["ann", "bob"],
            "player2": ["bob", "cat"],
            "deck1": [knight, Deck("Rook", ("c", "a"))],
            "deck2": [Deck("Rook", ("a", "c")), knight],
        }
    )
    checked = check_match_table(table)
    assert list(checked["deck1"]) == [knight, Deck("Rook", ("a", "c"))]
    assert list(checked["deck2"]) == [Deck("Rook", ("a", "c")), knight]


# -- notation: examples ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "deck"),
    [
        ("[Demonology]/Anarchy/Law", Deck("Black", ("Demonology", "Anarchy", "Law"))),
        ("[Blood/Fire]/Finesse", Deck("Red", ("Blood", "Fire", "Finesse"))),
        ("[Anarchy/Blood/Fire]", Deck("Red", ("Anarchy", "Blood", "Fire"))),
        ("Anarchy/Growth/Law/Black", Deck("Black", ("Anarchy", "Growth", "Law"))),
        ("Bashing/Fire/Law/Purple", Deck("Purple", ("Bashing", "Fire", "Law"))),
        ("[Bashing]/Fire/Law", Deck("Neutral", ("Bashing", "Fire", "Law"))),
        ("[Fire]/Growth/Law/Red", Deck("Red", ("Fire", "Growth", "Law"))),
        ("[fire]/LAW/growth", Deck("Red", ("Fire", "Growth", "Law"))),
        ("  [Blood / Fire] /  Finesse ", Deck("Red", ("Blood", "Fire", "Finesse"))),
    ],
)
def test_notation_examples(text, deck):
    assert parse_deck(text) == deck


@pytest.mark.parametrize(
    ("nickname", "deck"),
    [
        ("MonoRed", Deck("Red", ("Anarchy", "Blood", "Fire"))),
        ("MonoBlack", Deck("Black", ("Demonology", "Disease", "Necromancy"))),
        ("MonoBlue", Deck("Blue", ("Law", "Peace", "Truth"))),
        ("MonoGreen", Deck("Green", ("Balance", "Feral", "Growth"))),
        ("MonoPurple", Deck("Purple", ("Future", "Past", "Present"))),
        ("MonoWhite", Deck("White", ("Discipline", "Ninjitsu", "Strength"))),
        ("monored", Deck("Red", ("Anarchy", "Blood", "Fire"))),
        ("Nightmare", Deck("Black", ("Demonology", "Necromancy", "Finesse"))),
        ("Miracle Grow", Deck("Red", ("Anarchy", "Growth", "Strength"))),
        ("PPA", Deck("Purple", ("Past", "Anarchy", "Peace"))),
    ],
)
def test_nicknames(nickname, deck):
    assert parse_deck(nickname) == deck


def test_monocolour_nicknames_are_the_monocolour_decks():
    mono = {parse_deck(f"Mono{c}") for c in BASE_SPECS_BY_COLOUR if c != "Neutral"}
    assert mono == set(legal_decks("monocolour"))
    assert parse_deck("MonoRed") == parse_deck("[Anarchy/Blood/Fire]")


def test_format_examples():
    assert format_deck(Deck("Red", ["Finesse", "Fire", "Blood"])) == "[Blood/Fire]/Finesse"
    assert format_deck(Deck("Black", ["Anarchy", "Growth", "Law"])) == "Anarchy/Growth/Law/Black"
    assert format_deck(Deck("Red", ["Fire", "Anarchy", "Blood"])) == "[Anarchy/Blood/Fire]"


def test_format_rejects_non_decks_and_unknown_specs():
    with pytest.raises(TypeError, match="str"):
        format_deck("MonoRed")
    with pytest.raises(ValueError, match="'a'"):
        format_deck(Deck("Knight", ("a", "b", "c")))


# -- notation: round trips -------------------------------------------------------------------


def test_parse_format_round_trip_on_every_draft_deck():
    decks = legal_decks("draft")
    texts = [format_deck(d) for d in decks]
    assert len(set(texts)) == len(decks)
    for deck, text in zip(decks, texts, strict=True):
        assert parse_deck(text) == deck, text


decks = st.builds(
    Deck,
    st.sampled_from(CODEX.starters),
    st.lists(st.sampled_from(CODEX.specs), min_size=3, max_size=3, unique=True),
)


@given(decks)
def test_parse_format_round_trip(deck):
    assert parse_deck(format_deck(deck)) == deck


@st.composite
def varied_texts(draw):
    """A deck and its forum text with random letter case and whitespace around separators."""
    deck = draw(decks)
    text = format_deck(deck)
    flips = draw(st.lists(st.booleans(), min_size=len(text), max_size=len(text)))
    text = "".join(c.swapcase() if f else c for c, f in zip(text, flips, strict=True))
    pad = st.sampled_from(["", " ", "  ", "\t"])
    out = [draw(pad)]
    for char in text:
        out.append(f"{draw(pad)}{char}{draw(pad)}" if char in "[]/" else char)
    out.append(draw(pad))
    return deck, "".join(out)


@given(varied_texts())
def test_parse_reads_case_and_whitespace_variations(pair):
    deck, text = pair
    assert parse_deck(text) == deck


# -- notation: the real data ----------------------------------------------------------------


def _codexdata_catalogue(path) -> Catalogue:
    specs = pd.read_csv(path / "specs.csv")
    starters = pd.read_csv(path / "starters.csv")
    return CODEX.with_starters(starters["starter"]).with_specs(
        dict(zip(specs["spec"], specs["starter"], strict=True))
    )


def test_codexdata_base_specs_match_the_catalogue(codexdata_path):
    specs = pd.read_csv(codexdata_path / "specs.csv")
    base = specs[specs["base"] == "yes"]
    assert dict(zip(base["spec"], base["starter"], strict=True)) == dict(CODEX.spec_colours)


def test_every_deck_in_the_real_data_parses(codexdata_path):
    cat = _codexdata_catalogue(codexdata_path)
    matches = pd.read_csv(codexdata_path / "matches.csv")
    texts = pd.concat([matches["deck1"], matches["deck2"]]).dropna().unique()
    assert len(texts) > 100
    failures = {}
    for text in texts:
        try:
            deck = parse_deck(text, cat)
        except DeckParseError as err:
            failures[text] = str(err)
            continue
        assert len(deck.specs) == 3
        assert parse_deck(format_deck(deck, cat), cat) == deck
    assert not failures
    # Variant components keep their own starters.
    assert parse_deck("[BashingF20]/DisciplineF20/FireF20", cat).starter == "NeutralF20"


def test_codexdata_nicknames_agree_with_the_catalogue(codexdata_path):
    nick = pd.read_csv(codexdata_path / "nicknames.csv")
    base = set(CODEX.specs)
    checked = 0
    for row in nick.itertuples():
        specs = (row.spec1, row.spec2, row.spec3)
        if set(specs) <= base:
            assert parse_deck(row.nickname) == Deck(row.starter, specs), row.nickname
            checked += 1
    assert checked >= 13


# -- notation: errors ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[Demonology]/Anarchy/Lwa", r"unknown spec or starter 'Lwa'.*did you mean 'Law'"),
        ("Anarchyy/Growth/Law/Black", r"'Anarchyy'.*did you mean 'Anarchy'"),
        ("Anarchy/Growth/Law/Blakc", r"'Blakc'.*did you mean 'Black'"),
        ("[Blood/Fire]/Fire", r"repeats the spec Fire"),
        ("[Blood/Fire]", r"has 2 specs; a deck has 3"),
        ("[Blood]/Fire/Law/Peace", r"has 4 specs; a deck has 3"),
        ("Anarchy/Growth/Law", r"names no starter"),
        ("[Blood/Law]/Finesse", r"different starters: Blue, Red"),
        ("Anarchy/Growth/Law/Black/Red", r"at most one starter"),
        ("Black/Anarchy/Growth/Law", r"at most one starter"),
        ("[Blood]/Growth/Law/Black", r"names the starter Black but its bracketed specs are Red"),
        ("[Red]/Growth/Law", r"starter cannot be bracketed"),
        ("[Blood/Fire/Finesse", r"unclosed '\['"),
        ("[Blood/Fire]Finesse", r"expected '/' after '\]'"),
    ],
)
def test_parse_errors_name_the_text_and_the_problem(text, expected):
    with pytest.raises(DeckParseError) as info:
        parse_deck(text)
    message = str(info.value)
    assert repr(text) in message
    assert re.search(expected, message), message


@pytest.mark.parametrize("value", [None, 5, 3.5, ("Red", ("Anarchy", "Blood", "Fire"))])
def test_parse_rejects_non_strings(value):
    with pytest.raises(DeckParseError, match=re.escape(repr(value))):
        parse_deck(value)


@pytest.mark.parametrize("text", ["", "   "])
def test_parse_rejects_empty_strings(text):
    with pytest.raises(DeckParseError, match=re.escape(f"empty deck string {text!r}")):
        parse_deck(text)


def test_deck_parse_error_is_a_value_error():
    assert issubclass(DeckParseError, ValueError)


# -- decks given as Deck values, checked against a given catalogue -----------------------


def _table_of(deck1, deck2):
    return pd.DataFrame({"player1": ["a"], "player2": ["b"], "deck1": [deck1], "deck2": [deck2]})


def test_deck_values_are_checked_against_a_given_codex_catalogue():
    good = Deck("Black", ("Anarchy", "Demonology", "Law"))
    # case aside, spelt as the catalogue spells it; a tuple is read the same way
    table = check_match_table(
        _table_of(Deck("black", ("anarchy", "DEMONOLOGY", "law")), good), CODEX
    )
    assert list(table["deck1"]) == [good]
    table = check_match_table(_table_of(("black", ("law", "anarchy", "demonology")), good), CODEX)
    assert list(table["deck1"]) == [good]
    bad = {
        Deck("Black", ("Anarchy", "Law")): r"deck 'Black/Anarchy/Law' has 2 specs; a deck has 3",
        Deck("Blak", ("Anarchy", "Demonology", "Law")): r"unknown starter 'Blak'.*'Black'",
        Deck("Black", ("Anarchy", "Demonolgy", "Law")): r"unknown spec or starter 'Demonolgy'",
        Deck("Black", ("Anarchy", "Red", "Law")): r"holds the starter 'Red' as a spec",
        Deck("Black", ("Anarchy", "law", "Law")): r"specs must be distinct; Law appears more",
    }
    for deck, message in bad.items():
        with pytest.raises(MatchTableError, match=r"column 'deck2', row 0 .*" + message):
            check_match_table(_table_of(good, deck), CODEX)
    # no catalogue given: Deck values are taken as they are (any game's decks)
    odd = Deck("Knight", ("cavalry", "archers", "walls"))
    assert list(check_match_table(_table_of(odd, good))["deck1"]) == [odd]


def test_deck_values_are_checked_against_a_given_plain_catalogue():
    cat = PlainCatalogue(
        starters=["Cryx", "Cygnar"], components=["Deneghra", "Haley"], specs_per_deck=1,
        tied_to={"Deneghra": "Cryx"},
    )  # fmt: skip
    table = check_match_table(
        _table_of(Deck("cryx", ("deneghra",)), Deck("Cygnar", ("Haley",))), cat
    )
    assert list(table["deck1"]) == [Deck("Cryx", ("Deneghra",))]
    bad = {
        Deck("Cygnar", ()): r"deck 'Cygnar' has 0 component\(s\) after its starter; the catalogue "
        r"gives every deck 1 component$",
        Deck("Khador", ("Haley",)): r"unknown starter 'Khador'",
        Deck("Cygnar", ("Haly",)): r"unknown component 'Haly'.*'Haley'",
        Deck("Cygnar", ("Deneghra",)): r"'Deneghra' belongs to starter 'Cryx', not 'Cygnar'",
    }
    for deck, message in bad.items():
        with pytest.raises(MatchTableError, match=r"column 'deck1', row 0 .*" + message):
            check_match_table(_table_of(deck, Deck("Cryx", ("Deneghra",))), cat)
    with pytest.raises(MatchTableError, match="the catalogue gives every deck 0 components"):
        check_match_table(
            _table_of(Deck("Ryu", ("x",)), Deck("Ken", ("y",))), PlainCatalogue(specs_per_deck=0)
        )
