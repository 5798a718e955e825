"""How long a fit is expected to take, said before it starts.

``skcodex fit`` prints, under its "Fitting ..." line, the time the fit is
expected to take: a fixed part plus a part proportional to the sampler's
work, measured on the machine the package was developed on
(``benchmarks/fit_time_estimate.py``, ``docs/speed.md``):

    seconds = FIXED_SECONDS + ((SECONDS_PER_ROW + SECONDS_PER_CELL * cells) * rows
                               + SECONDS_PER_EFFECT * effects)
              * (draws + tune) * chains / parallel

``rows`` is the number of distinct match rows (player 1, player 2 and their
decks: the likelihood's cost per gradient evaluation grows with it, not with
the number of matches), ``cells`` the effects each row reads (the two skills
and the deck cells of a starter and ``k`` side components a side: ``2 + (1 +
k)^2``, 18 for Codex, 3 for a game of characters alone), ``effects`` the
number of effects sampled (each
player's skill and every cell of the deck blocks, whether a match reads it or
not: the effects' prior, their draws and their convergence checks grow with
it; a game with hundreds of side components has tens of thousands), and
``parallel = min(chains, cores)`` the chains run at once. It leaves out what
the table alone cannot tell: how many gradient evaluations a draw takes (the
posterior's shape), a first fit's compilation (tens of seconds from empty
caches), the skill walk's extra work, and other programs sharing the processor.
The line says so and gives a range. While the sampler runs, nutpie's (or
PyMC's) progress bar shows each chain's draws and the time left, on a terminal
only.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = [
    "FIXED_SECONDS",
    "SECONDS_PER_CELL",
    "SECONDS_PER_EFFECT",
    "SECONDS_PER_ROW",
    "cells_per_row",
    "duration",
    "effect_count",
    "evidence_estimate",
    "expected_fit_seconds",
    "fit_estimate",
    "fit_work",
]

#: The fixed part of a fit from a warm compile cache, seconds of an idle machine; the
#: seconds per unit of work (one distinct row, one step, one chain, over the chains run
#: at once), of it per effect the row reads, and per effect sampled and step: least
#: squares on fits of synthetic Codex tables of 300, 1,200 and 4,000 matches, of games
#: of 60 and 150 side components and of games of characters alone of 2,000 and 8,000
#: matches (benchmarks/results/fit_time_estimate_constants.json, docs/speed.md).
FIXED_SECONDS = 0.10
SECONDS_PER_ROW = 8.2e-8
SECONDS_PER_CELL = 2.0e-8
SECONDS_PER_EFFECT = 4.7e-7


def duration(seconds: float) -> str:
    """``45 s``, ``3 min 20 s``, ``1 h 5 min`` (as the progress lines write times)."""
    s = round(seconds)
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    return f"{s // 3600} h {s % 3600 // 60} min"


def _parallel(chains: int, cores: int | None) -> int:
    return max(1, min(chains, cores or os.cpu_count() or 1))


def fit_work(X: Any, draws: int, tune: int, chains: int, cores: int | None = None) -> float:
    """The sampler's work for a table: distinct rows x steps x chains over the chains at once.

    Parameters
    ----------
    X : pandas.DataFrame
        The match table (``player1``, ``player2``, ``deck1``, ``deck2``).
    draws, tune, chains : int
        The sampler's settings.
    cores : int, optional
        The cores the chains may use (None: every processor of the machine).

    Returns
    -------
    float
    """
    return distinct_rows(X) * (draws + tune) * chains / _parallel(chains, cores)


def _deck_shape(X: Any, catalogue: Any = None) -> tuple[int, int, int, int] | None:
    """Players, starters, side components and components per deck of a table (None: unreadable)."""
    from skcodex.data import check_match_table

    try:
        table = check_match_table(X, catalogue)
    except Exception:  # the estimate never stops a fit; the fit names what is wrong
        return None
    players = set(table["player1"]) | set(table["player2"])
    decks = set(table["deck1"]) | set(table["deck2"])
    components = {c for d in decks for c in d.specs}
    k = max((len(d.specs) for d in decks), default=0)
    return len(players), len({d.starter for d in decks}), len(components), k


def effect_count(X: Any, catalogue: Any = None) -> int:
    """The effects a fit of ``X`` samples: each player's skill and every deck-block cell.

    With S starters and C side components in the table's decks, the deck blocks
    hold S x S starter cells and, when decks have components, 2 x S x C
    starter-against-component cells and C x C component pairs. A table that
    cannot be read counts its players alone (its fit will say what is wrong).

    Parameters
    ----------
    X : pandas.DataFrame
        The match table.
    catalogue : Catalogue or PlainCatalogue or None, default None
        What its decks are read against (`skcodex.data.check_match_table`).

    Returns
    -------
    int
    """
    return _counts(X, catalogue)[0]


def cells_per_row(X: Any, catalogue: Any = None) -> int:
    """The effects one match row reads: two skills and ``(1 + k)^2`` deck cells.

    ``k`` is the number of side components a deck holds (3 for Codex, 0 for a game
    of characters alone): the starter-against-starter cell, ``k`` starter-against-
    component cells each way and ``k x k`` component pairs. A table that cannot be
    read counts the two skills alone.
    """
    return _counts(X, catalogue)[1]


def _counts(X: Any, catalogue: Any = None) -> tuple[int, int]:
    """`effect_count` and `cells_per_row` of ``X``, from one reading of the table."""
    shape = _deck_shape(X, catalogue)
    if shape is None:
        return (len(set(X["player1"]) | set(X["player2"])) if len(X) else 0), 2
    players, starters, components, k = shape
    return players + starters**2 + 2 * starters * components + components**2, 2 + (1 + k) ** 2


def distinct_rows(X: Any) -> int:
    """The distinct (player 1, player 2, deck 1, deck 2) rows of a match table."""
    columns = [c for c in ("player1", "player2", "deck1", "deck2") if c in X.columns]
    return len(X[columns].astype(str).drop_duplicates()) if len(X) else 0


def slowdown(chains: int, cores: int | None = None, load: float | None = None) -> float:
    """How many times longer than on idle processors a fit is expected to take now.

    Other programs keep ``load`` processors busy on average (the one-minute load
    average, ``os.getloadavg``), and the fit's chains add theirs: each gets
    about ``processors / (load + chains at once)`` of a processor. 1 where the
    load average is not available.
    """
    cpus = os.cpu_count() or 1
    if load is None:
        try:
            load = os.getloadavg()[0]
        except (AttributeError, OSError):
            return 1.0
    return max(1.0, (load + _parallel(chains, cores)) / cpus)


def expected_fit_seconds(
    X: Any,
    draws: int,
    tune: int,
    chains: int,
    cores: int | None = None,
    catalogue: Any = None,
    effects: int | None = None,
    cells: int | None = None,
) -> float:
    """The expected time of a fit of ``X`` on idle processors, in seconds (warm compile cache).

    See the module's description for the formula and what it leaves out;
    ``effects`` is `effect_count` and ``cells`` `cells_per_row` of ``X`` read with
    ``catalogue`` unless given.
    """
    if effects is None:
        effects = effect_count(X, catalogue)
    if cells is None:
        cells = cells_per_row(X, catalogue)
    steps = (draws + tune) * chains / _parallel(chains, cores)
    per_row = SECONDS_PER_ROW + SECONDS_PER_CELL * cells
    return (
        FIXED_SECONDS
        + per_row * fit_work(X, draws, tune, chains, cores)
        + SECONDS_PER_EFFECT * effects * steps
    )


def fit_estimate(
    X: Any,
    draws: int,
    tune: int,
    chains: int,
    cores: int | None = None,
    load: float | None = None,
    catalogue: Any = None,
) -> str:
    """The line ``skcodex fit`` prints before a fit: the expected time, a range, its basis.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"player1": ["a", "b"], "player2": ["b", "a"],
    ...                   "deck1": ["MonoRed", "MonoRed"], "deck2": ["MonoRed", "MonoRed"]})
    >>> fit_estimate(X, 1000, 1000, 4, cores=2, load=0.0)
    '  expected to take under a second, from 2 distinct pairings and 18 effects x 2,000 steps \
x 4 chains'
    """
    effects, cells = _counts(X, catalogue)
    idle = expected_fit_seconds(X, draws, tune, chains, cores, effects=effects, cells=cells)
    factor = slowdown(chains, cores, load)
    seconds = idle * factor
    basis = (
        f"from {distinct_rows(X):,} distinct pairings and {effects:,} effects x "
        f"{draws + tune:,} steps x {chains} chain{'s' if chains != 1 else ''}"
    )
    if seconds < 1:
        return f"  expected to take under a second, {basis}"
    busy = (
        f"; {duration(idle)} on idle processors, {factor:.0f} times longer at the current load"
        if factor >= 1.5
        else ""
    )
    return (
        f"  expected to take about {duration(seconds)} ({duration(seconds / 2)} to "
        f"{duration(seconds * 2)}, not counting a first compile{busy}), {basis}"
    )


def evidence_estimate(
    clf: Any, X: Any, y: Any = None, cores: int | None = None, load: float | None = None
) -> str | None:
    """The line ``skcodex fit`` prints before a fit that decides parts by forward evidence.

    ``clf`` (an unfitted `skcodex.BayesianMatchupClassifier`) fits each candidate on
    the matches before each of the table's last periods, with short chains, before the
    chosen model's own fit (``clf._forward_fits``, which also gives their sampling);
    this is their expected time, the sum of `expected_fit_seconds` of each fold's
    training matches at the candidates' sampling. None when the fit decides nothing
    by evidence.
    """
    if getattr(clf, "part_selection", "none") != "forward":
        return None
    folds, candidates, short = clf._forward_fits(X, y)
    if not folds:
        return None
    draws, tune, chains = short["draws"], short["tune"], short["chains"]
    catalogue = clf.catalogue
    one_each = sum(
        expected_fit_seconds(X.iloc[rows], draws, tune, chains, cores, catalogue=catalogue)
        for rows in folds
    )
    seconds = one_each * candidates * slowdown(chains, cores, load)
    what = (
        f"{len(folds) * candidates} short fits ({candidates} candidate"
        f"{'s' if candidates != 1 else ''} on the matches before each of the last "
        f"{len(folds)} period{'s' if len(folds) != 1 else ''}, {chains} chain"
        f"{'s' if chains != 1 else ''} of {draws:,} draws)"
    )
    if seconds < 1:
        return f"  first the forward evidence, {what}: under a second"
    return (
        f"  first the forward evidence, {what}: about {duration(seconds)} "
        f"({duration(seconds / 2)} to {duration(seconds * 2)}, not counting each candidate's "
        "first compile; a skill walk's fits take longer)"
    )
