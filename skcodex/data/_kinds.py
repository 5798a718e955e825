"""The kinds of level an effect can belong to, each declared once.

A kind of level is what one dimension of an effect block counts: players,
starters, specs, rating periods, a player's debut stage, ... Every part of the
package that needs to know a kind reads its record in `KIND_TABLE`:

- the match table's check keeps a kind's ``column`` (`check_match_table`), and
  the encoding numbers its levels against those seen in training, the
  never-seen ones on from their count (`encode`, `Vocabulary`, `MatchCodes`);
- the layout counts its levels (`count`), and pads the count for the compile
  cache (``padding``);
- the PyMC model's coordinates, the posterior's level names (`level_names`) and
  a forecast's levels never seen in fit (`grown_sizes`) come from the record.

A **column kind** is read from a column of the match table, one level a match
(a map, a format, a ruleset): its record is all a new kind needs, with an
effect block over it in ``skcodex._matchup.blocks.BLOCK_TABLE`` that reads its
codes (``codes.column_codes("map")``). The other kinds are the model's own, read
from the players, the decks and the ``period`` column.

This module reads tables and codes only through their attributes, so the
layer below the model (``skcodex.data``) and the model (``skcodex._matchup``)
read the same records.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "DEBUT_LEVELS",
    "EXPERIENCE_LEVELS",
    "KIND_TABLE",
    "LevelKind",
    "column_kinds",
    "count",
    "grown_sizes",
    "has_unseen",
    "kind_names",
    "level_names",
    "padded_count",
    "positional_levels",
    "seen_levels",
]

#: The two levels of the ``stage`` kind: a side's player is playing their first rating
#: period (``"debut"``) or not (``"seasoned"``, the baseline, an effect of 0).
DEBUT_LEVELS = ("seasoned", "debut")

#: The levels of the ``experience_level`` kind: how many rating periods a side's player played
#: before the match's period (`skcodex.data._experience`). The first, at most one, is the
#: baseline (an effect of 0): a player's skill is measured from their first two periods.
EXPERIENCE_LEVELS = ("0-1", "2-3", "4-7", "8+")


def _power_of_two(n: int, minimum: int) -> int:
    """The smallest power of two that is >= max(n, minimum)."""
    return 1 << (max(int(n), int(minimum)) - 1).bit_length()


def _multiple_of_four(n: int) -> int:
    """``n`` rounded up to a multiple of 4; 0 stays 0 (a kind without levels stays so)."""
    return -(-int(n) // 4) * 4


@dataclass(frozen=True)
class LevelKind:
    """One kind of level: where its levels come from, how many, and how they are named.

    Attributes
    ----------
    name : str
        The kind's name, and the name of an effect block's dimension over it
        (with ``1`` or ``2`` appended for a side of a matchup: ``"starter1"``).
    size : str or None
        The `skcodex._matchup.layout.Layout` field holding its count; None for
        a kind of fixed ``levels`` or a column kind (counted in
        ``Layout.column_counts``).
    levels : tuple of str
        Fixed levels, the same in every table (the debut stages); empty when
        the levels come from the data.
    vocabulary : str or None
        The `Vocabulary` attribute holding the levels seen in training (a
        column kind's are in ``Vocabulary.column_levels``).
    codes_size : str or None
        The `MatchCodes` attribute counting seen and never-seen levels.
    unseen : str or None
        The `MatchCodes` attribute holding the never-seen levels, in code order.
    column : str or None
        For a column kind: the match table's column it is read from, one level
        a match.
    padding : callable
        ``padding(n, options)``: the count a compiled model is built for, at
        least ``n`` (layouts in one bucket share one compiled model); by
        default a multiple of four.
    grows : bool
        Whether a forecast gives levels never seen in fit a fresh effect
        (`grown_sizes`); a kind that does not grow (the walk's epochs) is not
        read by forecasts.
    """

    name: str
    size: str | None = None
    levels: tuple[str, ...] = ()
    vocabulary: str | None = None
    codes_size: str | None = None
    unseen: str | None = None
    column: str | None = None
    padding: Callable[[int, object], int] = lambda n, options: _multiple_of_four(n)
    grows: bool = True


#: The kinds of level, in the order the model's coordinates list them.
KIND_TABLE: tuple[LevelKind, ...] = (
    LevelKind(
        "player",
        size="n_players",
        vocabulary="players",
        codes_size="n_players",
        unseen="unseen_players",
        padding=lambda n, options: _power_of_two(n, 32),
    ),
    LevelKind(
        "starter",
        size="n_starters",
        vocabulary="starters",
        codes_size="n_starters",
        unseen="unseen_starters",
    ),
    LevelKind(
        "spec",
        size="n_specs",
        vocabulary="specs",
        codes_size="n_specs",
        unseen="unseen_specs",
    ),
    LevelKind(
        "epoch",
        size="n_epochs",
        padding=lambda n, options: _power_of_two(n, 2) if options.time_varying else int(n),
        grows=False,
    ),
    LevelKind("stage", levels=DEBUT_LEVELS),
    LevelKind(
        "period",
        size="n_periods",
        vocabulary="periods",
        codes_size="n_periods",
        unseen="unseen_periods",
        padding=lambda n, options: _power_of_two(n, 2) if options.period_offset else int(n),
    ),
    LevelKind("experience_level", levels=EXPERIENCE_LEVELS),
)


def kind_names() -> tuple[str, ...]:
    """The names of the kinds, in table order."""
    return tuple(k.name for k in KIND_TABLE)


def column_kinds() -> tuple[LevelKind, ...]:
    """The kinds read from a column of the match table, in table order."""
    return tuple(k for k in KIND_TABLE if k.column is not None)


def count(kind: LevelKind, layout) -> int:
    """The number of levels of ``kind`` in ``layout`` (a column kind absent: 0)."""
    if kind.levels:
        return len(kind.levels)
    if kind.size is not None:
        return int(getattr(layout, kind.size))
    return int(dict(layout.column_counts).get(kind.name, 0))


def padded_count(kind: LevelKind, layout) -> int:
    """The count of ``kind`` a compiled model is built for (a kind without levels: 0)."""
    n = count(kind, layout)
    return kind.padding(n, layout.options) if n else 0


def seen_levels(kind: LevelKind, vocab) -> list:
    """The levels of ``kind`` seen in training, in code order (empty: not from the data)."""
    if kind.levels:
        return list(kind.levels)
    if kind.column is not None:
        return list(dict(vocab.column_levels).get(kind.name, ()))
    return list(getattr(vocab, kind.vocabulary)) if kind.vocabulary else []


def level_names(vocab, codes=None) -> dict[str, list]:
    """The levels of every kind that has names: seen in training, then those of ``codes``.

    Kinds without names of their own (the walk's epochs) are left out.
    """
    out = {}
    for kind in KIND_TABLE:
        if not (kind.levels or kind.vocabulary or kind.column):
            continue
        out[kind.name] = seen_levels(kind, vocab) + (
            list(_unseen(kind, codes)) if codes is not None and not kind.levels else []
        )
    return out


def positional_levels(layout) -> dict:
    """Every kind's levels as positions (fixed levels by their names)."""
    return {k.name: k.levels or range(count(k, layout)) for k in KIND_TABLE}


def _unseen(kind: LevelKind, codes) -> tuple:
    if kind.column is not None:
        return codes.columns[kind.name].unseen if kind.name in codes.columns else ()
    return getattr(codes, kind.unseen) if kind.unseen else ()


def has_unseen(codes) -> bool:
    """Whether ``codes`` hold a level of any kind never seen in fit."""
    return any(_unseen(kind, codes) for kind in KIND_TABLE if not kind.levels)


def grown_sizes(layout, codes) -> dict:
    """The sizes of ``layout`` grown by the never-seen levels of ``codes``.

    Each kind that grows takes the count of ``codes`` (seen and never seen);
    a kind the layout has no levels of stays without (its blocks are off).
    Returns keyword arguments for ``dataclasses.replace(layout, ...)``.
    """
    out, columns = {}, dict(layout.column_counts)
    for kind in KIND_TABLE:
        if not kind.grows or kind.levels or count(kind, layout) == 0:
            continue
        if kind.column is not None:
            if kind.name in codes.columns:
                columns[kind.name] = codes.columns[kind.name].n_levels
        else:
            out[kind.size] = int(getattr(codes, kind.codes_size))
    if columns:
        out["column_counts"] = tuple(columns.items())
    return out
