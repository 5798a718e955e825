"""Win probabilities between every pair of entrants, per posterior draw, from a fitted estimator."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from skcodex.analysis import solve_matrix_game
from skcodex.tournament._formats import TournamentError

__all__ = ["DECK_RULES", "Field", "check_entrants", "win_probability_draws"]

#: How an entrant with several decks picks one per match: in the order given, match
#: after match; uniformly at random; or the Nash mix of each pairing's deck-choice game.
DECK_RULES = ("fixed order", "uniform", "nash")


class Field:
    """The entrants of a tournament and the decks each may play.

    Attributes
    ----------
    names : list
        Entrants in seeding order (the first is the top seed).
    decks : list of list or None
        Each entrant's decks, in the order given (None: no decks, for
        estimators that do not read them).
    """

    def __init__(self, names: list, decks: list | None):
        self.names = names
        self.decks = decks

    @property
    def n_entrants(self) -> int:
        return len(self.names)


def _deck_list(value: Any, who: Any) -> list:
    if isinstance(value, str):
        decks = [d.strip() for d in value.split(";") if d.strip()]
    elif isinstance(value, (list, tuple)):
        decks = list(value)
    elif value is None or (isinstance(value, float) and np.isnan(value)):
        decks = []
    else:
        decks = [value]
    if not decks:
        raise TournamentError(f"entrant {who!r} has no deck")
    return decks


def check_entrants(entrants: Any) -> Field:
    """Read entrants: a table with ``player`` and ``deck``, a mapping, or a list of names.

    A deck cell may hold one deck, several separated by ``;``, or a list.
    """
    if isinstance(entrants, pd.DataFrame):
        if "player" not in entrants.columns:
            raise TournamentError("the entrants table needs a 'player' column")
        names = entrants["player"].tolist()
        decks = entrants["deck"].tolist() if "deck" in entrants.columns else None
    elif isinstance(entrants, Mapping):
        names, decks = list(entrants), list(entrants.values())
    elif isinstance(entrants, (list, tuple, np.ndarray, pd.Series, pd.Index)):
        names, decks = list(entrants), None
    else:
        raise TournamentError(
            "entrants must be a table with 'player' and 'deck' columns, a mapping of "
            f"players to decks, or a list of players; got {type(entrants).__name__}"
        )
    missing = [
        k for k, n in enumerate(names) if n is None or (isinstance(n, float) and np.isnan(n))
    ]
    if missing:
        raise TournamentError(f"entrant number {missing[0] + 1} has no name")
    seen = set()
    for name in names:
        if name in seen:
            raise TournamentError(f"entrant {name!r} is listed more than once")
        seen.add(name)
    if decks is not None:
        decks = [_deck_list(d, n) for n, d in zip(names, decks)]
    return Field(names, decks)


def _slot_table(field: Field) -> tuple[pd.DataFrame, np.ndarray, np.ndarray, np.ndarray]:
    """Every ordered pair of slots of different entrants as a match table."""
    decks = field.decks or [[None] for _ in field.names]
    owner = np.repeat(np.arange(field.n_entrants), [len(d) for d in decks])
    slot_players = [field.names[i] for i in owner]
    slot_decks = [d for ds in decks for d in ds]
    u, v = np.nonzero(owner[:, None] != owner[None, :])
    table = pd.DataFrame(
        {
            "player1": pd.Series([slot_players[k] for k in u], dtype=object),
            "player2": pd.Series([slot_players[k] for k in v], dtype=object),
            "deck1": pd.Series([slot_decks[k] for k in u], dtype=object),
            "deck2": pd.Series([slot_decks[k] for k in v], dtype=object),
        }
    )
    return table, owner, u, v


def win_probability_draws(
    estimator: Any, field: Field, rule: str = "fixed order", n_draws: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """P(slot u beats slot v when u moves first), per posterior draw.

    A slot is an entrant with one of their decks. The estimator's
    ``predict_proba_draws`` gives one value per posterior draw (a player,
    starter or spec never seen in fit gets a fresh population draw per
    posterior draw, keyed to its name, exactly as in ``predict_proba``); an
    estimator with only ``predict_proba`` (a rating system) gives one "draw".

    Parameters
    ----------
    estimator : fitted classifier
    field : Field
    rule : {"fixed order", "uniform", "nash"}
        With ``"uniform"`` or ``"nash"`` each entrant is left with one slot
        whose probabilities are the mix over deck choices.
    n_draws : int, optional
        Use this many evenly spaced posterior draws (all by default).

    Returns
    -------
    probabilities : ndarray of shape (n_draws, n_slots, n_slots)
    offsets, n_decks : ndarray of shape (n_entrants,)
        Where each entrant's slots start, and how many they have.
    """
    if rule not in DECK_RULES:
        raise TournamentError(f"deck_rule must be one of {', '.join(DECK_RULES)}, got {rule!r}")
    if not hasattr(estimator, "predict_proba"):
        raise TournamentError(
            f"the estimator must be a fitted classifier, got {type(estimator).__name__}"
        )
    if field.decks is None and hasattr(estimator, "predict_proba_draws"):
        raise TournamentError(
            "this estimator reads decks: give the entrants as a table with 'player' and "
            "'deck' columns, or a mapping of players to decks"
        )
    table, owner, u, v = _slot_table(field)
    try:
        p = _predict(estimator, table)
    except ValueError as err:
        raise TournamentError(_culprit(estimator, table, owner, u, field) or str(err)) from err
    if n_draws is not None and len(p) > n_draws:
        p = p[np.unique(np.linspace(0, len(p) - 1, n_draws).round().astype(np.int64))]
    n_slots = len(owner)
    slots = np.full((len(p), n_slots, n_slots), 0.5)
    slots[:, u, v] = p
    n_decks = np.bincount(owner, minlength=field.n_entrants)
    offsets = np.concatenate([[0], np.cumsum(n_decks)[:-1]])
    if rule == "fixed order" or n_decks.max() == 1:
        return slots, offsets, n_decks
    mixed = (
        _uniform(slots, offsets, n_decks) if rule == "uniform" else _nash(slots, offsets, n_decks)
    )
    n = field.n_entrants
    return mixed, np.arange(n), np.ones(n, dtype=np.int64)


def _predict(estimator: Any, table: pd.DataFrame) -> np.ndarray:
    """P(player 1 wins) per draw and row (one "draw" for an estimator without draws)."""
    if hasattr(estimator, "predict_proba_draws"):
        return estimator.predict_proba_draws(table)
    return estimator.predict_proba(table)[:, 1][None, :]


def _culprit(estimator, table, owner, u, field) -> str | None:
    """The first entrant whose deck the estimator refuses, and why (None if none alone is).

    Each entrant's row is checked against a copy of itself under another name, so
    that only their own deck is read.
    """
    for slot in range(len(owner)):
        row = table.iloc[np.flatnonzero(u == slot)[:1]].reset_index(drop=True)
        row["player2"] = [f"{p} (checked)" for p in row["player1"]]
        row["deck2"] = row["deck1"]
        try:
            _predict(estimator, row)
        except ValueError as err:
            who = field.names[owner[slot]]
            return f"entrant {who!r}: {str(err).split(': ', 1)[-1]}"
    return None


def _uniform(slots, offsets, n_decks) -> np.ndarray:
    n = len(offsets)
    out = np.full((len(slots), n, n), 0.5)
    for i in range(n):
        for j in range(n):
            if i != j:
                a = slice(offsets[i], offsets[i] + n_decks[i])
                b = slice(offsets[j], offsets[j] + n_decks[j])
                out[:, i, j] = slots[:, a, b].mean(axis=(1, 2))
    return out


#: Called as ``progress(done, total)`` while the Nash deck choices are solved, ``total``
#: being the matrix games to solve (pairs where both entrants choose, times draws); the
#: command line sets it to show its progress. None: silent.
NASH_PROGRESS: list[Any] = [None]


def _nash(slots, offsets, n_decks) -> np.ndarray:
    """Each pairing's deck-choice game solved per draw, both players choosing before the coin flip.

    Entrant ``i``'s payoff for decks ``(a, b)`` is their chance to win with
    turn order decided by a coin, ``(M1[a, b] + 1 - M2[b, a]) / 2``, with
    ``M1`` the matchup when ``i`` moves first and ``M2`` when ``j`` does.
    Against an entrant with one deck the answer is the best reply (a linear
    programme only when both have a choice).
    """
    n = len(offsets)
    out = np.full((len(slots), n, n), 0.5)
    draws = np.arange(len(slots))
    choosing = int((np.asarray(n_decks) > 1).sum())
    total, done = choosing * (choosing - 1) // 2 * len(slots), 0
    progress = NASH_PROGRESS[0]
    for i in range(n):
        a = slice(offsets[i], offsets[i] + n_decks[i])
        for j in range(i + 1, n):
            b = slice(offsets[j], offsets[j] + n_decks[j])
            m1, m2 = slots[:, a, b], slots[:, b, a]  # (n_draws, ka, kb), (n_draws, kb, ka)
            payoff = 0.5 * (m1 + 1.0 - m2.transpose(0, 2, 1))
            if n_decks[i] == 1 or n_decks[j] == 1:
                # i maximises, j minimises i's payoff: a pure best reply per draw.
                x_pick = (
                    payoff.argmax(axis=1)[:, 0] if n_decks[j] == 1 else np.zeros(len(slots), int)
                )
                y_pick = (
                    payoff.argmin(axis=2)[:, 0] if n_decks[i] == 1 else np.zeros(len(slots), int)
                )
                out[:, i, j] = m1[draws, x_pick, y_pick]
                out[:, j, i] = m2[draws, y_pick, x_pick]
                continue
            for d in draws:
                x, y, _ = solve_matrix_game(payoff[d])
                out[d, i, j] = x @ m1[d] @ y
                out[d, j, i] = y @ m2[d] @ x
            done += len(slots)
            if progress is not None:
                progress(done, total)
    return out
