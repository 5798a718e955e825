"""The codexdata loader: filters, ordering, the summary, the catalogue and every error."""

import copy
import csv
import pickle
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from skcodex import TournamentSplit
from skcodex.codex import CODEX, Catalogue, Deck, parse_deck
from skcodex.data import Vocabulary, check_match_table
from skcodex.datasets import LoadSummary, load_codex_catalogue, load_codex_matches
from skcodex.datasets._codexdata import REASONS, CodexDataError

FIXTURES = Path(__file__).parent / "fixtures"
SMALL = FIXTURES / "codexdata_small"
MINIMAL = FIXTURES / "codexdata_minimal"

# The small fixture, worked out by hand (csv rows count the header as row 1):
#   2, 3   ALPHA normal                    kept
#   4      ALPHA timeout                   timeout
#   5      ALPHA forfeit                   forfeit
#   6      BETA  on a map                  map
#   7      BETA  MonoBlueF20 (nickname)    f20
#   8      BETA  deck1 missing, timeout    incomplete (also a timeout)
#   9      BETA  victor missing            incomplete
#   10     BETA  Black starter, no black spec              kept
#   11     BETA  DemonBash vs AnarchyP22                   kept
#   12     BETA  Black Bash vs an F20 deck                 f20
#   13     BETA  timeout on a map          timeout (also a map)
#   14     LEAGUE, starts 01-05, ends 02-20                kept
#   15, 16 GAMMA, both end 01-19                           kept
DEFAULT_ROWS = [3, 2, 10, 15, 16, 11, 14]  # by end date, then start, then file order
DEFAULT_Y = [0, 1, 1, 0, 1, 0, 1]
DEFAULT_PERIODS = ["ALPHA", "ALPHA", "BETA", "GAMMA", "GAMMA", "BETA", "LEAGUE"]
FLAGGED = {"incomplete": 2, "timeout": 3, "forfeit": 1, "map": 2, "f20": 2}


def load_with_summary(*args, **kwargs):
    """The table, the outcomes and the summary, from the loader's Bunch."""
    data = load_codex_matches(*args, **kwargs)
    return data.X, data.y, data.summary


def dropped(incomplete=2, timeout=2, forfeit=1, on_map=1, f20=2):
    return {
        "incomplete": incomplete,
        "timeout": timeout,
        "forfeit": forfeit,
        "map": on_map,
        "f20": f20,
    }


# --------------------------------------------------------------------------- reading


def test_default_filter_keeps_normal_complete_games_in_time_order():
    X, y = load_codex_matches(SMALL, return_X_y=True)
    assert X["csv_row"].tolist() == DEFAULT_ROWS
    assert y.tolist() == DEFAULT_Y
    assert y.dtype == np.int64
    assert X["period"].tolist() == DEFAULT_PERIODS
    assert X.columns.tolist() == [
        "player1",
        "player2",
        "deck1",
        "deck2",
        "period",
        "date",
        "start",
        "end",
        "round",
        "victory",
        "map",
        "csv_row",
    ]
    assert X.index.tolist() == list(range(7))
    assert (X["victory"] == "normal").all()
    assert X["map"].isna().all()
    # date is the start date; rows are ordered by end date, then start
    assert (X["date"] == X["start"]).all()
    assert X["end"].is_monotonic_increasing
    assert X.loc[0, "end"] == pd.Timestamp("2020-01-02")
    assert X.loc[6, "start"] == pd.Timestamp("2020-01-05")
    # decks are kept as written
    assert X.loc[5, "deck1"] == "[DemonBash]/Disease/Necromancy"
    assert X.loc[3, "deck1"] == "Black Bash"
    assert X["round"].tolist() == [1, 1, 2, 1, 1, 2, 1]


def test_outcome_is_who_the_victor_is():
    X, y = load_codex_matches(SMALL, keep_timeouts=True, keep_forfeits=True, return_X_y=True)
    raw = {int(r["row"]): r for r in _rows(SMALL)}
    for (_, row), won in zip(X.iterrows(), y):
        victor = raw[row["csv_row"]]["victor"]
        assert won == (victor == row["player1"])
        assert (1 - won) == (victor == row["player2"])


def test_summary_counts_each_row_once_in_reason_order():
    X, _, summary = load_with_summary(SMALL)
    assert isinstance(summary, LoadSummary)
    assert X.attrs["summary"] == summary
    assert summary.rows_read == 15
    assert summary.rows_kept == 7
    assert summary.rows_dropped == 8
    assert summary.dropped == dropped()
    assert list(summary.dropped) == list(REASONS)
    assert sum(summary.dropped.values()) == summary.rows_dropped
    assert summary.flagged == FLAGGED
    assert summary.path.endswith("matches.csv")


