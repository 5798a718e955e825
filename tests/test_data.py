"""Match-table validation, outcome checks and encoding to integer codes."""

import copy
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skcodex.codex import CODEX, Deck, format_deck, legal_decks, parse_deck
from skcodex.data import (
    MatchCodes,
    MatchTableError,
    Vocabulary,
    check_match_table,
    check_outcome,
    encode,
)

DECKS = {
    "d1": "MonoRed",
    "d2": "[Blood/Fire]/Finesse",
    "d3": "[Demonology]/Anarchy/Law",
    "d4": "Anarchy/Growth/Law/Black",
}


def table(**columns) -> pd.DataFrame:
    """A valid four-match table with a non-default index; keyword columns replace its columns."""
    data = {
        "player1": ["ann", "bob", "cat", "dan"],
        "player2": ["bob", "cat", "dan", "ann"],
        "deck1": [DECKS["d1"], DECKS["d2"], DECKS["d3"], DECKS["d4"]],
        "deck2": [DECKS["d4"], DECKS["d3"], DECKS["d2"], DECKS["d1"]],
        "period": ["T1", "T1", "T2", "T2"],
    }
    data.update(columns)
    return pd.DataFrame(data, index=[10, 11, 12, 13])


def call_unchanged(func, X, *args, **kwargs):
    """Call func(X, ...) and check that X is unchanged afterwards, whether it raised or not."""
    before = copy.deepcopy(X)
    try:
        return func(X, *args, **kwargs)
    finally:
        if isinstance(X, pd.DataFrame):
            pd.testing.assert_frame_equal(X, before)
            assert list(X.columns) == list(before.columns)


def table_error(X, *args, **kwargs) -> str:
    with pytest.raises(MatchTableError) as info:
        call_unchanged(check_match_table, X, *args, **kwargs)
    return str(info.value)


# -- check_match_table: the happy path ------------------------------------------------------


def test_a_valid_table_is_returned_clean():
    X = table(notes=["a", "b", "c", "d"])
    out = call_unchanged(check_match_table, X)
    assert list(out.columns) == ["player1", "player2", "deck1", "deck2", "period"]
    assert list(out.index) == [0, 1, 2, 3]
    assert list(out["player1"]) == ["ann", "bob", "cat", "dan"]
    assert list(out["deck1"]) == [parse_deck(DECKS[k]) for k in ("d1", "d2", "d3", "d4")]
    assert all(isinstance(d, Deck) for d in out["deck2"])
    assert out is not X


def test_decks_may_be_deck_values_or_strings():
    X = table(deck1=[parse_deck(DECKS[k]) for k in ("d1", "d2", "d3", "d4")])
    out = call_unchanged(check_match_table, X)
    pd.testing.assert_frame_equal(out, check_match_table(table()))


def test_integer_player_ids_are_kept():
    out = call_unchanged(check_match_table, table(player1=[1, 2, 3, 4], player2=[2, 3, 4, 1]))
    assert list(out["player1"]) == [1, 2, 3, 4]


def test_dates_are_parsed():
    out = call_unchanged(check_match_table, table(date=["2020-01-01"] * 4))
    assert pd.api.types.is_datetime64_any_dtype(out["date"])


def test_variant_specs_need_an_extended_catalogue():
    X = table(deck1=["[DemonBash/Disease/Necromancy]", *table()["deck1"][1:]])
    assert "DemonBash" in table_error(X)
    out = call_unchanged(check_match_table, X, CODEX.with_specs({"DemonBash": "Black"}))
    assert out["deck1"][0] == Deck("Black", ("DemonBash", "Disease", "Necromancy"))


def test_categorical_columns_are_accepted():
    X = table().astype("category")
    out = call_unchanged(check_match_table, X)
    plain = check_match_table(table())
    for col in ("player1", "player2", "deck1", "deck2"):
        assert list(out[col]) == list(plain[col])


# -- check_match_table: errors ------------------------------------------------------------------


@pytest.mark.parametrize(
    "X", [np.zeros((3, 4)), [["a", "b", "MonoRed", "MonoBlue"]], {"player1": ["a"]}, None]
)
def test_X_must_be_a_dataframe(X):
    message = table_error(X)
    assert "DataFrame" in message
    assert type(X).__name__ in message


@pytest.mark.parametrize("column", ["player1", "player2", "deck1", "deck2"])
def test_missing_column(column):
    message = table_error(table().drop(columns=column))
    assert f"missing the column(s) {column!r}" in message


