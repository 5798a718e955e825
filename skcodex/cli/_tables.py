"""Reading the command's input: match tables and the catalogue their decks are read against."""

from __future__ import annotations

import dataclasses
import io
import os
import stat
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from skcodex.cli._errors import CommandError, shown


def read_matches(
    path: str | os.PathLike,
    catalogue_file: str | os.PathLike | None = None,
    specs_per_deck: int | None = None,
    tie_components: bool = False,
) -> tuple[pd.DataFrame, np.ndarray, Any]:
    """Read matches from a codexdata folder (or its matches.csv) or a match-table CSV.

    A match-table CSV has the columns ``player1`` (who moved first),
    ``player2``, ``deck1``, ``deck2``, optionally ``period`` (tournament)
    and ``date``, and the result as ``y`` (1 where player 1 won, 0 where
    player 2 won, 0.5 for a draw in a game that has them) or ``winner`` (the
    winner's name, or the word ``draw``).

    Its decks are read as Codex decks (forum notation) when they all are;
    otherwise, or when a catalogue file or ``specs_per_deck`` is given, in
    plain notation ``starter/component/...`` (`skcodex.codex.PlainCatalogue`):
    against the catalogue file's names, or with every name seen a level.
    With ``tie_components``, each component the decks only ever pair with one
    starter is tied to it (`PlainCatalogue.learn_ties`), and the ties are listed.

    Returns
    -------
    X, y, catalogue
        The match table, outcomes, and the catalogue its decks are read
        against (None for base Codex).
    """
    from skcodex.datasets import load_codex_matches

    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"no such file or folder: {path}")
    source = _csv_source(p, path)
    header = None if isinstance(source, Path) and p.is_dir() else _read_csv(source, path, nrows=0)
    codexdata = header is None or "victor" in header.columns
    plain_asked = catalogue_file is not None or specs_per_deck is not None or tie_components
    if plain_asked and codexdata:
        raise CommandError(
            "--catalogue, --specs-per-deck and --tie-components are for match-table CSVs of "
            "other games; "
            f"{path} is codexdata, which carries its own Codex catalogue"
        )
    if codexdata:
        if isinstance(source, bytes):
            raise CommandError(
                f"{path} is codexdata read from a pipe; give its folder or its matches.csv "
                "file, so the catalogue files beside it are read too"
            )
        try:
            X, y = load_codex_matches(p, return_X_y=True)
        except UnicodeDecodeError:
            files = sorted(p.glob("*.csv")) if p.is_dir() else [p]
            raise CommandError(
                next(filter(None, map(_not_utf8, files)), f"{path} is not UTF-8 text")
            ) from None
        return X, y, X.attrs.get("catalogue")
    table = _read_csv(source, path, dtype={"player1": str, "player2": str, "winner": str})
    # Rows are named by their line in the file (the header is line 1), so a bad cell is
    # reported at the same place whatever its column.
    table.index = pd.RangeIndex(2, len(table) + 2, name="line")
    y = _outcomes(table, path)
    catalogue = _deck_catalogue(table, path, catalogue_file, specs_per_deck)
    if tie_components:
        catalogue = _learned_ties(table, path, catalogue)
    return table, y, catalogue


#: The most a match table read from a pipe may hold; a larger one must be saved to a file.
MAX_PIPE_BYTES = 256 * 2**20


def _csv_source(p: Path, path: Any) -> Path | bytes:
    """A regular file or folder as its path; a pipe as its bytes, read once and bounded.

    A pipe (``/dev/stdin`` fed by ``<``, ``|`` or a shell's ``<(...)``) can be
    read only once, so it is read whole here, up to `MAX_PIPE_BYTES`. Devices
    (``/dev/zero``, a terminal) and sockets are refused before any read.
    """
    try:
        mode = os.stat(p).st_mode
    except OSError as err:
        raise CommandError(f"cannot read {path}: {err.strerror}") from None
    if stat.S_ISDIR(mode) or stat.S_ISREG(mode):
        return p
    if not stat.S_ISFIFO(mode):
        raise CommandError(
            f"{path} is not a regular file, a folder or a pipe (it is a device or socket); "
            "give a CSV file or a codexdata folder"
        )
    with open(p, "rb") as fh:
        data = fh.read(MAX_PIPE_BYTES + 1)
    if len(data) > MAX_PIPE_BYTES:
        raise CommandError(
            f"{path} is a pipe holding more than {MAX_PIPE_BYTES // 2**20} MiB; save the "
            "table to a file and give the file"
        )
    return data