@pytest.mark.parametrize(
    ("switch", "extra_row", "counts"),
    [
        # the timeout on row 8 still lacks a deck; the one on row 13 is also on a map
        ("keep_timeouts", 4, dropped(timeout=0, on_map=2)),
        ("keep_forfeits", 5, dropped(forfeit=0)),
        # the map game on row 13 is still a timeout
        ("keep_maps", 6, dropped(on_map=0)),
        ("keep_f20", [7, 12], dropped(f20=0)),
    ],
)
def test_each_filter_switches_off_on_its_own(switch, extra_row, counts):
    X, y, summary = load_with_summary(SMALL, **{switch: True})
    extra = extra_row if isinstance(extra_row, list) else [extra_row]
    assert sorted(X["csv_row"]) == sorted([*DEFAULT_ROWS, *extra])
    assert summary.dropped == counts
    assert summary.flagged == FLAGGED
    assert summary.rows_kept == len(X) == len(y) == 7 + len(extra)
    reason = {"keep_timeouts": "timeout", "keep_forfeits": "forfeit"}.get(switch)
    reason = reason or {"keep_maps": "map", "keep_f20": "f20"}[switch]
    assert summary.active == {r: r != reason for r in REASONS}
    assert X["end"].is_monotonic_increasing


def test_all_filters_off_keeps_every_complete_row_in_time_order():
    X, y, summary = load_with_summary(
        SMALL,
        keep_timeouts=True,
        keep_forfeits=True,
        keep_maps=True,
        keep_f20=True,
    )
    assert X["csv_row"].tolist() == [3, 2, 5, 4, 6, 7, 10, 12, 13, 15, 16, 11, 14]
    assert y.tolist() == [0, 1, 1, 0, 0, 1, 1, 1, 1, 0, 1, 0, 1]
    assert summary.dropped == dropped(timeout=0, forfeit=0, on_map=0, f20=0)
    assert sorted(X["victory"].unique()) == ["forfeit", "normal", "timeout"]
    assert X.loc[X["csv_row"] == 13, "map"].item() == "Vortoss Ruins"


def test_drop_incomplete_off_raises_on_the_first_incomplete_row():
    with pytest.raises(CodexDataError, match=r"row 8 .*deck1 missing"):
        load_codex_matches(SMALL, drop_incomplete=False)


def test_summary_prints_every_count():
    _, _, summary = load_with_summary(SMALL, keep_maps=True)
    text = str(summary)
    assert "rows read     15" in text
    assert "rows kept      8" in text
    assert "rows dropped   7" in text
    assert "missing deck or winner     2" in text
    assert "forfeit                    1" in text
    assert "map variant                0  (filter off; 2 such rows read)" in text
    assert "F20 card-edit variant      2" in text


def test_a_path_to_matches_csv_works_too():
    X1, y1 = load_codex_matches(SMALL, return_X_y=True)
    X2, y2 = load_codex_matches(SMALL / "matches.csv", return_X_y=True)
    pd.testing.assert_frame_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)


def test_only_matches_csv_and_only_required_columns():
    X, y = load_codex_matches(MINIMAL, return_X_y=True)
    assert X["csv_row"].tolist() == [2, 3, 4]
    assert y.tolist() == [0, 1, 1]
    assert X["map"].isna().all()
    assert X["round"].isna().all()
    assert X.attrs["catalogue"] == CODEX


def test_the_table_passes_the_match_table_check_with_its_catalogue():
    X, _ = load_codex_matches(SMALL, keep_f20=True, return_X_y=True)
    cat = X.attrs["catalogue"]
    table = check_match_table(X, cat)
    assert table.columns.tolist() == ["player1", "player2", "deck1", "deck2", "period", "date"]
    vocab = Vocabulary.from_table(table)
    # variant specs and starters are components of their own
    for spec in ("DemonBash", "AnarchyP22", "GrowthP22", "FireF20", "LawF20"):
        assert spec in vocab.specs
    for starter in ("BlueF20", "NeutralF20"):
        assert starter in vocab.starters
    assert parse_deck(X.loc[X["csv_row"] == 11, "deck2"].item(), cat) == Deck(
        "Red", ["AnarchyP22", "Growth", "Law"]
    )
    # without the variant catalogue these decks cannot be read
    with pytest.raises(ValueError, match="unknown spec or starter 'MonoBlueF20'"):
        check_match_table(X, CODEX)


