"""What to bring, the event part: each candidate's chance to win an event, per posterior draw."""

from __future__ import annotations

import numpy as np

from skcodex.analysis._base import quantiles


def _p_best(score: np.ndarray) -> np.ndarray:
    """Share of draws in which each column is highest; a tie shares the draw equally."""
    top = score == score.max(axis=1, keepdims=True)
    return (top / top.sum(axis=1, keepdims=True)).mean(axis=0)


def _ranks(mean: np.ndarray) -> np.ndarray:
    return (-mean).argsort(kind="stable").argsort() + 1


def _event_draws(fmt, first, second, among, picks, seed, per_draw, rng, player, names):
    """P(winning the event) per draw and candidate, each from ``per_draw`` simulated events.

    ``picks[d]`` are the opponent slots entered under draw ``d`` (for shares,
    each anonymous opponent with the deck drawn for that draw), ``names``
    those opponents' names. Each draw plays its events with that draw's
    probabilities through `skcodex.tournament.simulate_tournament`; every
    candidate meets the same field with the same random numbers, so the
    candidates differ only by the deck.
    """
    from skcodex.tournament._simulate import simulate_tournament

    n_draws, c, _ = first.shape
    n = len(names) + 1
    me = seed - 1
    entrants = [*names[:me], player, *names[me:]]
    others = np.array([i for i in range(n) if i != me])
    out = np.empty((n_draws, c))
    for d in range(n_draws):
        pick = picks[d]
        block_seed = int(rng.integers(2**63))
        p = np.full((n, n), 0.5)
        p[np.ix_(others, others)] = among[d][np.ix_(pick, pick)]
        for j in range(c):
            p[me, others] = first[d, j, pick]
            p[others, me] = second[d, j, pick]
            forecast = simulate_tournament(
                fmt, entrants, probabilities=p, n_simulations=per_draw, random_state=block_seed
            )
            out[d, j] = forecast.p_win[me]
    return out


def _check_event(format, opponents, n_entrants, seed, n_simulations, interval):
    """The event's format (None: none asked) and size, every argument checked."""
    fmt = None
    if format is not None:
        from skcodex.tournament._formats import Format, parse_format
        from skcodex.tournament._stage import TournamentError

        fmt = parse_format(format) if isinstance(format, str) else format
        if not isinstance(fmt, Format):
            raise TournamentError(f"format must be a Format or text, got {type(format).__name__}")
    if opponents.shares is None:
        if n_entrants is not None:
            raise ValueError(
                "n_entrants is for a field of shares; an entrant list sets the event's size "
                f"itself ({len(opponents.names) + 1} with the player)"
            )
        size = len(opponents.names) + 1
    elif fmt is not None:
        if n_entrants is None:
            raise ValueError(
                "n_entrants: with a field of shares and a format, say how many enter the event "
                "(the player included)"
            )
        if isinstance(n_entrants, bool) or not isinstance(n_entrants, (int, np.integer)):
            raise ValueError(f"n_entrants must be a whole number, got {n_entrants!r}")
        if n_entrants < 2:
            raise ValueError(f"n_entrants must be at least 2, got {n_entrants}")
        size = int(n_entrants)
    else:
        size = None
    if fmt is not None:
        fmt.check_entrants(size)
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise ValueError(f"seed must be a whole number, got {seed!r}")
        if not 1 <= seed <= size:
            raise ValueError(f"seed must be between 1 and {size} (the event's size), got {seed}")
    if isinstance(n_simulations, bool) or not isinstance(n_simulations, (int, np.integer)):
        raise ValueError(f"n_simulations must be a positive whole number, got {n_simulations!r}")
    if n_simulations < 1:
        raise ValueError(f"n_simulations must be a positive whole number, got {n_simulations}")
    quantiles(np.zeros(1), interval)  # checks the interval
    return fmt, size


def _event_columns(
    out,
    fmt,
    *,
    opponents,
    size,
    draws,
    n_simulations,
    rng,
    forecast,
    seed,
    player,
    anonymous,
    interval,
):
    """Add each candidate's chance to win the event (and its interval) to ``out``, ranked by it."""
    first, second, among = forecast
    per_draw = max(1, -(-int(n_simulations) // len(draws)))
    if opponents.shares is None:
        picks = np.broadcast_to(np.arange(size - 1), (len(draws), size - 1))
        names = list(opponents.names)
    else:
        n_decks = len(opponents.decks)
        chosen = rng.choice(n_decks, size=(len(draws), size - 1), p=opponents.shares)
        picks = np.arange(size - 1)[None, :] * n_decks + chosen
        names = anonymous
    chance = _event_draws(fmt, first, second, among, picks, seed, per_draw, rng, player, names)
    lower, upper = quantiles(chance, interval)
    mean = chance.mean(axis=0)
    if len(chance) > 1:
        se = chance.std(axis=0, ddof=1) / np.sqrt(len(chance))
    else:
        se = np.sqrt(mean * (1 - mean) / per_draw)
    out["p_event"] = mean
    out["p_event_lower"] = lower
    out["p_event_upper"] = upper
    out["p_event_se"] = se
    out["p_best_event"] = _p_best(chance)
    out["rank_event"] = _ranks(mean)
    out = out.sort_values(["rank_event"]).reset_index(drop=True)
    return out, per_draw
