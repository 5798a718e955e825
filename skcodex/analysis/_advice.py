"""Which of a player's decks to bring against a field: win rate and the chance to win the event."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from skcodex.analysis._advice_event import _check_event, _event_columns, _p_best, _ranks
from skcodex.analysis._base import INTERVAL, catalogue, check_fitted, quantiles, thin
from skcodex.analysis._decks import repeated_deck
from skcodex.codex import Deck, deck_label, parse_decks

__all__ = ["deck_advice"]

#: Posterior draws the advice uses unless told otherwise (evenly spaced); each
#: draw is one unit of the event simulation, so this many draws is this many
#: groups of simulated events.
ADVICE_DRAWS = 200

#: How far the shares of a field may sum from one.
SHARE_TOLERANCE = 1e-6


class _Field:
    """The opponents: entrants (one deck each) or shares of decks.

    ``names`` are the entrants' names (generated ones for unnamed entrants;
    empty for shares, whose anonymous opponents are named later); ``decks``
    their decks, or the decks with a share above zero; ``shares`` those shares,
    or None for entrants.
    """

    def __init__(self, names: list, decks: list[Deck], shares: np.ndarray | None):
        self.names, self.decks, self.shares = names, decks, shares


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


def _anonymous(n: int, taken: set) -> list[str]:
    """``n`` names of opponents never seen in fit, none of them a fitted player's."""
    stem = "opponent"
    while any(f"{stem} {k + 1}" in taken for k in range(n)):
        stem = f"({stem})"
    return [f"{stem} {k + 1}" for k in range(n)]


def _one_deck(value: Any, who: str) -> Any:
    if isinstance(value, str) and ";" in value:
        parts = [p.strip() for p in value.split(";") if p.strip()]
        if len(parts) == 1:
            return parts[0]
        value = parts
    if isinstance(value, (list, tuple)):
        if len(value) != 1:
            raise ValueError(
                f"field: {who} lists {len(value)} decks; each opponent brings one deck "
                "(for an opponent who may bring any of several, give the field as shares)"
            )
        value = value[0]
    if value is None or (isinstance(value, float) and np.isnan(value)):
        raise ValueError(f"field: {who} has no deck")
    if isinstance(value, str) and not value.strip():
        raise ValueError(f"field: {who} has no deck")
    return value


def _read_shares(decks: list, shares: list, clf: Any) -> tuple[list[Deck], np.ndarray]:
    values = []
    for deck, share in zip(decks, shares):
        try:
            x = float(share)
        except (TypeError, ValueError):
            raise ValueError(f"field: the share of {deck!r} is not a number: {share!r}") from None
        if not np.isfinite(x) or x < 0:
            raise ValueError(f"field: the share of {deck!r} must be a number of 0 or more, got {x}")
        values.append(x)
    w = np.array(values, dtype=float)
    if abs(w.sum() - 1.0) > SHARE_TOLERANCE:
        raise ValueError(
            f"field: the shares sum to {w.sum():.6g}, not 1; give each deck's share of the "
            "field (divide each by their sum)"
        )
    parsed = parse_decks(
        [_one_deck(d, f"share {k + 1}") for k, d in enumerate(decks)],
        catalogue(clf),
        clf.vocabulary_.decks,
        "field",
    )
    if len(set(parsed)) < len(parsed):
        seen = set()
        for d in parsed:
            if d in seen:
                raise ValueError(f"field: the deck {deck_label(d, catalogue(clf))} has two shares")
            seen.add(d)
    keep = w > 0
    return [d for d, k in zip(parsed, keep) if k], w[keep]