# --------------------------------------------------------------------------- catalogue


def test_catalogue_adds_the_files_to_the_base_catalogue():
    cat = load_codex_catalogue(SMALL)
    assert isinstance(cat, Catalogue)
    assert cat.colour("DemonBash") == "Black"
    assert cat.colour("AnarchyP22") == "Red"
    assert cat.colour("FireF20") == "RedF20"
    assert {"BlueF20", "NeutralF20", "RedF20", "WhiteF20"} <= set(cat.starters)
    # base specs absent from specs.csv are still there
    assert cat.colour("Truth") == "Blue"
    assert set(CODEX.specs) < set(cat.specs)
    assert cat.nickname("Black Bash") == Deck("Black", ["DemonBash", "Disease", "Necromancy"])
    assert cat.nickname("MonoBlueF20") == Deck("BlueF20", ["LawF20", "PeaceF20", "TruthF20"])
    assert cat.nickname("Nightmare") == CODEX.nickname("Nightmare")
    assert load_codex_catalogue(MINIMAL) == CODEX


def test_catalogue_survives_slicing_copying_and_pickling():
    X, _ = load_codex_matches(SMALL, return_X_y=True)
    cat = X.attrs["catalogue"]
    assert X.iloc[[0, 2]].attrs["catalogue"] is cat
    assert X.copy().attrs["catalogue"] is cat
    assert copy.deepcopy(cat) is cat
    assert pd.concat([X, X]).attrs["summary"].rows_kept == 7
    again = pickle.loads(pickle.dumps(X))
    assert again.attrs["catalogue"] == cat
    assert again.attrs["summary"] == X.attrs["summary"]
    # an sklearn splitter indexes the table by position; attrs must not break that
    folds = list(TournamentSplit(n_splits=1).split(X))
    assert len(folds) == 1


# --------------------------------------------------------------------------- errors


def _rows(folder):
    with open(folder / "matches.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    for i, row in enumerate(rows):
        row["row"] = i + 2
    return rows


def _edited(tmp_path, edit=None, drop_column=None, folder=SMALL):
    """A copy of a fixture folder with matches.csv edited: edit = {csv_row: {column: value}}."""
    target = tmp_path / "codexdata"
    shutil.copytree(folder, target)
    with open(folder / "matches.csv", newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        columns = [c for c in reader.fieldnames if c != drop_column]
        rows = list(reader)
    for csv_row, changes in (edit or {}).items():
        rows[csv_row - 2].update(changes)
    with open(target / "matches.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return target


@pytest.mark.parametrize(
    "column", ["start", "end", "tournament", "player1", "deck2", "victor", "victory"]
)
def test_missing_required_column(tmp_path, column):
    folder = _edited(tmp_path, drop_column=column)
    with pytest.raises(CodexDataError, match=f"missing the required column.*'{column}'"):
        load_codex_matches(folder)


def test_optional_columns_may_be_absent(tmp_path):
    folder = _edited(tmp_path, drop_column="map")
    X, _, summary = load_with_summary(folder)
    assert summary.flagged["map"] == 0
    assert len(X) == 8  # the map game on row 6 is now kept; row 13 is still a timeout


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        # a deck that does not parse, with its row, column, text and a hint
        (
            {5: {"deck2": "[Fire]/Grwth/Law"}},
            r"matches\.csv row 5 \(header = row 1\), deck2: cannot read the deck "
            r"'\[Fire\]/Grwth/Law'.*unknown spec or starter 'Grwth'.*did you mean 'Growth'",
        ),
        # ... even on a row that a filter would drop (row 4 is a timeout)
        ({4: {"deck1": "[Law]/Peace"}}, r"row 4 .*deck1: cannot read the deck '\[Law\]/Peace'"),
        ({3: {"victor": "zed"}}, r"row 3 .*victor 'zed' is neither player \('cat' vs 'dan'\)"),
        (
            {6: {"start": "10/01/2020"}},
            r"row 6 .*cannot read the start date '10/01/2020'.*year-month-day",
        ),
        ({7: {"end": "soon"}}, r"row 7 .*cannot read the end date 'soon'"),
        ({2: {"end": ""}}, r"row 2 .*the end date is missing"),
        ({9: {"end": "2020-01-01"}}, r"row 9 .*ends \(2020-01-01\) before it starts"),
        ({10: {"victory": "draw"}}, r"row 10 .*victory is 'draw'; expected one of normal"),
        ({10: {"victory": ""}}, r"row 10 .*victory is None"),
        ({11: {"player2": ""}}, r"row 11 .*player2 is missing"),
        ({11: {"player2": "bob"}}, r"row 11 .*'bob' is both player1 and player2"),
        ({12: {"tournament": " "}}, r"row 12 .*tournament is missing"),
    ],
)
def test_malformed_rows_name_the_row_and_value(tmp_path, edit, message):
    folder = _edited(tmp_path, edit)
    with pytest.raises(CodexDataError, match=message):
        load_codex_matches(folder)


def test_names_are_stripped_and_victory_read_case_insensitively(tmp_path):
    folder = _edited(tmp_path, {2: {"player1": " ann ", "victor": "ann  ", "victory": "Normal"}})
    X, y = load_codex_matches(folder, return_X_y=True)
    assert X.loc[X["csv_row"] == 2, "player1"].item() == "ann"
    assert y.tolist() == DEFAULT_Y


def test_missing_folder_or_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="no codexdata folder"):
        load_codex_matches(tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError, match=r"no matches\.csv"):
        load_codex_matches(tmp_path)


