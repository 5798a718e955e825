"""A checked match table as integer codes against the levels seen in training.

`Vocabulary` holds the players, starters and specs of a training table (and its
decks, most played first); `encode` turns a table checked by
`skcodex.data.check_match_table` into `MatchCodes`, numbering levels the
vocabulary has never seen on from its sizes, so a model can give each of them
a fresh effect. `epochs` and `period_labels` number and name rating periods in
the order they began.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from skcodex._docstrings import shared_parameters
from skcodex.data import _experience as experience
from skcodex.data import _kinds as kinds
from skcodex.data._table import MatchTableError, TimeOrder, rows_in_time

__all__ = [
    "ColumnCodes",
    "MatchCodes",
    "Vocabulary",
    "debut_flags",
    "encode",
    "epochs",
    "period_labels",
    "walk_size",
]


@dataclass(frozen=True)
class Vocabulary:
    """The levels seen in training: players, starters and specs, each in a fixed order.

    ``decks`` are the decks played, most played first (both seats counted,
    ties by first appearance), with their counts in ``deck_counts``.
    ``debut_periods`` holds each player's first rating period (the ``period``
    of their earliest match in time, as text), in the order of ``players``;
    it is empty when the table has no ``period`` column. ``periods`` holds
    the table's periods (as text) in the order they began; ``played_periods``
    the periods each player played, as sorted positions in ``periods``, one
    tuple per player (empty without periods; read by the ``experience`` option).

    Parameters
    ----------
    players : tuple
        The players, sorted by their text.
    starters : tuple of str
        The starters, sorted.
    specs : tuple of str
        The specs (side components), sorted.
    specs_per_deck : int
        Specs in every deck.
    decks : tuple of Deck, default ()
        The decks played, most played first.
    deck_counts : tuple of int, default ()
        How often each deck of ``decks`` was played.
    debut_periods : tuple of str, default ()
        Each player's first rating period.
    periods : tuple of str, default ()
        The periods, in the order they began.
    played_periods : tuple of tuple of int, default ()
        The periods each player played, as positions in ``periods``.
    column_levels : tuple of (str, tuple of str), default ()
        For each kind of level read from its own column of the table (a map, a format):
        its name and its levels seen, as text, sorted.
    """

    players: tuple
    starters: tuple[str, ...]
    specs: tuple[str, ...]
    specs_per_deck: int
    decks: tuple = ()
    deck_counts: tuple = ()
    debut_periods: tuple = ()
    periods: tuple = ()
    played_periods: tuple = ()
    column_levels: tuple = ()

    @classmethod
    @shared_parameters
    def from_table(cls, table: pd.DataFrame, *, time: TimeOrder | None = None) -> Vocabulary:
        """Collect the levels of a table checked by `check_match_table`, sorted.

        Parameters
        ----------
        table : pandas.DataFrame
            A table checked by `check_match_table`.
        {time_order}

        Returns
        -------
        Vocabulary
            The table's levels.
        """
        order = rows_in_time(table, time) if "period" in table.columns else None
        players = _both_players(table).unique()
        decks = pd.unique(np.concatenate([table["deck1"], table["deck2"]]))
        starters = sorted({d.starter for d in decks})
        specs = sorted({s for d in decks for s in d.specs})
        played = pd.Series(np.concatenate([table["deck1"], table["deck2"]])).value_counts(
            sort=False
        )
        played = played.sort_values(ascending=False, kind="stable")
        players = tuple(sorted(players, key=str))
        return cls(
            players=players,
            starters=tuple(starters),
            specs=tuple(specs),
            specs_per_deck=len(decks[0].specs),
            decks=tuple(played.index),
            deck_counts=tuple(int(c) for c in played.to_numpy()),
            debut_periods=_debut_periods(table, players, order),
            periods=_period_order(table, order),
            played_periods=_played_periods(table, players, order),
            column_levels=tuple(
                (kind.name, tuple(sorted(set(_as_text(table[kind.column])))))
                for kind in kinds.column_kinds()
                if kind.column in table.columns
            ),
        )

    @property
    def sizes(self) -> tuple[int, int, int]:
        """Number of players, starters, specs."""
        return len(self.players), len(self.starters), len(self.specs)


@dataclass(frozen=True)
class ColumnCodes:
    """A column kind of level (`skcodex.data._kinds`) as codes, one a match.

    Parameters
    ----------
    codes : ndarray of int
        Each match's level code; never-seen levels numbered on from the seen.
    n_levels : int
        Levels, seen and never seen.
    unseen : tuple of str, default ()
        The never-seen levels, in code order.
    """

    codes: np.ndarray
    n_levels: int
    unseen: tuple = ()


@dataclass(frozen=True)
class MatchCodes:
    """A match table as integer codes.

    Codes below a vocabulary's size are levels seen in training. A level not in
    the vocabulary gets a code from the size upwards, the same code for every
    row it appears in, so a model can give it one fresh effect per posterior
    draw; ``n_players`` etc. count both. ``debut1`` and ``debut2`` flag the
    matches in which player 1 (player 2) plays their first rating period
    (see `debut_flags`). ``period`` codes each match's period against the
    vocabulary's periods, a period never seen numbered on from their count
    (None without a ``period`` column). ``experience1`` and ``experience2``
    hold each side's experience level (how many periods the player played
    before; None without periods).

    Parameters
    ----------
    player1 : ndarray of int
        Player 1's code in each match.
    player2 : ndarray of int
        Player 2's code in each match.
    starter1 : ndarray of int
        The code of player 1's starter in each match.
    starter2 : ndarray of int
        The code of player 2's starter in each match.
    specs1 : ndarray of int of shape (n_matches, specs_per_deck)
        The codes of player 1's specs in each match.
    specs2 : ndarray of int of shape (n_matches, specs_per_deck)
        The codes of player 2's specs in each match.
    n_players : int
        Players, seen and unseen.
    n_starters : int
        Starters, seen and unseen.
    n_specs : int
        Specs, seen and unseen.
    unseen_players : tuple, default ()
        The players not in the vocabulary, in code order.
    unseen_starters : tuple, default ()
        The starters not in the vocabulary, in code order.
    unseen_specs : tuple, default ()
        The specs not in the vocabulary, in code order.
    epoch : ndarray of int or None, default None
        Each match's rating epoch: how many distinct periods have begun by
        then, minus one (None without a ``period`` column).
    n_epochs : int, default 0
        The number of epochs.
    debut1 : ndarray of bool or None, default None
        Whether player 1 plays their first rating period in each match.
    debut2 : ndarray of bool or None, default None
        Whether player 2 plays their first rating period in each match.
    period : ndarray of int or None, default None
        Each match's period code.
    n_periods : int, default 0
        Periods, seen and unseen.
    unseen_periods : tuple, default ()
        The periods not in the vocabulary, in code order.
    experience1 : ndarray of int or None, default None
        Player 1's experience level in each match.
    experience2 : ndarray of int or None, default None
        Player 2's experience level in each match.
    columns : dict of str to ColumnCodes, default {}
        The codes of each column kind of level the table has, by kind.
    """

    player1: np.ndarray
    player2: np.ndarray
    starter1: np.ndarray
    starter2: np.ndarray
    specs1: np.ndarray
    specs2: np.ndarray
    n_players: int
    n_starters: int
    n_specs: int
    unseen_players: tuple = ()
    unseen_starters: tuple = ()
    unseen_specs: tuple = ()
    epoch: np.ndarray | None = None
    n_epochs: int = 0
    debut1: np.ndarray | None = None
    debut2: np.ndarray | None = None
    period: np.ndarray | None = None
    n_periods: int = 0
    unseen_periods: tuple = ()
    experience1: np.ndarray | None = None
    experience2: np.ndarray | None = None
    columns: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.player1)

    def column_codes(self, kind: str) -> np.ndarray:
        """Each match's level of the column kind ``kind``, as codes.

        Parameters
        ----------
        kind : str
            The name of a kind of level read from its own column of the match table.

        Returns
        -------
        ndarray of int, shape (n_matches,)
            Each match's level code.

        Raises
        ------
        ValueError
            If the table had no column for the kind.
        """
        if kind not in self.columns:
            column = next((k.column for k in kinds.column_kinds() if k.name == kind), kind)
            raise ValueError(
                f"the model reads a level of kind {kind!r} in every match: the match table "
                f"needs a column {column!r}"
            )
        return self.columns[kind].codes


def _both_players(table: pd.DataFrame) -> pd.Series:
    """``player1`` then ``player2`` as one Series, in the columns' own dtype.

    Text columns are often Arrow-backed (pandas' ``str`` dtype): going through
    NumPy would make one Python string a row, so a very long name would be
    copied once for every match it appears in.
    """
    return pd.concat([table["player1"], table["player2"]], ignore_index=True)


def period_text(value: object) -> str:
    """A period label as the text a model keeps: a whole number is written as one.

    ``1``, ``1.0`` and ``np.int64(1)`` are all ``"1"``, so a period read as a float
    at prediction (a column with a missing value elsewhere, a CSV's ``1.0``) is
    the period ``1`` of training, not a new one.
    """
    if isinstance(value, (bool, np.bool_)):
        return str(value)
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)) and np.isfinite(value) and value == int(value):
        return str(int(value))
    return str(value)


def _period_text(table: pd.DataFrame) -> np.ndarray:
    """The ``period`` of each row as text (how `Vocabulary.debut_periods` keeps it)."""
    return _as_text(table["period"])


def _period_order(table: pd.DataFrame, order: np.ndarray | None) -> tuple:
    """The table's periods as text, in the order they began (empty without periods)."""
    if "period" not in table.columns:
        return ()
    return tuple(period_text(p) for p in _labels_in_order(table, order))


def _debut_periods(table: pd.DataFrame, players: tuple, order: np.ndarray | None) -> tuple:
    """Each player's first rating period: the period of their earliest match in time."""
    if "period" not in table.columns:
        return ()
    n = len(table)
    rank = np.arange(n) if order is None else np.argsort(order, kind="stable")
    period = _period_text(table)
    # players as codes (hashing each distinct name once, never copying it per row)
    rows, names = pd.factorize(_both_players(table))
    code = pd.Index(players).get_indexer(names)[rows]
    rank2, period2 = np.concatenate([rank, rank]), np.concatenate([period, period])
    earliest = np.full(len(players), 2 * n, dtype=np.int64)
    np.minimum.at(earliest, code, rank2)
    row_of_rank = np.empty(2 * n, dtype=np.int64)
    row_of_rank[rank2[:n]] = np.arange(n)  # each rank is one row; both sides share it
    return tuple(period2[row_of_rank[earliest]])


def _played_periods(table: pd.DataFrame, players: tuple, order: np.ndarray | None) -> tuple:
    """The periods each player played, as sorted positions in the table's period order."""
    if "period" not in table.columns:
        return ()
    position = pd.Index(_period_order(table, order), dtype=object).get_indexer(_period_text(table))
    rows, names = pd.factorize(_both_players(table))
    code = pd.Index(players).get_indexer(names)[rows]
    return experience.played_periods(np.concatenate([position, position]), code, len(players))


def debut_flags(
    table: pd.DataFrame, vocab: Vocabulary, player1: np.ndarray, player2: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Whether each side's player plays their first rating period in each match.

    A player never seen in training (a code from the vocabulary's size up)
    always debuts. A player seen in training debuts in the matches of their
    first period (`Vocabulary.debut_periods`); when the vocabulary or the
    table has no periods, a seen player never debuts.

    Parameters
    ----------
    table : pandas.DataFrame
        A checked match table.
    vocab : Vocabulary
        The levels seen in training.
    player1, player2 : ndarray of int
        The players' codes against ``vocab``.

    Returns
    -------
    debut1, debut2 : ndarray of bool
    """
    n_seen = len(vocab.players)
    flags = [code >= n_seen for code in (player1, player2)]
    if not vocab.debut_periods or "period" not in table.columns:
        return flags[0], flags[1]
    period = _period_text(table)
    first = np.asarray(vocab.debut_periods, dtype=object)
    for side, code in zip(flags, (player1, player2)):
        seen = ~side
        side[seen] = first[code[seen]] == period[seen]
    return flags[0], flags[1]


def _codes(values: np.ndarray, levels: tuple) -> tuple[np.ndarray, tuple]:
    """Codes of values against levels; unseen values numbered on from len(levels)."""
    out = pd.Index(levels, dtype=object).get_indexer(values).astype(np.int64)
    unseen = out < 0
    if not unseen.any():
        return out, ()
    extra_codes, extra = pd.factorize(values[unseen])
    out[unseen] = len(levels) + extra_codes
    return out, tuple(extra)


@shared_parameters
def encode(table: pd.DataFrame, vocab: Vocabulary, *, time: TimeOrder | None = None) -> MatchCodes:
    """Turn a checked match table into integer codes against a vocabulary.

    Parameters
    ----------
    table : pandas.DataFrame
        A table checked by `check_match_table`.
    vocab : Vocabulary
        The levels seen in training.
    {time_order}

    Returns
    -------
    MatchCodes
        The table's codes.
    """
    k = vocab.specs_per_deck
    n = len(table)
    deck_codes, decks = pd.factorize(
        np.concatenate([table["deck1"].to_numpy(), table["deck2"].to_numpy()])
    )
    if any(len(d.specs) != k for d in decks):
        raise MatchTableError(f"decks here must hold {k} specs, as in the training data")
    # each distinct name is turned into a Python str once, not once a row it appears in
    player_rows, names = pd.factorize(_both_players(table))
    players, unseen_p = _codes(np.asarray(names), vocab.players)
    players = players[player_rows]
    starters, unseen_st = _codes(np.array([d.starter for d in decks], dtype=object), vocab.starters)
    specs, unseen_sp = _codes(
        np.array([s for d in decks for s in d.specs], dtype=object), vocab.specs
    )
    starters = starters[deck_codes]
    specs = specs.reshape(len(decks), k)[deck_codes]
    epoch = None
    if "period" in table.columns:
        epoch = epochs(table["period"], rows_in_time(table, time))
    debut1, debut2 = debut_flags(table, vocab, players[:n], players[n:])
    period, unseen_periods = None, ()
    levels = (None, None)
    if "period" in table.columns and vocab.played_periods:
        levels = experience.experience_codes(
            vocab.played_periods, vocab.periods, _period_text(table), players[:n], players[n:]
        )
    if "period" in table.columns:
        period_rows, period_names = pd.factorize(_period_text(table))
        period, unseen_periods = _codes(np.asarray(period_names, dtype=object), vocab.periods)
        period = period[period_rows]
    return MatchCodes(
        player1=players[:n],
        player2=players[n:],
        starter1=starters[:n],
        starter2=starters[n:],
        specs1=specs[:n],
        specs2=specs[n:],
        n_players=len(vocab.players) + len(unseen_p),
        n_starters=len(vocab.starters) + len(unseen_st),
        n_specs=len(vocab.specs) + len(unseen_sp),
        unseen_players=unseen_p,
        unseen_starters=unseen_st,
        unseen_specs=unseen_sp,
        epoch=epoch,
        n_epochs=0 if epoch is None else int(epoch.max()) + 1,
        debut1=debut1,
        debut2=debut2,
        period=period,
        n_periods=len(vocab.periods) + len(unseen_periods),
        unseen_periods=unseen_periods,
        experience1=levels[0],
        experience2=levels[1],
        columns=_column_codes(table, vocab),
    )


def _as_text(column: pd.Series) -> np.ndarray:
    """A column's values as text, a whole number written as one (as `period_text`)."""
    rows, labels = pd.factorize(column)
    return np.array([period_text(v) for v in labels], dtype=object)[rows]


def _column_codes(table: pd.DataFrame, vocab: Vocabulary) -> dict:
    """The codes of every column kind of level in ``table``, against ``vocab``."""
    seen = dict(vocab.column_levels)
    out = {}
    for kind in kinds.column_kinds():
        if kind.column not in table.columns:
            continue
        levels = tuple(seen.get(kind.name, ()))
        codes, unseen = _codes(_as_text(table[kind.column]), levels)
        out[kind.name] = ColumnCodes(codes, len(levels) + len(unseen), unseen)
    return out


def epochs(period: pd.Series, order: np.ndarray | None = None) -> np.ndarray:
    """Rating epoch of each row: how many distinct periods have begun by then, minus one.

    Rows are taken in time order (``order``, from `time_order`; row order when
    None), so a period begins at its first match in time. A match of a
    long-running series that began earlier belongs to the epoch of the latest
    period begun by the time it is played, so epochs follow time even when
    tournaments overlap.
    """
    values = period.to_numpy()
    if order is None:
        first = ~pd.Series(values).duplicated().to_numpy()
        return np.cumsum(first).astype(np.int64) - 1
    first = ~pd.Series(values[order]).duplicated().to_numpy()
    out = np.empty(len(values), dtype=np.int64)
    out[order] = np.cumsum(first) - 1
    return out


def period_labels(table: pd.DataFrame, *, time: TimeOrder | None = None) -> list:
    """The ``period`` labels of a checked table in the order their periods begin in time.

    ``time`` is the table's time order when the caller has it already.
    """
    return _labels_in_order(table, rows_in_time(table, time))


def _labels_in_order(table: pd.DataFrame, order: np.ndarray | None) -> list:
    period = table["period"] if order is None else table["period"].iloc[order]
    return list(pd.unique(period))


def walk_size(codes: MatchCodes) -> tuple[int, int]:
    """Steps the skill walk over ``codes``' periods takes, and steps through every period.

    The walk starts in the first period each player played and takes one step
    into each later period they played (the periods in between integrated out,
    see `skcodex._matchup.layout.Layout.walk_path`); a walk through every period
    would take ``n_players x (n_epochs - 1)``, whether the player played or not.

    Returns
    -------
    n_steps : int
        Steps of the walk as fitted: the distinct (player, period) pairs
        played, less one per player (the first period each played).
    every_period : int
        Steps of the same walk through every period.
    """
    if codes.epoch is None or codes.n_epochs < 2:
        return 0, 0
    # The distinct (player, period) pairs, counted from the matches: no players x periods
    # table (80,000 one-match periods would make it 1.8 GB).
    epoch = np.asarray(codes.epoch, dtype=np.int64)
    players = np.concatenate(
        [np.asarray(codes.player1, dtype=np.int64), np.asarray(codes.player2, dtype=np.int64)]
    )
    cells = players * codes.n_epochs + np.concatenate([epoch, epoch])
    n_steps = len(np.unique(cells)) - len(np.unique(players))
    return n_steps, codes.n_players * (codes.n_epochs - 1)
