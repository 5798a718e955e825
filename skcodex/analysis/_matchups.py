"""Win probabilities of decks against decks, of single matches, and decks ranked by them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import expit

from skcodex._docstrings import shared_parameters
from skcodex._matchup.deck_pairs import deck_logits
from skcodex.analysis._base import CHUNK_BYTES, INTERVAL, catalogue, check_fitted, quantiles, thin
from skcodex.analysis._decks import _choose_deck_lists, _choose_decks
from skcodex.codex import Deck, deck_label
from skcodex.data import encode

__all__ = ["deck_ranking", "match_forecast", "matchup_draws", "matchup_table"]


def _matchup_logits(
    clf: Any, decks1: list[Deck], decks2: list[Deck]
) -> Callable[[np.ndarray], np.ndarray]:
    """A function of draw indices giving m(deck1, deck2): (n_draws, n1, n2) log-odds.

    The decks are encoded against the fitted vocabulary once; a starter or
    spec never seen in fit gets one fresh population draw per posterior draw
    (`BayesianMatchupClassifier.effect_draws_for`), shared by every deck
    holding it. The log-odds are `skcodex._matchup.deck_pairs.deck_logits`.
    """
    vocab = clf.vocabulary_
    decks = pd.Series([*decks1, *decks2])
    n1 = len(decks1)
    # Matches of one player, so that only the decks are read from the codes.
    player = pd.Series(vocab.players[:1] * len(decks))
    table = pd.DataFrame({"player1": player, "player2": player, "deck1": decks, "deck2": decks})
    codes = encode(table, vocab)
    theta, layout = clf.effect_draws_for(codes)
    starter, specs = codes.starter1, codes.specs1

    def logits(draws: np.ndarray) -> np.ndarray:
        return deck_logits(layout, theta[draws], starter[:n1], specs[:n1], starter[n1:], specs[n1:])

    return logits


def _game_chunks(
    clf: Any,
    decks1: list[Deck],
    decks2: list[Deck],
    draws: np.ndarray,
):
    """Yield ``(start, p)``: P(player 1 wins) at equal skill for consecutive chunks of draws.

    A chunk holds as many draws as fit `CHUNK_BYTES` with four arrays of its size.
    """
    logits = _matchup_logits(clf, decks1, decks2)
    step = max(1, CHUNK_BYTES // (8 * 4 * len(decks1) * len(decks2)))
    for start in range(0, len(draws), step):
        yield start, expit(logits(draws[start : start + step]))


def _check_players(player1: Any, player2: Any) -> bool:
    if (player1 is None) != (player2 is None):
        raise ValueError(
            "name both players (player1 and player2) or neither (equally skilled players)"
        )
    return player1 is not None


@shared_parameters
def matchup_draws(
    clf: Any,
    decks1: Sequence[str | Deck] | None = None,
    decks2: Sequence[str | Deck] | None = None,
    *,
    player1: Any = None,
    player2: Any = None,
    n_draws: int | None = None,
) -> np.ndarray:
    """P(player 1 wins) for every deck pair and posterior draw.

    Parameters
    ----------
    {matchup_decks}
    n_draws : int or None, default None
        Use this many evenly spaced posterior draws (all by default).

    Returns
    -------
    ndarray of shape (n_draws, len(decks1), len(decks2))
        P(player 1 wins) for each draw, deck of player 1 and deck of player 2.

    Notes
    -----
    A starter or spec never seen in fit gets a fresh effect from its
    population, N(0, sd), for every draw, as in `predict_proba`.
    """
    check_fitted(clf)
    d1, d2 = _choose_deck_lists(clf, decks1, decks2)
    draws = thin(len(clf.effect_draws_), n_draws)
    if _check_players(player1, player2):
        table = pd.DataFrame(
            {
                "player1": [player1] * (len(d1) * len(d2)),
                "player2": [player2] * (len(d1) * len(d2)),
                "deck1": pd.Series([a for a in d1 for _ in d2]),
                "deck2": pd.Series([b for _ in d1 for b in d2]),
            }
        )
        p = clf.predict_proba_draws(table)[draws]
        return p.reshape(len(draws), len(d1), len(d2))
    out = np.empty((len(draws), len(d1), len(d2)))
    for start, p in _game_chunks(clf, d1, d2, draws):
        out[start : start + len(p)] = p
    return out


@shared_parameters
def matchup_table(
    clf: Any,
    decks1: Sequence[str | Deck] | None = None,
    decks2: Sequence[str | Deck] | None = None,
    *,
    player1: Any = None,
    player2: Any = None,
    interval: float = INTERVAL,
    n_draws: int | None = None,
) -> pd.DataFrame:
    """P(player 1 wins) for every pair of decks, with credible intervals.

    Player 1 moves first, so the table holds both turn orders: the row
    ``(A, B)`` is deck A moving first against deck B, and ``(B, A)`` the
    reverse.

    Parameters
    ----------
    {matchup_decks}
    interval : float, default 0.9
        Width of every equal-tailed credible interval.
    n_draws : int or None, default None
        Use this many evenly spaced posterior draws (all by default).

    Returns
    -------
    pandas.DataFrame
        One row per pair, in ``decks1`` order then ``decks2`` order:
        ``deck1``, ``deck2`` (labels, see `deck_label`), ``mean``, ``sd``,
        ``lower``, ``upper`` and ``p_favoured``, the posterior probability
        that player 1 is favoured (P > 0.5). ``attrs`` records the players
        (None for equal skill) and the interval.

    Examples
    --------
    >>> from skcodex import BayesianMatchupClassifier, datasets
    >>> data = datasets.make_matches(n_players=8, n_matches=60, n_tournaments=2)
    >>> clf = BayesianMatchupClassifier(draws=50, tune=50, chains=1)  # a quick, rough fit
    >>> table = matchup_table(clf.fit(data.X, data.y), ["MonoRed", "MonoBlue"])
    >>> [f"{a} v {b}" for a, b in zip(table["deck1"], table["deck2"])]
    ['MonoRed v MonoRed', 'MonoRed v MonoBlue', 'MonoBlue v MonoRed', 'MonoBlue v MonoBlue']
    """
    check_fitted(clf)
    cat = catalogue(clf)
    d1, d2 = _choose_deck_lists(clf, decks1, decks2)
    p = matchup_draws(clf, d1, d2, player1=player1, player2=player2, n_draws=n_draws)
    flat = p.reshape(len(p), -1)
    lower, upper = quantiles(flat, interval)
    labels1 = [deck_label(d, cat) for d in d1]
    labels2 = [deck_label(d, cat) for d in d2]
    out = pd.DataFrame(
        {
            "deck1": [a for a in labels1 for _ in labels2],
            "deck2": [b for _ in labels1 for b in labels2],
            "mean": flat.mean(axis=0),
            "sd": flat.std(axis=0, ddof=1) if len(flat) > 1 else np.zeros(flat.shape[1]),
            "lower": lower,
            "upper": upper,
            "p_favoured": (flat > 0.5).mean(axis=0),
        }
    )
    out.attrs.update(player1=player1, player2=player2, interval=interval)
    return out


def match_forecast(clf: Any, X: pd.DataFrame, interval: float = INTERVAL) -> pd.DataFrame:
    """P(player 1 wins) for each match of a table, with its credible interval.

    Parameters
    ----------
    clf : BayesianMatchupClassifier
        A fitted classifier.
    X : pandas.DataFrame
        The match table, one row a match: ``player1`` (who moves first), ``player2``,
        ``deck1``, ``deck2``, and optionally ``period`` and ``date``.
    interval : float, default 0.9
        Width of every equal-tailed credible interval.

    Returns
    -------
    pandas.DataFrame
        ``X``'s player and deck columns with ``mean``, ``lower``, ``upper``.
    """
    check_fitted(clf)
    p = clf.predict_proba_draws(X)
    lower, upper = quantiles(p, interval)
    out = X.loc[:, ["player1", "player2", "deck1", "deck2"]].copy()
    out["mean"], out["lower"], out["upper"] = p.mean(axis=0), lower, upper
    return out


def deck_ranking(
    clf: Any,
    decks: Sequence[str | Deck] | None = None,
    field: Sequence[str | Deck] | None = None,
    *,
    interval: float = INTERVAL,
    n_draws: int | None = None,
) -> pd.DataFrame:
    """Rank decks by their chance to beat an equally skilled opponent from a field.

    A deck's score is its win probability against an opponent whose deck is
    drawn uniformly from ``field``, with the turn order decided by a coin
    flip: the mean over the field of ``(A[i, j] + 1 - A'[j, i]) / 2``, where
    ``A`` and ``A'`` are the matchup matrices of the decks against the field
    and of the field against the decks.

    Parameters
    ----------
    clf : BayesianMatchupClassifier
        A fitted classifier.
    decks : list of str or Deck, or a keyword, or None, default None
        The decks to rank; the most played decks of the fitted data by
        default (keywords as in `matchup_draws`).
    field : list of str or Deck, or None, default None
        The opponents' decks; ``decks`` by default.
    interval : float, default 0.9
        Width of every equal-tailed credible interval.
    n_draws : int or None, default None
        Evenly spaced posterior draws to use (all by default).

    Returns
    -------
    pandas.DataFrame
        Indexed by deck label, best first: ``mean``, ``lower``, ``upper``,
        ``p_best`` (posterior probability of the highest score) and
        ``rank_mean``.
    """
    check_fitted(clf)
    cat = catalogue(clf)
    d = _choose_decks(decks, clf, "decks")
    f = d if field is None else _choose_decks(field, clf, "field")
    union = [*d, *(x for x in f if x not in d)]
    where = {deck: i for i, deck in enumerate(union)}
    rows, cols = np.arange(len(d)), np.array([where[x] for x in f])
    p = matchup_draws(clf, union, n_draws=n_draws)  # every deck against every deck
    forward = p[:, rows][:, :, cols]  # decks moving first against the field
    backward = p[:, cols][:, :, rows]  # the field moving first against the decks
    score = 0.5 * (forward + 1.0 - backward.transpose(0, 2, 1)).mean(axis=2)
    lower, upper = quantiles(score, interval)
    ranks = (-score).argsort(axis=1).argsort(axis=1) + 1
    out = pd.DataFrame(
        {
            "mean": score.mean(axis=0),
            "lower": lower,
            "upper": upper,
            "p_best": np.bincount(score.argmax(axis=1), minlength=len(d)) / len(score),
            "rank_mean": ranks.mean(axis=0),
        },
        index=pd.Index([deck_label(x, cat) for x in d], name="deck"),
    )
    return out.sort_values("mean", ascending=False)
