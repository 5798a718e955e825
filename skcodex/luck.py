"""Unbiased luck estimates and luck-adjusted results ("hedging toward skill").

Zare's fundamental equation of games of luck and skill reads

    Final - Initial = Net Luck + Net Skill.

The luck of a chance event (a roll of the dice, a draw of a card), estimated
fairly, is the value of the position just after the event minus the average of
that value over every outcome the event could have had, both from **the same
evaluator at the same depth**. Such an estimate averages to exactly zero over
the outcomes, whatever the evaluator's errors, so the luck-adjusted result
``Final - Estimated Net Luck`` is an unbiased measure of the same thing the
final result measures, with most of the luck taken out.

Conventions used throughout the package:

- values and luck are on the **win-probability scale** (0 to 1), not equity;
  a match equity ``e`` in [-1, 1] is the probability ``(1 + e) / 2``, so luck in
  equity units is twice luck in probability units;
- a chance event's luck is first taken from the view of the player it happened
  to; a match's **net luck for player 1** is player 1's luck on their events
  minus player 2's luck on theirs, which is the sum of every event's luck seen
  from player 1 (player 2's chance is one minus player 1's);
- the estimators take that vector as ``fit(X, y, luck=...)`` and fit the
  adjusted outcome ``y - luck`` (see `adjusted_outcome` and
  `quasi_log_likelihood`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy.optimize import minimize
from scipy.special import expit

from skcodex._matchup.graph import quasi_loglik_terms
from skcodex.data import MatchTableError, check_luck, check_match_table, check_outcome

__all__ = [
    "adjusted_outcome",
    "event_luck",
    "fit_skills",
    "luck_by_match",
    "luck_from_pairs",
    "net_luck",
    "quasi_log_likelihood",
    "zare_example",
]


def luck_from_pairs(average: Any, value: Any) -> np.ndarray | float:
    """Luck of chance events from precomputed (average, value) pairs: ``value - average``.

    ``average`` is the evaluator's mean over all possible outcomes of the value
    after the event; ``value`` is its value after the outcome that happened.
    Both must come from the same evaluator at the same depth (in Zare's words,
    evaluate the position before the roll one ply deeper than the position
    after it); then the luck averages to zero whatever the evaluator's errors.

    Parameters
    ----------
    average : float or array-like
        The evaluator's mean value after the event, over its outcomes.
    value : float or array-like
        Its value after the outcome that happened, on the same scale and from
        the same player's view as ``average``.

    Returns
    -------
    float or ndarray
        A float for scalar input, otherwise an array of the broadcast shape.

    Examples
    --------
    The second roll of Zare's worked game (Jellyfish rolls 3-3; match equity
    from Jellyfish's view):

    >>> from skcodex.luck import luck_from_pairs
    >>> round(luck_from_pairs(0.054, 0.284), 3)
    0.23
    >>> luck_from_pairs([0.0, 0.308], [0.012, 0.257]).round(3)
    array([ 0.012, -0.051])
    """
    avg = np.asarray(average, dtype=float)
    val = np.asarray(value, dtype=float)
    if not (np.isfinite(avg).all() and np.isfinite(val).all()):
        raise ValueError("average and value must be finite")
    out = val - avg
    return float(out) if out.ndim == 0 else out


def event_luck(
    evaluator: Callable[[Any], float],
    outcomes: Sequence[Any],
    probabilities: Any,
    actual: int,
) -> float:
    """Luck of one chance event from an evaluator and the distribution of outcomes.

    ``evaluator(outcomes[i]) - sum_j probabilities[j] * evaluator(outcomes[j])``
    with ``i = actual``. The evaluator gives the value, to the player the event
    happens to, of the position after each outcome (for a game where a move
    follows the roll, the value of the evaluator's best move with that roll).
    Because the average uses the same evaluator as the value, the luck has mean
    exactly zero over the outcomes, however wrong the evaluator is.

    Parameters
    ----------
    evaluator : callable
        Maps a position after the event to its value.
    outcomes : sequence
        The position after each possible outcome.
    probabilities : array-like
        Each outcome's probability; non-negative, summing to 1.
    actual : int
        Index in ``outcomes`` of the outcome that happened.

    Returns
    -------
    float
        The event's luck, to the player it happened to.

    Examples
    --------
    Zare's example: an evaluator rates the position 0.2 (equity), but half the
    rolls leave a position it rates +1 and half one it rates -1. A good roll is
    lucky by +1, not +0.8:

    >>> from skcodex.luck import event_luck
    >>> event_luck(lambda v: v, [1.0, -1.0], [0.5, 0.5], actual=0)
    1.0
    """
    p = np.asarray(probabilities, dtype=float)
    if p.ndim != 1 or len(p) != len(outcomes) or len(p) == 0:
        raise ValueError(
            f"probabilities must be one-dimensional with one entry per outcome "
            f"({len(outcomes)}), got shape {p.shape}"
        )
    if not (np.isfinite(p).all() and (p >= 0).all() and abs(p.sum() - 1.0) < 1e-9):
        raise ValueError("probabilities must be non-negative and sum to 1")
    if isinstance(actual, bool) or not isinstance(actual, (int, np.integer)):
        raise TypeError(f"actual must be an outcome index, got {actual!r}")
    if not 0 <= actual < len(outcomes):
        raise ValueError(f"actual must index an outcome (0 to {len(outcomes) - 1}), got {actual}")
    values = np.array([float(evaluator(o)) for o in outcomes])
    if not np.isfinite(values).all():
        raise ValueError("the evaluator returned a value that is not finite")
    return float(values[actual] - p @ values)


def _roller_sign(roller: Any) -> np.ndarray:
    who = np.asarray(roller)
    if who.ndim != 1:
        raise ValueError("roller must be one-dimensional")
    ok = np.isin(who, (1, 2))
    if not ok.all():
        bad = who[~ok][0]
        raise ValueError(f"roller must be 1 (player 1) or 2 (player 2), got {bad!r}")
    return np.where(who == 1, 1.0, -1.0)


def net_luck(luck: Any, roller: Any) -> float:
    """Net luck of one game for player 1: their luck minus player 2's.

    Parameters
    ----------
    luck : array-like of shape (n_events,)
        Each chance event's luck from the view of the player it happened to.
    roller : array-like of shape (n_events,)
        1 where the event happened to player 1, 2 where to player 2.

    Returns
    -------
    float
        Player 1's net luck; player 2's is its negative.

    Examples
    --------
    >>> from skcodex.luck import net_luck
    >>> round(net_luck([0.10, 0.25, -0.05], [1, 2, 1]), 2)
    -0.2
    """
    values = np.asarray(luck, dtype=float)
    sign = _roller_sign(roller)
    if values.shape != sign.shape:
        raise ValueError(f"luck has shape {values.shape} but roller has shape {sign.shape}")
    if not np.isfinite(values).all():
        raise ValueError("luck must be finite")
    return float(sign @ values)


def luck_by_match(
    events: pd.DataFrame,
    n_matches: int | None = None,
    *,
    match: str = "match",
    roller: str = "roller",
    luck: str = "luck",
) -> np.ndarray:
    """Per-match net luck for player 1 from a record of chance events.

    This is the ``luck`` vector the estimators take in ``fit(X, y, luck=...)``.

    Parameters
    ----------
    events : DataFrame
        One row a chance event, with the match's position (row number in the
        match table, 0-based), who the event happened to (1 or 2) and its luck
        from that player's view; for example the ``events`` of
        `skcodex.datasets.make_dice_matches` or the output of
        `skcodex.datasets.DiceGame.annotate_luck`.
    n_matches : int or None, default None
        Number of matches in the table; matches without events get 0. By
        default one more than the largest match number.
    match : str, default "match"
        The column of the match's position.
    roller : str, default "roller"
        The column of who the event happened to.
    luck : str, default "luck"
        The column of the event's luck.

    Returns
    -------
    ndarray of shape (n_matches,)
        Player 1's net luck in each match (player 2's is its negative).

    Examples
    --------
    >>> import pandas as pd
    >>> from skcodex.luck import luck_by_match
    >>> events = pd.DataFrame(
    ...     {"match": [0, 0, 1, 1], "roller": [1, 2, 1, 2], "luck": [0.2, 0.1, -0.1, 0.3]}
    ... )
    >>> luck_by_match(events).round(2)
    array([ 0.1, -0.4])
    >>> luck_by_match(events, n_matches=3).round(2)
    array([ 0.1, -0.4,  0. ])
    """
    for col in (match, roller, luck):
        if col not in events.columns:
            raise ValueError(f"the event record has no column {col!r}")
    idx = events[match].to_numpy()
    if len(idx) and not (np.issubdtype(idx.dtype, np.integer) and idx.min() >= 0):
        raise ValueError("match must hold non-negative integer positions")
    values = events[luck].to_numpy(dtype=float)
    if not np.isfinite(values).all():
        raise ValueError("luck must be finite")
    sign = _roller_sign(events[roller].to_numpy())
    size = int(idx.max()) + 1 if len(idx) else 0
    if n_matches is not None:
        if n_matches < size:
            raise ValueError(f"n_matches is {n_matches} but the record reaches match {size - 1}")
        size = int(n_matches)
    return np.bincount(idx.astype(np.int64), weights=sign * values, minlength=size)


def adjusted_outcome(y: Any, luck: Any) -> np.ndarray:
    """The luck-adjusted result for player 1: ``y - luck``.

    By the fundamental equation, ``y - luck = Initial + Net Skill`` up to the
    error of the luck estimate. Its expectation equals the expectation of ``y``
    (the probability that player 1 wins) because fair luck estimates average to
    zero, and its variance is smaller when the evaluator is any good. It is
    not restricted to [0, 1].

    Parameters
    ----------
    y : array-like of shape (n_matches,)
        1 where player 1 won, 0 where player 2 won.
    luck : array-like of shape (n_matches,)
        Each match's net luck for player 1 on the win-probability scale.

    Returns
    -------
    ndarray of shape (n_matches,)
        ``y - luck``.

    Examples
    --------
    >>> from skcodex.luck import adjusted_outcome
    >>> adjusted_outcome([1, 0, 1], [0.45, -0.2, -0.1]).round(2)
    array([0.55, 0.2 , 1.1 ])
    """
    outcome = check_outcome(y, len(np.asarray(y, dtype=object)))
    return outcome - check_luck(luck, len(outcome))


def quasi_log_likelihood(outcome: Any, logit_p: Any) -> np.ndarray:
    """Binomial quasi-log-likelihood ``r log sigmoid(q) + (1 - r) log sigmoid(-q)``, per match.

    For ``r`` in {0, 1} this is the Bernoulli log-likelihood of a win with
    probability ``sigmoid(q)``. For a luck-adjusted outcome ``r`` anywhere on
    the real line it stays concave in ``q`` (its second derivative is
    ``-sigmoid(q) sigmoid(-q)`` whatever ``r`` is) and its score ``r - sigmoid(q)``
    has mean zero at the true ``q`` because ``E[r] = P(player 1 wins)``. It is
    the likelihood the package's estimators use for ``fit(X, y, luck=...)``.
    A single outcome above 1 (or below 0) has no maximising ``q``, as a player
    with only wins has none in a logistic fit; sums over many matches, or a
    prior on the strengths, do.
    It treats ``r`` as if it had the spread of a win or loss, which overstates
    the noise of an adjusted outcome, so it errs on the side of caution.

    Parameters
    ----------
    outcome : array-like of shape (n_matches,)
        Player 1's result ``r`` in each match: 0/1, or any real adjusted outcome.
    logit_p : array-like of shape (n_matches,)
        The log-odds ``q`` that player 1 wins each match.

    Returns
    -------
    ndarray of shape (n_matches,)
        The quasi-log-likelihood of each match.

    Examples
    --------
    >>> from skcodex.luck import quasi_log_likelihood
    >>> quasi_log_likelihood([1.0, 1.3, -0.2], [0.0, 0.0, 0.0]).round(4)
    array([-0.6931, -0.6931, -0.6931])
    >>> quasi_log_likelihood([1.3], [1.0]).round(4)
    array([-0.0133])
    """
    return quasi_loglik_terms(outcome, logit_p)


def fit_skills(
    X: pd.DataFrame, outcome: Any, *, penalty: float = 1.0, first_move: bool = True
) -> pd.Series:
    """Penalised Bradley-Terry strengths from raw or luck-adjusted outcomes.

    A small reference estimator: it maximises
    ``sum quasi_log_likelihood(r, s[player1] - s[player2] + h) - penalty / 2 * sum s**2``
    over the strengths ``s`` (log-odds scale) and an unpenalised first-move
    advantage ``h``, by L-BFGS. Decks are ignored. With ``r = y`` it is ridge
    logistic Bradley-Terry; with ``r = adjusted_outcome(y, luck)`` it is the
    same model fitted to luck-adjusted results.

    Parameters
    ----------
    X : DataFrame
        The match table (``player1``, ``player2``, ``deck1``, ``deck2``).
    outcome : array-like of shape (n_matches,)
        Player 1's result in each match: 0/1, or any real adjusted outcome.
    penalty : float, default 1.0
        Ridge penalty on the strengths (a normal prior with variance
        ``1 / penalty``); must be > 0 so the fit is defined for every table.
    first_move : bool, default True
        Fit the first-move advantage ``h`` (otherwise ``h = 0``).

    Returns
    -------
    Series
        Strength by player, sorted by player. ``attrs["first_move"]`` holds ``h``.

    Examples
    --------
    >>> from skcodex.datasets import make_dice_matches
    >>> from skcodex.luck import adjusted_outcome, fit_skills
    >>> data = make_dice_matches(n_players=6, n_matches=600, random_state=1)
    >>> raw = fit_skills(data.X, data.y)
    >>> hedged = fit_skills(data.X, adjusted_outcome(data.y, data.luck))
    >>> hedged.index.equals(data.skills.index)
    True
    >>> bool(hedged.corr(data.skills, method="spearman") > 0.8)
    True
    """
    if not (np.isfinite(penalty) and penalty > 0):
        raise ValueError(f"penalty must be a finite number > 0, got {penalty!r}")
    table = check_match_table(X, read_decks=False)
    r = np.asarray(outcome, dtype=float)
    if r.ndim != 1 or len(r) != len(table):
        raise MatchTableError(
            f"outcome must be one-dimensional with one value per match ({len(table)}), "
            f"got shape {r.shape}"
        )
    if not np.isfinite(r).all():
        raise ValueError("outcome must be finite")
    players = np.array(
        sorted(pd.unique(np.concatenate([table["player1"], table["player2"]])), key=str),
        dtype=object,
    )
    index = {p: i for i, p in enumerate(players)}
    i1 = np.array([index[p] for p in table["player1"]])
    i2 = np.array([index[p] for p in table["player2"]])
    n = len(players)
    objective = _strength_objective(r, i1, i2, n, penalty, first_move)
    result = minimize(objective, np.zeros(n + 1), jac=True, method="L-BFGS-B")
    if not result.success:  # pragma: no cover - the objective is strictly convex and smooth
        raise RuntimeError(f"the strength fit did not converge: {result.message}")
    out = pd.Series(result.x[:n], index=pd.Index(players, name="player"), name="strength")
    out.attrs["first_move"] = float(result.x[n])
    return out


def _strength_objective(r, i1, i2, n, penalty, first_move):
    """Minus the penalised quasi-log-likelihood of strengths and first move, with its gradient."""

    def objective(theta: np.ndarray) -> tuple[float, np.ndarray]:
        s, h = theta[:n], theta[n]
        q = s[i1] - s[i2] + h
        value = -quasi_log_likelihood(r, q).sum() + 0.5 * penalty * s @ s
        resid = expit(q) - r  # derivative of minus the quasi-log-likelihood in q
        grad = np.empty(n + 1)
        grad[:n] = (
            np.bincount(i1, weights=resid, minlength=n)
            - np.bincount(i2, weights=resid, minlength=n)
            + penalty * s
        )
        grad[n] = resid.sum() if first_move else 0.0
        return float(value), grad

    return objective


def zare_example() -> pd.DataFrame:
    """The rolls of Zare's worked game, as published (match equity, Jellyfish's view).

    From D. Zare, "Hedging Toward Skill" (2000): a 1-point match, Jellyfish
    (Level 7) against Snowie 3, with luck estimated by Snowie 3 at 1-ply. The
    article gives Jellyfish's first ten rolls. Columns: ``roll`` (Jellyfish's
    roll number), ``dice``, ``play``, ``average`` (the evaluation one ply
    deeper, averaged over rolls), ``evaluation`` (after the actual roll) and
    ``luck`` as printed. Units are match equity, +1 for a won match and -1 for
    a lost one; divide by 2 for the win-probability scale.

    Returns
    -------
    pandas.DataFrame
        One row a roll, the columns above.

    Examples
    --------
    >>> from skcodex.luck import luck_from_pairs, zare_example
    >>> game = zare_example()
    >>> bool(((luck_from_pairs(game.average, game.evaluation) - game.luck).abs() < 5e-4).all())
    True
    >>> round(float(game.luck.sum()), 3)
    0.239
    """
    rows = [
        (1, "5-2", "13/8 24/22", 0.000, 0.012, 0.012),
        (2, "3-3", "13/10*(2) 8/5(2)", 0.054, 0.284, 0.230),
        (3, "4-2", "24/20 22/20", 0.255, 0.266, 0.011),
        (4, "3-2", "13/10 13/11", 0.308, 0.257, -0.051),
        (5, "3-2", "11-8 6-4", 0.282, 0.238, -0.044),
        (6, "3-1", "10/7 8/7", 0.307, 0.261, -0.046),
        (7, "4-1", "20/15*", 0.362, 0.238, -0.124),
        (8, "4-1", "B/20", 0.161, 0.284, 0.123),
        (9, "1-1", "15/13* 10/9(2)", 0.391, 0.510, 0.119),
        (10, "2-1", "13/11 6/5", 0.455, 0.464, 0.009),
    ]
    return pd.DataFrame(rows, columns=["roll", "dice", "play", "average", "evaluation", "luck"])
