"""Player skills, and how much a match depends on skill rather than decks."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from skcodex.analysis._base import INTERVAL, check_fitted, quantiles
from skcodex.analysis._spreads import (
    describe_prior,
    prior_spread_comparison_draws,
    spread_comparison_draws,
)

__all__ = ["skill_table", "skill_versus_decks"]


def skill_table(
    clf: Any,
    X: pd.DataFrame | None = None,
    *,
    y: Any = None,
    interval: float = INTERVAL,
) -> pd.DataFrame:
    """Player skills with uncertainty, best first.

    Parameters
    ----------
    clf : BayesianMatchupClassifier
        A fitted classifier.
    X : pandas.DataFrame or None, default None
        The training match table; when given, the matches each player played
        are counted.
    y : array-like or None, default None
        The training outcomes (1 = player 1 won); with ``X``, each player's
        wins are counted too.
    interval : float, default 0.9
        Width of the credible interval.

    Returns
    -------
    pandas.DataFrame
        Indexed by player: ``mean``, ``sd``, ``lower``, ``upper`` (the
        interval), ``p_best`` (posterior probability of the highest skill),
        ``rank_mean`` and ``rank_lower``/``rank_upper`` (the rank
        distribution, 1 = best) and, with ``X``, ``matches`` (and with ``y``,
        ``wins``). Skills are log-odds: a skill higher by ``log 2`` doubles a
        player's odds of winning.

    Examples
    --------
    >>> from skcodex import BayesianMatchupClassifier, datasets
    >>> data = datasets.make_matches(n_players=8, n_matches=60, n_tournaments=2)
    >>> clf = BayesianMatchupClassifier(draws=50, tune=50, chains=1)  # a quick, rough fit
    >>> table = skill_table(clf.fit(data.X, data.y), data.X, y=data.y)
    >>> list(table.columns)[:4], int(table["matches"].sum())
    (['mean', 'sd', 'lower', 'upper'], 120)
    """
    check_fitted(clf)
    layout = clf.layout_.static()  # the layout of effect_draws_
    skills = layout.unflatten(clf.effect_draws_)["skill"]
    lower, upper = quantiles(skills, interval)
    ranks = (-skills).argsort(axis=1).argsort(axis=1) + 1
    rank_lower, rank_upper = quantiles(ranks, interval)
    best = np.bincount(skills.argmax(axis=1), minlength=layout.n_players) / len(skills)
    table = pd.DataFrame(
        {
            "mean": skills.mean(axis=0),
            "sd": skills.std(axis=0, ddof=1) if len(skills) > 1 else 0.0,
            "lower": lower,
            "upper": upper,
            "p_best": best,
            "rank_mean": ranks.mean(axis=0),
            "rank_lower": rank_lower,
            "rank_upper": rank_upper,
        },
        index=pd.Index(clf.vocabulary_.players, name="player"),
    )
    if X is not None:
        counts = pd.concat([X["player1"], X["player2"]]).value_counts()
        table["matches"] = counts.reindex(table.index).fillna(0).astype(int)
        if y is not None:
            won = np.asarray(y).astype(bool)
            winners = pd.Series(np.where(won, X["player1"], X["player2"]))
            table["wins"] = winners.value_counts().reindex(table.index).fillna(0).astype(int)
    return table.sort_values("mean", ascending=False)


def skill_versus_decks(clf: Any, interval: float = INTERVAL) -> pd.DataFrame:
    """How much a match depends on the players' skill against the decks.

    The log-odds that player 1 wins are ``skill1 - skill2 + m``. Over random
    pairs of players the skill part has sd ``sqrt(2) sd_player`` (a
    difference of two independent skills); over random deck pairs the deck
    part ``m`` has sd ``sd_deck`` (`deck_spread_draws`). Both are computed
    draw by draw from the fitted spreads.

    Two comparisons are reported. The seed's is of the spreads themselves,
    ``sd_player`` against ``sd_deck`` (``ratio`` and
    ``attrs["p_player_spread_larger"]``). The match-level one compares the
    two parts of a match's log-odds: ``skill_share``, the skill part's share
    of the log-odds variance ``2 sd_player^2 / (2 sd_player^2 + sd_deck^2)``,
    and ``attrs["p_skill_matters_more"]`` = P(skill_share > 1/2) =
    P(``sqrt(2) sd_player > sd_deck``). The match-level comparison is the one
    that answers "does the match depend more on who plays or on what they
    play?": a pair of players differs by a difference of two skills, while a
    deck pair's matchup is one draw of ``m``.

    Parameters
    ----------
    clf : BayesianMatchupClassifier
        A fitted classifier.
    interval : float, default 0.9
        Width of every equal-tailed credible interval.

    Returns
    -------
    pandas.DataFrame
        Rows ``sd_player``, ``sd_skill_difference``, ``sd_deck``, ``ratio``
        and ``skill_share`` (and ``sd_familiarity`` for a model with
        familiarity effects); columns ``mean``, ``lower``, ``upper``;
        ``attrs["p_skill_matters_more"]`` and
        ``attrs["p_player_spread_larger"]``; the same two probabilities under
        the prior alone, ``attrs["prior_p_skill_matters_more"]`` and
        ``attrs["prior_p_player_spread_larger"]`` (simulated, see
        `prior_spread_comparison_draws`), to read the posterior ones against;
        and ``attrs["prior"]``, the prior in words (`describe_prior`).

    Examples
    --------
    >>> from skcodex import BayesianMatchupClassifier, datasets
    >>> data = datasets.make_matches(n_players=8, n_matches=60, n_tournaments=2)
    >>> clf = BayesianMatchupClassifier(draws=50, tune=50, chains=1)  # a quick, rough fit
    >>> table = skill_versus_decks(clf.fit(data.X, data.y))
    >>> table.index.tolist()
    ['sd_player', 'sd_skill_difference', 'sd_deck', 'ratio', 'skill_share']
    """
    draws = spread_comparison_draws(clf)
    out = pd.DataFrame(
        {
            name: [v.mean(), *(float(q) for q in quantiles(v.to_numpy(), interval))]
            for name, v in draws.items()
        },
        index=["mean", "lower", "upper"],
    ).T
    out.attrs["p_skill_matters_more"] = float(np.mean(draws["skill_share"] > 0.5))
    out.attrs["p_player_spread_larger"] = float(np.mean(draws["sd_player"] > draws["sd_deck"]))
    prior = prior_spread_comparison_draws(clf)
    out.attrs["prior_p_skill_matters_more"] = float(np.mean(prior["skill_share"] > 0.5))
    prior_larger = prior["sd_player"] > prior["sd_deck"]
    out.attrs["prior_p_player_spread_larger"] = float(np.mean(prior_larger))
    out.attrs["prior"] = describe_prior(clf)
    out.attrs["interval"] = interval
    return out
