"""Win probabilities between every pair of entrants, per posterior draw, from a fitted estimator."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from skcodex.analysis._nash import solve_matrix_game
from skcodex.tournament._stage import TournamentError

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


def split_decks(value: Any) -> list:
    """A deck cell's decks: one deck, several separated by ``;``, a list, or none (empty)."""
    if isinstance(value, str):
        return [d.strip() for d in value.split(";") if d.strip()]
    if isinstance(value, (list, tuple)):
        return list(value)
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return []
    return [value]


def _deck_list(value: Any, who: Any) -> list:
    decks = split_decks(value)
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
    for k, name in enumerate(names):
        if not isinstance(name, (str, int, float, np.integer, np.floating)) and not (
            name is None or name is pd.NA or name is pd.NaT
        ):
            shown = repr(name) if len(repr(name)) <= 60 else repr(name)[:60] + "..."
            raise TournamentError(
                f"entrant number {k + 1}: a name must be text or a number, got "
                f"{type(name).__name__} {shown}"
            )
        if pd.isna(name) or (isinstance(name, str) and not name.strip()):
            raise TournamentError(f"entrant number {k + 1} has no name")
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
    _check_memory(estimator, field, rule, n_draws)  # before the table or any prediction
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


#: The most memory the win probabilities of a forecast may take (every ordered pair of
#: entrants' decks, for every posterior draw used).
MAX_PROBABILITY_BYTES = 2 * 1024**3


