"""Best-of-N sets in a game with draws: what a drawn game of a set counts for.

Two rules are played, chosen by ``draw_rule`` (`SERIES_DRAW_RULES`):

- ``"replay"`` (the default): a drawn game does not count; it is played again
  with the same decks and the same player moving first, and the set goes to the
  first to win ``(best_of + 1) // 2`` games. A game of the set is then decided
  with chance ``P(win) / (P(win) + P(loss))`` for its pairing, decks and first
  mover, and the set is the set without draws played on those chances. This is
  the rule of the card and fighting games sets come from: Magic: The
  Gathering's tournament rules (a match is won by the first to win two games;
  "drawn games do not count toward this goal"), Hearthstone and Yu-Gi-Oh!
  events (a drawn game is replayed or does not count), shogi title matches (a
  repetition draw, *sennichite*, is replayed) and a fighting game's double
  knock-out (the round is replayed).
- ``"points"``: chess's match rule. All ``best_of`` games are played (a set
  already decided stops early, which changes nothing of who wins it); a win
  scores 1 point, a draw half a point each, and the set goes to who has more
  than ``best_of / 2`` points. A set level on points (``best_of / 2`` each,
  possible once a game is drawn) is decided by a tie-break game played with the
  draw left out (replayed until decisive, as in ``"replay"``), with the decks
  in play and the player the first-move rule names next, as chess matches go to
  rapid tie-breaks.

The default is ``"replay"`` because skcodex's games are card games, where sets
are the common format and a drawn game is replayed or not counted; chess, where
draws are frequent and a match is scored in points, is the other.

Under both rules a set always has a winner: a set is never drawn. After a drawn
game nobody won or lost: under ``"loser may switch"`` and ``"winner may not
repeat"`` both sides keep their decks; under ``"each picks"`` both pick again.
Under ``first_move="loser"`` the same player moves first in the game after a
draw; ``"alternating"`` alternates after a draw too.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from skcodex.tournament._stage import TournamentError

__all__ = ["SERIES_DRAW_RULES", "check_draws", "decisive", "outcome_draws", "solve_points"]

#: What a drawn game of a set counts for: replayed (card games), or half a point (chess).
SERIES_DRAW_RULES = ("replay", "points")


def check_draws(value: Any, wins: np.ndarray, name: str) -> np.ndarray:
    """A set's draw chances, checked against its win chances (same shape, sums at most 1)."""
    try:
        d = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise TournamentError(f"{name} must be an array of probabilities") from None
    if d.ndim == 2:
        d = d[None]
    if d.shape != wins.shape:
        raise TournamentError(
            f"{name} must have the shape of its win probabilities {wins.shape}, got "
            f"{np.shape(value)}"
        )
    if not np.all(np.isfinite(d)) or d.min() < 0:
        raise TournamentError(f"{name} must hold probabilities between 0 and 1")
    if (wins + d).max() > 1 + 1e-12:
        raise TournamentError(
            f"a game's win and draw probabilities ({name}) add up to more than 1: the win "
            "is P(player 1 wins), the draw P(a draw), player 1 loses with the rest"
        )
    if d.max() >= 1:
        raise TournamentError(
            f"{name} holds a game drawn with certainty: its set could never be decided"
        )
    return d


def decisive(p: np.ndarray, d: np.ndarray) -> np.ndarray:
    """P(win) of a game replayed until it is not drawn: ``p / (1 - d)``, at most 1."""
    return np.minimum(p / (1.0 - d), 1.0)


def solve_points(games, drawn, n_games, rule, pick, first_move, after_game, blind) -> np.ndarray:
    """P(player 1 wins a set scored in points) per draw: every state, backwards.

    ``games[f]`` and ``drawn[f]``: P(player 1 wins) and P(a draw) of a game
    when ``f`` moves first (0: player 1), shape (n_draws, n_decks1, n_decks2).
    A state is the games played ``g``, player 1's points doubled ``h``, the
    decks in play (the arrays' last axes) and who moves first next;
    ``after_game`` and ``blind`` are `skcodex.tournament._series`'s deck picks.
    """
    shape = games[0].shape
    done_a, done_b = np.ones(shape), np.zeros(shape)
    tie_break = tuple(decisive(games[f], drawn[f]) for f in (0, 1))
    value: dict = {}

    def reached(g: int, h: int, f: int) -> np.ndarray:
        if h > n_games:  # more than half the points: player 1 has the set
            return done_a
        if 2 * g - h > n_games:
            return done_b
        return value[(g, h, f)]

    for g in range(n_games, -1, -1):
        for h in range(max(0, 2 * g - n_games), min(2 * g, n_games) + 1):
            for f in (0, 1):
                if g == n_games:  # level on points after every game: the tie-break
                    value[(g, h, f)] = tie_break[f]
                    continue
                won = reached(g + 1, h + 2, _after(f, "win", first_move))
                lost = reached(g + 1, h, _after(f, "loss", first_move))
                level = reached(g + 1, h + 1, _after(f, "draw", first_move))
                won = won if won is done_a else after_game(won, rule, pick, True)
                lost = lost if lost is done_b else after_game(lost, rule, pick, False)
                if rule == "each picks" and level is not done_a and level is not done_b:
                    level = np.broadcast_to(blind(level, pick)[:, None, None], shape)
                p, d = games[f], drawn[f]
                value[(g, h, f)] = p * won + d * level + (1.0 - p - d) * lost
    return blind(value[(0, 0, 0)], pick)


def _after(f: int, outcome: str, first_move: str) -> int:
    """Who moves first in the next game: after a draw, the same player under ``"loser"``."""
    if first_move == "alternating":
        return 1 - f
    if first_move == "loser":
        return {"win": 1, "loss": 0, "draw": f}[outcome]
    return 0  # random: both entries hold the coin-flip average


def outcome_draws(estimator: Any, table: Any) -> np.ndarray:
    """Each row's outcome chances per draw: (n_draws, rows, 3) with draws, else (..., 2).

    An estimator fitted with draws (``classes_`` holding 0.5) gives its three
    outcomes (``predict_outcome_draws``); any other its P(player 1 wins) per
    draw and one minus it.
    """
    from skcodex.tournament._probabilities import _predict

    try:
        if 0.5 in np.asarray(getattr(estimator, "classes_", [])).tolist():
            return estimator.predict_outcome_draws(table)
        p = _predict(estimator, table)
    except ValueError as err:
        raise TournamentError(str(err)) from err
    return np.stack([1.0 - p, p], axis=-1)
