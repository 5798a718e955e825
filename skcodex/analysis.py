"""What users came for, from a fitted BayesianMatchupClassifier: skills and spreads."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

#: Width of the credible intervals reported throughout.
INTERVAL = 0.90


def _quantiles(draws: np.ndarray, interval: float = INTERVAL) -> tuple[np.ndarray, np.ndarray]:
    tail = (1.0 - interval) / 2.0
    return np.quantile(draws, tail, axis=0), np.quantile(draws, 1.0 - tail, axis=0)


def skill_table(clf, X: pd.DataFrame | None = None, interval: float = INTERVAL) -> pd.DataFrame:
    """Player skills with uncertainty, best first.

    Parameters
    ----------
    clf : BayesianMatchupClassifier
        A fitted classifier.
    X : pandas.DataFrame, optional
        The training match table; when given, the matches each player played
        are counted.
    interval : float
        Width of the credible interval.

    Returns
    -------
    pandas.DataFrame
        Indexed by player: ``mean``, ``sd``, ``lower``, ``upper`` (the
        interval), ``p_best`` (posterior probability of the highest skill),
        ``rank_mean`` and ``rank_lower``/``rank_upper`` (the rank
        distribution, 1 = best) and, with ``X``, ``matches``.
    """
    check_is_fitted(clf, "effect_draws_")
    layout = clf.layout_
    skills = clf.effect_draws_[:, : layout.n_players]
    lower, upper = _quantiles(skills, interval)
    ranks = (-skills).argsort(axis=1).argsort(axis=1) + 1
    rank_lower, rank_upper = _quantiles(ranks, interval)
    best = np.bincount(skills.argmax(axis=1), minlength=layout.n_players) / len(skills)
    table = pd.DataFrame(
        {
            "mean": skills.mean(axis=0),
            "sd": skills.std(axis=0, ddof=1),
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
    return table.sort_values("mean", ascending=False)


def deck_spread_draws(spread_draws: np.ndarray, specs_per_deck: int = 3) -> np.ndarray:
    """Per-draw sd of the deck matchup m over deck pairs.

    With k specs a deck, m sums 1 starter-vs-starter, 2k starter-vs-spec or
    spec-vs-starter and k^2 spec-vs-spec effects, so its variance is
    ``sd_stst^2 + 2k sd_stsp^2 + k^2 sd_spsp^2``.
    """
    k = specs_per_deck
    sd = np.asarray(spread_draws)
    return np.sqrt(sd[:, 1] ** 2 + 2 * k * sd[:, 2] ** 2 + k**2 * sd[:, 3] ** 2)


def skill_versus_decks(clf, interval: float = INTERVAL) -> pd.DataFrame:
    """How much a match depends on the players' skill against the decks.

    Compares, draw by draw, the player-skill spread ``sd_player`` with the total
    deck-matchup spread (`deck_spread_draws`). The skill part of a match's
    log-odds is a difference of two skills, with sd ``sqrt(2) sd_player``;
    ``skill_share`` is its share of the log-odds variance,
    ``2 sd_player^2 / (2 sd_player^2 + sd_deck^2)``.

    Returns
    -------
    pandas.DataFrame
        Rows ``sd_player``, ``sd_deck``, ``ratio`` (sd_player / sd_deck) and
        ``skill_share``; columns ``mean``, ``lower``, ``upper``; and
        ``attrs["p_skill_matters_more"]``, the posterior probability that the
        skill difference varies more than the deck matchup
        (``sqrt(2) sd_player > sd_deck``).
    """
    check_is_fitted(clf, "spread_draws_")
    sd_player = clf.spread_draws_[:, 0]
    sd_deck = deck_spread_draws(clf.spread_draws_, clf.layout_.specs_per_deck)
    rows = {
        "sd_player": sd_player,
        "sd_deck": sd_deck,
        "ratio": sd_player / sd_deck,
        "skill_share": 2 * sd_player**2 / (2 * sd_player**2 + sd_deck**2),
    }
    out = pd.DataFrame(
        {
            name: [v.mean(), *(float(q) for q in _quantiles(v, interval))]
            for name, v in rows.items()
        },
        index=["mean", "lower", "upper"],
    ).T
    out.attrs["p_skill_matters_more"] = float(np.mean(np.sqrt(2) * sd_player > sd_deck))
    return out