def test_switches_must_be_booleans():
    with pytest.raises(TypeError, match="keep_maps must be True or False"):
        load_codex_matches(SMALL, keep_maps="yes")


def test_empty_matches_file(tmp_path):
    (tmp_path / "matches.csv").write_text("")
    with pytest.raises(CodexDataError, match=r"matches\.csv is empty"):
        load_codex_matches(tmp_path)


def test_header_only_gives_an_empty_table(tmp_path):
    (tmp_path / "matches.csv").write_text(",".join(_rows(SMALL)[0].keys() - {"row"}) + "\n")
    X, y, summary = load_with_summary(tmp_path)
    assert len(X) == len(y) == summary.rows_read == summary.rows_kept == 0


@pytest.mark.parametrize(
    ("file", "text", "message"),
    [
        ("specs.csv", "spec,colour\nDemonBash,#fff\n", r"specs\.csv is missing .*'starter'"),
        ("specs.csv", "spec,starter\nDemonBash,\n", r"specs\.csv row 2 .*name and a starter"),
        ("starters.csv", "name\nBlack\n", r"starters\.csv is missing .*'starter'"),
        (
            "nicknames.csv",
            "nickname,starter,spec1,spec2,spec3\nOops,Black,Demonology,Disease,Nekromancy\n",
            r"nicknames\.csv row 2 .*'Oops'.*'Nekromancy' is not a known spec",
        ),
        (
            "nicknames.csv",
            "nickname,starter,spec1,spec2,spec3\nOops,Orange,Demonology,Disease,Necromancy\n",
            r"'Orange' is not a known starter",
        ),
        (
            "nicknames.csv",
            "nickname,starter,spec1,spec2\nOops,Black,Demonology,Disease\n",
            r"a deck has 3 specs, this nickname has 2",
        ),
        ("nicknames.csv", "nickname,starter\nOops,Black\n", r"missing the columns 'spec1'"),
        ("specs.csv", "spec,starter\nRed,Blue\n", r"clash: names used both as spec and starter"),
    ],
)
def test_malformed_catalogue_files(tmp_path, file, text, message):
    folder = _edited(tmp_path)
    (folder / file).write_text(text)
    with pytest.raises(CodexDataError, match=message):
        load_codex_catalogue(folder)
    with pytest.raises(CodexDataError, match=message):
        load_codex_matches(folder)


def test_a_variant_deck_without_its_catalogue_is_an_error(tmp_path):
    folder = _edited(tmp_path)
    (folder / "specs.csv").unlink()
    (folder / "nicknames.csv").unlink()
    with pytest.raises(CodexDataError, match=r"row 7 .*deck1: cannot read the deck 'MonoBlueF20'"):
        load_codex_matches(folder)


# --------------------------------------------------------------------------- the real data

REAL_DROPPED = {"incomplete": 2, "timeout": 41, "forfeit": 34, "map": 36, "f20": 31}
REAL_FLAGGED = {"incomplete": 2, "timeout": 43, "forfeit": 34, "map": 37, "f20": 32}
REAL_FOLDS = [  # (test tournament, training matches, test matches)
    ("CAMS18", 411, 39),
    ("XCAFS18", 454, 39),
    ("CAWS18", 493, 44),
    ("XCAPS19", 537, 32),
    ("CAMS19", 569, 44),
    ("XCAFRR19", 613, 55),
    ("CAWS19", 668, 30),
    ("CAMS20", 721, 23),
]


