"""Glicko-2: Glickman's rating system, vectorised, as a scikit-learn classifier.

The algorithm is the one in Mark E. Glickman, *Example of the Glicko-2
system* (glicko.net/glicko/glicko2.pdf):

1. convert rating and RD to the Glicko-2 scale, ``mu = (r - 1500) / 173.7178``,
   ``phi = RD / 173.7178``;
2. the estimated variance ``v = 1 / sum g(phi_j)^2 E_j (1 - E_j)`` with
   ``g(phi) = 1 / sqrt(1 + 3 phi^2 / pi^2)`` and
   ``E_j = 1 / (1 + exp(-g(phi_j) (mu - mu_j)))``;
3. the improvement ``delta = v sum g(phi_j) (s_j - E_j)``;
4. the new volatility ``sigma' = exp(A / 2)``, where ``A`` is the root of
   ``f(x) = e^x (delta^2 - phi^2 - v - e^x) / (2 (phi^2 + v + e^x)^2) - (x - a) / tau^2``,
   ``a = ln sigma^2``, found by the Illinois (regula falsi) iteration to tolerance
   ``epsilon``, started from the paper's bracket ``[a, B]``. When ``v`` is large
   (few games, against far stronger or weaker opponents) and ``tau`` too, ``f``
   can have three roots there; the iteration converges to the one nearest ``a``,
   the smallest change of volatility;
5. ``phi* = sqrt(phi^2 + sigma'^2)``, ``phi' = 1 / sqrt(1 / phi*^2 + 1 / v)``,
   ``mu' = mu + phi'^2 sum g(phi_j) (s_j - E_j)``;
6. back to the rating scale. A player who sits out a period keeps rating and
   volatility, and their deviation grows to ``sqrt(phi^2 + sigma^2)``.

Everything here works on arrays of players at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Real
from typing import Any, ClassVar

import numpy as np
from scipy.special import expit

from skcodex._compat.scikit_learn import Interval
from skcodex.ratings._base import (
    GLICKO_SCALE,
    RATING_CONSTRAINTS,
    RATING_STATE,
    RatingClassifierMixin,
    TrainingMatches,
    build_schedule,
)

__all__ = ["Glicko2Classifier", "glicko2_update"]

_MAX_ITER = 200
_MIN_INFO = 1e-12  # floor of 1 / v, so that v stays finite


def _g(phi2: np.ndarray) -> np.ndarray:
    """Glickman's ``g``, from the squared deviation ``phi^2``."""
    return 1.0 / np.sqrt(1.0 + 3.0 * phi2 / np.pi**2)


def _expected(g_opp: np.ndarray, diff: np.ndarray) -> np.ndarray:
    """``E = 1 / (1 + exp(-g diff))``."""
    return expit(g_opp * diff)


def _f(x, gap, c, a, inv_tau2):
    """The paper's ``f(x)``, with ``gap = delta^2 - phi^2 - v`` and ``c = phi^2 + v``."""
    ex = np.exp(x)
    q = c + ex
    return ex * (gap - ex) / (2.0 * q * q) - (x - a) * inv_tau2


def _new_volatility(
    phi2: np.ndarray,
    v: np.ndarray,
    delta: np.ndarray,
    sigma: np.ndarray,
    tau: float,
    epsilon: float,
) -> np.ndarray:
    """Step 5 of the paper for many players at once: the Illinois iteration on ``f``.

    Players whose iteration has converged are dropped from the working arrays.
    """
    sigma2 = sigma**2
    a = np.log(sigma2)
    c = phi2 + v
    gap = delta**2 - c
    inv_tau2 = 1.0 / tau**2
    A = a.copy()
    big = gap > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        B = np.where(big, np.log(gap), a - tau)
    fB = _f(B, gap, c, a, inv_tau2)
    # where delta^2 <= phi^2 + v: the first k = 1, 2, ... with f(a - k tau) >= 0
    # (f -> +inf as x -> -inf, so this ends)
    todo = np.flatnonzero(~big & (fB < 0))
    k = 1.0
    while todo.size:
        k += 1.0
        B[todo] = a[todo] - k * tau
        fB[todo] = f_todo = _f(B[todo], gap[todo], c[todo], a[todo], inv_tau2)
        todo = todo[f_todo < 0]
    fA = sigma2 * (gap - sigma2) / (2.0 * (c + sigma2) ** 2)  # f(a)

    idx = np.flatnonzero(np.abs(B - A) > epsilon)
    wA, wB, wfA, wfB = A[idx], B[idx], fA[idx], fB[idx]
    w_gap, w_c, w_a = gap[idx], c[idx], a[idx]
    with np.errstate(divide="ignore", invalid="ignore"):
        for _ in range(_MAX_ITER):
            if not idx.size:
                break
            C = wA + (wA - wB) * wfA / (wfB - wfA)
            stuck = ~np.isfinite(C)
            if stuck.any():  # fB == fA: fall back to bisection for this step
                C[stuck] = 0.5 * (wA[stuck] + wB[stuck])
            fC = _f(C, w_gap, w_c, w_a, inv_tau2)
            swap = fC * wfB <= 0
            wA = np.where(swap, wB, wA)
            wfA = np.where(swap, wfB, 0.5 * wfA)
            wB, wfB = C, fC
            done = np.abs(wB - wA) <= epsilon
            if done.any():
                A[idx[done]] = wA[done]
                keep = ~done
                idx, wA, wB, wfA, wfB = idx[keep], wA[keep], wB[keep], wfA[keep], wfB[keep]
                w_gap, w_c, w_a = w_gap[keep], w_c[keep], w_a[keep]
    A[idx] = wA  # only if the iteration limit was reached
    return np.exp(A / 2.0)


