"""``skcodex fit --advise PLAYER``: the advice as a section of the fit's report.

The report's section "What to bring" (`skcodex.report.write_report`'s ``advice``)
for the decks a player played in the fitted matches, against the decks of the
latest tournament in the shares they were played. The inputs are checked before
the fit (a fit can take an hour); the advice is computed after it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from skcodex.cli._errors import CommandError, shown

#: The most decks of the player's own the report's advice ranks (their most played).
REPORT_CANDIDATES = 8


def report_advice_inputs(X: Any, catalogue: Any, given: str) -> tuple:
    """``(player, candidates, field)`` of ``skcodex fit --advise PLAYER``, checked before the fit.

    The candidates are the decks the player played in the matches (their
    `REPORT_CANDIDATES` most played); the field is the decks of the latest
    tournament's matches (every match without a ``period`` column) in the
    shares they were played, each opponent an equally skilled stranger.
    """
    from skcodex.data import MatchTableError, check_match_table, normalise_name
    from skcodex.data._catalogues import close_name

    try:
        table = check_match_table(X, catalogue)
    except MatchTableError:
        return None  # the fit reports the table's own problem
    players = tuple(pd.unique(table[["player1", "player2"]].to_numpy().ravel()))
    player = normalise_name(given)  # as the match table reads names; whole numbers as numbers
    if players and isinstance(players[0], (int, np.integer)) and player.lstrip("-").isdigit():
        player = int(player)
    if player not in players:
        hint = close_name(player, players)
        also = f" (did you mean {shown(repr(hint))}?)" if hint is not None else ""
        raise CommandError(
            f"--advise {shown(repr(given))}: no such player in the matches{also}; the advice "
            "ranks the decks a player has played"
        )
    own = _counted(
        pd.concat(
            [
                table.loc[table["player1"] == player, "deck1"],
                table.loc[table["player2"] == player, "deck2"],
            ]
        )
    )
    candidates = list(own.index[:REPORT_CANDIDATES])
    if len(candidates) < 2:
        raise CommandError(
            f"--advise {shown(repr(given))}: they played one deck only in these matches; the "
            "advice chooses among at least two (use 'skcodex advise' with --candidates)"
        )
    latest = table
    if "period" in table.columns:
        latest = table[table["period"] == table["period"].iloc[-1]]
    played = _counted(pd.concat([latest["deck1"], latest["deck2"]]))
    field = pd.DataFrame({"deck": list(played.index), "share": played.to_numpy() / played.sum()})
    return player, candidates, field


def _counted(decks: pd.Series) -> pd.Series:
    """How often each deck was played, most first (ties by first appearance), by its `Deck`."""
    first: dict = {}
    counts: dict = {}
    for deck in decks:
        key = str(deck)
        first.setdefault(key, deck)
        counts[key] = counts.get(key, 0) + 1
    order = sorted(counts, key=lambda k: -counts[k])  # a stable sort keeps first appearance
    return pd.Series([counts[k] for k in order], index=[first[k] for k in order], dtype=float)


def report_advice(clf: Any, inputs: tuple | None, seed: int) -> Any:
    """The advice the fit's report shows for ``inputs`` (`report_advice_inputs`), or None."""
    if inputs is None:
        return None
    from skcodex.analysis import deck_advice

    player, candidates, field = inputs
    return deck_advice(clf, player, candidates, field, random_state=seed)