def test_duplicated_column():
    X = pd.concat([table(), table()[["deck2"]]], axis=1)
    assert "'deck2' more than once" in table_error(X)


@pytest.mark.parametrize("column", ["player1", "player2"])
@pytest.mark.parametrize("null", [None, np.nan, pd.NA])
def test_null_player(column, null):
    values = list(table()[column])
    values[2] = null
    message = table_error(table(**{column: values}))
    assert f"column {column!r} is missing a value at row 2 (index 12)" in message


@pytest.mark.parametrize("column", ["deck1", "deck2"])
@pytest.mark.parametrize("null", [None, np.nan])
def test_null_deck(column, null):
    values = list(table()[column])
    values[1] = null
    message = table_error(table(**{column: values}))
    assert f"column {column!r} is missing a deck at row 1 (index 11)" in message


def test_player_facing_themself():
    message = table_error(table(player2=["bob", "cat", "cat", "ann"]))
    assert "player 'cat' faces themself at row 2 (index 12)" in message


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[Blood/Fire/Finesse", "unclosed"),
        ("Red Deck Wins", "unknown spec or starter 'Red Deck Wins'"),
        ("[Blood/Fire]/Finese", "unknown spec or starter 'Finese'.*did you mean 'Finesse'"),
        ("Anarchy/Growth/Law/Knight", "unknown spec or starter 'Knight'"),
        ("[Blood/Fire]/Fire", "repeats the spec Fire"),
        ("Anarchy/Growth/Law", "names no starter"),
    ],
)
@pytest.mark.parametrize("column", ["deck1", "deck2"])
def test_deck_that_does_not_parse(column, text, problem):
    values = list(table()[column])
    values[3] = text
    message = table_error(table(**{column: values}))
    assert message.startswith(f"column {column!r}, row 3 (index 13): ")
    assert repr(text) in message
    assert re.search(problem, message), message


def test_deck_value_with_a_repeated_spec():
    values = pd.Series(list(table()["deck1"]), index=[10, 11, 12, 13], dtype=object)
    values[11] = ("Red", ("Fire", "Fire", "Law"))
    message = table_error(table(deck1=values))
    assert "column 'deck1', row 1 (index 11)" in message
    assert "Fire appears more than once" in message


def test_deck_of_the_wrong_type():
    values = pd.Series(list(table()["deck2"]), index=[10, 11, 12, 13], dtype=object)
    values[12] = 42
    message = table_error(table(deck2=values))
    assert "column 'deck2', row 2 (index 12)" in message
    assert "42" in message


def test_decks_of_different_sizes():
    X = table(deck1=[Deck("Knight", ("a", "b"))] * 4, deck2=[Deck("Rook", ("a", "b", "c"))] * 4)
    assert "same number of specs" in table_error(X)


def test_empty_table():
    assert "no rows" in table_error(table().iloc[:0])
    out = call_unchanged(check_match_table, table().iloc[:0], require_rows=False)
    assert len(out) == 0


def test_mixed_str_and_int_ids_within_a_column():
    message = table_error(table(player1=["ann", 7, "cat", "dan"]))
    assert "column 'player1' mixes str and int player ids" in message
    assert "7 at row 1 (index 11)" in message


def test_mixed_str_and_int_ids_across_columns():
    message = table_error(table(player1=[1, 2, 3, 4]))
    assert "'player1' and 'player2' mix str and int player ids" in message
    assert "1 and 'bob' at row 0 (index 10)" in message


@pytest.mark.parametrize("bad", [1.5, True, ("a",)])
def test_player_ids_must_be_str_or_int(bad):
    values = pd.Series(["ann", "bob", "cat", "dan"], index=[10, 11, 12, 13], dtype=object)
    values[12] = bad
    message = table_error(table(player2=values))
    assert "column 'player2' must hold player names (str) or ids (int)" in message
    assert repr(bad) in message
    assert "row 2 (index 12)" in message


def test_null_period():
    message = table_error(table(period=["T1", None, "T2", "T2"]))
    assert "column 'period' is missing a value at row 1 (index 11)" in message


def test_bad_date():
    message = table_error(table(date=["2020-01-01", "not a date", "x", "y"]))
    assert "column 'date' holds 'not a date' at row 1 (index 11), which is not a date" in message
    assert "format" not in message  # none of pandas' advice on options a user cannot pass