def _read_csv(source: Path | bytes, path: Any, **options: Any) -> pd.DataFrame:
    """``pandas.read_csv`` of a file or of bytes read from a pipe; errors name the file.

    The header is checked first (`check_header`): a column named twice, or a
    file separated by something other than commas, is refused rather than read
    as pandas would (renaming the second copy, or reading one wide column).
    """
    check_header(source, path)
    try:
        table = pd.read_csv(io.BytesIO(source) if isinstance(source, bytes) else source, **options)
    except UnicodeDecodeError:
        raise CommandError(_not_utf8(source, path) or f"{path} is not UTF-8 text") from None
    except pd.errors.EmptyDataError:
        raise CommandError(f"{path} is empty: a CSV file starts with a header line") from None
    except pd.errors.ParserError as err:
        raise CommandError(f"cannot read {path} as CSV: {err}") from None
    table.columns = [str(c).strip() for c in table.columns]  # "player1, player2": no spaces
    return table


#: What a file separated by other than commas is most likely separated by.
_OTHER_SEPARATORS = {";": "semicolons", "\t": "tabs", "|": "vertical bars"}


def check_header(source: Path | bytes, path: Any) -> None:
    """Refuse a CSV header that names a column twice or is not separated by commas."""
    import csv

    if isinstance(source, Path):
        with open(source, "rb") as fh:
            first = fh.readline()
    else:
        first = source.split(b"\n", 1)[0]
    try:
        line = first.decode("utf-8-sig").rstrip("\r\n")
    except UnicodeDecodeError:
        return  # the read that follows says where the file is not UTF-8
    names = [name.strip() for name in next(csv.reader([line]), [])]
    if len(names) == 1:
        for separator, word in _OTHER_SEPARATORS.items():
            if separator in names[0]:
                raise CommandError(
                    f"{path}: the header (line 1) is one column, {shown(repr(names[0]))}: the "
                    f"file looks separated by {word}; save it with commas between the columns"
                )
    seen = set()
    for name in names:
        if name in seen and name:
            raise CommandError(
                f"{path}: the header (line 1) names the column {shown(repr(name))} more than "
                "once; name each column once"
            )
        seen.add(name)


def _not_utf8(source: Path | bytes, path: Any = None) -> str | None:
    """Where a file first fails to read as UTF-8, and what to do about it; None if it reads."""
    path = source if path is None else path
    lines = io.BytesIO(source) if isinstance(source, bytes) else open(source, "rb")
    with lines:
        for number, line in enumerate(lines, start=1):
            try:
                line.decode("utf-8")
            except UnicodeDecodeError as err:
                return (
                    f"{path}: line {number} is not UTF-8 text (byte 0x{line[err.start]:02x} at "
                    f"byte {err.start + 1} of the line; the file looks saved as Latin-1 or "
                    "Windows-1252): save it as UTF-8 (in a spreadsheet: CSV UTF-8) and run again"
                )
    return None


#: How a ``winner`` cell says a match was drawn (compared case-blind, spaces trimmed).
DRAW_WORD = "draw"


def _outcomes(table: pd.DataFrame, path: Any) -> np.ndarray:
    """The result column of a match-table CSV as 1/0 (1/0.5/0 with draws), removed from the table.

    ``y`` holds 1 (player 1 won), 0 (player 2 won) or, in a game with draws,
    0.5 (a draw); ``winner`` the winner's name, or the word ``draw``. A table
    without a draw gives whole numbers, exactly as it always has; a table
    with one gives floats, and the fit learns the draw model
    (`skcodex.BayesianMatchupClassifier`).
    """
    from skcodex.data import check_outcome

    if "y" in table.columns and "winner" in table.columns:
        raise CommandError(f"{path} has two result columns, 'y' and 'winner'; keep one of them")
    if "y" in table.columns:
        given = table.pop("y")
        value = pd.to_numeric(given, errors="coerce")
        bad = ~value.isin([0, 0.5, 1]).to_numpy()
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            held = given.iloc[row]
            held = held.item() if isinstance(held, np.generic) else held
            raise CommandError(
                f"{path}, line {table.index[row]}: column 'y' holds {shown(repr(held))}; give 1 "
                "where player1 won, 0 where player2 won, or 0.5 for a draw"
            )
        if (value == 0.5).any():
            return value.to_numpy(dtype=float)
        return check_outcome(value.to_numpy(), len(table))
    if "winner" in table.columns:
        return _winner_outcomes(table, path)
    raise CommandError(
        f"{path} has no result column: add 'y' (1 where player1 won, 0 where player2 "
        "won, 0.5 for a draw) or 'winner' (the winner's name, or 'draw')"
    )