def _check_field(field: Any, player: Any, clf: Any) -> _Field:
    """The field in one of its forms, checked; nothing of ``field`` is modified."""
    names: list | None = None
    if isinstance(field, pd.DataFrame):
        columns = set(field.columns)
        if "deck" not in columns:
            raise ValueError(
                "field: a table needs a 'deck' column (with 'player' for entrants, or "
                f"'share' for shares of decks); got columns {sorted(map(str, columns))}"
            )
        if "share" in columns:
            if "player" in columns:
                raise ValueError(
                    "field: give entrants (columns player, deck) or shares of decks (columns "
                    "deck, share), not both"
                )
            if len(field) == 0:
                raise ValueError("field: the field is empty; give at least one opponent's deck")
            decks, w = _read_shares(list(field["deck"]), list(field["share"]), clf)
            return _Field([], decks, w)
        decks = list(field["deck"])
        if "player" in columns:
            names = list(field["player"])
    elif isinstance(field, Mapping):
        values = list(field.values())
        if values and all(_is_number(v) for v in values):
            decks, w = _read_shares(list(field), values, clf)
            return _Field([], decks, w)
        names, decks = list(field), values
    elif isinstance(field, (list, tuple, pd.Series, np.ndarray)):
        decks = list(field)
    elif isinstance(field, (str, Deck)):
        decks = [field]
    else:
        raise ValueError(
            "field must be a table (columns player and deck, or deck and share), a mapping of "
            f"players to decks or of decks to shares, or a list of decks; got "
            f"{type(field).__name__}"
        )
    if len(decks) == 0:
        raise ValueError("field: the field is empty; give at least one opponent's deck")
    if names is None:
        who = [f"entrant {k + 1}" for k in range(len(decks))]
        names = _anonymous(len(decks), {*clf.vocabulary_.players, player})
    else:
        for k, name in enumerate(names):
            if name is None or (not isinstance(name, str) and pd.isna(name)):
                raise ValueError(f"field: entrant {k + 1} has no name")
            if isinstance(name, str) and not name.strip():
                raise ValueError(f"field: entrant {k + 1} has no name")
            if name == player:
                raise ValueError(
                    f"field: entrant {k + 1} is {player!r}, the player being advised; leave "
                    "them out of the field (they enter with each candidate in turn)"
                )
        seen: set = set()
        for name in names:
            if name in seen:
                raise ValueError(f"field: {name!r} is listed more than once")
            seen.add(name)
        who = [repr(n) for n in names]
    one = [_one_deck(d, w) for d, w in zip(decks, who)]
    parsed = parse_decks(one, catalogue(clf), clf.vocabulary_.decks, "field")
    return _Field(list(names), parsed, None)


def _check_candidates(candidates: Any, clf: Any) -> list[Deck]:
    if isinstance(candidates, (str, Deck)):
        candidates = [candidates]
    if not isinstance(candidates, (list, tuple, pd.Series, np.ndarray, pd.Index)):
        raise ValueError(f"candidates must be a list of decks, got {type(candidates).__name__}")
    if len(candidates) == 0:
        raise ValueError("candidates: give at least one deck to choose among")
    decks = parse_decks(list(candidates), catalogue(clf), clf.vocabulary_.decks, "candidates")
    twice = repeated_deck(decks)
    if twice is not None:
        raise ValueError(
            f"candidates: {deck_label(decks[twice[0]], catalogue(clf))} is listed more than once"
        )
    return decks


def _check_player(player: Any) -> Any:
    if player is None or (not isinstance(player, str) and pd.isna(player)):
        raise ValueError("player: name the player to advise")
    if isinstance(player, str) and not player.strip():
        raise ValueError("player: name the player to advise")
    if not isinstance(player, (str, int, np.integer)):
        raise ValueError(f"player must be a name (text or a number), got {type(player).__name__}")
    return player


def _coin_flip(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """P(win) when a coin decides who moves first: ``(P(win first) + 1 - P(lose first)) / 2``."""
    return 0.5 * (first + 1.0 - second)


def _pair_table(players1, players2, decks1, decks2) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "player1": pd.Series(list(players1), dtype=object),
            "player2": pd.Series(list(players2), dtype=object),
            "deck1": pd.Series(list(decks1), dtype=object),
            "deck2": pd.Series(list(decks2), dtype=object),
        }
    )


#: Bytes of posterior probabilities one call of ``predict_proba_draws`` may return.
_CHUNK_BYTES = 128 * 2**20

#: Most opponent-deck pairs a field of shares may ask for in an event (the anonymous
#: entrants times the decks with a share, squared).
MAX_SLOT_PAIRS = 400_000

#: Anonymous opponents a field of shares is averaged over for the win rate without a format.
SHARE_OPPONENTS = 16