def test_dates_read_both_ways_are_refused_and_one_way_read_that_way():
    message = table_error(table(date=["05/01/2020", "02/03/2020", "03/03/2020", "04/03/2020"]))
    assert "holds '05/01/2020' at row 0 (index 10), which reads as 2020-05-01 month" in message
    assert "2020-01-05 day first" in message
    read = check_match_table(table(date=["13/01/2020", "02/03/2020", "03/03/2020", "14/03/2020"]))
    assert list(read["date"].dt.strftime("%Y-%m-%d")) == [
        "2020-01-13", "2020-03-02", "2020-03-03", "2020-03-14"
    ]  # fmt: skip
    same = check_match_table(table(date=["01/01/2020", "02/02/2020", "03/03/2020", "04/04/2020"]))
    assert list(same["date"].dt.month) == [1, 2, 3, 4]  # both readings agree: read
    mixed = table_error(table(date=["2020-01-06", "Jan 5 2020", "2020-01-07", "2020-01-08"]))
    assert "mixes date formats or time zones (such as '2020-01-06' and 'Jan 5 2020')" in mixed


def test_period_labels_are_trimmed_as_names_are():
    given = table(period=["T1 ", "T1", " T2", "T2"])
    kept = given.copy()
    assert list(check_match_table(given)["period"]) == ["T1", "T1", "T2", "T2"]
    pd.testing.assert_frame_equal(given, kept)  # the table passed in is unchanged
    assert "the label at row 2 (index 12) is empty" in table_error(
        table(period=["T1", "T1", " ", "T2"])
    )


# -- check_outcome ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "y",
    [
        [1, 0, 0, 1],
        np.array([1, 0, 0, 1]),
        np.array([1.0, 0.0, 0.0, 1.0]),
        [True, False, False, True],
        np.array([True, False, False, True]),
        pd.Series([1, 0, 0, 1], index=[5, 6, 7, 8]),
        pd.Series([True, False, False, True], dtype="boolean"),
        pd.DataFrame({"won": [1, 0, 0, 1]}),
    ],
)
def test_outcomes_accepted(y):
    out = call_unchanged(check_outcome, y, 4)
    assert out.dtype == np.int8
    np.testing.assert_array_equal(out, [1, 0, 0, 1])


@pytest.mark.parametrize(
    ("bad", "shown"),
    [(2, "2"), (-1, "-1"), (0.5, "0.5"), (np.nan, "nan"), ("a", "'a'"), (None, "None")],
)
def test_outcomes_must_be_0_or_1(bad, shown):
    y = [1, 0, bad, 1]
    with pytest.raises(MatchTableError) as info:
        check_outcome(y, 4)
    message = str(info.value)
    assert f"got {shown} at row 2" in message
    assert "1 (player1 won) or 0 (player2 won)" in message
    if bad == 0.5:
        assert "draws" in message


def test_outcome_na_in_a_nullable_series():
    with pytest.raises(MatchTableError, match="got <NA> at row 1"):
        check_outcome(pd.Series([1, pd.NA, 0, 1], dtype="Int64"), 4)


def test_outcome_length_must_match():
    with pytest.raises(MatchTableError, match="X has 5 matches but y has 4 outcomes"):
        check_outcome([1, 0, 0, 1], 5)


@pytest.mark.parametrize("y", [np.ones((4, 2)), pd.DataFrame({"a": [1] * 4, "b": [0] * 4})])
def test_outcome_must_be_one_column(y):
    with pytest.raises(MatchTableError, match="one"):
        check_outcome(y, 4)


# -- encoding ------------------------------------------------------------------------------------


def test_vocabulary_collects_sorted_levels():
    vocab = Vocabulary.from_table(check_match_table(table()))
    assert vocab.players == ("ann", "bob", "cat", "dan")
    assert vocab.starters == ("Black", "Red")
    assert vocab.specs == tuple(
        sorted({"Anarchy", "Blood", "Fire", "Finesse", "Demonology", "Law", "Growth"})
    )
    assert vocab.specs_per_deck == 3
    assert vocab.sizes == (4, 2, 7)


