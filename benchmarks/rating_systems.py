"""Other projects' rating systems as scikit-learn classifiers, for the forecast benchmark.

Whole-History Rating (``whr``), TrueSkill Through Time (``trueskillthroughtime``) and
OpenSkill Plackett-Luce (``openskill``) are optional: ``pip install skcodex[bench]``.
Each classifier reads ``player1``, ``player2`` and the tournament label ``period`` of a
match table (decks are ignored: these rate players only, and WHR and TrueSkill Through
Time can give player 1 an edge) and forecasts P(player 1 wins) from each player's rating
after the last training match. A player never seen in training gets the system's initial
rating.

Time, for the whole-history systems, is the tournament's index in start order (its first
match's ``start``, else ``date``).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.special import ndtr
from sklearn.base import BaseEstimator, ClassifierMixin

from skcodex.ratings._base import first_mover_points


def tournament_index(X: pd.DataFrame) -> np.ndarray:
    """Each match's tournament, numbered 0, 1, ... in order of the tournament's first start.

    Parameters
    ----------
    X : pandas.DataFrame
        Match table with a ``period`` column and a ``start`` (or ``date``) column.

    Returns
    -------
    numpy.ndarray of int
        One index per row of ``X``.
    """
    missing = {"player1", "player2", "period"} - set(X.columns)
    if missing:
        raise ValueError(f"the match table has no column {sorted(missing)}")
    when = X["start"] if "start" in X.columns else X["date"]
    first = pd.Series(when.to_numpy()).groupby(X["period"].to_numpy(), sort=False).min()
    order = first.sort_values(kind="stable").index
    rank = pd.Series(np.arange(len(order)), index=order)
    return rank.loc[X["period"].to_numpy()].to_numpy()


def _chronological(X: pd.DataFrame) -> np.ndarray:
    """Row positions in the order the results became known: by ``end`` (else ``date``), then row.

    The sequential system (OpenSkill) updates in this order; the whole-history systems
    group matches by tournament index instead.
    """
    when = next((c for c in ("end", "date") if c in X.columns), None)
    keys = [np.arange(len(X))]
    if when is not None:
        keys.append(X[when].to_numpy())
    return np.lexsort(keys)


class _PlayerRating(ClassifierMixin, BaseEstimator):
    """Shared fit/predict: subclasses rate players and turn two ratings into P(win)."""

    def fit(self, X: pd.DataFrame, y) -> _PlayerRating:
        y = np.asarray(y).astype(int)
        if len(y) != len(X):
            raise ValueError(f"X has {len(X)} rows but y has {len(y)}")
        self.classes_ = np.array([0, 1])
        self._rate(X, y)
        return self

    def predict_proba(self, X: pd.DataFrame) -> np.ndarray:
        p = np.array(
            [self._win_probability(a, b) for a, b in zip(X["player1"], X["player2"])],
            dtype=float,
        )
        return np.column_stack([1 - p, p])


class WHRClassifier(_PlayerRating):
    """Whole-History Rating (Coulom 2008) through the ``whr`` package.

    Parameters
    ----------
    w2 : float, default=14
        Variance of the rating's Wiener step per time unit (Elo points squared).
    first_mover_advantage : float or "auto", default=0.0
        Player 1's edge in Elo points, given to ``whr`` as each game's handicap;
        ``"auto"`` reads it from player 1's training share of wins, as
        `skcodex.EloClassifier` does.
    """

    def __init__(self, w2: float = 14.0, first_mover_advantage: float | str = 0.0):
        self.w2 = w2
        self.first_mover_advantage = first_mover_advantage

    def _rate(self, X, y):
        import whr

        self.first_mover_advantage_ = first_mover_points(self.first_mover_advantage, y)
        base = whr.Base(config={"w2": self.w2})
        step = tournament_index(X)
        for i in _chronological(X):
            base.create_game(
                str(X["player1"].iat[i]),
                str(X["player2"].iat[i]),
                "B" if y[i] else "W",
                int(step[i]),
                handicap=self.first_mover_advantage_,
            )
        base.iterate_until_converge(verbose=False)
        players = set(X["player1"].astype(str)) | set(X["player2"].astype(str))
        self.elo_ = {p: base.ratings_for_player(p)[-1][1] for p in players}

    def _win_probability(self, a, b):
        diff = self.elo_.get(str(a), 0.0) + self.first_mover_advantage_ - self.elo_.get(str(b), 0.0)
        return 1.0 / (1.0 + 10.0 ** (-diff / 400.0))


class TTTClassifier(_PlayerRating):
    """TrueSkill Through Time (Dangauthier et al. 2007) through ``trueskillthroughtime``.

    Parameters
    ----------
    sigma : float, default=1.6
        Prior sd of a new player's skill.
    beta : float, default=1.0
        Sd of performance around skill.
    gamma : float, default=0.02
        Sd of the skill's drift per time unit (one tournament); a forecast adds one step.
    first_mover : bool, default=False
        Give player 1 a teammate in every game, ``FIRST_MOVER``, whose skill is learned
        as any player's (same prior and drift) but who adds no performance noise
        (``beta=0``): player 1's edge, in TrueSkill's own terms.
    """

    FIRST_MOVER = "(first mover)"

    def __init__(
        self, sigma: float = 1.6, beta: float = 1.0, gamma: float = 0.02, first_mover: bool = False
    ):
        self.sigma = sigma
        self.beta = beta
        self.gamma = gamma
        self.first_mover = first_mover

    def _rate(self, X, y):
        import trueskillthroughtime as ttt

        order = _chronological(X)
        step = tournament_index(X)
        edge = [self.FIRST_MOVER] if self.first_mover else []
        composition = [
            [[str(X["player1"].iat[i]), *edge], [str(X["player2"].iat[i])]] for i in order
        ]
        results = [[1.0, 0.0] if y[i] else [0.0, 1.0] for i in order]
        history = ttt.History(
            composition,
            results=results,
            times=[int(step[i]) for i in order],
            mu=0.0,
            sigma=self.sigma,
            beta=self.beta,
            gamma=self.gamma,
            priors={
                self.FIRST_MOVER: ttt.Player(
                    ttt.Gaussian(0.0, self.sigma), beta=0.0, gamma=self.gamma
                )
            }
            if self.first_mover
            else {},
        )
        history.convergence(verbose=False)
        self.skill_ = {
            p: (curve[-1][1].mu, curve[-1][1].sigma)
            for p, curve in history.learning_curves().items()
        }

    def _win_probability(self, a, b):
        new = (0.0, math.sqrt(self.sigma**2))
        (ma, sa), (mb, sb) = self.skill_.get(str(a), new), self.skill_.get(str(b), new)
        var = sa**2 + sb**2 + 2 * self.gamma**2 + 2 * self.beta**2
        if self.first_mover:
            me, se = self.skill_[self.FIRST_MOVER]
            ma, var = ma + me, var + se**2 + self.gamma**2
        return float(ndtr((ma - mb) / math.sqrt(var)))


class OpenSkillClassifier(_PlayerRating):
    """OpenSkill's Plackett-Luce model (Weng and Lin 2011) through ``openskill``, defaults."""

    def _rate(self, X, y):
        from openskill.models import PlackettLuce

        self.model_ = PlackettLuce()
        self.rating_ = {}
        for i in _chronological(X):
            a, b = str(X["player1"].iat[i]), str(X["player2"].iat[i])
            ra = self.rating_.setdefault(a, self.model_.rating(name=a))
            rb = self.rating_.setdefault(b, self.model_.rating(name=b))
            winner, loser = ([ra], [rb]) if y[i] else ([rb], [ra])
            (new_w,), (new_l,) = self.model_.rate([winner, loser])
            self.rating_[winner[0].name], self.rating_[loser[0].name] = new_w, new_l

    def _win_probability(self, a, b):
        ra = self.rating_.get(str(a)) or self.model_.rating(name=str(a))
        rb = self.rating_.get(str(b)) or self.model_.rating(name=str(b))
        return float(self.model_.predict_win([[ra], [rb]])[0])