def _predict_draws(clf, table: pd.DataFrame, draws: np.ndarray) -> np.ndarray:
    """``clf.predict_proba_draws(table)[draws]``, in chunks of rows of bounded memory."""
    total = len(clf.effect_draws_)
    step = max(1, _CHUNK_BYTES // (8 * total))
    out = np.empty((len(draws), len(table)))
    for start in range(0, len(table), step):
        part = table.iloc[start : start + step].reset_index(drop=True)
        out[:, start : start + len(part)] = clf.predict_proba_draws(part)[draws]
    return out


def _probabilities(clf, player, candidates, decks, slot_names, slot_decks, draws):
    """Per draw: the player with each candidate against each opponent slot, and slots' pairs.

    A slot is an opponent with one deck (``slot_names[k]`` with
    ``decks[slot_decks[k]]``). Returns ``first`` (n_draws, n_candidates,
    n_slots), P(player wins moving first); ``second`` (same shape),
    P(opponent wins moving first); and ``among`` (n_draws, n_slots, n_slots),
    P(slot i beats slot j moving first) for slots of different opponents (0.5
    elsewhere).
    """
    c, m = len(candidates), len(slot_names)
    cand = np.repeat(np.arange(c), m)
    each = np.tile(np.arange(m), c)
    names = np.array(slot_names, dtype=object)
    u, v = np.nonzero(names[:, None] != names[None, :])
    slot_deck = [decks[k] for k in slot_decks]
    table = pd.concat(
        [
            _pair_table(
                [player] * (c * m),
                names[each],
                [candidates[k] for k in cand],
                [slot_deck[k] for k in each],
            ),
            _pair_table(
                names[each],
                [player] * (c * m),
                [slot_deck[k] for k in each],
                [candidates[k] for k in cand],
            ),
            _pair_table(names[u], names[v], [slot_deck[k] for k in u], [slot_deck[k] for k in v]),
        ],
        ignore_index=True,
    )
    p = _predict_draws(clf, table, draws)
    n = len(draws)
    first = p[:, : c * m].reshape(n, c, m)
    second = p[:, c * m : 2 * c * m].reshape(n, c, m)
    among = np.full((n, m, m), 0.5)
    among[:, u, v] = p[:, 2 * c * m :]
    return first, second, among


def _slots(opponents, size, fmt, clf, player):
    """The opponents' slots (name, deck index), and the anonymous names of a field of shares."""
    anonymous = None
    taken = {*clf.vocabulary_.players, player}
    if opponents.shares is None:
        slot_names, slot_decks = list(opponents.names), list(range(len(opponents.names)))
    else:
        n_anonymous = size - 1 if fmt is not None else SHARE_OPPONENTS
        anonymous = _anonymous(n_anonymous, taken)
        n_decks = len(opponents.decks)
        if fmt is not None and (n_anonymous * n_decks) ** 2 > MAX_SLOT_PAIRS:
            raise ValueError(
                f"{n_anonymous} anonymous opponents with {n_decks} decks each possible make "
                f"{(n_anonymous * n_decks) ** 2:,} pairs to forecast, more than "
                f"{MAX_SLOT_PAIRS:,}: give fewer decks (merge the rare ones) or fewer entrants"
            )
        slot_names = [name for name in anonymous for _ in range(n_decks)]
        slot_decks = [b for _ in anonymous for b in range(n_decks)]
    return slot_names, slot_decks, anonymous


def deck_advice(
    clf: Any,
    player: Any,
    candidates: Sequence[str | Deck],
    field: Any,
    *,
    format: Any = None,
    n_entrants: int | None = None,
    seed: int = 1,
    n_draws: int | None = ADVICE_DRAWS,
    n_simulations: int = 10_000,
    interval: float = INTERVAL,
    random_state: Any = None,
) -> pd.DataFrame:
    """Which of a player's decks to bring: each candidate's win rate and chance to win the event.

    For each candidate deck, the player's expected win rate against the field
    (each opponent equally likely, or the decks in their shares; who moves first
    decided by a coin flip) and, given a tournament format, the chance of
    winning the event with the player entered with that deck
    (`skcodex.tournament.simulate_tournament`). Every figure is computed per
    posterior draw and then summarised, so each comes with its interval, and
    the probability that a candidate is the best is the share of draws in
    which it ranks first.

    Parameters
    ----------
    clf : BayesianMatchupClassifier
        A fitted classifier.
    player : str or int
        The player to advise; one never seen in fit is a player drawn from the
        population (as in ``predict_proba``).
    candidates : list of str or Deck
        The decks to choose among (notation read against the classifier's
        catalogue, or labels of fitted decks).
    field : DataFrame, mapping or list
        The opponents, in one of these forms:

        - entrants: a table with columns ``player`` and ``deck`` (one deck each),
          or a mapping of players to decks; a player never seen in fit is drawn
          from the population;
        - unnamed entrants: a table with a ``deck`` column alone, or a list of
          decks (each an opponent never seen in fit);
        - shares: a table with columns ``deck`` and ``share``, or a mapping of
          decks to shares summing to one (anonymous opponents whose decks are
          drawn from the shares).
    format : str or skcodex.tournament.Format, default None
        The event's format (``"swiss:4+knockout:8"``, see
        `skcodex.tournament.parse_format`). Without it only the win rates are
        given.
    n_entrants : int, default None
        With a field of shares and a format: how many enter the event, the
        player included. An entrant list sets the size itself.
    seed : int, default 1
        The player's seed in the event (1 = top seed); the field's entrants
        keep their order around it. The same for every candidate.
    n_draws : int or None, default 200
        Evenly spaced posterior draws to use (None: all).
    n_simulations : int, default 10000
        Simulated events per candidate, spread evenly over the draws (at
        least one per draw): each draw's chance is the share of its events
        won, so its Monte Carlo noise is part of the event chance's interval
        and of ``p_best_event``.
    interval : float, default 0.9
        Width of the equal-tailed credible intervals.
    random_state : int, numpy Generator or None, default None
        Seeds the simulated events (and, for shares, the opponents' decks).

    Returns
    -------
    pandas.DataFrame
        One row per candidate, best first (by the event chance with a format,
        else by the win rate): ``deck`` (its label), ``win_rate``,
        ``win_rate_lower``, ``win_rate_upper``, ``p_best_win_rate``,
        ``rank_win_rate``; with a format also ``p_event``, ``p_event_lower``,
        ``p_event_upper``, ``p_event_se`` (the Monte Carlo standard error of
        ``p_event``, from the spread of the draws' chances), ``p_best_event``
        and ``rank_event``. ``attrs`` records the player, the format, the
        field's size and kind, the draws and the simulated events per draw.

    Notes
    -----
    The expected win rate against entrants is the mean, over the opponents,
    of ``(P(win moving first) + 1 - P(lose moving second)) / 2``, per draw;
    against shares, the share-weighted mean over the decks against a player
    never seen in fit. The field's opponents keep their decks; the player's
    deck is the only thing that changes between candidates, and every
    candidate meets the same simulated events (the same random numbers and,
    for shares, the same opponents' decks in each draw), so their
    differences are not blurred by simulation noise more than need be.

    Examples
    --------
    >>> from skcodex import BayesianMatchupClassifier, datasets
    >>> data = datasets.make_matches(n_players=8, n_matches=80, n_tournaments=2, random_state=0)
    >>> clf = BayesianMatchupClassifier(draws=50, tune=50, chains=1, random_state=0)
    >>> clf = clf.fit(data.X, data.y)  # a quick, rough fit
    >>> field = {"MonoRed": 0.5, "MonoBlue": 0.3, "MonoGreen": 0.2}
    >>> advice = deck_advice(clf, data.X["player1"][0], ["MonoBlack", "MonoWhite"], field)
    >>> sorted(advice["deck"])
    ['MonoBlack', 'MonoWhite']
    """
    check_fitted(clf)
    player = _check_player(player)
    decks = _check_candidates(candidates, clf)
    opponents = _check_field(field, player, clf)
    fmt, size = _check_event(format, opponents, n_entrants, seed, n_simulations, interval)
    draws = thin(len(clf.effect_draws_), n_draws)

    rng = np.random.default_rng(random_state)
    slot_names, slot_decks, anonymous = _slots(opponents, size, fmt, clf, player)
    first, second, among = _probabilities(
        clf, player, decks, opponents.decks, slot_names, slot_decks, draws
    )
    versus = _coin_flip(first, second)  # (n_draws, n_candidates, n_slots)
    if opponents.shares is None:
        win = versus.mean(axis=2)
    else:
        per_deck = versus.reshape(len(draws), len(decks), -1, len(opponents.decks)).mean(axis=2)
        win = per_deck @ opponents.shares
    cat = catalogue(clf)
    lower, upper = quantiles(win, interval)
    out = pd.DataFrame(
        {
            "deck": [deck_label(d, cat) for d in decks],
            "win_rate": win.mean(axis=0),
            "win_rate_lower": lower,
            "win_rate_upper": upper,
            "p_best_win_rate": _p_best(win),
            "rank_win_rate": _ranks(win.mean(axis=0)),
        }
    )
    per_draw = None
    if fmt is not None:
        out, per_draw = _event_columns(
            out,
            fmt,
            opponents=opponents,
            size=size,
            draws=draws,
            n_simulations=n_simulations,
            rng=rng,
            forecast=(first, second, among),
            seed=seed,
            player=player,
            anonymous=anonymous,
            interval=interval,
        )
    else:
        out = out.sort_values(["rank_win_rate"]).reset_index(drop=True)
    out.attrs.update(
        player=player,
        format=None if fmt is None else format if isinstance(format, str) else repr(fmt),
        field="shares" if opponents.shares is not None else "entrants",
        n_entrants=size,
        seed=seed if fmt is not None else None,
        interval=interval,
        n_draws=len(draws),
        simulations_per_draw=per_draw,
    )
    return out
