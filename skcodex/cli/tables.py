"""Reading the command's input: match tables and the catalogue their decks are read against."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from skcodex.cli.errors import CommandError


def read_matches(
    path: str | os.PathLike,
    catalogue_file: str | os.PathLike | None = None,
    specs_per_deck: int | None = None,
) -> tuple[pd.DataFrame, np.ndarray, Any]:
    """Read matches from a codexdata folder (or its matches.csv) or a match-table CSV.

    A match-table CSV has the columns ``player1`` (who moved first),
    ``player2``, ``deck1``, ``deck2``, optionally ``period`` (tournament)
    and ``date``, and the result as ``y`` (1 where player 1 won, 0 where
    player 2 won) or ``winner`` (the winner's name).

    Its decks are read as Codex decks (forum notation) when they all are;
    otherwise, or when a catalogue file or ``specs_per_deck`` is given, in
    plain notation ``starter/component/...`` (`skcodex.codex.PlainCatalogue`):
    against the catalogue file's names, or with every name seen a level.

    Returns
    -------
    X, y, catalogue
        The match table, outcomes, and the catalogue its decks are read
        against (None for base Codex).
    """
    from skcodex.data import check_outcome
    from skcodex.datasets import load_codex_matches

    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"no such file or folder: {path}")
    plain_asked = catalogue_file is not None or specs_per_deck is not None
    if plain_asked and (p.is_dir() or _is_codexdata(p)):
        raise CommandError(
            "--catalogue and --specs-per-deck are for match-table CSVs of other games; "
            f"{path} is codexdata, which carries its own Codex catalogue"
        )
    if p.is_dir():
        X, y = load_codex_matches(p, return_X_y=True)
        return X, y, X.attrs.get("catalogue")
    try:
        header = pd.read_csv(p, nrows=0).columns
    except (pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError) as err:
        raise CommandError(f"cannot read {path} as CSV: {err}") from None
    if "victor" in header:
        X, y = load_codex_matches(p, return_X_y=True)
        return X, y, X.attrs.get("catalogue")
    table = pd.read_csv(p, dtype={"player1": str, "player2": str, "winner": str})
    if "y" in table.columns:
        y = check_outcome(table.pop("y").to_numpy(), len(table))
    elif "winner" in table.columns:
        winner = table.pop("winner").astype(object)
        p1, p2 = table["player1"].astype(object), table["player2"].astype(object)
        bad = ~(winner.eq(p1) | winner.eq(p2))
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            raise CommandError(
                f"{path}: row {row + 2} names the winner {winner.iloc[row]!r}, "
                f"who is neither player1 {p1.iloc[row]!r} nor player2 {p2.iloc[row]!r}"
            )
        y = winner.eq(p1).to_numpy().astype(np.int64)
    else:
        raise CommandError(
            f"{path} has no result column: add 'y' (1 where player1 won, 0 where player2 "
            "won) or 'winner' (the winner's name)"
        )
    return table, y, _deck_catalogue(table, path, catalogue_file, specs_per_deck)


def _is_codexdata(p: Path) -> bool:
    try:
        return "victor" in pd.read_csv(p, nrows=0).columns
    except (pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError, OSError):
        return False


def _deck_catalogue(
    table: pd.DataFrame, path: Any, catalogue_file: Any, specs_per_deck: int | None
) -> Any:
    """The catalogue a match-table CSV's decks are read against (None for Codex)."""
    from skcodex.codex import PlainCatalogue
    from skcodex.codex.plain import plain_catalogue_for
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
            f"The decks of {path} are not Codex decks; reading each as a starter followed "
            f"by {k} component(s), every name seen a level (give --catalogue FILE to check "
            "the names)."
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
