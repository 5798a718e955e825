"""The spread of skills against the spread of deck matchups, in the posterior and the prior."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import expit, softmax

from skcodex._docstrings import shared_parameters
from skcodex._matchup.blocks import BLOCK_TABLE
from skcodex.analysis._base import check_count, check_fitted

__all__ = [
    "PRIOR_DRAWS",
    "deck_spread_draws",
    "describe_prior",
    "prior_spread_comparison_draws",
    "prior_spread_draws",
    "spread_comparison_draws",
]


def deck_spread_draws(
    spread_draws: np.ndarray, specs_per_deck: int = 3, sd_synergy: np.ndarray | None = None
) -> np.ndarray:
    """Per-draw sd of the deck matchup m over deck pairs.

    With k specs a deck, m sums 1 starter-vs-starter, 2k starter-vs-spec or
    spec-vs-starter and k^2 spec-vs-spec effects, independent a priori, so its
    variance over deck pairs drawn from the population is
    ``sd_stst^2 + 2k sd_stsp^2 + k^2 sd_spsp^2`` (k = 3: ``+ 6`` and ``+ 9``).
    A model with deck synergy adds ``syn(deck1) - syn(deck2)``, each ``syn``
    a sum of k starter-spec and k(k-1)/2 spec-spec effects of spread
    ``sd_synergy``: ``+ 2 (k + k(k-1)/2) sd_synergy^2``.

    Parameters
    ----------
    spread_draws : ndarray of shape (n_draws, >= 4)
        Columns player, stst, stsp, spsp first (`spread_draws_`); with
        ``specs_per_deck=0``, player and stst are enough (a fit of decks
        without specs has no other deck spreads).
    specs_per_deck : int, default 3
        Specs (components) in a deck, k.
    sd_synergy : ndarray of shape (n_draws,) or None, default None
        The deck-synergy spread per draw, for a model with deck synergy.

    Returns
    -------
    ndarray of shape (n_draws,)
        The sd of m over deck pairs, per draw.

    Examples
    --------
    >>> import numpy as np
    >>> deck_spread_draws(np.array([[1.0, 1.0, 1.0, 1.0]]))  # sqrt(1 + 6 + 9)
    array([4.])
    """
    k = specs_per_deck
    sd = np.asarray(spread_draws)
    var = sd[:, 1] ** 2
    if k > 0:
        var = var + 2 * k * sd[:, 2] ** 2 + k**2 * sd[:, 3] ** 2
    if sd_synergy is not None:
        var = var + 2 * (k + k * (k - 1) // 2) * np.asarray(sd_synergy) ** 2
    return np.sqrt(var)


def _spread_comparison(sd: np.ndarray, names: Sequence[str], k: int) -> pd.DataFrame:
    """The columns of `spread_comparison_draws` from per-draw spreads named ``names``."""
    sd_player = sd[:, 0]
    synergy = sd[:, names.index("syn")] if "syn" in names else None
    deck = [names.index(n) for n in ("player", "stst", "stsp", "spsp") if n in names]
    sd_deck = deck_spread_draws(sd[:, deck], k if len(deck) == 4 else 0, synergy)
    out = pd.DataFrame(
        {
            "sd_player": sd_player,
            "sd_skill_difference": np.sqrt(2.0) * sd_player,
            "sd_deck": sd_deck,
            "ratio": sd_player / sd_deck,
            "skill_share": 2 * sd_player**2 / (2 * sd_player**2 + sd_deck**2),
        }
    )
    if "fam" in names:
        out["sd_familiarity"] = np.sqrt(2.0 * (1 + k)) * sd[:, names.index("fam")]
    return out


def spread_comparison_draws(clf: Any) -> pd.DataFrame:
    """Per-draw spreads behind `skill_versus_decks`, one row a posterior draw.

    Columns: ``sd_player`` (spread of skills), ``sd_skill_difference``
    (``sqrt(2) sd_player``, the spread of the skill part of a match's
    log-odds), ``sd_deck`` (the spread of the deck matchup, see
    `deck_spread_draws`; with deck synergy when the model has it), ``ratio``
    (``sd_player / sd_deck``) and ``skill_share``
    (``2 sd_player^2 / (2 sd_player^2 + sd_deck^2)``). A model with
    familiarity effects adds ``sd_familiarity``, the spread of the
    player-deck part ``fam(player1, deck1) - fam(player2, deck2)``,
    ``sqrt(2 (1 + k)) sd_fam``, which belongs to neither side.

    Parameters
    ----------
    clf : BayesianMatchupClassifier
        A fitted classifier.

    Returns
    -------
    pandas.DataFrame
        One row a posterior draw, the columns above.
    """
    check_fitted(clf)
    layout = clf.layout_
    names = list(layout.spreads)
    return _spread_comparison(clf.spread_draws_, names, layout.specs_per_deck)


def _specs_per_deck(clf: Any) -> int:
    """k of a fitted classifier's decks; Codex's 3 before a fit."""
    layout = getattr(clf, "layout_", None)
    return 3 if layout is None else layout.specs_per_deck


def _spread_source(clf: Any) -> Any:
    """What names a classifier's spreads and priors: its fitted layout, else its options."""
    layout = getattr(clf, "layout_", None)
    return clf.options if layout is None else layout


#: Draws simulated from the prior by `prior_spread_comparison_draws`.
PRIOR_DRAWS = 100_000