def test_shared_codexdata(codexdata_path):
    X, y, summary = load_with_summary(codexdata_path)
    assert summary.rows_read == 915
    assert summary.rows_kept == len(X) == len(y) == 771
    assert summary.dropped == REAL_DROPPED
    assert summary.flagged == REAL_FLAGGED
    assert set(np.unique(y)) == {0, 1}

    # every deck parses against the folder's catalogue, into 3-spec decks
    table = check_match_table(X, X.attrs["catalogue"])
    assert {len(d.specs) for d in (*table["deck1"], *table["deck2"])} == {3}

    # periods are the tournament labels; the map-only and F20-only tournaments are gone
    raw = _rows(codexdata_path)
    labels = {r["tournament"] for r in raw}
    assert set(X["period"]) == labels - {"XCAPS20", "XCAFS20"}
    assert len(set(X["period"])) == 18
    assert X["end"].is_monotonic_increasing

    # independently: normal, off-map, complete, F20-free rows
    kept = [
        r
        for r in raw
        if r["victory"] == "normal"
        and not r["map"]
        and r["deck1"]
        and r["deck2"]
        and r["victor"]
        and "F20" not in r["deck1"] + r["deck2"]
    ]
    assert sorted(X["csv_row"]) == [r["row"] for r in kept]

    all_in = load_codex_matches(
        codexdata_path, keep_timeouts=True, keep_forfeits=True, keep_maps=True, keep_f20=True
    ).X
    assert len(all_in) == 913

    cv = TournamentSplit(n_splits=8)
    folds = list(cv.split(X))
    assert len(folds) == 8
    described = cv.describe(X)
    assert list(zip(described["tournament"], described["n_train"], described["n_test"])) == (
        REAL_FOLDS
    )
    for (train, test), (label, _, _) in zip(folds, REAL_FOLDS):
        assert set(X["period"].iloc[test]) == {label}
        assert (X["period"] == label).sum() == len(test)
        assert X["end"].iloc[train].max() < X["start"].iloc[test].min()
        # every match that ended before the tournament started is trained on
        assert len(train) == (X["end"] < X["start"].iloc[test].min()).sum()


@pytest.mark.parametrize(
    ("deck1", "f20"),
    [
        ("Anarchy/Growth/Law/BlueF20", True),  # F20 starter, ordinary specs
        ("[Anarchy]/Growth/LawF20", True),  # one F20 spec, ordinary starter
        ("Anarchy/Growth/Law/Black", False),
    ],
)
def test_f20_filter_reads_the_starter_and_every_spec(tmp_path, deck1, f20):
    # Row 10 (kept by default) gets a deck with one F20 component, or none.
    folder = _edited(tmp_path, {10: {"deck1": deck1}})
    X, _, summary = load_with_summary(folder)
    assert (10 not in set(X["csv_row"])) == f20
    assert summary.dropped["f20"] == 2 + f20
    kept, _ = load_codex_matches(folder, keep_f20=True, return_X_y=True)
    assert 10 in set(kept["csv_row"])


def test_the_bunch_holds_the_table_outcomes_summary_and_catalogue():
    data = load_codex_matches(SMALL)
    X, y = load_codex_matches(SMALL, return_X_y=True)
    pd.testing.assert_frame_equal(data.X, X)
    np.testing.assert_array_equal(data.y, y)
    assert data.summary is data.X.attrs["summary"]
    assert data.catalogue is data.X.attrs["catalogue"]
    assert data.catalogue == load_codex_catalogue(SMALL)
    with pytest.raises(TypeError, match="return_X_y must be True or False"):
        load_codex_matches(SMALL, return_X_y="no")


def test_the_whole_file_passes_the_match_table_checks(tmp_path):
    # one player written in two Unicode forms (composed and decomposed e-acute) faces
    # themself: the text differs, so codexdata's own rules let it through; the
    # match-table checks do not, and the message names the row of the file
    folder = _edited(tmp_path, {3: {"player1": "zo\u00e9", "player2": "zoe\u0301", "victor": ""}})
    with pytest.raises(CodexDataError, match=r"not give a valid match table.*index 3"):
        load_codex_matches(folder)