def test_encoding_round_trips_through_the_vocabulary():
    checked = check_match_table(table())
    vocab = Vocabulary.from_table(checked)
    codes = encode(checked, vocab)
    assert isinstance(codes, MatchCodes)
    assert len(codes) == 4
    assert (codes.n_players, codes.n_starters, codes.n_specs) == vocab.sizes
    assert codes.unseen_players == codes.unseen_starters == codes.unseen_specs == ()
    for i, row in checked.iterrows():
        assert vocab.players[codes.player1[i]] == row["player1"]
        assert vocab.players[codes.player2[i]] == row["player2"]
        assert vocab.starters[codes.starter1[i]] == row["deck1"].starter
        assert vocab.starters[codes.starter2[i]] == row["deck2"].starter
        assert tuple(vocab.specs[c] for c in codes.specs1[i]) == row["deck1"].specs
        assert tuple(vocab.specs[c] for c in codes.specs2[i]) == row["deck2"].specs
    assert codes.specs1.shape == codes.specs2.shape == (4, 3)


def test_unseen_levels_get_codes_from_the_vocabulary_size_up():
    vocab = Vocabulary.from_table(check_match_table(table()))
    new = check_match_table(
        pd.DataFrame(
            {
                "player1": ["zed", "ann", "yan", "zed"],
                "player2": ["bob", "zed", "ann", "yan"],
                "deck1": ["MonoBlue", "MonoRed", "MonoBlue", "[Past]/Blood/Law"],
                "deck2": ["MonoRed", "MonoRed", "MonoRed", "MonoRed"],
            }
        )
    )
    codes = encode(new, vocab)
    # Players: 4 known (ann=0, bob=1); zed and yan are new, numbered in order of appearance.
    np.testing.assert_array_equal(codes.player1, [4, 0, 5, 4])
    np.testing.assert_array_equal(codes.player2, [1, 4, 0, 5])
    assert codes.unseen_players == ("zed", "yan")
    assert codes.n_players == 6
    # Starters: Black=0, Red=1 known; Blue and Purple new.
    np.testing.assert_array_equal(codes.starter1, [2, 1, 2, 3])
    np.testing.assert_array_equal(codes.starter2, [1, 1, 1, 1])
    assert codes.unseen_starters == ("Blue", "Purple")
    assert codes.n_starters == 4
    # Specs: the 7 known ones keep their codes; Law is known, Peace/Truth/Past are new.
    law = vocab.specs.index("Law")
    assert codes.unseen_specs == ("Peace", "Truth", "Past")
    np.testing.assert_array_equal(codes.specs1[0], [law, 7, 8])
    np.testing.assert_array_equal(codes.specs1[2], [law, 7, 8])
    blood = vocab.specs.index("Blood")
    np.testing.assert_array_equal(codes.specs1[3], [blood, law, 9])
    assert codes.n_specs == 10


def test_encoding_rejects_decks_of_another_size():
    vocab = Vocabulary.from_table(check_match_table(table()))
    other = check_match_table(
        table(deck1=[Deck("Red", ("Fire", "Law"))] * 4, deck2=[Deck("Red", ("Blood", "Law"))] * 4)
    )
    with pytest.raises(MatchTableError, match="3 specs"):
        encode(other, vocab)


def test_decks_of_another_game_encode():
    X = pd.DataFrame(
        {
            "player1": [1, 2, 3],
            "player2": [2, 3, 1],
            "deck1": [
                Deck("Knight", ("a", "b")),
                Deck("Rook", ("b", "c")),
                Deck("Knight", ("a", "c")),
            ],
            "deck2": [Deck("Rook", ("a", "c"))] * 3,
        }
    )
    checked = call_unchanged(check_match_table, X)
    vocab = Vocabulary.from_table(checked)
    assert vocab.sizes == (3, 2, 3)
    assert vocab.specs_per_deck == 2
    codes = encode(checked, vocab)
    np.testing.assert_array_equal(codes.starter1, [0, 1, 0])
    np.testing.assert_array_equal(codes.specs1, [[0, 1], [1, 2], [0, 2]])


POOL_DECKS = legal_decks("multicolour")[::97]
PLAYERS = ["ann", "bob", "cat", "dan", "eve", "fay"]


@st.composite
def match_tables(draw, min_rows=1):
    n = draw(st.integers(min_rows, 8))
    rows = []
    for _ in range(n):
        p1, p2 = draw(st.lists(st.sampled_from(PLAYERS), min_size=2, max_size=2, unique=True))
        d1, d2 = draw(st.sampled_from(POOL_DECKS)), draw(st.sampled_from(POOL_DECKS))
        rows.append((p1, p2, d1, d2))
    as_text = draw(st.booleans())
    frame = pd.DataFrame(rows, columns=["player1", "player2", "deck1", "deck2"])
    if as_text:
        for col in ("deck1", "deck2"):
            frame[col] = [format_deck(d) for d in frame[col]]
    return frame