def _check_memory(estimator: Any, field: Field, rule: str, n_draws: int | None) -> None:
    """Refuse, with the estimate, a forecast whose win probabilities would not fit.

    The estimator's ``predict_proba_draws`` gives 8 bytes per ordered pair of
    slots (an entrant with one of their decks) and posterior draw, for every
    draw; the draws used (``n_draws``) are then laid out as a square table of
    slots, 8 bytes a cell, and mixed over decks (``"uniform"``, ``"nash"``) into
    one of entrants.
    """
    effect_draws = getattr(estimator, "effect_draws_", None)
    total = 1 if effect_draws is None else int(effect_draws.shape[0])
    used = total if n_draws is None else min(total, n_draws)
    slots = sum(len(d) for d in field.decks) if field.decks is not None else field.n_entrants
    n = field.n_entrants
    owner_pairs = slots * slots - sum(len(d) ** 2 for d in field.decks or [[None]] * n)
    mixed = rule != "fixed order" and slots > n
    per_draw_used = 8 * slots * slots + (8 * n * n if mixed else 0)
    need = 8 * owner_pairs * total + per_draw_used * used
    if need <= MAX_PROBABILITY_BYTES:
        return
    fixed = 8 * owner_pairs * total
    if fixed + per_draw_used >= MAX_PROBABILITY_BYTES:
        raise TournamentError(
            f"{n:,} entrants ({slots:,} entrant-deck slots) on this model's {total:,} posterior "
            f"draws need about {need / 1e9:,.1f} GB for the win probabilities (16 bytes per "
            f"ordered pair of slots per draw), more than the {MAX_PROBABILITY_BYTES / 1e9:.1f} "
            "GB a forecast may take: forecast fewer entrants, or fit with fewer draws"
        )
    fits = int((MAX_PROBABILITY_BYTES - fixed) // per_draw_used)
    raise TournamentError(
        f"{n:,} entrants ({slots:,} entrant-deck slots) on {used:,} posterior draws need about "
        f"{need / 1e9:,.1f} GB for the win probabilities (16 bytes per ordered pair of slots "
        f"per draw), more than the {MAX_PROBABILITY_BYTES / 1e9:.1f} GB a forecast may take: "
        f"use at most {fits:,} draws (n_draws={fits}; on the command line "
        f"--posterior-draws {fits})"
    )


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
            x, y = solve_games(payoff)
            out[:, i, j] = np.einsum("da,dab,db->d", x, m1, y)
            out[:, j, i] = np.einsum("db,dba,da->d", y, m2, x)
            done += len(slots)
            if progress is not None:
                progress(done, total)
    return out


#: Games with more strategies than this a side are solved one linear programme a draw.
MAX_ENUMERATED_STRATEGIES = 5


def solve_games(payoff: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Optimal mixed strategies of many small zero-sum games at once.

    ``payoff[d]`` is game ``d``: the row player receives it and maximises. By
    Shapley and Snow's theorem every matrix game has a pair of optimal
    strategies whose supports are the rows ``I`` and columns ``J`` of a square
    nonsingular submatrix, each making the other indifferent on its support:
    so for each such square (smallest first) the two small linear systems are
    solved for every game at once, and a game takes the first solution that
    is a pair of strategies neither side can improve on (within 1e-9). Games
    larger than `MAX_ENUMERATED_STRATEGIES` a side are solved by
    `skcodex.analysis.solve_matrix_game`, one linear programme each.

    Parameters
    ----------
    payoff : ndarray of shape (n_games, n_rows, n_columns)

    Returns
    -------
    x : ndarray of shape (n_games, n_rows)
    y : ndarray of shape (n_games, n_columns)
    """
    from itertools import combinations

    payoff = np.asarray(payoff, dtype=float)
    n_games, ka, kb = payoff.shape
    if max(ka, kb) > MAX_ENUMERATED_STRATEGIES:
        solved = [solve_matrix_game(game)[:2] for game in payoff]
        return np.array([x for x, _ in solved]), np.array([y for _, y in solved])
    x_out, y_out = np.zeros((n_games, ka)), np.zeros((n_games, kb))
    todo = np.ones(n_games, dtype=bool)
    tol = 1e-9
    for size in range(1, min(ka, kb) + 1):
        for rows in combinations(range(ka), size):
            for cols in combinations(range(kb), size):
                if not todo.any():
                    return x_out, y_out
                games = np.flatnonzero(todo)
                sub = payoff[np.ix_(games, rows, cols)]  # (g, s, s)
                x_s, v = _indifferent(sub.transpose(0, 2, 1))
                y_s, w = _indifferent(sub)
                x = np.zeros((len(games), ka))
                y = np.zeros((len(games), kb))
                x[:, list(rows)], y[:, list(cols)] = x_s, y_s
                game = payoff[games]
                secures = np.einsum("ga,gab->gb", x, game).min(axis=1) >= v - tol
                holds = np.einsum("gab,gb->ga", game, y).max(axis=1) <= w + tol
                ok = (
                    np.isfinite(v)
                    & np.isfinite(w)
                    & (x_s >= -tol).all(axis=1)
                    & (y_s >= -tol).all(axis=1)
                    & secures
                    & holds
                )
                done = games[ok]
                x_out[done] = np.clip(x[ok], 0.0, None)
                y_out[done] = np.clip(y[ok], 0.0, None)
                x_out[done] /= x_out[done].sum(axis=1, keepdims=True)
                y_out[done] /= y_out[done].sum(axis=1, keepdims=True)
                todo[done] = False
    if todo.any():  # numerically hard games: the linear programme
        for d in np.flatnonzero(todo):
            x_out[d], y_out[d], _ = solve_matrix_game(payoff[d])
    return x_out, y_out


def _indifferent(sub: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weights ``q`` summing to one with ``sub[g] @ q`` the same in every row, and that value.

    Singular systems give NaN.
    """
    n_games, s, _ = sub.shape
    system = np.zeros((n_games, s + 1, s + 1))
    system[:, :s, :s] = sub
    system[:, :s, s] = -1.0
    system[:, s, :s] = 1.0
    rhs = np.zeros((n_games, s + 1))
    rhs[:, s] = 1.0
    singular = np.abs(np.linalg.det(system)) < 1e-12
    system[singular] = np.eye(s + 1)
    solution = np.linalg.solve(system, rhs[..., None])[..., 0]
    solution[singular] = np.nan
    return solution[:, :s], solution[:, s]