def _step(
    mu: np.ndarray,
    phi2: np.ndarray,
    sigma: np.ndarray,
    info: np.ndarray,
    gain: np.ndarray,
    tau: float,
    epsilon: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One period's update of players who played, from ``info = 1 / v`` and
    ``gain = sum g(phi_j) (s_j - E_j)``. Returns ``mu'``, ``phi'^2``, ``sigma'``."""
    info = np.maximum(info, _MIN_INFO)
    v = 1.0 / info
    sigma_new = _new_volatility(phi2, v, v * gain, sigma, tau, epsilon)
    phi_star2 = phi2 + sigma_new**2
    phi_new2 = 1.0 / (1.0 / phi_star2 + info)
    return mu + phi_new2 * gain, phi_new2, sigma_new


def _check_number(value: Any, name: str, *, positive: bool = False) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Real, np.number)):
        raise ValueError(f"{name} must be a number, got {value!r}")
    out = float(value)
    if not np.isfinite(out):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if positive and out <= 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return out


def _check_games(opponents: Any, scores: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The opponents' ratings and rating deviations, and the scores, checked."""
    opponents = list(opponents)
    scores = list(scores)
    if len(opponents) != len(scores):
        raise ValueError(
            f"{len(opponents)} opponents but {len(scores)} scores; give one score per game"
        )
    opp_r = np.empty(len(opponents))
    opp_rd = np.empty(len(opponents))
    for j, opp in enumerate(opponents):
        if not isinstance(opp, (tuple, list, np.ndarray)) or len(opp) not in (2, 3):
            raise ValueError(f"opponent {j} must be (rating, rd), got {opp!r}")
        opp_r[j] = _check_number(opp[0], f"opponent {j}'s rating")
        opp_rd[j] = _check_number(opp[1], f"opponent {j}'s rd", positive=True)
    s = np.empty(len(scores))
    for j, value in enumerate(scores):
        s[j] = _check_number(value, f"score {j}")
        if not 0 <= s[j] <= 1:
            raise ValueError(
                f"score {j} must lie in [0, 1] (1 win, 0.5 draw, 0 loss), got {value!r}"
            )
    return opp_r, opp_rd, s


def glicko2_update(
    player: tuple[float, float, float],
    opponents: Sequence[tuple[float, float]],
    scores: Sequence[float],
    tau: float = 0.5,
    *,
    epsilon: float = 1e-6,
) -> tuple[float, float, float]:
    """One player's Glicko-2 update over one rating period.

    Parameters
    ----------
    player : (rating, rd, volatility)
        The player's values at the start of the period, on the rating scale
        (e.g. 1500, 350, 0.06).
    opponents : sequence of (rating, rd)
        Each game's opponent at the start of the period (a third element,
        the opponent's volatility, is allowed and ignored).
    scores : sequence of float
        The player's score in each game: 1 a win, 0.5 a draw, 0 a loss
        (anything in [0, 1]).
    tau : float, default 0.5
        The system constant that limits the change of volatility.
    epsilon : float, default 1e-6
        Tolerance of the volatility iteration.

    Returns
    -------
    (rating, rd, volatility)
        At the end of the period. With no games, the rating and volatility
        are kept and the deviation grows to ``sqrt(phi^2 + sigma^2)``.

    Examples
    --------
    Glickman's worked example:

    >>> from skcodex.ratings import glicko2_update
    >>> r, rd, vol = glicko2_update(
    ...     (1500, 200, 0.06), [(1400, 30), (1550, 100), (1700, 300)], [1, 0, 0], tau=0.5
    ... )
    >>> round(r, 2), round(rd, 2), round(vol, 6)
    (1464.05, 151.52, 0.059996)
    """
    try:
        rating, rd, volatility = player
    except (TypeError, ValueError):
        raise ValueError(f"player must be (rating, rd, volatility), got {player!r}") from None
    rating = _check_number(rating, "the player's rating")
    rd = _check_number(rd, "the player's rd", positive=True)
    volatility = _check_number(volatility, "the player's volatility", positive=True)
    tau = _check_number(tau, "tau", positive=True)
    epsilon = _check_number(epsilon, "epsilon", positive=True)
    opp_r, opp_rd, s = _check_games(opponents, scores)
    mu = (rating - 1500.0) / GLICKO_SCALE
    phi2 = (rd / GLICKO_SCALE) ** 2
    if not len(s):
        return rating, GLICKO_SCALE * float(np.sqrt(phi2 + volatility**2)), volatility
    mu_j = (opp_r - 1500.0) / GLICKO_SCALE
    g_j = _g((opp_rd / GLICKO_SCALE) ** 2)
    e_j = _expected(g_j, mu - mu_j)
    info = np.array([np.sum(g_j**2 * e_j * (1.0 - e_j))])
    gain = np.array([np.sum(g_j * (s - e_j))])
    mu_new, phi_new2, sigma_new = _step(
        np.array([mu]), np.array([phi2]), np.array([volatility]), info, gain, tau, epsilon
    )
    return (
        float(GLICKO_SCALE * mu_new[0] + 1500.0),
        float(GLICKO_SCALE * np.sqrt(phi_new2[0])),
        float(sigma_new[0]),
    )


class Glicko2Classifier(RatingClassifierMixin):
    """Glicko-2 ratings as a scikit-learn classifier of match outcomes.

    ``fit`` replays the matches rating period by rating period (Glickman's
    algorithm, see `glicko2_update`); ``predict_proba`` uses the ratings at
    the end of ``fit`` and accounts for both players' uncertainty:
    ``P(player 1 wins) = 1 / (1 + exp(-g(sqrt(phi1^2 + phi2^2)) (mu1 + h - mu2)))``
    on the Glicko-2 scale, where ``h`` is the first-mover advantage. Decks are
    ignored.

    Parameters
    ----------
    tau : float, default=0.5
        The system constant: how much volatility may change (Glickman suggests
        0.3 to 1.2).
    initial_rating : float, default=1500.0
        Rating of a new player, and of a player not seen in training.
    initial_rd : float, default=350.0
        Rating deviation of a new player.
    initial_volatility : float, default=0.06
        Volatility of a new player.
    epsilon : float, default=1e-6
        Tolerance of the volatility iteration.
    first_mover_advantage : float or "auto", default=0.0
        Rating points (not Glicko-2 units) added to player 1's rating, who moved
        first, whenever an expected score or a probability is computed.
        ``"auto"``: from player 1's mean training score ``w``, with a win and a
        loss added, ``h = 400 log10(w / (1 - w))`` (as in `EloClassifier`).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        Always ``[0, 1]``: class 1 means player 1 won.
    ratings_ : pandas.DataFrame
        One row a training player, best first: ``player``, ``rating``, ``rd``,
        ``volatility``, ``matches``, ``last_period`` (the label of the player's
        last period; the row position in the training table when there is no
        ``period`` column). Values are at the end of the last training period:
        the deviation of a player who sat out later periods has grown.
    first_mover_advantage_ : float
        The first-mover advantage that was used, in rating points.
    n_periods_ : int
        How many rating periods the training table holds.

    Notes
    -----
    *Rating periods.* All matches with the same ``period`` label form one
    rating period: every player in it is updated together from the ratings at
    the start of the period. Periods are processed in the order of their first
    row; a label that reappears after another period started still belongs to
    its first period. Without a ``period`` column every match is its own
    period, so a player's deviation grows with every match they sit out;
    Glickman recommends periods with 10 to 15 games per player.

    *Luck.* ``fit(X, y, luck=l)`` updates with player 1's score ``y - l``
    (player 2's is ``1 - (y - l)``), which may lie outside [0, 1].

    Examples
    --------
    >>> import pandas as pd
    >>> from skcodex import Glicko2Classifier
    >>> X = pd.DataFrame({
    ...     "player1": ["ann", "bob", "ann", "cat"],
    ...     "player2": ["bob", "cat", "cat", "bob"],
    ...     "deck1": ["MonoRed", "MonoBlue", "MonoRed", "MonoGreen"],
    ...     "deck2": ["MonoBlue", "MonoGreen", "MonoGreen", "MonoBlue"],
    ...     "period": ["week1", "week1", "week2", "week2"],
    ... })
    >>> model = Glicko2Classifier().fit(X, [1, 1, 1, 0])
    >>> model.ratings_[["player", "matches"]].values.tolist()
    [['ann', 2], ['bob', 3], ['cat', 3]]
    >>> p = model.predict_proba(X.iloc[:1])
    >>> model.classes_.tolist(), bool(p[0, 1] > 0.5)
    ([0, 1], True)
    """

    #: The fitted attributes a saved file holds (see `skcodex._format.persistence`).
    _persisted_state: ClassVar[tuple[str, ...]] = (*RATING_STATE, "_mu", "_phi2")
    _finite_params: ClassVar[tuple[str, ...]] = (
        "tau",
        "initial_rating",
        "initial_rd",
        "initial_volatility",
        "epsilon",
    )
    _scale: ClassVar[float] = GLICKO_SCALE

    # Bounds keep the updates' exponentials and the volatility iteration finite:
    _parameter_constraints: ClassVar[dict] = {
        **RATING_CONSTRAINTS,
        # Glickman suggests 0.3 to 1.2; past 10 the volatility may jump by e^10 a period
        "tau": [Interval(Real, 0, 10, closed="right")],
        # 350 is "unknown"; 5000 points (29 on the Glicko-2 scale) is far beyond it
        "initial_rd": [Interval(Real, 0, 5000, closed="right")],
        # volatility is a per-period standard deviation on the Glicko-2 scale (0.06 typical)
        "initial_volatility": [Interval(Real, 0, 5, closed="right")],
        # the iteration's tolerance: below 1e-15 it cannot be met in double precision
        "epsilon": [Interval(Real, 1e-15, 0.1, closed="both")],
    }

    def __init__(
        self,
        tau: float = 0.5,
        initial_rating: float = 1500.0,
        initial_rd: float = 350.0,
        initial_volatility: float = 0.06,
        epsilon: float = 1e-6,
        first_mover_advantage: float | str = 0.0,
    ):
        self.tau = tau
        self.initial_rating = initial_rating
        self.initial_rd = initial_rd
        self.initial_volatility = initial_volatility
        self.epsilon = epsilon
        self.first_mover_advantage = first_mover_advantage

    def _replay(self, data: TrainingMatches, h: float) -> dict[str, np.ndarray]:
        """Glickman's updates, period by period (in levels, see `build_schedule`)."""
        tau, eps = float(self.tau), float(self.epsilon)
        n_players = data.n_players
        mu0 = (float(self.initial_rating) - 1500.0) / GLICKO_SCALE
        phi2_0 = (float(self.initial_rd) / GLICKO_SCALE) ** 2
        mu = np.full(n_players, mu0)
        phi2 = np.full(n_players, phi2_0)
        sigma = np.full(n_players, float(self.initial_volatility))

        sched = build_schedule(data.player1, data.player2, data.period, n_players)
        score = data.score[sched.order][sched.side_match]
        side_score = np.where(sched.side_first, score, 1.0 - score)
        side_h = np.where(sched.side_first, h, -h)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            for sides, slots in sched.levels():
                who = sched.slot_player[slots]
                s_mu, s_sigma = mu[who], sigma[who]
                s_phi2 = phi2[who] + sched.slot_idle[slots] * s_sigma**2
                own, opp = sched.side_slot[sides], sched.side_opp[sides]
                g_opp = _g(s_phi2)[opp]
                e = _expected(g_opp, s_mu[own] + side_h[sides] - s_mu[opp])
                n_slots = slots.stop - slots.start
                info = np.bincount(own, g_opp * g_opp * e * (1.0 - e), minlength=n_slots)
                gain = np.bincount(own, g_opp * (side_score[sides] - e), minlength=n_slots)
                mu[who], phi2[who], sigma[who] = _step(s_mu, s_phi2, s_sigma, info, gain, tau, eps)

        # at the end of the last period: players who sat out later periods grew their RD
        phi2 = phi2 + (data.n_periods - 1 - data.last_period) * sigma**2
        self._mu = np.append(mu, mu0)
        self._phi2 = np.append(phi2, phi2_0)
        return {
            "rating": GLICKO_SCALE * mu + 1500.0,
            "rd": GLICKO_SCALE * np.sqrt(phi2),
            "volatility": sigma,
        }

    def _p_win(self, code1: np.ndarray, code2: np.ndarray) -> np.ndarray:
        # code -1 (an unseen player) picks the appended initial values
        mu1, mu2 = self._mu[code1], self._mu[code2]
        g = _g(self._phi2[code1] + self._phi2[code2])
        return expit(g * (mu1 + self.first_mover_advantage_ / GLICKO_SCALE - mu2))