@settings(max_examples=60, deadline=None)
@given(match_tables(), match_tables(), st.data())
def test_encoding_is_invariant_to_column_order_and_category_dtypes(train, test, data):
    vocab = Vocabulary.from_table(check_match_table(train))
    expected = encode(check_match_table(test), vocab)

    order = data.draw(st.permutations(list(test.columns)))
    as_category = data.draw(st.lists(st.sampled_from(list(test.columns)), unique=True))
    other = test[order].copy()
    for col in as_category:
        other[col] = other[col].astype("category")
    got = encode(call_unchanged(check_match_table, other), vocab)

    train_other = train[data.draw(st.permutations(list(train.columns)))].astype("category")
    assert Vocabulary.from_table(check_match_table(train_other)) == vocab

    for field in ("player1", "player2", "starter1", "starter2", "specs1", "specs2"):
        np.testing.assert_array_equal(getattr(got, field), getattr(expected, field))
    assert (got.n_players, got.n_starters, got.n_specs) == (
        expected.n_players,
        expected.n_starters,
        expected.n_specs,
    )
    assert got.unseen_players == expected.unseen_players
    assert got.unseen_specs == expected.unseen_specs


# -- names and time order ----------------------------------------------------------------


def test_player_names_are_stripped_and_nfc(small_table_for_names):
    X = small_table_for_names
    out = check_match_table(X)
    assert list(out["player1"]) == ["ann", "Zo\u00eb", "bob"]
    assert list(X["player1"]) == [" ann", "Zoe\u0308", "bob"]  # the caller's table is untouched


@pytest.fixture
def small_table_for_names():
    return pd.DataFrame(
        {
            "player1": pd.Series([" ann", "Zoe\u0308", "bob"], dtype=object),
            "player2": ["bob", "ann\t", "Zo\u00eb"],
            "deck1": ["MonoRed"] * 3,
            "deck2": ["MonoBlue"] * 3,
        }
    )


def test_time_order_and_epochs_follow_dates_not_rows():
    from skcodex.data._codes import epochs, period_labels
    from skcodex.data._table import time_order

    X = pd.DataFrame(
        {
            "player1": ["a", "b", "c", "a"],
            "player2": ["b", "c", "a", "c"],
            "deck1": ["MonoRed"] * 4,
            "deck2": ["MonoBlue"] * 4,
            "period": ["T2", "T1", "T2", "T1"],
            "date": pd.to_datetime(["2020-02-01", "2020-01-01", "2020-02-02", "2020-01-02"]),
        }
    )
    table = check_match_table(X)
    order = time_order(table)
    assert order.tolist() == [1, 3, 0, 2]
    assert epochs(table["period"], order).tolist() == [1, 0, 1, 0]
    assert period_labels(table) == ["T1", "T2"]
    assert time_order(table.iloc[order].reset_index(drop=True)) is None  # already in order
    numeric = check_match_table(X.drop(columns="date").assign(period=[20, 10, 20, 10]))
    assert time_order(numeric).tolist() == [1, 3, 0, 2]
    text = check_match_table(X.drop(columns="date"))
    assert time_order(text) is None  # text labels have no order of their own


def test_missing_y_is_named_as_required():
    with pytest.raises(MatchTableError, match="requires y to be passed, but the target y is None"):
        check_outcome(None, 3)


def test_one_column_y_is_read_like_a_one_column_frame():
    y = np.array([1, 0, 1])
    expected = check_outcome(y, 3)
    np.testing.assert_array_equal(check_outcome(y.reshape(-1, 1), 3), expected)
    np.testing.assert_array_equal(check_outcome(pd.DataFrame({"won": y}), 3), expected)
    column = y.reshape(-1, 1).copy()
    check_outcome(column, 3)
    np.testing.assert_array_equal(column, y.reshape(-1, 1))  # the input is left as it was
    with pytest.raises(MatchTableError, match="one-dimensional"):
        check_outcome(np.c_[y, y], 3)
    with pytest.raises(MatchTableError, match="one column of outcomes, got 2 columns"):
        check_outcome(pd.DataFrame({"a": y, "b": y}), 3)
    with pytest.raises(MatchTableError, match="got 2 at row 1"):
        check_outcome(np.array([[1], [2], [0]]), 3)


