"""The deck-choice game of the matchup matrix, solved for each posterior draw."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy.optimize import linprog

from skcodex._docstrings import shared_parameters
from skcodex.analysis._base import INTERVAL, catalogue, check_fitted, quantiles, thin
from skcodex.analysis._decks import _choose_deck_lists
from skcodex.analysis._matchups import _game_chunks
from skcodex.codex import Deck, deck_label

__all__ = ["NASH_DRAWS", "NashEquilibria", "nash_equilibria", "nash_weights", "solve_matrix_game"]

#: Posterior draws used for Nash weights unless asked otherwise.
NASH_DRAWS = 500


def solve_matrix_game(payoff: Any) -> tuple[np.ndarray, np.ndarray, float]:
    """Optimal mixed strategies of a two-player zero-sum matrix game.

    The row player receives ``payoff[i, j]`` and maximises; the column player
    minimises. Both linear programmes are solved with HiGHS
    (`scipy.optimize.linprog`): the row player's
    ``max v  s.t.  payoff' x >= v, sum x = 1, x >= 0`` and the column player's
    ``min w  s.t.  payoff y <= w, sum y = 1, y >= 0``.

    Parameters
    ----------
    payoff : array-like of shape (n_rows, n_columns)
        The row player's payoff for each pair of strategies: finite numbers.

    Returns
    -------
    x : ndarray of shape (n_rows,)
        The row player's equilibrium weights.
    y : ndarray of shape (n_columns,)
        The column player's equilibrium weights.
    value : float
        The value of the game to the row player.

    Examples
    --------
    Rock-paper-scissors: each strategy a third of the time, value 0.

    >>> x, y, value = solve_matrix_game([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])
    >>> x.round(3).tolist(), y.round(3).tolist(), round(value, 6) + 0.0
    ([0.333, 0.333, 0.333], [0.333, 0.333, 0.333], 0.0)
    """
    try:
        A = np.asarray(payoff, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"payoff must be numbers, got {payoff!r}") from None
    if A.ndim != 2 or A.size == 0 or not np.all(np.isfinite(A)):
        raise ValueError(f"payoff must be a finite, non-empty 2-D array, got shape {A.shape}")

    def solve(M: np.ndarray) -> tuple[np.ndarray, float]:
        # max v s.t. M' x >= v, sum x = 1, x >= 0; variables (x, v).
        n, m = M.shape
        res = linprog(
            np.r_[np.zeros(n), -1.0],
            A_ub=np.hstack([-M.T, np.ones((m, 1))]),
            b_ub=np.zeros(m),
            A_eq=np.r_[np.ones(n), 0.0][None, :],
            b_eq=[1.0],
            bounds=[(0, None)] * n + [(None, None)],
        )  # solved by HiGHS, scipy's default
        if res.status != 0:
            raise RuntimeError(f"the matrix game's linear programme failed: {res.message}")
        w = np.clip(res.x[:n], 0.0, None)
        return w / w.sum(), float(-res.fun)

    x, value = solve(A)
    y, _ = solve(-A.T)  # the column player maximises -payoff
    return x, y, value


@dataclass(frozen=True)
class NashEquilibria:
    """Equilibrium deck weights for each posterior draw (see `nash_equilibria`).

    Parameters
    ----------
    decks1 : tuple of str
        Labels of player 1's decks.
    decks2 : tuple of str
        Labels of player 2's decks.
    player1 : ndarray of shape (n_draws, len(decks1))
        Player 1's (who moves first) equilibrium weights, per draw.
    player2 : ndarray of shape (n_draws, len(decks2))
        Player 2's equilibrium weights, per draw.
    both : ndarray of shape (n_draws, len(decks1)) or None
        Weights for a player who takes each role half the time with one deck
        (only when the two deck lists are the same).
        In a symmetric game (``symmetric=True``) with one deck list, the
        three are one and the same array: both roles face the same game.
    value : ndarray of shape (n_draws,)
        P(player 1 wins) when both play their equilibrium weights.
    """

    decks1: tuple[str, ...]
    decks2: tuple[str, ...]
    player1: np.ndarray
    player2: np.ndarray
    both: np.ndarray | None
    value: np.ndarray

    def summary(self, interval: float = INTERVAL, threshold: float = 1e-6) -> pd.DataFrame:
        """Mean weights with intervals, one row per role and deck.

        Parameters
        ----------
        interval : float, default 0.9
            Width of every equal-tailed credible interval.
        threshold : float, default 1e-6
            A deck counts as played in a draw when its weight is above this.

        Returns
        -------
        pandas.DataFrame
            Columns: ``role`` (``"player 1"``, ``"player 2"``, ``"both"``),
            ``deck``, ``mean``, ``lower``, ``upper`` and ``p_played``, the share of
            draws in which the deck has a weight above ``threshold``.
            ``attrs["value"]`` summarises the game value (mean, lower, upper).
        """
        frames = []
        roles = [("player 1", self.decks1, self.player1), ("player 2", self.decks2, self.player2)]
        if self.both is not None:
            roles.append(("both", self.decks1, self.both))
        for role, decks, w in roles:
            lower, upper = quantiles(w, interval)
            frames.append(
                pd.DataFrame(
                    {
                        "role": role,
                        "deck": list(decks),
                        "mean": w.mean(axis=0),
                        "lower": lower,
                        "upper": upper,
                        "p_played": (w > threshold).mean(axis=0),
                    }
                )
            )
        out = pd.concat(frames, ignore_index=True)
        lo, hi = quantiles(self.value, interval)
        out.attrs["value"] = {
            "mean": float(self.value.mean()),
            "lower": float(lo),
            "upper": float(hi),
        }
        out.attrs["n_draws"] = len(self.value)
        out.attrs["interval"] = interval
        return out


@shared_parameters
def nash_equilibria(
    clf: Any,
    decks1: Sequence[str | Deck] | None = None,
    decks2: Sequence[str | Deck] | None = None,
    *,
    n_draws: int | None = NASH_DRAWS,
) -> NashEquilibria:
    """Solve the deck-choice game of the matchup matrix for each posterior draw.

    For every draw, ``A[i, j]`` is P(player 1 wins) when player 1 (who moves
    first) brings deck ``decks1[i]`` and player 2 brings ``decks2[j]``,
    between equally skilled players (`matchup_draws`). Player 1 chooses a
    deck to maximise ``A``, player 2 to minimise it, each without knowing the
    other's choice: a zero-sum game whose equilibrium mixed strategies are the
    Nash weights (`solve_matrix_game`).

    "Both roles" is a player who moves first half the time and second half
    the time and must choose one deck for both: their payoff against deck
    ``j`` is ``(A[i, j] + 1 - A[j, i]) / 2``, a symmetric game (its value is
    always 1/2), solved when the two deck lists are the same.

    Parameters
    ----------
    {nash_decks}
    n_draws : int or None, default 500
        Solve the games for this many evenly spaced posterior draws (None for
        all). Each draw solves three linear programmes; with a few hundred
        decks one takes about a tenth of a second, so thinning keeps a large
        deck set feasible.

    Returns
    -------
    NashEquilibria
        Per-draw weights; ``.summary()`` gives the table.
    """
    check_fitted(clf)
    cat = catalogue(clf)
    d1, d2 = _choose_deck_lists(clf, decks1, decks2)
    same_lists = d1 == d2
    # In a symmetric game (no first mover) A + A' = 1: both sides face the same game,
    # so one vector of weights is the equilibrium of each role.
    one_game = same_lists and clf.layout_.options.symmetric
    draws = thin(len(clf.effect_draws_), n_draws)
    w1 = np.empty((len(draws), len(d1)))
    w2 = np.empty((len(draws), len(d2)))
    both = np.empty((len(draws), len(d1))) if same_lists else None
    value = np.empty(len(draws))
    for start, games in _game_chunks(clf, d1, d2, draws):
        for i, A in enumerate(games):
            row = start + i
            if one_game:
                both[row], _, _ = solve_matrix_game(A - A.T)
                value[row] = both[row] @ A @ both[row]
                continue
            w1[row], w2[row], value[row] = solve_matrix_game(A)
            if both is not None:
                # The both-roles payoff (A + 1 - A')/2 is an increasing affine map of
                # A - A': the same game, with the same equilibria.
                both[row], _, _ = solve_matrix_game(A - A.T)
    if one_game:
        w1, w2 = both, both
    return NashEquilibria(
        decks1=tuple(deck_label(d, cat) for d in d1),
        decks2=tuple(deck_label(d, cat) for d in d2),
        player1=w1,
        player2=w2,
        both=both,
        value=value,
    )


@shared_parameters
def nash_weights(
    clf: Any,
    decks1: Sequence[str | Deck] | None = None,
    decks2: Sequence[str | Deck] | None = None,
    *,
    n_draws: int | None = NASH_DRAWS,
    interval: float = INTERVAL,
) -> pd.DataFrame:
    """Nash weights of decks with intervals: `nash_equilibria` summarised.

    Parameters
    ----------
    {nash_decks}
    n_draws : int or None, default 500
        Solve the games for this many evenly spaced posterior draws (None for
        all).
    interval : float, default 0.9
        Width of every equal-tailed credible interval.

    Returns
    -------
    pandas.DataFrame
        One row per role and deck: ``role`` (``"player 1"``, ``"player 2"``,
        ``"both"``), ``deck``, ``mean``, ``lower``, ``upper``, ``p_played``;
        ``attrs["value"]`` holds the game value, P(player 1 wins) at the
        equilibrium, as ``mean``, ``lower`` and ``upper``.

    Examples
    --------
    >>> from skcodex import BayesianMatchupClassifier, datasets
    >>> data = datasets.make_matches(n_players=8, n_matches=60, n_tournaments=2)
    >>> clf = BayesianMatchupClassifier(draws=50, tune=50, chains=1)  # a quick, rough fit
    >>> weights = nash_weights(clf.fit(data.X, data.y), n_draws=20)
    >>> weights.groupby("role")["mean"].sum().round(6).tolist()
    [1.0, 1.0, 1.0]
    """
    return nash_equilibria(clf, decks1, decks2, n_draws=n_draws).summary(interval)