def _winner_outcomes(table: pd.DataFrame, path: Any) -> np.ndarray:
    """The ``winner`` column as 1/0, or 1/0.5/0 where a cell says ``draw`` (removed from the table).

    A name is read as the match table reads names; a player named ``draw``
    is still a player: a cell naming one of the match's players is a win.
    """
    from skcodex.data import normalise_name

    def names(column: pd.Series) -> pd.Series:  # compared as the match table compares them
        return column.astype(object).map(lambda v: normalise_name(v) if isinstance(v, str) else v)

    winner, p1, p2 = (
        names(table.pop("winner")),
        names(table["player1"]),
        names(table["player2"]),
    )
    won, lost = winner.eq(p1), winner.eq(p2)
    drawn = ~(won | lost) & winner.map(
        lambda v: isinstance(v, str) and v.strip().casefold() == DRAW_WORD
    )
    bad = ~(won | lost | drawn)
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise CommandError(
            f"{path}, line {table.index[row]}: column 'winner' names "
            f"{shown(repr(winner.iloc[row]))}, who is neither player1 {shown(repr(p1.iloc[row]))} "
            f"nor player2 {shown(repr(p2.iloc[row]))}; give the winner's name, or "
            f"{DRAW_WORD!r} for a drawn match"
        )
    if drawn.any():
        return np.where(drawn.to_numpy(), 0.5, won.to_numpy().astype(float))
    return won.to_numpy().astype(np.int64)


def _learned_ties(table: pd.DataFrame, path: Any, catalogue: Any) -> Any:
    """``catalogue`` with the components seen with one starter only tied to it, listed."""
    from skcodex.codex import PlainCatalogue
    from skcodex.data import MatchTableError, check_match_table
    from skcodex.data._catalogues import spelled_alike

    if not isinstance(catalogue, PlainCatalogue):
        raise CommandError(
            f"--tie-components is for other games' decks; the decks of {shown(path)} are "
            "Codex decks, whose specs the Codex catalogue already ties to their colours"
        )
    try:
        checked = spelled_alike(check_match_table(table, catalogue), catalogue)
    except MatchTableError as err:
        raise CommandError(f"{path}: {err}") from None
    tied = catalogue.learn_ties(checked)
    declared = {c.casefold() for c, _ in catalogue.tied_to or ()}
    learned = [(c, s) for c, s in tied.tied_to or () if c.casefold() not in declared]
    seen = {c.casefold() for deck in (*checked["deck1"], *checked["deck2"]) for c in deck.specs}
    cw, sw = catalogue.component_word, catalogue.starter_word
    free = len(seen) - len(learned) - len(declared & seen)
    listed = ", ".join(f"{shown(c)} ({shown(s)})" for c, s in learned[:12])
    more = f" and {len(learned) - 12} more" if len(learned) > 12 else ""
    print(
        f"Tied {len(learned)} {cw}(s) to the one {sw} the matches pair each with"
        + (f": {listed}{more}" if learned else "")
        + f". {free} {cw}(s) seen with several {sw}s stay free; a deck holding a tied "
        f"{cw} under another {sw} is refused."
    )
    return tied


def _deck_catalogue(
    table: pd.DataFrame, path: Any, catalogue_file: Any, specs_per_deck: int | None
) -> Any:
    """The catalogue a match-table CSV's decks are read against (None for Codex)."""
    from skcodex.codex import PlainCatalogue
    from skcodex.codex._notation import plain_catalogue_for
    from skcodex.data import MatchTableError, check_match_table

    if catalogue_file is not None:
        catalogue = PlainCatalogue.from_file(catalogue_file, specs_per_deck)
    elif specs_per_deck is not None:
        catalogue = PlainCatalogue(specs_per_deck=specs_per_deck)
    else:
        try:
            check_match_table(table)
            return None
        except MatchTableError as err:
            codex_error = err
        if not {"deck1", "deck2"} <= set(table.columns):  # the table's own error says which
            raise CommandError(f"{path}: {codex_error}")
        texts = pd.unique(table[["deck1", "deck2"]].astype(str).to_numpy().ravel())
        try:
            catalogue = plain_catalogue_for(texts)  # open: every name seen becomes a level
        except ValueError as err:
            raise CommandError(
                f"{path}: {err}; give every deck the same number, or name the parts with "
                "--catalogue FILE"
            ) from None
        if catalogue is None:  # mostly Codex decks: the Codex error is the useful one
            raise CommandError(f"{path}: {codex_error}")
        k = catalogue.specs_per_deck
        print(
            f"The decks of {shown(path)} are not Codex decks; reading each as a starter followed "
            f"by {k} component(s), every name seen a level (give --catalogue FILE to check "
            "the names; its rows starter_word,WORD and component_word,WORD give the report "
            "the game's words, such as character)."
        )
    try:
        checked = check_match_table(table, catalogue)
    except MatchTableError as err:
        raise CommandError(f"{path}: {err}") from None
    if catalogue.specs_per_deck is None and len(checked):
        # Fix the number of components seen, so later decks (predict) are checked against it.
        k = len(checked["deck1"].iloc[0].specs)
        catalogue = dataclasses.replace(catalogue, specs_per_deck=k)
    return catalogue