# -- invisible characters and Period labels ----------------------------------------------

INVISIBLE = {
    "zero-width space": "\u200b",
    "zero-width joiner": "\u200d",
    "soft hyphen": "\u00ad",
    "byte order mark": "\ufeff",
    "right-to-left override": "\u202e",
    "word joiner": "\u2060",
}


@pytest.mark.parametrize("mark", INVISIBLE.values(), ids=INVISIBLE.keys())
def test_names_differing_by_invisible_characters_are_one_player(mark):
    from skcodex.data import normalise_name

    assert normalise_name(f"ann{mark}") == normalise_name(f"{mark} a{mark}nn ") == "ann"
    table = pd.DataFrame(
        {
            "player1": ["ann", f"a{mark}nn", "bob"],
            "player2": ["bob", "cat", f"{mark}ann"],
            "deck1": ["MonoRed"] * 3,
            "deck2": ["MonoBlue"] * 3,
        }
    )
    checked = check_match_table(table)
    assert list(checked["player1"]) == ["ann", "ann", "bob"]
    assert list(checked["player2"]) == ["bob", "cat", "ann"]
    # a self-match between the two spellings is caught
    with pytest.raises(MatchTableError, match=r"player 'ann' faces .* invisible characters"):
        check_match_table(table.assign(player2=[f"ann{mark}", "cat", "ann"]))


def test_a_name_of_invisible_characters_only_is_refused():
    table = pd.DataFrame(
        {
            "player1": ["\u200b\u200d"],
            "player2": ["bob"],
            "deck1": ["MonoRed"],
            "deck2": ["MonoRed"],
        }
    )
    with pytest.raises(MatchTableError, match=r"player1.*empty or only spaces"):
        check_match_table(table)


def _months(n_rows: int, n_months: int) -> pd.Series:
    labels = [f"2024-{1 + (i * n_months) // n_rows:02d}" for i in range(n_rows)]
    return pd.Series(pd.PeriodIndex(labels, freq="M"))


@pytest.mark.parametrize("as_object", [False, True])
def test_period_months_are_ordered_by_time_not_by_rows(as_object):
    """Epochs (the Bayesian skill walk's periods) follow the months, whatever the row order."""
    from skcodex.data._codes import epochs
    from skcodex.data._table import period_times, time_order

    months = _months(12, 4)
    table = pd.DataFrame(
        {
            "player1": ["a", "b", "c"] * 4,
            "player2": ["b", "c", "a"] * 4,
            "deck1": ["MonoRed"] * 12,
            "deck2": ["MonoBlue"] * 12,
            "period": months.astype(object) if as_object else months,
        }
    )
    shuffled = table.iloc[[11, 4, 0, 7, 3, 9, 1, 10, 5, 2, 8, 6]]  # 2024-04 comes first
    checked = check_match_table(shuffled)
    times = period_times(checked["period"])
    assert list(times) == [p.start_time for p in shuffled["period"]]
    order = time_order(checked)
    assert list(checked["period"].iloc[order]) == sorted(shuffled["period"])
    codes = encode(checked, Vocabulary.from_table(checked))
    month_number = np.array([p.month for p in shuffled["period"]])
    assert np.array_equal(codes.epoch, month_number - 1)
    assert np.array_equal(epochs(checked["period"], order), month_number - 1)


def test_a_time_varying_fit_refuses_a_match_without_a_date():
    from skcodex import BayesianMatchupClassifier

    X = pd.DataFrame(
        {
            "player1": ["a", "b", "c", "a"],
            "player2": ["b", "c", "a", "c"],
            "deck1": ["MonoRed"] * 4,
            "deck2": ["MonoBlue"] * 4,
            "period": [1, 1, 2, 2],
            "date": ["2024-01-01", "2024-01-02", None, "2024-02-01"],
        }
    )
    clf = BayesianMatchupClassifier(time_varying=True, draws=10, tune=10, chains=1)
    with pytest.raises(MatchTableError, match="column 'date' is missing a value at row 2"):
        clf.fit(X, [1, 0, 1, 0])


