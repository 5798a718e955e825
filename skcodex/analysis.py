"""What users came for, from a fitted `BayesianMatchupClassifier`.

Every summary here is computed draw by draw from the posterior and then
summarised, so each comes with its uncertainty:

- `skill_table`: player skills with intervals, P(best) and rank distribution;
- `matchup_draws`, `matchup_table`: P(player 1 wins) for every pair of decks,
  at equal skill or for named players;
- `deck_ranking`: decks ranked by their win probability against a field;
- `nash_equilibria`, `nash_weights`: the deck-choice game of the matchup
  matrix solved per draw (`solve_matrix_game`);
- `skill_versus_decks`: the player-skill spread against the deck-matchup spread,
  beside the same comparison under the prior alone (`prior_spread_comparison_draws`);
- `reliability_table`, `brier_decomposition`: calibration of forecasts;
- `convergence_summary`: R-hat, effective sample sizes and divergences.

Intervals are equal-tailed credible intervals, 90% unless asked otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy.optimize import linprog
from scipy.special import expit
from scipy.stats import beta
from sklearn.utils.validation import check_is_fitted

from skcodex.codex import (
    CODEX,
    Catalogue,
    Deck,
    PlainCatalogue,
    format_deck,
    legal_decks,
    parse_deck,
)
from skcodex.data import check_match_table, encode
from skcodex.metrics import brier_score

__all__ = [
    "INTERVAL",
    "NashEquilibria",
    "brier_decomposition",
    "convergence_summary",
    "deck_label",
    "deck_ranking",
    "deck_spread_draws",
    "default_decks",
    "describe_prior",
    "match_forecast",
    "matchup_draws",
    "matchup_table",
    "monocolour_decks",
    "most_played_decks",
    "nash_equilibria",
    "nash_weights",
    "prior_spread_comparison_draws",
    "prior_spread_draws",
    "reliability_table",
    "skill_table",
    "skill_versus_decks",
    "solve_matrix_game",
    "spread_comparison_draws",
]

#: Width of the credible intervals reported throughout.
INTERVAL = 0.90

#: Posterior draws used for Nash weights unless asked otherwise.
NASH_DRAWS = 500

#: How many of the most played decks the deck analyses use by default.
N_DEFAULT_DECKS = 8

#: Keywords that choose a deck list: the most played decks of the fitted data
#: (the default), or Codex's six monocolour decks.
DECK_KEYWORDS = ("most played", "monocolour")


# Bytes of working memory one chunk of matchup draws may use.
_CHUNK_BYTES = 64 * 2**20


def _quantiles(draws: np.ndarray, interval: float = INTERVAL) -> tuple[np.ndarray, np.ndarray]:
    if not 0 < interval < 1:
        raise ValueError(f"interval must be between 0 and 1, got {interval!r}")
    tail = (1.0 - interval) / 2.0
    return np.quantile(draws, tail, axis=0), np.quantile(draws, 1.0 - tail, axis=0)


def _check_fitted(clf: Any) -> None:
    check_is_fitted(clf, ("effect_draws_", "spread_draws_", "vocabulary_", "layout_"))


def _catalogue(clf: Any) -> Catalogue | PlainCatalogue:
    """The catalogue a fitted classifier read its decks against (base Codex by default)."""
    cat = getattr(clf, "catalogue", None)
    if cat is None:
        cat = getattr(clf, "catalogue_", None)
    return CODEX if cat is None else cat


def _thin(n_total: int, n_draws: int | None) -> np.ndarray:
    """Evenly spaced draw indices: every draw when ``n_draws`` is None or large enough."""
    if n_draws is None or n_draws >= n_total:
        return np.arange(n_total)
    if isinstance(n_draws, bool) or not isinstance(n_draws, (int, np.integer)) or n_draws < 1:
        raise ValueError(f"n_draws must be a positive integer or None, got {n_draws!r}")
    return np.unique(np.linspace(0, n_total - 1, int(n_draws)).round().astype(np.int64))


# -- decks -----------------------------------------------------------------------------


def deck_label(deck: Deck, catalogue: Catalogue | PlainCatalogue | None = None) -> str:
    """A short readable name: the catalogue's nickname if it has one, else its notation.

    Codex decks are written in forum notation; a `PlainCatalogue`'s decks,
    and decks the Codex catalogue cannot write, in plain notation
    (``starter/component/...``). Labels of the decks a classifier was fitted
    on are accepted back wherever the analyses take decks.

    Examples
    --------
    >>> from skcodex.codex import Deck, parse_deck
    >>> deck_label(parse_deck("[Anarchy/Blood/Fire]"))
    'MonoRed'
    >>> deck_label(Deck("Black", ["Demonology", "Anarchy", "Law"]))
    '[Demonology]/Anarchy/Law'
    """
    cat = CODEX if catalogue is None else catalogue
    if isinstance(cat, PlainCatalogue):
        return cat.format(deck)
    for name, nick in cat.nicknames.items():
        if nick == deck:
            return name
    if len(deck.specs) == cat.specs_per_deck:
        try:
            return format_deck(deck, cat)
        except ValueError:
            pass
    return "/".join([deck.starter, *deck.specs])


def _fitted_labels(clf: Any, catalogue: Any) -> dict[str, Deck]:
    """The labels of the decks a classifier was fitted on, and their decks."""
    vocab = getattr(clf, "vocabulary_", None)
    decks = getattr(vocab, "decks", ())
    return {deck_label(d, catalogue): d for d in decks}


def _as_decks(decks: Any, catalogue: Any, what: str, clf: Any = None) -> list[Deck]:
    if isinstance(decks, (str, Deck)):
        decks = [decks]
    known = _fitted_labels(clf, catalogue) if clf is not None else {}
    out = []
    for value in decks:
        if isinstance(value, Deck):
            out.append(value)
        elif isinstance(value, str):
            found = known.get(value.strip())
            out.append(found if found is not None else parse_deck(value, catalogue))
        else:
            raise TypeError(f"{what} must hold forum-notation strings or Decks, got {value!r}")
    if not out:
        raise ValueError(f"{what} is empty; give at least one deck")
    return out


def monocolour_decks(catalogue: Catalogue | None = None) -> list[Deck]:
    """The six monocolour decks Codex was balanced around (``decks="monocolour"``).

    Variant specs of the same colour (a catalogue read from codexdata holds
    many) would make more monocolour decks; only the base game's six are
    returned. A catalogue without the base game's specs gets every
    monocolour deck it has.

    Examples
    --------
    >>> [deck_label(d) for d in monocolour_decks()]
    ['MonoBlack', 'MonoBlue', 'MonoGreen', 'MonoPurple', 'MonoRed', 'MonoWhite']
    """
    cat = CODEX if catalogue is None else catalogue
    base = [
        d
        for d in legal_decks("monocolour")
        if d.starter in cat.starters and all(s in cat.spec_colours for s in d.specs)
    ]
    return base or legal_decks("monocolour", cat)


def default_decks(clf: Any, n: int = N_DEFAULT_DECKS) -> list[Deck]:
    """The ``n`` decks played most often in the data a classifier was fitted on.

    Both seats are counted; ties are broken by first appearance. This is the
    default deck list of `matchup_table`, `deck_ranking` and `nash_weights`.
    A classifier saved before deck counts were kept gets Codex's monocolour
    decks.

    Parameters
    ----------
    clf : BayesianMatchupClassifier
        A fitted classifier.
    n : int, default 8
    """
    _check_fitted(clf)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    played = tuple(getattr(clf.vocabulary_, "decks", ()))
    if played:
        return list(played[: int(n)])
    return monocolour_decks(_catalogue(clf))


def _default_decks(decks: Any, catalogue: Any, what: str, clf: Any = None) -> list[Deck]:
    if decks is None or (isinstance(decks, str) and decks.strip().lower() == "most played"):
        return default_decks(clf)
    if isinstance(decks, str) and decks.strip().lower() == "monocolour":
        if not isinstance(catalogue, Catalogue) or clf.layout_.specs_per_deck != 3:
            raise ValueError(
                f"{what}='monocolour' names Codex's monocolour decks, but this model's decks "
                f"are not Codex decks; pass a list of decks or 'most played'"
            )
        return monocolour_decks(catalogue)
    return _as_decks(decks, catalogue, what, clf)


def most_played_decks(
    X: pd.DataFrame, n: int = 20, catalogue: Catalogue | None = None
) -> list[Deck]:
    """The ``n`` decks played most often in a match table, counting both seats.

    Ties are broken by first appearance.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"player1": ["a", "b"], "player2": ["b", "c"],
    ...                   "deck1": ["MonoRed", "MonoBlue"], "deck2": ["MonoBlue", "MonoRed"]})
    >>> [deck_label(d) for d in most_played_decks(X, 1)]
    ['MonoRed']
    """
    table = check_match_table(X, catalogue)
    counts = pd.Series([*table["deck1"], *table["deck2"]]).value_counts(sort=False)
    order = counts.sort_values(ascending=False, kind="stable")
    return list(order.index[:n])


def _matchup_logits(
    clf: Any, decks1: list[Deck], decks2: list[Deck]
) -> Callable[[np.ndarray], np.ndarray]:
    """A function of draw indices giving m(deck1, deck2): (n_draws, n1, n2) log-odds.

    The decks are encoded against the fitted vocabulary once; a starter or
    spec never seen in fit gets one fresh population draw per posterior draw
    (`skcodex.design.unseen_draws`), shared by every deck holding it.
    With one-hot starters G and spec indicators H, the seed's sum over the
    ``1 + 2k + k^2`` components is ``G1 a G2' + G1 b H2' + H1 c G2' + H1 d H2'``. A model with
    deck synergy adds ``syn(deck1) - syn(deck2)``, one with a first-move
    effect adds it to every pair; familiarity effects are those of an average
    player, 0.
    """
    vocab = clf.vocabulary_
    decks = [*decks1, *decks2]
    n, n1 = len(decks), len(decks1)
    table = pd.DataFrame(
        {
            "player1": [vocab.players[0]] * n,
            "player2": [vocab.players[-1]] * n,
            "deck1": pd.Series(decks, dtype=object),
            "deck2": pd.Series(decks, dtype=object),
        }
    )
    codes = encode(table, vocab)
    theta, layout = clf.effect_draws_for(codes)
    starter, specs = codes.starter1, codes.specs1
    G = np.zeros((n, layout.n_starters))
    G[np.arange(n), starter] = 1.0
    H = np.zeros((n, layout.n_specs))
    np.add.at(H, (np.repeat(np.arange(n), specs.shape[1]), specs.ravel()), 1.0)
    G1, G2, H1, H2 = G[:n1], G[n1:], H[:n1], H[n1:]
    first, second = np.triu_indices(specs.shape[1], 1)
    synergy = "syn_stsp" in layout.shapes

    def logits(draws: np.ndarray) -> np.ndarray:
        b = layout.unflatten(theta[draws])
        m = (
            G1 @ b["stst"] @ G2.T
            + G1 @ b["stsp"] @ H2.T
            + H1 @ b["spst"] @ G2.T
            + H1 @ b["spsp"] @ H2.T
        )
        if "first_move" in b:  # the same first-move effect in every pairing
            m += b["first_move"][:, None, None]
        if synergy:  # a deck's own strength: its starter-spec and spec-spec pairs
            syn = b["syn_stsp"][:, starter[:, None], specs].sum(axis=-1)
            syn += b["syn_spsp"][:, specs[:, first], specs[:, second]].sum(axis=-1)
            m += syn[:, :n1, None] - syn[:, None, n1:]
        return m

    return logits


def _check_players(player1: Any, player2: Any) -> bool:
    if (player1 is None) != (player2 is None):
        raise ValueError(
            "name both players (player1 and player2) or neither (equally skilled players)"
        )
    return player1 is not None


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
    clf : BayesianMatchupClassifier
        A fitted classifier.
    decks1, decks2 : list of str or Deck, or a keyword, optional
        Player 1's (who moves first) and player 2's decks; strings are labels
        of fitted decks (as these tables print them) or notation read against
        the classifier's catalogue. ``None`` or ``"most played"``: the
        `N_DEFAULT_DECKS` decks played most in the fitted data
        (`default_decks`); ``"monocolour"``: Codex's six monocolour decks.
        ``decks2`` defaults to ``decks1``.
    player1, player2 : optional
        Named players. When both are None (the default) the players are
        equally skilled and the probability is ``expit(m)`` of the deck
        matchup ``m`` alone; when named, their skills enter too (a player not
        seen in fit gets a fresh skill from the population for every draw).
    n_draws : int, optional
        Use this many evenly spaced posterior draws (all by default).

    Returns
    -------
    ndarray of shape (n_draws, len(decks1), len(decks2))

    Notes
    -----
    A starter or spec never seen in fit gets a fresh effect from its
    population, N(0, sd), for every draw, as in `predict_proba`.
    """
    _check_fitted(clf)
    cat = _catalogue(clf)
    d1 = _default_decks(decks1, cat, "decks1", clf)
    d2 = d1 if decks2 is None else _default_decks(decks2, cat, "decks2", clf)
    draws = _thin(len(clf.effect_draws_), n_draws)
    if _check_players(player1, player2):
        table = pd.DataFrame(
            {
                "player1": [player1] * (len(d1) * len(d2)),
                "player2": [player2] * (len(d1) * len(d2)),
                "deck1": pd.Series([a for a in d1 for _ in d2], dtype=object),
                "deck2": pd.Series([b for _ in d1 for b in d2], dtype=object),
            }
        )
        p = clf.predict_proba_draws(table)[draws]
        return p.reshape(len(draws), len(d1), len(d2))
    logits = _matchup_logits(clf, d1, d2)
    out = np.empty((len(draws), len(d1), len(d2)))
    step = max(1, _CHUNK_BYTES // (8 * 4 * max(1, len(d1) * len(d2))))
    for start in range(0, len(draws), step):
        chunk = draws[start : start + step]
        out[start : start + len(chunk)] = expit(logits(chunk))
    return out


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
    reverse. Arguments are those of `matchup_draws`.

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
    >>> import warnings; warnings.simplefilter("ignore")
    >>> from skcodex import BayesianMatchupClassifier
    >>> from skcodex.datasets import make_matches
    >>> data = make_matches(n_players=8, n_matches=60, n_tournaments=2, random_state=0)
    >>> clf = BayesianMatchupClassifier(draws=50, tune=50, chains=1, random_state=0)
    >>> table = matchup_table(clf.fit(data.X, data.y), ["MonoRed", "MonoBlue"])
    >>> [f"{a} v {b}" for a, b in zip(table["deck1"], table["deck2"])]
    ['MonoRed v MonoRed', 'MonoRed v MonoBlue', 'MonoBlue v MonoRed', 'MonoBlue v MonoBlue']
    """
    cat = _catalogue(clf)
    _check_fitted(clf)
    d1 = _default_decks(decks1, cat, "decks1", clf)
    d2 = d1 if decks2 is None else _default_decks(decks2, cat, "decks2", clf)
    p = matchup_draws(clf, d1, d2, player1=player1, player2=player2, n_draws=n_draws)
    flat = p.reshape(len(p), -1)
    lower, upper = _quantiles(flat, interval)
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

    Returns
    -------
    pandas.DataFrame
        ``X``'s player and deck columns with ``mean``, ``lower``, ``upper``.
    """
    _check_fitted(clf)
    p = clf.predict_proba_draws(X)
    lower, upper = _quantiles(p, interval)
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
    """Decks ranked by their chance to beat an equally skilled opponent from a field.

    A deck's score is its win probability against an opponent whose deck is
    drawn uniformly from ``field``, with the turn order decided by a coin
    flip: the mean over the field of ``(A[i, j] + 1 - A'[j, i]) / 2``, where
    ``A`` and ``A'`` are the matchup matrices of the decks against the field
    and of the field against the decks.

    Parameters
    ----------
    clf : BayesianMatchupClassifier
    decks : list of str or Deck, or a keyword, optional
        The decks to rank; the most played decks of the fitted data by
        default (keywords as in `matchup_draws`).
    field : list of str or Deck, optional
        The opponents' decks; ``decks`` by default.
    interval : float
    n_draws : int, optional
        Evenly spaced posterior draws to use (all by default).

    Returns
    -------
    pandas.DataFrame
        Indexed by deck label, best first: ``mean``, ``lower``, ``upper``,
        ``p_best`` (posterior probability of the highest score) and
        ``rank_mean``.
    """
    _check_fitted(clf)
    cat = _catalogue(clf)
    d = _default_decks(decks, cat, "decks", clf)
    f = d if field is None else _default_decks(field, cat, "field", clf)
    union = [*d, *(x for x in f if x not in d)]
    where = {deck: i for i, deck in enumerate(union)}
    rows, cols = np.arange(len(d)), np.array([where[x] for x in f])
    p = matchup_draws(clf, union, union, n_draws=n_draws)
    forward = p[:, rows][:, :, cols]  # decks moving first against the field
    backward = p[:, cols][:, :, rows]  # the field moving first against the decks
    score = 0.5 * (forward + 1.0 - backward.transpose(0, 2, 1)).mean(axis=2)
    lower, upper = _quantiles(score, interval)
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


# -- players ---------------------------------------------------------------------------


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
    X : pandas.DataFrame, optional
        The training match table; when given, the matches each player played
        are counted.
    y : array-like, optional
        The training outcomes (1 = player 1 won); with ``X``, each player's
        wins are counted too.
    interval : float
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
    >>> import warnings; warnings.simplefilter("ignore")
    >>> from skcodex import BayesianMatchupClassifier
    >>> from skcodex.datasets import make_matches
    >>> data = make_matches(n_players=8, n_matches=60, n_tournaments=2, random_state=0)
    >>> clf = BayesianMatchupClassifier(draws=50, tune=50, chains=1, random_state=0)
    >>> table = skill_table(clf.fit(data.X, data.y), data.X, y=data.y)
    >>> list(table.columns)[:4], int(table["matches"].sum())
    (['mean', 'sd', 'lower', 'upper'], 120)
    """
    _check_fitted(clf)
    layout = clf.layout_
    skills = layout.unflatten(clf.effect_draws_)["skill"]
    lower, upper = _quantiles(skills, interval)
    ranks = (-skills).argsort(axis=1).argsort(axis=1) + 1
    rank_lower, rank_upper = _quantiles(ranks, interval)
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


# -- skill versus decks ----------------------------------------------------------------


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
        Columns player, stst, stsp, spsp first (`spread_draws_`).
    specs_per_deck : int, default 3
    sd_synergy : ndarray of shape (n_draws,), optional

    Examples
    --------
    >>> import numpy as np
    >>> deck_spread_draws(np.array([[1.0, 1.0, 1.0, 1.0]]))  # sqrt(1 + 6 + 9)
    array([4.])
    """
    k = specs_per_deck
    sd = np.asarray(spread_draws)
    var = sd[:, 1] ** 2 + 2 * k * sd[:, 2] ** 2 + k**2 * sd[:, 3] ** 2
    if sd_synergy is not None:
        var = var + 2 * (k + k * (k - 1) // 2) * np.asarray(sd_synergy) ** 2
    return np.sqrt(var)


def _spread_comparison(sd: np.ndarray, names: Sequence[str], k: int) -> pd.DataFrame:
    """The columns of `spread_comparison_draws` from per-draw spreads named ``names``."""
    sd_player = sd[:, 0]
    synergy = sd[:, names.index("syn")] if "syn" in names else None
    sd_deck = deck_spread_draws(sd, k, synergy)
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
    """
    _check_fitted(clf)
    layout = clf.layout_
    names = list(getattr(layout, "spreads", ("player", "stst", "stsp", "spsp")))
    return _spread_comparison(clf.spread_draws_, names, layout.specs_per_deck)


#: Draws simulated from the prior by `prior_spread_comparison_draws`.
PRIOR_DRAWS = 100_000


def prior_spread_draws(
    clf: Any, n_draws: int = PRIOR_DRAWS, random_state: int | None = 0
) -> np.ndarray:
    """Spreads drawn from a classifier's prior, in the order of ``clf.options.spreads``.

    Simulates the spread part of the model exactly as `skcodex.model.build_model`
    specifies it, with NumPy: under the log-normal prior each
    ``log sd ~ N(loc, scale)`` independently; under the balanced prior a total
    ``log sigma ~ N(loc, scale)``, a skill share ``sigmoid(N(0, 1))`` and a deck
    split ``softmax(0, N(0, 1), N(0, 1))`` (`skcodex.model.balanced_spreads`),
    the optional blocks' log-spreads again log-normal. Needs no fit.

    Parameters
    ----------
    clf : BayesianMatchupClassifier
        Fitted or not; its prior parameters and model options are read.
    n_draws : int, default 100000
    random_state : int or None, default 0

    Returns
    -------
    ndarray of shape (n_draws, n_spreads)
    """
    from skcodex.model import balanced_spreads

    if isinstance(n_draws, bool) or not isinstance(n_draws, (int, np.integer)) or n_draws < 1:
        raise ValueError(f"n_draws must be a positive integer, got {n_draws!r}")
    options = clf.options
    priors = clf.priors
    k = getattr(getattr(clf, "layout_", None), "specs_per_deck", 3)
    rng = np.random.default_rng(random_state)
    loc, scale = np.asarray(priors.loc), np.asarray(priors.scale)
    if options.prior == "lognormal":
        return np.exp(rng.normal(loc, scale, size=(n_draws, len(loc))))
    log_total = rng.normal(loc[0], scale[0], size=n_draws)
    share = expit(rng.normal(0.0, 1.0, size=n_draws))
    logits = np.column_stack([np.zeros(n_draws), rng.normal(0.0, 1.0, size=(n_draws, 2))])
    split = np.exp(logits - logits.max(axis=1, keepdims=True))
    split /= split.sum(axis=1, keepdims=True)
    base = balanced_spreads(log_total, share, split, k)
    extra = np.exp(rng.normal(loc[1:], scale[1:], size=(n_draws, len(loc) - 1)))
    return np.column_stack([base, extra])


def prior_spread_comparison_draws(
    clf: Any, n_draws: int = PRIOR_DRAWS, random_state: int | None = 0
) -> pd.DataFrame:
    """The columns of `spread_comparison_draws`, for draws from the prior instead.

    What the model says about skill and decks before it sees a match: the
    prior probability that a match depends more on who plays than on what
    they play is ``mean(skill_share > 1/2)`` over these draws. See
    `prior_spread_draws` for the simulation.

    Examples
    --------
    >>> from skcodex import BayesianMatchupClassifier
    >>> draws = prior_spread_comparison_draws(BayesianMatchupClassifier(prior="balanced"))
    >>> round(float((draws["skill_share"] > 0.5).mean()), 2)
    0.5
    """
    sd = prior_spread_draws(clf, n_draws, random_state)
    k = getattr(getattr(clf, "layout_", None), "specs_per_deck", 3)
    return _spread_comparison(sd, list(clf.options.spreads), k)


def describe_prior(clf: Any) -> str:
    """The classifier's spread prior in words, e.g. for a report.

    Examples
    --------
    >>> from skcodex import BayesianMatchupClassifier
    >>> describe_prior(BayesianMatchupClassifier(prior="balanced"))  # doctest: +ELLIPSIS
    'balanced prior: log total spread ~ N(0.5, 0.5), skill share sigmoid(N(0, 1)), ...'
    """
    priors = clf.priors
    names = clf.options.prior_names

    def normal(i: int) -> str:
        return f"N({priors.loc[i]:g}, {priors.scale[i]:g})"

    if clf.options.prior == "balanced":
        text = (
            f"balanced prior: log total spread ~ {normal(0)}, skill share "
            "sigmoid(N(0, 1)), deck split softmax(0, N(0, 1), N(0, 1))"
        )
        rest = [f"log sd_{n} ~ {normal(i)}" for i, n in enumerate(names) if i > 0]
        return "; ".join([text, *rest])
    parts = [f"log sd_{n} ~ {normal(i)}" for i, n in enumerate(names)]
    return "log-normal spread priors: " + ", ".join(parts)


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
    >>> import warnings; warnings.simplefilter("ignore")
    >>> from skcodex import BayesianMatchupClassifier
    >>> from skcodex.datasets import make_matches
    >>> data = make_matches(n_players=8, n_matches=60, n_tournaments=2, random_state=0)
    >>> clf = BayesianMatchupClassifier(draws=50, tune=50, chains=1, random_state=0)
    >>> table = skill_versus_decks(clf.fit(data.X, data.y))
    >>> table.index.tolist()
    ['sd_player', 'sd_skill_difference', 'sd_deck', 'ratio', 'skill_share']
    """
    draws = spread_comparison_draws(clf)
    out = pd.DataFrame(
        {
            name: [v.mean(), *(float(q) for q in _quantiles(v.to_numpy(), interval))]
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


# -- Nash weights ----------------------------------------------------------------------


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
    A = np.asarray(payoff, dtype=float)
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
            method="highs",
        )
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

    Attributes
    ----------
    decks1, decks2 : tuple of str
        Labels of player 1's and player 2's decks.
    player1 : ndarray of shape (n_draws, len(decks1))
        Player 1's (who moves first) equilibrium weights, per draw.
    player2 : ndarray of shape (n_draws, len(decks2))
        Player 2's equilibrium weights, per draw.
    both : ndarray of shape (n_draws, len(decks1)) or None
        Weights for a player who takes each role half the time with one deck
        (only when the two deck lists are the same).
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
            lower, upper = _quantiles(w, interval)
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
        lo, hi = _quantiles(self.value, interval)
        out.attrs["value"] = {
            "mean": float(self.value.mean()),
            "lower": float(lo),
            "upper": float(hi),
        }
        out.attrs["n_draws"] = len(self.value)
        out.attrs["interval"] = interval
        return out


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
    clf : BayesianMatchupClassifier
        A fitted classifier.
    decks1, decks2 : list of str or Deck, or a keyword, optional
        The decks each player may choose; the most played decks of the fitted
        data by default (keywords as in `matchup_draws`); ``decks2`` defaults
        to ``decks1``.
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
    _check_fitted(clf)
    cat = _catalogue(clf)
    d1 = _default_decks(decks1, cat, "decks1", clf)
    d2 = d1 if decks2 is None else _default_decks(decks2, cat, "decks2", clf)
    symmetric = d1 == d2
    draws = _thin(len(clf.effect_draws_), n_draws)
    w1 = np.empty((len(draws), len(d1)))
    w2 = np.empty((len(draws), len(d2)))
    both = np.empty((len(draws), len(d1))) if symmetric else None
    value = np.empty(len(draws))
    logits = _matchup_logits(clf, d1, d2)
    step = max(1, _CHUNK_BYTES // (8 * 4 * max(1, len(d1) * len(d2))))
    for start in range(0, len(draws), step):
        chunk = draws[start : start + step]
        games = expit(logits(chunk))
        for i, A in enumerate(games):
            row = start + i
            w1[row], w2[row], value[row] = solve_matrix_game(A)
            if both is not None:
                both[row], _, _ = solve_matrix_game(0.5 * (A + 1.0 - A.T))
    return NashEquilibria(
        decks1=tuple(deck_label(d, cat) for d in d1),
        decks2=tuple(deck_label(d, cat) for d in d2),
        player1=w1,
        player2=w2,
        both=both,
        value=value,
    )


def nash_weights(
    clf: Any,
    decks1: Sequence[str | Deck] | None = None,
    decks2: Sequence[str | Deck] | None = None,
    *,
    n_draws: int | None = NASH_DRAWS,
    interval: float = INTERVAL,
) -> pd.DataFrame:
    """Nash weights of decks with intervals: `nash_equilibria` summarised.

    Returns
    -------
    pandas.DataFrame
        One row per role and deck: ``role`` (``"player 1"``, ``"player 2"``,
        ``"both"``), ``deck``, ``mean``, ``lower``, ``upper``, ``p_played``;
        ``attrs["value"]`` holds the game value, P(player 1 wins) at the
        equilibrium, as ``mean``, ``lower`` and ``upper``.

    Examples
    --------
    >>> import warnings; warnings.simplefilter("ignore")
    >>> from skcodex import BayesianMatchupClassifier
    >>> from skcodex.datasets import make_matches
    >>> data = make_matches(n_players=8, n_matches=60, n_tournaments=2, random_state=0)
    >>> clf = BayesianMatchupClassifier(draws=50, tune=50, chains=1, random_state=0)
    >>> weights = nash_weights(clf.fit(data.X, data.y), n_draws=20)
    >>> weights.groupby("role")["mean"].sum().round(6).tolist()
    [1.0, 1.0, 1.0]
    """
    return nash_equilibria(clf, decks1, decks2, n_draws=n_draws).summary(interval)


# -- calibration -----------------------------------------------------------------------


def _bins(p: np.ndarray, n_bins: int, strategy: str) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)) or n_bins < 1:
        raise ValueError(f"n_bins must be a positive integer, got {n_bins!r}")
    if strategy == "uniform":
        edges = np.linspace(0.0, 1.0, n_bins + 1)
    elif strategy == "quantile":
        edges = np.unique(np.quantile(p, np.linspace(0.0, 1.0, n_bins + 1)))
        edges[0], edges[-1] = 0.0, 1.0
    else:
        raise ValueError(f"strategy must be 'uniform' or 'quantile', got {strategy!r}")
    which = np.clip(np.searchsorted(edges, p, side="right") - 1, 0, len(edges) - 2)
    return edges, which


def reliability_table(
    y_true: Any,
    p_win: Any,
    n_bins: int = 10,
    strategy: str = "uniform",
    interval: float = INTERVAL,
) -> pd.DataFrame:
    """Forecasts binned against how often player 1 actually won.

    Parameters
    ----------
    y_true : array-like of shape (n_matches,)
        1 where player 1 won, 0 where player 2 won.
    p_win : array-like of shape (n_matches,)
        Forecast P(player 1 wins).
    n_bins : int, default 10
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width bins on [0, 1], or bins holding about equal numbers of
        forecasts.
    interval : float
        Width of the interval on the observed frequency.

    Returns
    -------
    pandas.DataFrame
        One row per non-empty bin: ``bin_lower``, ``bin_upper``, ``count``,
        ``mean_forecast``, ``observed`` (share won by player 1) and
        ``lower``/``upper``, a Jeffreys interval for the observed share. For
        well calibrated forecasts ``observed`` is close to ``mean_forecast``.

    Examples
    --------
    >>> table = reliability_table([0, 1, 1, 1], [0.2, 0.3, 0.8, 0.9], n_bins=2)
    >>> table[["count", "mean_forecast", "observed"]].round(3).values.tolist()
    [[2.0, 0.25, 0.5], [2.0, 0.85, 1.0]]
    """
    y, p = _pair(y_true, p_win)
    edges, which = _bins(p, n_bins, strategy)
    count = np.bincount(which, minlength=len(edges) - 1).astype(float)
    keep = count > 0
    wins = np.bincount(which, weights=y, minlength=len(edges) - 1)[keep]
    n = count[keep]
    tail = (1.0 - interval) / 2.0
    return pd.DataFrame(
        {
            "bin_lower": edges[:-1][keep],
            "bin_upper": edges[1:][keep],
            "count": n,
            "mean_forecast": np.bincount(which, weights=p, minlength=len(edges) - 1)[keep] / n,
            "observed": wins / n,
            "lower": beta.ppf(tail, wins + 0.5, n - wins + 0.5),
            "upper": beta.ppf(1.0 - tail, wins + 0.5, n - wins + 0.5),
        }
    )


def _pair(y_true: Any, p_win: Any) -> tuple[np.ndarray, np.ndarray]:
    brier_score(y_true, p_win)  # validates both, with readable messages
    return np.asarray(y_true, dtype=float), np.asarray(p_win, dtype=float)


def brier_decomposition(
    y_true: Any, p_win: Any, n_bins: int = 10, strategy: str = "uniform"
) -> pd.Series:
    """The Brier score and Murphy's decomposition over forecast bins.

    ``brier ≈ reliability - resolution + uncertainty``, with, over bins ``k``
    holding ``n_k`` of the ``N`` forecasts, mean forecast ``f_k`` and observed
    frequency ``o_k`` (overall frequency ``o``):

    - reliability ``= sum n_k (f_k - o_k)^2 / N`` (0 is perfectly calibrated);
    - resolution ``= sum n_k (o_k - o)^2 / N`` (higher separates outcomes better);
    - uncertainty ``= o (1 - o)`` (the score of always forecasting ``o``).

    The identity is exact when every forecast in a bin takes the same value;
    otherwise ``within_bin`` holds the remainder, ``brier - (reliability -
    resolution + uncertainty)``, which comes from forecasts varying inside
    their bins.

    Returns
    -------
    pandas.Series
        ``brier``, ``reliability``, ``resolution``, ``uncertainty``,
        ``within_bin``, and ``n`` (number of forecasts).

    Examples
    --------
    >>> parts = brier_decomposition([0, 1, 1, 1], [0.25, 0.25, 0.85, 0.85], n_bins=2)
    >>> bool(abs(parts["reliability"] - parts["resolution"] + parts["uncertainty"]
    ...          - parts["brier"]) < 1e-12)
    True
    """
    y, p = _pair(y_true, p_win)
    table = reliability_table(y, p, n_bins, strategy)
    n = len(y)
    base = float(y.mean())
    weight = table["count"].to_numpy() / n
    reliability = float(np.sum(weight * (table["mean_forecast"] - table["observed"]) ** 2))
    resolution = float(np.sum(weight * (table["observed"] - base) ** 2))
    uncertainty = base * (1.0 - base)
    brier = brier_score(y, p)
    return pd.Series(
        {
            "brier": brier,
            "reliability": reliability,
            "resolution": resolution,
            "uncertainty": uncertainty,
            "within_bin": brier - (reliability - resolution + uncertainty),
            "n": float(n),
        }
    )


# -- convergence -----------------------------------------------------------------------


def convergence_summary(clf: Any) -> dict[str, Any]:
    """How trustworthy the posterior sample is, in numbers and plain words.

    Returns
    -------
    dict
        ``chains``, ``draws`` (per chain), ``max_rhat`` (None with one chain),
        ``min_ess_bulk``, ``min_ess_tail``, ``divergences`` over the free
        parameters (the spread parameters and every effect), and
        ``problems``, the failed checks of
        `skcodex.diagnostics.convergence_problems` (empty when all pass).
    """
    from skcodex import diagnostics, posterior
    from skcodex.diagnostics import convergence_problems, monitored_draws

    check_is_fitted(clf, "idata_")
    draws = np.concatenate(list(monitored_draws(clf.idata_).values()), axis=2)
    chains, n_draws = draws.shape[:2]
    values = diagnostics.convergence_statistics(draws, tail=True)
    max_rhat = float(np.nanmax(values["rhat"])) if chains > 1 else None
    ess_bulk = float(np.nanmin(values["ess_bulk"]))
    ess_tail = float(np.nanmin(values["ess_tail"]))
    stats = posterior.group(clf.idata_, "sample_stats")
    divergences = 0
    if stats is not None and "diverging" in stats:
        divergences = int(np.asarray(stats["diverging"]).sum())
    problems = getattr(clf, "convergence_problems_", None)
    if problems is None:
        problems = convergence_problems(clf.idata_)
    return {
        "chains": int(chains),
        "draws": int(n_draws),
        "max_rhat": max_rhat,
        "min_ess_bulk": ess_bulk,
        "min_ess_tail": ess_tail,
        "divergences": divergences,
        "problems": list(problems),
    }
