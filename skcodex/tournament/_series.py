"""Best-of-N sets (series) on the posterior: exact per draw by dynamic programming over the score.

A set between players A and B is won by the first to ``(best_of + 1) // 2`` game wins.
Between games the decks change by a rule (`SERIES_RULES`); who moves first in each
game by another (`SERIES_FIRST_MOVES`). For each posterior draw the chance that A
wins the set is computed exactly, backwards from the final scores, so every simulated
set uses one draw for all its games and a player's uncertain skill is shared by them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from skcodex.tournament._series_draws import (
    SERIES_DRAW_RULES,
    check_draws,
    decisive,
    outcome_draws,
    solve_points,
)
from skcodex.tournament._stage import TournamentError

__all__ = [
    "SERIES_DRAW_RULES",
    "SERIES_FIRST_MOVES",
    "SERIES_PICKS",
    "SERIES_RULES",
    "check_best_of",
    "fixed_deck_sets",
    "predict_series",
    "series_win_probability",
]

#: How decks change between the games of a set:
#:
#: - ``"fixed"``: each side plays one deck in every game;
#: - ``"loser may switch"``: the winner of a game keeps its deck, the loser picks its
#:   next deck from its list (it may keep the one it lost with);
#: - ``"winner may not repeat"``: the winner of a game must pick another deck of its
#:   list for the next game, the loser keeps its deck;
#: - ``"each picks"``: before every game both sides pick from their lists at the same
#:   time, without seeing the other's choice.
#:
#: Under every rule the decks of game 1 are picked blind by both sides at once from
#: their lists (with one deck each there is nothing to pick).
SERIES_RULES = ("fixed", "loser may switch", "winner may not repeat", "each picks")

#: How a side picks a deck where a rule lets it:
#:
#: - ``"best"``: the deck that maximises its posterior mean chance of winning the set
#:   from that score (the same choice in every posterior draw: a player does not know
#:   which draw is true, and does not learn from the games of the set); where both
#:   sides pick blind, the Nash mix of that posterior-mean game;
#: - ``"uniform"``: any allowed deck with equal chance.
SERIES_PICKS = ("best", "uniform")

#: Who moves first in each game of a set. Player 1 moves first in game 1, then
#: ``"alternating"``: the other player in the next game; ``"loser"``: the loser of the
#: previous game; ``"random"``: a coin flip before every game (game 1 included).
SERIES_FIRST_MOVES = ("alternating", "loser", "random")

#: The longest set: longer sets are a league, not a series, and the state space grows
#: with the square of the wins needed.
MAX_BEST_OF = 99


def check_best_of(value: Any, name: str = "best_of") -> int:
    """An odd whole number from 1 to `MAX_BEST_OF` (a set of an even length can be tied)."""
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, np.integer))
        or not 1 <= value <= MAX_BEST_OF
        or value % 2 == 0
    ):
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:40] + "..."
        raise TournamentError(
            f"{name} must be an odd whole number from 1 to {MAX_BEST_OF} (best of 1, 3, 5, ...: "
            f"an even number of games can end level), got {shown}"
        )
    return int(value)


def _check_choice(value: Any, allowed: tuple, name: str) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise TournamentError(
            f"{name} must be one of {', '.join(map(repr, allowed))}, got {value!r}"
        )
    return value


# -- the dynamic programme ----------------------------------------------------


def _blind(values: np.ndarray, pick: str) -> np.ndarray:
    """Both sides pick blind: ``values[d, a, b]`` is A's chance; A's value per draw.

    ``"best"`` plays the Nash mix of the posterior-mean game (A maximises, B
    minimises); ``"uniform"`` averages over every pair of decks.
    """
    if pick == "uniform":
        return values.mean(axis=(1, 2))
    _, na, nb = values.shape
    mean = values.mean(axis=0)
    if na == 1 and nb == 1:
        return values[:, 0, 0]
    if na == 1:
        return values[:, 0, int(np.argmin(mean[0]))]
    if nb == 1:
        return values[:, int(np.argmax(mean[:, 0])), 0]
    from skcodex.tournament._probabilities import solve_games

    x, y = solve_games(mean[None])
    return np.einsum("a,dab,b->d", x[0], values, y[0])


def _after_game(w: np.ndarray, rule: str, pick: str, a_won: bool) -> np.ndarray:
    """The value going into the next game, by the decks of the game just played.

    ``w[d, a, b]``: A's chance from the next game's state if the decks are ``(a, b)``.
    Returns ``u[d, a, b]``: A's chance when the game just played had decks ``(a, b)``
    and was won by A (``a_won``) or B, after the rule's pick.
    """
    _, na, nb = w.shape
    if rule == "fixed":
        return w
    if rule == "each picks":
        return np.broadcast_to(_blind(w, pick)[:, None, None], w.shape)
    mean = w.mean(axis=0)
    if rule == "loser may switch":
        if a_won:  # B picks its next deck, whatever it played; A keeps a
            if pick == "uniform":
                col = w.mean(axis=2)
            else:
                col = w[:, np.arange(na), np.argmin(mean, axis=1)]
            return np.broadcast_to(col[:, :, None], w.shape)
        if pick == "uniform":
            row = w.mean(axis=1)
        else:
            row = w[:, np.argmax(mean, axis=0), np.arange(nb)]
        return np.broadcast_to(row[:, None, :], w.shape)
    # winner may not repeat: the winner picks another deck, the loser keeps its own
    u = np.empty_like(w)
    if a_won:
        for a in range(na):
            others = [k for k in range(na) if k != a]
            if pick == "uniform":
                u[:, a, :] = w[:, others, :].mean(axis=1)
            else:
                best = np.array(others)[np.argmax(mean[others, :], axis=0)]
                u[:, a, :] = w[:, best, np.arange(nb)]
        return u
    for b in range(nb):
        others = [k for k in range(nb) if k != b]
        if pick == "uniform":
            u[:, :, b] = w[:, :, others].mean(axis=2)
        else:
            best = np.array(others)[np.argmin(mean[:, others], axis=1)]
            u[:, :, b] = w[:, np.arange(na), best]
    return u


def series_win_probability(
    first: Any,
    second: Any = None,
    best_of: int = 3,
    *,
    rule: str = "fixed",
    pick: str = "best",
    first_move: str = "alternating",
    draw_first: Any = None,
    draw_second: Any = None,
    draw_rule: str = "replay",
) -> np.ndarray:
    """P(player 1 wins a best-of-N set) per posterior draw, from single-game probabilities.

    Exact for each draw: the chance is computed backwards from every final score
    over every state of the set (score, decks in play, who moves first next).

    Parameters
    ----------
    first : array-like of shape (n_draws, n_decks1, n_decks2)
        P(player 1 wins a game when player 1 moves first, with their deck ``a``
        against player 2's deck ``b``), per posterior draw. A 2-d array is one draw.
    second : array-like of the same shape or None, default None
        P(player 1 wins a game when player 2 moves first). By default equal to
        ``first`` (a game where moving first makes no difference).
    best_of : int, default 3
        The set's length: an odd number; the first to ``(best_of + 1) // 2`` wins
        takes it.
    rule : {"fixed", "loser may switch", "winner may not repeat", "each picks"}, default "fixed"
        How decks change between games (`SERIES_RULES`). ``"fixed"`` with several
        decks on a side: that side picks one (blind) before the set and keeps it.
    pick : {"best", "uniform"}, default "best"
        How a side picks where the rule lets it (`SERIES_PICKS`).
    first_move : {"alternating", "loser", "random"}, default "alternating"
        Who moves first in each game (`SERIES_FIRST_MOVES`).
    draw_first : array-like of the shape of ``first`` or None, default None
        In a game with draws, P(a draw) when player 1 moves first (player 1
        loses with the rest); None: no draws.
    draw_second : array-like of the shape of ``first`` or None, default None
        P(a draw) when player 2 moves first; ``draw_first`` by default.
    draw_rule : {"replay", "points"}, default "replay"
        What a drawn game counts for (`SERIES_DRAW_RULES`): ``"replay"``, it
        is played again with the same decks and first mover and the set goes
        to the first to ``(best_of + 1) // 2`` wins (card games: Magic: The
        Gathering's "drawn games do not count"); ``"points"``, chess's rule:
        a draw is half a point each, the set goes to who has more than
        ``best_of / 2`` points, and a set level on points to a tie-break game
        with the draw left out. A set is never drawn.

    Returns
    -------
    ndarray of shape (n_draws,)
        P(player 1 wins the set) under each draw.

    Examples
    --------
    >>> import numpy as np
    >>> float(series_win_probability(np.array([[[0.6]]]), best_of=3)[0])  # 0.6^2 (3 - 2 x 0.6)
    0.648
    """
    best_of = check_best_of(best_of)
    rule = _check_choice(rule, SERIES_RULES, "rule")
    pick = _check_choice(pick, SERIES_PICKS, "pick")
    first_move = _check_choice(first_move, SERIES_FIRST_MOVES, "first_move")
    p_first = _game_array(first, "first")
    p_second = p_first if second is None else _game_array(second, "second")
    if p_second.shape != p_first.shape:
        raise TournamentError(
            f"first and second must have the same shape, got {p_first.shape} and {p_second.shape}"
        )
    _, na, nb = p_first.shape
    if rule == "winner may not repeat" and min(na, nb) < 2 and best_of > 1:
        raise TournamentError(
            "under 'winner may not repeat' each side needs at least two decks (a winner must "
            f"change deck); got {na} and {nb}"
        )
    draw_rule = _check_choice(draw_rule, SERIES_DRAW_RULES, "draw_rule")
    if draw_first is None and draw_second is not None:
        raise TournamentError("draw_second goes with draw_first: give both, or draw_first alone")
    d_first = d_second = None
    if draw_first is not None:
        d_first = check_draws(draw_first, p_first, "draw_first")
        d_second = (
            d_first if draw_second is None else check_draws(draw_second, p_second, "draw_second")
        )
    if first_move == "random":
        p_first = p_second = 0.5 * (p_first + p_second)
        if d_first is not None:
            d_first = d_second = 0.5 * (d_first + d_second)
    return _solve_with_draws(
        p_first, p_second, d_first, d_second, best_of, rule, pick, first_move, draw_rule
    )


def _solve_with_draws(
    p_first, p_second, d_first, d_second, best_of, rule, pick, first_move, draw_rule
):
    """The set's chance per draw: without draws, or under ``draw_rule`` with them."""
    need = (best_of + 1) // 2
    if d_first is None:
        return _solve(p_first, p_second, need, rule, pick, first_move)
    if draw_rule == "replay":  # a set of the games' decisive chances
        p_first, p_second = decisive(p_first, d_first), decisive(p_second, d_second)
        return _solve(p_first, p_second, need, rule, pick, first_move)
    return solve_points(
        (p_first, p_second),
        (d_first, d_second),
        best_of,
        rule,
        pick,
        first_move,
        _after_game,
        _blind,
    )


def _solve(p_first, p_second, need, rule, pick, first_move) -> np.ndarray:
    games = (p_first, p_second)  # by who moves first: 0 = player 1, 1 = player 2
    shape = p_first.shape
    # value[(i, j, f)][d, a, b]: A's chance at score i-j with decks (a, b) next, f first.
    value: dict = {}
    done_a, done_b = np.ones(shape), np.zeros(shape)
    for total in range(2 * need - 2, -1, -1):
        for i in range(max(0, total - need + 1), min(total, need - 1) + 1):
            j = total - i
            for f in (0, 1):
                after = []
                for a_won in (True, False):
                    f_next = _next_first(f, a_won, first_move)
                    if a_won and i + 1 == need:
                        after.append(done_a)
                    elif not a_won and j + 1 == need:
                        after.append(done_b)
                    else:
                        nxt = value[(i + 1, j, f_next) if a_won else (i, j + 1, f_next)]
                        after.append(_after_game(nxt, rule, pick, a_won))
                p = games[f]
                value[(i, j, f)] = p * after[0] + (1.0 - p) * after[1]
    return _blind(value[(0, 0, 0)], pick)


def _next_first(f: int, a_won: bool, first_move: str) -> int:
    if first_move == "alternating":
        return 1 - f
    if first_move == "loser":
        return 1 if a_won else 0
    return 0  # random: both entries hold the coin-flip average


def _game_array(value: Any, name: str) -> np.ndarray:
    try:
        p = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise TournamentError(f"{name} must be an array of probabilities") from None
    if p.ndim == 2:
        p = p[None]
    if p.ndim != 3 or 0 in p.shape:
        raise TournamentError(
            f"{name} must have shape (n_draws, n_decks1, n_decks2), got {np.shape(value)}"
        )
    if not np.all(np.isfinite(p)) or p.min() < 0 or p.max() > 1:
        raise TournamentError(f"{name} must hold probabilities between 0 and 1")
    return p


def fixed_deck_sets(
    p: np.ndarray, best_of: int, draws: np.ndarray | None = None, draw_rule: str = "replay"
) -> np.ndarray:
    """Set probabilities between every pair of slots, fixed decks, alternating first move.

    ``p[d, u, v]``: P(slot ``u`` beats ``v`` in a game when ``u`` moves first);
    ``draws[d, u, v]`` (a game with draws): P(a draw then), counted by
    ``draw_rule`` (`SERIES_DRAW_RULES`). Returns ``s[d, u, v]``: P(``u`` wins a
    best-of-N set when ``u`` moves first in game 1, the first move
    alternating), for every draw and pair at once (a set is never drawn).
    """
    if best_of == 1:
        return p
    n_draws, n, _ = p.shape
    first = p.reshape(-1)
    if draws is None:
        second = (1.0 - p.transpose(0, 2, 1)).reshape(-1)
        d_first = d_second = None
    else:
        d_first = draws.reshape(-1)
        d_second = draws.transpose(0, 2, 1).reshape(-1)
        second = np.clip(1.0 - p.transpose(0, 2, 1).reshape(-1) - d_second, 0.0, 1.0)
    out = np.empty(first.shape)
    for start in range(0, len(first), _SET_CHUNK):
        part = slice(start, start + _SET_CHUNK)
        out[part] = _solve_with_draws(
            first[part, None, None],
            second[part, None, None],
            None if d_first is None else d_first[part, None, None],
            None if d_second is None else d_second[part, None, None],
            best_of,
            "fixed",
            "uniform",
            "alternating",
            draw_rule,
        )
    return out.reshape(n_draws, n, n)


#: Pairs and draws whose sets are computed at once (2 MB a state of the set).
_SET_CHUNK = 2**18


# -- from a fitted estimator ----------------------------------------------------


def _decks_of(value: Any, who: str, row: int) -> list:
    from skcodex.tournament._probabilities import split_decks

    decks = split_decks(value)
    if not decks:
        raise TournamentError(f"row {row}: {who} has no deck")
    if len({str(d) for d in decks}) != len(decks):
        raise TournamentError(f"row {row}: {who} lists a deck more than once")
    return decks


def _check_series_inputs(estimator: Any, X: Any, interval: Any, n_draws: Any) -> None:
    """The estimator, the table, the interval and the draws of `predict_series`, checked."""
    if not isinstance(interval, (float, int)) or isinstance(interval, bool):
        raise TournamentError(f"interval must be a number between 0 and 1, got {interval!r}")
    if not 0 < interval < 1:
        raise TournamentError(f"interval must be between 0 and 1, got {interval!r}")
    if n_draws is not None and (
        isinstance(n_draws, bool) or not isinstance(n_draws, (int, np.integer)) or n_draws < 1
    ):
        raise TournamentError(f"n_draws must be a positive whole number, got {n_draws!r}")
    if not hasattr(estimator, "predict_proba"):
        raise TournamentError(
            f"the estimator must be a fitted classifier, got {type(estimator).__name__}"
        )
    if not isinstance(X, pd.DataFrame):
        raise TournamentError(
            f"X must be a DataFrame with columns player1, player2, deck1, deck2, got "
            f"{type(X).__name__}"
        )
    missing = [c for c in ("player1", "player2", "deck1", "deck2") if c not in X.columns]
    if missing:
        raise TournamentError(f"X is missing the column(s) {', '.join(map(repr, missing))}")
    if len(X) == 0:
        raise TournamentError("X has no rows")


def predict_series(
    estimator: Any,
    X: pd.DataFrame,
    best_of: int = 3,
    *,
    rule: str = "fixed",
    pick: str = "best",
    first_move: str = "alternating",
    interval: float = 0.90,
    n_draws: int | None = None,
    draw_rule: str = "replay",
) -> pd.DataFrame:
    """P(player 1 wins a best-of-N set) for each row, on the posterior, with an interval.

    Each posterior draw plays the whole set, so a player's uncertain skill is
    shared by all its games; the chance is exact for each draw
    (`series_win_probability`) and averaged over the draws.

    Parameters
    ----------
    estimator : fitted classifier
        A `BayesianMatchupClassifier` (its ``predict_proba_draws``), or any
        fitted classifier with ``predict_proba`` on match tables (one "draw").
    X : pandas.DataFrame
        One row a set: ``player1`` (moves first in game 1), ``player2``,
        ``deck1``, ``deck2``. A deck cell holds one deck, several joined by
        ``;``, or a list: the decks that side may pick from (the first is
        not special: game 1's decks are picked too).
    best_of : int, default 3
        An odd number of games.
    rule : {"fixed", "loser may switch", "winner may not repeat", "each picks"}, default "fixed"
        How decks change between games (`SERIES_RULES`).
    pick : {"best", "uniform"}, default "best"
        How a side picks a deck (`SERIES_PICKS`): ``"best"`` maximises its
        posterior mean chance of winning the set from the current score.
    first_move : {"alternating", "loser", "random"}, default "alternating"
        Who moves first in each game (`SERIES_FIRST_MOVES`).
    interval : float, default 0.90
        The equal-tailed posterior interval of the chance.
    n_draws : int or None, default None
        Use this many evenly spaced posterior draws (all by default).
    draw_rule : {"replay", "points"}, default "replay"
        With an estimator fitted with draws: what a drawn game counts for
        (`SERIES_DRAW_RULES`, `series_win_probability`).

    Returns
    -------
    pandas.DataFrame
        ``player1``, ``player2``, ``deck1``, ``deck2`` as given, ``p_game``
        (P(player 1 wins game 1), before any pick: the mean over the decks listed
        and both first movers when ``first_move="random"``), ``mean``, ``lower``
        and ``upper`` (P(player 1 wins the set)).

    Examples
    --------
    >>> import pandas as pd
    >>> from skcodex import EloClassifier
    >>> from skcodex.tournament import predict_series
    >>> X = pd.DataFrame({"player1": ["ann", "bob"], "player2": ["bob", "ann"],
    ...                   "deck1": ["MonoRed", "MonoBlue"], "deck2": ["MonoBlue", "MonoRed"]})
    >>> elo = EloClassifier().fit(X, [1, 0])
    >>> sets = predict_series(elo, X.iloc[:1], best_of=5)
    >>> bool(sets["mean"].iloc[0] > sets["p_game"].iloc[0] > 0.5)
    True
    """
    best_of = check_best_of(best_of)
    rule = _check_choice(rule, SERIES_RULES, "rule")
    pick = _check_choice(pick, SERIES_PICKS, "pick")
    first_move = _check_choice(first_move, SERIES_FIRST_MOVES, "first_move")
    draw_rule = _check_choice(draw_rule, SERIES_DRAW_RULES, "draw_rule")
    _check_series_inputs(estimator, X, interval, n_draws)
    rows, pieces = [], []
    for k in range(len(X)):
        p1, p2 = X["player1"].iloc[k], X["player2"].iloc[k]
        d1 = _decks_of(X["deck1"].iloc[k], "player 1", k)
        d2 = _decks_of(X["deck2"].iloc[k], "player 2", k)
        if rule == "winner may not repeat" and best_of > 1 and min(len(d1), len(d2)) < 2:
            raise TournamentError(
                f"row {k}: under 'winner may not repeat' each side needs at least two decks "
                "(a winner must change deck); give them joined by ';'"
            )
        # Every deck pair twice: player 1 moving first, then player 2 moving first.
        pairs = [(a, b) for a in d1 for b in d2]
        pieces.append(
            pd.DataFrame(
                {
                    "player1": [p1] * len(pairs) + [p2] * len(pairs),
                    "player2": [p2] * len(pairs) + [p1] * len(pairs),
                    "deck1": [a for a, _ in pairs] + [b for _, b in pairs],
                    "deck2": [b for _, b in pairs] + [a for a, _ in pairs],
                }
            )
        )
        rows.append((len(d1), len(d2)))
    table = pd.concat(pieces, ignore_index=True)
    outcomes = outcome_draws(estimator, table)  # (n_draws, rows, 3) with draws
    if n_draws is not None and len(outcomes) > n_draws:
        keep = np.unique(np.linspace(0, len(outcomes) - 1, n_draws).round().astype(np.int64))
        outcomes = outcomes[keep]
    draws = outcomes[..., -1]
    mean, lower, upper, p_game = [], [], [], []
    start = 0
    tail = (1.0 - interval) / 2.0
    for na, nb in rows:
        m = na * nb
        first = draws[:, start : start + m].reshape(-1, na, nb)
        # player 1 wins a game player 2 moves first in when player 2 loses it
        second = outcomes[:, start + m : start + 2 * m, 0].reshape(-1, na, nb)
        tied = [outcomes[:, k : k + m, 1].reshape(-1, na, nb) for k in (start, start + m)]
        tied = tied if outcomes.shape[-1] == 3 else [None, None]
        start += 2 * m
        s = series_win_probability(
            first,
            second,
            best_of,
            rule=rule,
            pick=pick,
            first_move=first_move,
            draw_first=tied[0],
            draw_second=tied[1],
            draw_rule=draw_rule,
        )
        mean.append(s.mean())
        lower.append(np.quantile(s, tail))
        upper.append(np.quantile(s, 1.0 - tail))
        game = 0.5 * (first + second) if first_move == "random" else first
        p_game.append(game.mean())
    out = X.loc[:, ["player1", "player2", "deck1", "deck2"]].copy()
    out["p_game"], out["mean"], out["lower"], out["upper"] = p_game, mean, lower, upper
    out.attrs.update(best_of=best_of, rule=rule, pick=pick, first_move=first_move)
    out.attrs["draw_rule"] = draw_rule if outcomes.shape[-1] == 3 else None
    return out