def _periods_table(period_values, dates=None):
    rows = [
        ("ann", "bob", 1),
        ("bob", "cat", 1),
        ("ann", "cat", 2),
        ("dan", "ann", 2),
        ("cat", "dan", 3),
        ("bob", "dan", 3),
    ]
    X = pd.DataFrame(rows, columns=["player1", "player2", "period"])
    X["period"] = [period_values[p] for p in X["period"]]
    X["deck1"], X["deck2"] = "MonoRed", "MonoBlue"
    if dates is not None:
        X["date"] = dates
    return X


def test_a_whole_number_period_is_one_period_however_it_is_typed():
    """Periods 1, 2, 3 in training are 1.0, 2.0, 3.0 at prediction (a CSV with a gap)."""
    from skcodex.data import Vocabulary, check_match_table, encode

    train = check_match_table(_periods_table({1: 1, 2: 2, 3: 3}))
    vocab = Vocabulary.from_table(train)
    seen = encode(train, vocab)
    for typed in ({1: 1.0, 2: 2.0, 3: 3.0}, {1: np.int32(1), 2: np.int32(2), 3: np.int32(3)}):
        again = encode(check_match_table(_periods_table(typed)), vocab)
        assert again.unseen_periods == ()
        np.testing.assert_array_equal(again.period, seen.period)
        np.testing.assert_array_equal(again.debut1, seen.debut1)
        np.testing.assert_array_equal(again.debut2, seen.debut2)


def test_an_undated_match_keeps_its_place_in_its_period():
    """dan's first match (period 2) has no date: dan still debuts in period 2, not 3."""
    from skcodex.data import Vocabulary, check_match_table

    dates = pd.to_datetime(
        ["2020-01-01", "2020-01-02", "2020-02-01", None, "2020-03-01", "2020-03-02"]
    )
    table = check_match_table(_periods_table({1: "T1", 2: "T2", 3: "T3"}, dates))
    vocab = Vocabulary.from_table(table)
    debut = dict(zip(vocab.players, vocab.debut_periods))
    assert debut == {"ann": "T1", "bob": "T1", "cat": "T1", "dan": "T2"}


@pytest.mark.parametrize(
    ("dates", "first", "last"),
    [
        ([2013, 2013, 2014, 2014, 2015, 2016], "2013-01-01", "2016-01-01"),
        ([201305, 201305, 201306, 201306, 201401, 201401], "2013-05-01", "2014-01-01"),
        ([20130521] * 2 + [20130601] * 2 + [20130701] * 2, "2013-05-21", "2013-07-01"),
        (["2013", "2013", "2014", "2014", "2015", "2016"], "2013-01-01", "2016-01-01"),
    ],
)
def test_a_date_column_of_years_is_read_as_years(dates, first, last):
    from skcodex.data import check_match_table
    from skcodex.model_selection import latest_share_split

    X = _periods_table({1: "T1", 2: "T2", 3: "T3"}, dates)
    table = check_match_table(X)
    assert table["date"].min() == pd.Timestamp(first)
    assert table["date"].max() == pd.Timestamp(last)
    # the last tournament (T3, the last two rows) starts on the fifth row's date: held out
    since = table["date"].iloc[4].date().isoformat()
    train, test = latest_share_split(X, since=since)
    assert test.tolist() == [4, 5] and train.tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize("dates", [[1, 2, 3, 4, 5, 6], [12345] * 6, [2013.5] * 6])
def test_numbers_that_are_no_dates_are_refused(dates):
    from skcodex.data import MatchTableError, check_match_table

    X = _periods_table({1: "T1", 2: "T2", 3: "T3"}, dates)
    with pytest.raises(MatchTableError, match=r"column 'date' holds numbers .* not years"):
        check_match_table(X)


def test_the_report_states_a_date_column_of_years_as_years(monkeypatch):
    """The report once said "played 1970-01-01 to 1970-01-01" for dates 2013 to 2016."""
    from types import SimpleNamespace

    import skcodex.report._analyses as report

    monkeypatch.setattr(report, "game_words", lambda clf: {})  # the game's nouns: not here
    X = _periods_table({1: "T1", 2: "T2", 3: "T3"}, [2013, 2013, 2014, 2014, 2015, 2016])
    vocab = SimpleNamespace(players=("ann", "bob", "cat", "dan"), starters=(), specs=())
    summary = report.data_summary(SimpleNamespace(vocabulary_=vocab), X)
    assert (summary["first_date"], summary["last_date"]) == ("2013-01-01", "2016-01-01")