@shared_parameters
def prior_spread_draws(
    clf: Any, n_draws: int = PRIOR_DRAWS, random_state: int | None = 0
) -> np.ndarray:
    """Draw spreads from a classifier's prior, in the order of its spreads.

    The spreads are those of the fitted model (``clf.layout_.spreads``), or
    before a fit every one its options switch on (``clf.options.spreads``).

    Simulates the spread part of the model exactly as the fitted PyMC model
    specifies it, with NumPy: under the log-normal prior each
    ``log sd ~ N(loc, scale)`` independently (``sd ~ Exponential`` of mean
    ``exp(loc)`` for a spread given the exponential prior: ``step_prior``,
    ``spec_prior``); under the balanced prior a total
    ``log sigma ~ N(loc, scale)``, a skill share ``sigmoid(N(0, 1))`` and a deck
    split ``softmax(0, N(0, 1), N(0, 1))`` (as the balanced prior draws them),
    the optional blocks' log-spreads again log-normal. Needs no fit.

    {prior_draws_parameters}

    Returns
    -------
    ndarray of shape (n_draws, n_spreads)
        One row a draw, one column a spread.
    """
    from skcodex._matchup.priors import balanced_spreads

    n_draws = check_count(n_draws, "n_draws")
    options = clf.options
    source = _spread_source(clf)
    priors = clf._priors_for(source)
    k = _specs_per_deck(clf)
    rng = np.random.default_rng(random_state)
    # One prior a spread; the own priors of unscaled effects (first move, debut), last, are not.
    own = {b.name for b in BLOCK_TABLE if b.spread is None}
    n = sum(name not in own for name in source.prior_names)
    loc, scale = np.asarray(priors.loc)[:n], np.asarray(priors.scale)[:n]
    exponential = np.asarray(priors.family)[:n] == "exponential"

    def spreads(at: slice) -> np.ndarray:
        """Log-normal draws, or exponential ones of mean ``exp(loc)`` where so declared."""
        out = np.exp(rng.normal(loc[at], scale[at], size=(n_draws, len(loc[at]))))
        mean = np.exp(loc[at])
        expo = rng.exponential(1.0, size=out.shape) * mean
        return np.where(exponential[at], expo, out)

    if options.prior == "lognormal":
        return spreads(slice(0, n))
    log_total = rng.normal(loc[0], scale[0], size=n_draws)
    share = expit(rng.standard_normal(n_draws))
    split = None
    if "spsp" in source.spreads:  # decks with specs: the deck spread split three ways
        logits = np.column_stack([np.zeros(n_draws), rng.standard_normal((n_draws, 2))])
        split = softmax(logits, axis=1)
    base = balanced_spreads(log_total, share, split, k)
    return np.column_stack([base, spreads(slice(1, n))])


@shared_parameters
def prior_spread_comparison_draws(
    clf: Any, n_draws: int = PRIOR_DRAWS, random_state: int | None = 0
) -> pd.DataFrame:
    """The columns of `spread_comparison_draws`, for draws from the prior instead.

    What the model says about skill and decks before it sees a match: the
    prior probability that a match depends more on who plays than on what
    they play is ``mean(skill_share > 1/2)`` over these draws. See
    `prior_spread_draws` for the simulation.

    {prior_draws_parameters}

    Returns
    -------
    pandas.DataFrame
        One row a draw from the prior, the columns of `spread_comparison_draws`.

    Examples
    --------
    >>> from skcodex import BayesianMatchupClassifier
    >>> draws = prior_spread_comparison_draws(BayesianMatchupClassifier(prior="balanced"))
    >>> round(float((draws["skill_share"] > 0.5).mean()), 2)
    0.5
    """
    sd = prior_spread_draws(clf, n_draws, random_state)
    return _spread_comparison(sd, list(_spread_source(clf).spreads), _specs_per_deck(clf))


def describe_prior(clf: Any) -> str:
    """The classifier's spread prior in words, e.g. for a report.

    Once fitted, only the priors of spreads the model has are named: decks of
    a starter alone (no components) have no starter-vs-component or
    component-vs-component spreads, and the balanced prior no split among them.

    Parameters
    ----------
    clf : BayesianMatchupClassifier
        Fitted or not; its prior parameters and model options are read.

    Returns
    -------
    str
        The prior of each spread, in one line.

    Examples
    --------
    >>> from skcodex import BayesianMatchupClassifier
    >>> describe_prior(BayesianMatchupClassifier(prior="balanced"))  # doctest: +ELLIPSIS
    'balanced prior: log total spread ~ N(0.5, 0.5), skill share sigmoid(N(0, 1)), ...'
    """
    source = _spread_source(clf)
    priors = clf._priors_for(source)
    names = source.prior_names

    def normal(i: int) -> str:
        return f"N({priors.loc[i]:g}, {priors.scale[i]:g})"

    def spread(i: int, n: str) -> str:
        if priors.family[i] == "exponential":
            return f"sd_{n} ~ Exponential(mean {np.exp(priors.loc[i]):.3g})"
        return f"log sd_{n} ~ {normal(i)}"

    if clf.options.prior == "balanced":
        # decks of a starter alone have one deck spread: no split
        split = ", deck split softmax(0, N(0, 1), N(0, 1))" if "spsp" in source.spreads else ""
        text = (
            f"balanced prior: log total spread ~ {normal(0)}, skill share sigmoid(N(0, 1)){split}"
        )
        rest = [spread(i, n) for i, n in enumerate(names) if i > 0]
        return "; ".join([text, *rest])
    parts = [spread(i, n) for i, n in enumerate(names)]
    kind = "log-normal spread" if "exponential" not in priors.family else "spread"
    return f"{kind} priors: " + ", ".join(parts)
