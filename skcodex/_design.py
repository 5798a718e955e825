"""The seed's linear predictor in NumPy: where each effect sits, what each match reads.

A match's log-odds that player 1 wins are a signed sum of entries of one flat
effect vector ``theta``, read through one row of an integer index matrix:

    q_i = p[f_i] - p[s_i] + a[g_i, t_i] + sum_k b[g_i, u_ik] + sum_j c[h_ij, t_i]
          + sum_jk d[h_ij, u_ik]

with player skills ``p``, starter-vs-starter ``a``, starter-vs-spec ``b``,
spec-vs-starter ``c`` and spec-vs-spec ``d`` effects (player 1's component
first), plus the optional blocks of `ModelOptions` (see `skcodex._model` for
their priors). This module owns that formula once, for every user of it:

- `Layout`: the blocks of ``theta``, their shapes and offsets, the index
  matrix of encoded matches (`Layout.index_matrix`) and its signs, and the
  effects from standard normals and spreads (`Layout.theta`);
- `deck_logits`: the deck part of that sum for every pair of decks at once
  (the matchup tables and Nash games of `skcodex.analysis`);
- the growth of a layout for levels never seen in fit: `old_positions`
  maps a grown layout back to the fitted one, `unseen_draws` draws the new
  cells (keyed to the levels' names, `counter_normals`), `extend_effects` and
  `chunks_with_unseen` give the grown effects whole or in bounded chunks,
  and `newcomer_terms` gives what a match knows and the spread of the new
  cells it reads, for forecasts that integrate them out.

The PyMC model (`skcodex._model`), prediction (`skcodex._prediction`), the
analyses and `MatchupEncoder` all read the formula from here. This module
knows nothing of PyMC, pandas or scikit-learn.
"""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass, field, replace

import numpy as np

from skcodex import _blocks as blocks
from skcodex._blocks import BLOCK_TABLE, SPREAD_TABLE, EffectBlock
from skcodex.data import MatchCodes

#: The spreads of the seed model, in the order of the spread vector.
SPREADS = tuple(s.name for s in SPREAD_TABLE if s.option is None)
#: The seed model's effect blocks, in order, with the index of the spread each is drawn with.
BLOCKS = tuple((b.name, SPREADS.index(b.spread)) for b in BLOCK_TABLE if b.option is None)
#: The dimensions of every built-in effect block, by name (see `skcodex._blocks.block_dims`).
BLOCK_DIMS = {b.name: b.dims for b in BLOCK_TABLE}
PRIORS = ("lognormal", "balanced")


@dataclass(frozen=True)
class ModelOptions:
    """Which extensions of the seed model are switched on (all off: the seed model).

    ``symmetric=True`` is for games where no side moves first: the matchup of
    deck a against deck b is minus that of b against a (see `Layout`), so it
    cannot be combined with ``first_move=True``.

    ``debut=True`` adds one learned offset to a player's skill in the matches
    of their first rating period (the ``debut`` block of `skcodex._blocks`);
    it needs each match's debut flags (`skcodex.data.MatchCodes`).
    ``period_offset=True`` shifts a player's skill in each rating period by
    an effect of its own, ``N(0, sd_period)`` (the ``period_skill`` block).
    ``draws=True`` adds a third outcome, the draw, with a learned threshold
    (`skcodex._draws`); no effect block.
    """

    time_varying: bool = False
    synergy: bool = False
    familiarity: bool = False
    prior: str = "lognormal"
    first_move: bool = False
    symmetric: bool = False
    debut: bool = False
    period_offset: bool = False
    draws: bool = False

    def __post_init__(self) -> None:
        if self.prior not in PRIORS:
            raise ValueError(f"prior must be one of {PRIORS}, got {self.prior!r}")
        if self.symmetric and self.first_move:
            raise ValueError(
                "first_move=True cannot be combined with symmetric=True: a symmetric game "
                "has no first mover (switch one of them off)"
            )

    @property
    def spreads(self) -> tuple[str, ...]:
        """Names of every spread, the four of the seed model first."""
        return tuple(s.name for s in SPREAD_TABLE if s.option is None or getattr(self, s.option))

    @property
    def prior_names(self) -> tuple[str, ...]:
        """Names of the entries of the prior location and scale vectors.

        The spreads' log-priors (under the balanced prior: the log total,
        then the optional blocks' spreads), then the own priors of the
        effects that no spread scales (the first-move effect). A `Layout`
        drops the priors of spreads its data have no blocks for
        (`Layout.prior_names`); before a fit these are all of them.
        """
        extra = self.spreads[len(SPREADS) :]
        names = ("total", *extra) if self.prior == "balanced" else self.spreads
        own = tuple(b.name for b in blocks.BLOCK_TABLE if b.spread is None and b.is_on(self))
        return (*names, *own)


@dataclass(frozen=True)
class WalkPath:
    """Where the integrated skill walk's steps go (see `Layout.walk_path`).

    With ``total = [0, cumsum(steps)]`` (each step ``z * sd_step * sqrt(gap)``),
    the walk of cell ``c`` of the flat ``(n_players, n_epochs)`` block is
    ``total[upto[c]] - total[base[c]]``: the player's steps up to that period.

    Attributes
    ----------
    gap : array of float, shape (walk_steps,)
        Periods each step spans.
    upto : array of int, shape (n_players * n_epochs,)
        For each cell, the number of steps (in player, then period order) up
        to and including the cell's last step.
    base : array of int, shape (n_players * n_epochs,)
        For each cell, the number of steps of the players before its player.
    """

    gap: object
    upto: object
    base: object


def _walk_path(played: np.ndarray, walk_steps: int) -> WalkPath:
    """The `WalkPath` of a (players, periods) mask of periods played, in ``walk_steps`` slots."""
    P, E = played.shape
    anchor = played.copy()
    anchor[:, 0] = True  # every walk starts at 0 in the first period
    step = anchor.copy()
    step[:, 0] = False  # a step ends in each later anchor
    n_steps = int(step.sum())
    if n_steps > walk_steps:
        raise ValueError(
            f"the matches take {n_steps} walk steps, more than the layout's {walk_steps}"
        )
    periods = np.broadcast_to(np.arange(E), (P, E))
    latest = np.maximum.accumulate(np.where(anchor, periods, 0), axis=1)
    previous = np.concatenate([np.zeros((P, 1), dtype=np.int64), latest[:, :-1]], axis=1)
    gap = np.ones(walk_steps)
    gap[:n_steps] = (periods - previous)[step]
    upto = np.cumsum(step.ravel()).astype(np.int64)
    base = np.repeat(upto.reshape(P, E)[:, 0], E)
    return WalkPath(gap, upto, base)


def walk_steps_played(played: np.ndarray) -> int:
    """Steps of the integrated walk for a (players, periods) mask of periods played."""
    return int(np.asarray(played, dtype=bool)[:, 1:].sum())


@dataclass(frozen=True)
class Layout:
    """Where each effect sits in the flat vector ``theta``, and what each match reads.

    The blocks, their shapes, how a match reads them and how they are drawn
    come from `skcodex._blocks.BLOCK_TABLE`: the blocks the options switch on,
    in table order.

    In a symmetric game (``options.symmetric``) the matchup blocks keep their
    full ordered shapes in ``theta``, but are generated from fewer standard
    normals ``z``: a block that mirrors itself is antisymmetric (one free
    effect per unordered pair, zeros on its diagonal), and a block that
    mirrors another is minus that block's transpose. So ``m(a, b) = -m(b, a)``
    exactly, and everything that reads ``theta`` works unchanged.

    Parameters
    ----------
    n_players, n_starters, n_specs : int
        Number of levels of each kind.
    specs_per_deck : int
        k, the number of specs (side components) in a deck: 3 in Codex, 0 in a
        game of characters alone.
    options : ModelOptions
        The extensions switched on.
    n_epochs : int
        Rating periods of the time-varying skill walk (1 when it is off).
    walk_steps : int or None
        How the skill walk is drawn (``options.time_varying``). None: one step
        per player and period after the first, ``n_players x (n_epochs - 1)``
        standard normals, played or not (how files written before the
        integrated walk describe it). An integer: the integrated walk, with
        this many step slots: one step per player from the first period to
        each period the player played, of spread ``sd_step * sqrt(gap)``
        (the same Gaussian random walk with its unplayed periods integrated
        out; see `walk_path`). A player's walk holds its last played value
        through the periods after it, and 0 before the first period played.
    """

    n_players: int
    n_starters: int
    n_specs: int
    specs_per_deck: int = 3
    options: ModelOptions = field(default_factory=ModelOptions)
    n_epochs: int = 1
    walk_steps: int | None = None
    n_periods: int = 0
    empty_spreads: bool = False

    def __post_init__(self) -> None:
        if self.specs_per_deck < 0:
            raise ValueError(f"specs_per_deck must be >= 0, got {self.specs_per_deck}")
        if self.walk_steps is not None and self.walk_steps < 0:
            raise ValueError(f"walk_steps must be >= 0 or None, got {self.walk_steps}")

    @property
    def integrated_walk(self) -> bool:
        """Whether the skill walk takes steps only into played periods (`walk_steps`)."""
        return self.options.time_varying and self.walk_steps is not None

    @property
    def n_deck_effects(self) -> int:
        """Deck-component effects in one match: ``1 + 2k + k^2`` (16 in Codex)."""
        k = self.specs_per_deck
        return 1 + 2 * k + k * k

    @property
    def spreads(self) -> tuple[str, ...]:
        """Names of the spreads, in the order of the spread vector.

        The spreads the options switch on that scale a block with cells: a
        block one of whose level kinds has no levels (the spec blocks of decks
        without specs) has no cells, and a spread only such blocks use is not
        sampled (unless `empty_spreads`).
        """
        if self.empty_spreads:
            return self.options.spreads
        counts = self.level_counts
        used = {b.spread for b in self.declared if all(counts[kind] > 0 for kind in b.kinds)}
        return tuple(s for s in self.options.spreads if s in used)

    @property
    def prior_names(self) -> tuple[str, ...]:
        """Names of the entries of the prior vectors for this layout's `spreads`.

        As `ModelOptions.prior_names`, without the priors of spreads the layout
        does not have.
        """
        spreads = self.spreads
        if self.options.prior == "balanced":
            spreads = ("total", *(s for s in spreads if s not in SPREADS))
        own = tuple(b.name for b in self.declared if b.spread is None)
        return (*spreads, *own)

    @property
    def deck_split(self) -> bool:
        """Whether the balanced prior splits a deck spread among three blocks (decks with specs)."""
        return "spsp" in self.spreads

    @property
    def declared(self) -> tuple[EffectBlock, ...]:
        """The declarations of the blocks switched on, in ``theta`` order."""
        return tuple(b for b in blocks.BLOCK_TABLE if b.is_on(self.options))

    @property
    def blocks(self) -> tuple[tuple[str, int], ...]:
        """Every effect block, in ``theta`` order, with the index of its spread (-1: none)."""
        spread = {name: i for i, name in enumerate(self.spreads)}
        # a block without cells may have no spread: -1, read by none of its (no) cells
        return tuple((b.name, spread.get(b.spread, -1)) for b in self.declared)

    @property
    def level_counts(self) -> dict[str, int]:
        """The number of levels of each kind."""
        return {
            "player": self.n_players,
            "starter": self.n_starters,
            "spec": self.n_specs,
            "epoch": self.n_epochs,
            "stage": len(blocks.DEBUT_LEVELS),
            "period": self.n_periods,
        }

    @property
    def shapes(self) -> dict[str, tuple[int, ...]]:
        """The shape of each effect block."""
        counts = self.level_counts
        return {b.name: tuple(counts[k] for k in b.kinds) for b in self.declared}

    @property
    def offsets(self) -> dict[str, int]:
        """Where each block starts in ``theta``."""
        out, at = {}, 0
        for name, _ in self.blocks:
            out[name] = at
            at += int(np.prod(self.shapes[name]))
        return out

    @property
    def size(self) -> int:
        """Length of ``theta``."""
        return sum(int(np.prod(s)) for s in self.shapes.values())

    @property
    def group(self) -> np.ndarray:
        """For each entry of ``theta``, the index of its spread (-1: an unscaled effect)."""
        return np.concatenate(
            [np.full(int(np.prod(self.shapes[name])), g, dtype=np.int64) for name, g in self.blocks]
        )

    # -- the standard normals behind theta ---------------------------------------------

    def mirror_of(self, block: EffectBlock) -> str | None:
        """The block ``block`` is minus the transpose of in this layout (None: its own cells)."""
        return block.mirror if self.options.symmetric else None

    def free_cells(self, block: EffectBlock) -> tuple[np.ndarray, ...]:
        """The cells of ``block`` that own a standard normal, as coordinates, in ``z`` order.

        Every cell of an independent block; the cells of a walk after its first
        period (each the step from the previous one); the cells above the
        diagonal of an antisymmetric block; none of a block tied to another.
        """
        shape = self.shapes[block.name]
        mirror = self.mirror_of(block)
        if mirror == block.name:
            return np.triu_indices(shape[0], 1, shape[1])
        if mirror is not None:
            return tuple(np.zeros(0, dtype=np.int64) for _ in shape)
        mask = np.ones(shape, dtype=bool)
        if block.form in ("walk", "baseline"):
            mask[..., 0] = False
        return np.nonzero(mask) if shape else ()

    def n_free_cells(self, block: EffectBlock) -> int:
        """Number of standard normals behind ``block`` (an integrated walk: its step slots)."""
        if block.form == "walk" and self.integrated_walk:
            return int(self.walk_steps)
        cells = self.free_cells(block)
        return len(cells[0]) if cells else 1

    @property
    def free_offsets(self) -> dict[str, int]:
        """Where each block's standard normals start in ``z``."""
        out, at = {}, 0
        for b in self.declared:
            out[b.name] = at
            at += self.n_free_cells(b)
        return out

    @property
    def n_free(self) -> int:
        """Number of standard-normal ``z`` behind ``theta`` (the walk starts at 0)."""
        return sum(self.n_free_cells(b) for b in self.declared)

    @property
    def free_group(self) -> np.ndarray:
        """For each entry of ``z``, the index of the spread that scales it (-1: none)."""
        groups = dict(self.blocks)
        parts = [np.full(self.n_free_cells(b), groups[b.name]) for b in self.declared]
        return np.concatenate(parts).astype(np.int64)

    @property
    def _has_fixed_cells(self) -> bool:
        """Whether a static block has cells fixed at 0 (a ``"baseline"`` block's first level)."""
        return any(b.form == "baseline" for b in self.declared)

    def _static_map(self) -> tuple[np.ndarray, np.ndarray]:
        """For each entry of the static part of ``theta``: its entry of ``z`` (-1: 0) and sign."""
        src, sign = {}, {}
        free = self.free_offsets
        for b in self.declared:
            if b.form == "walk":
                continue
            shape, mirror = self.shapes[b.name], self.mirror_of(b)
            if mirror is not None and mirror != b.name:  # minus the other block's transpose
                src[b.name], sign[b.name] = src[mirror].T, -sign[mirror].T
                continue
            s = np.full(shape, -1, dtype=np.int64)
            cells = self.free_cells(b)
            s[cells] = (free[b.name] + np.arange(self.n_free_cells(b))).reshape(s[cells].shape)
            g = np.ones(shape)
            if mirror == b.name:  # antisymmetric: x[j, i] = -x[i, j], zeros on the diagonal
                s.T[cells] = s[cells]
                g.T[cells] = -1.0
            src[b.name], sign[b.name] = s, g
        names = list(src)
        return (
            np.concatenate([src[n].ravel() for n in names]).astype(np.int64),
            np.concatenate([sign[n].ravel() for n in names]),
        )

    def _scale(self, sd, group):
        """The spread multiplying each entry of ``group`` (1 for an unscaled effect)."""
        raw = group < 0
        scale = sd[..., np.where(raw, 0, group)]
        if raw.any():
            scale = scale * (~raw).astype(float) + raw.astype(float)
        return scale

    @property
    def signs(self) -> np.ndarray:
        """The sign of each index-matrix column."""
        return np.concatenate([np.full(cols.shape[1], sign) for cols, sign in self._one_row()])

    @property
    def column_blocks(self) -> tuple[EffectBlock, ...]:
        """The block each index-matrix column reads."""
        at = np.concatenate([cols[0] for cols, _ in self._one_row()])
        filled = [b for b in self.declared if np.prod(self.shapes[b.name]) > 0]
        starts = [self.offsets[b.name] for b in filled]  # an empty block owns no position
        return tuple(filled[i] for i in np.searchsorted(starts, at, side="right") - 1)

    def _one_row(self):
        """The columns of one match of code 0 everywhere, with their signs."""
        one = MatchCodes(
            *(np.zeros(1, dtype=np.int64) for _ in range(4)),
            np.zeros((1, self.specs_per_deck), dtype=np.int64),
            np.zeros((1, self.specs_per_deck), dtype=np.int64),
            1,
            1,
            1,
            epoch=np.zeros(1, dtype=np.int64),
            n_epochs=1,
            period=np.zeros(1, dtype=np.int64),
            n_periods=1,
        )
        return list(self._columns(one))

    def static(self) -> Layout:
        """The same layout without the skill walk: what prediction works with."""
        if not self.options.time_varying:
            return self
        opts = replace(self.options, time_varying=False)
        return Layout(
            self.n_players,
            self.n_starters,
            self.n_specs,
            self.specs_per_deck,
            opts,
            n_periods=self.n_periods,
            empty_spreads=self.empty_spreads,
        )

    def _columns(self, codes: MatchCodes):
        """Each block's index-matrix columns for ``codes``, with their sign, in column order.

        Blocks come in table order; the blocks that one option switches on are
        read side by side (player 1's cells of each, then player 2's).
        """
        for option, run in itertools.groupby(self.declared, key=lambda b: b.option):
            reads = [list(self._block_columns(b, codes)) for b in run]
            if option is None:
                reads = [[cols] for block in reads for cols in block]
            for side in itertools.zip_longest(*reads):
                yield from (cols for cols in side if cols is not None)

    def _block_columns(self, block: EffectBlock, codes: MatchCodes):
        """The columns of one block for ``codes`` (one group per read), with their sign."""
        n = len(codes)
        shape, offset = self.shapes[block.name], self.offsets[block.name]
        strides = [int(np.prod(shape[i + 1 :])) for i in range(len(shape))]
        for coords, sign in block.reads(codes, self):
            if not shape:  # a single effect: every match reads it once
                yield np.full((n, 1), offset, dtype=np.int64), sign
                continue
            flat = sum(np.asarray(c, dtype=np.int64) * st for c, st in zip(coords, strides))
            flat = np.broadcast_to(flat, np.broadcast_shapes(*(np.shape(c) for c in coords)))
            width = int(np.prod(flat.shape[1:]))
            yield offset + flat.reshape(flat.shape[0], width), sign

    def index_matrix(self, codes: MatchCodes) -> np.ndarray:
        """The (n_matches, n_columns) matrix of ``theta`` positions read by each match."""
        idx = np.concatenate([cols for cols, _ in self._columns(codes)], axis=1)
        if idx.size and (idx.min() < 0 or idx.max() >= self.size):
            raise ValueError("match codes fall outside the layout; encode against its vocabulary")
        return idx.astype(np.int64)

    def theta(self, z, sd, xp=np, path: WalkPath | None = None):
        """Effects from standard normals ``z`` (..., n_free) and spreads ``sd`` (..., n_spreads).

        Works on NumPy arrays (``xp=np``; leading draw dimensions allowed) and on
        PyTensor variables (``xp=pytensor.tensor``; one point). An integrated
        walk (`integrated_walk`) needs its ``path`` (`walk_path`), as NumPy
        arrays or PyTensor variables.
        """
        return self.place(z * self._scale(sd, self.free_group), xp, path)

    def place(self, scaled, xp=np, path: WalkPath | None = None):
        """Effects from the scaled normals ``z * sd[free_group]`` (..., n_free).

        Places each in its cell of ``theta``: mirrored and fixed cells of the
        static blocks, and the skill walk as the sum of its steps (see `theta`).
        """
        walk = self.options.time_varying
        n_walk = sum(self.n_free_cells(b) for b in self.declared if b.form == "walk")
        n_static_free = self.n_free - n_walk
        static = scaled[..., :n_static_free] if walk else scaled
        lead = scaled.shape[:-1] if xp is np else ()
        if self.options.symmetric or self._has_fixed_cells:
            src, sign = self._static_map()
            if xp is np:
                padded = np.concatenate([np.zeros((*lead, 1)), static], axis=-1)
                static = padded[..., src + 1] * sign
            else:
                padded = xp.concatenate([xp.zeros(1), static])
                static = padded[src + 1] * sign
        if not walk:
            return static
        steps = scaled[..., n_static_free:]
        if self.integrated_walk:
            return self._integrated_walk(static, steps, path, xp)
        P, E = self.n_players, self.n_epochs
        if xp is np:
            path = np.cumsum(steps.reshape(*lead, P, E - 1), axis=-1)
            path = np.concatenate([np.zeros((*lead, P, 1)), path], axis=-1)
            return np.concatenate([static, path.reshape(*lead, P * E)], axis=-1)
        path = xp.cumsum(steps.reshape((P, E - 1)), axis=1)
        path = xp.concatenate([xp.zeros((P, 1)), path], axis=1)
        return xp.concatenate([static, path.reshape((P * E,))])

    def _integrated_walk(self, static, steps, path: WalkPath | None, xp):
        """``static`` followed by the walk built from its steps along ``path``."""
        if path is None:
            raise ValueError("an integrated skill walk needs its path (Layout.walk_path)")
        if xp is np:
            steps = steps * np.sqrt(np.asarray(path.gap, dtype=float))
            lead = steps.shape[:-1]
            total = np.concatenate([np.zeros((*lead, 1)), np.cumsum(steps, axis=-1)], axis=-1)
            walk = total[..., path.upto] - total[..., path.base]
            return np.concatenate([static, walk], axis=-1)
        steps = steps * xp.sqrt(path.gap)
        total = xp.concatenate([xp.zeros(1), xp.cumsum(steps)])
        return xp.concatenate([static, total[path.upto] - total[path.base]])

    def walk_path(self, index: np.ndarray) -> WalkPath:
        """The integrated walk's steps for the matches of an index matrix of this layout.

        A player's walk is 0 in the first period; it takes one step from the
        first period to each period the player played, and from each such
        period to the next one played, the step spanning ``gap`` periods
        (its spread ``sd_step * sqrt(gap)``). The cells read by ``index``
        are the periods played.

        Parameters
        ----------
        index : ndarray of int, shape (n_matches, n_columns)
            From `index_matrix`.

        Returns
        -------
        WalkPath
            With ``walk_steps`` step slots; the slots no player uses come last,
            with gap 1, and no cell reads them.
        """
        P, E = self.n_players, self.n_epochs
        start = next(self.offsets[b.name] for b in self.declared if b.form == "walk")
        cells = np.asarray(index, dtype=np.int64).ravel() - start
        played = np.zeros(P * E, dtype=bool)
        played[cells[(cells >= 0) & (cells < P * E)]] = True
        return _walk_path(played.reshape(P, E), int(self.walk_steps))

    def unflatten(self, theta: np.ndarray) -> dict[str, np.ndarray]:
        """Split ``theta`` (..., size) into its named blocks."""
        out = {}
        for name, _ in self.blocks:
            start, shape = self.offsets[name], self.shapes[name]
            stop = start + int(np.prod(shape))
            lead = () if theta.ndim == 1 else tuple(theta.shape[:-1])
            out[name] = theta[..., start:stop].reshape((*lead, *shape))
        return out

    def flatten(self, blocks: dict[str, np.ndarray]) -> np.ndarray:
        """Inverse of `unflatten`."""
        lead = blocks["skill"].shape[:-1]
        return np.concatenate([blocks[name].reshape(*lead, -1) for name, _ in self.blocks], axis=-1)


def deck_logits(layout: Layout, theta, starter1, specs1, starter2, specs2) -> np.ndarray:
    """The deck part of the log-odds, m(deck1, deck2), for every pair of decks and draw.

    The deck columns of `Layout.index_matrix`, read for every pair at once: with
    player 1's starter ``g`` and specs ``h``, player 2's ``t`` and ``u``,
    ``m = a[g, t] + sum_k b[g, u_k] + sum_j c[h_j, t] + sum_jk d[h_j, u_k]``, plus the
    first-move effect and ``syn(deck1) - syn(deck2)`` when the layout has them, and
    any other declared block of starters and specs alone, read as a match reads it.
    Skills and familiarity are left out (equal players of average familiarity).

    Parameters
    ----------
    layout : Layout
    theta : ndarray of shape (n_draws, layout.size)
    starter1, specs1 : ndarray of int, shapes (n1,) and (n1, k)
        Player 1's decks as codes of ``layout``'s levels.
    starter2, specs2 : ndarray of int, shapes (n2,) and (n2, k)
        Player 2's decks.

    Returns
    -------
    ndarray of shape (n_draws, n1, n2)
    """
    S, K = layout.n_starters, layout.n_specs
    g, t = np.asarray(starter1, dtype=np.int64), np.asarray(starter2, dtype=np.int64)
    h = np.asarray(specs1, dtype=np.int64).reshape(len(g), -1)
    u = np.asarray(specs2, dtype=np.int64).reshape(len(t), -1)
    if any(x.size and (x.min() < 0 or x.max() >= n) for x, n in ((g, S), (t, S), (h, K), (u, K))):
        raise ValueError("deck codes fall outside the layout; encode against its vocabulary")
    theta_flat = np.asarray(theta, dtype=float).reshape(-1, layout.size)
    blocks = layout.unflatten(theta_flat)
    a, b, c, d = (blocks[name] for name in ("stst", "stsp", "spst", "spsp"))
    H, U = _spec_counts(h, K), _spec_counts(u, K)  # H[i, x]: how often spec x is in deck i
    m = a[:, g][:, :, t]  # a[g, t]
    m += b[:, g] @ U.T  # sum_k b[g, u_k]
    m += H @ c[:, :, t]  # sum_j c[h_j, t]
    m += H @ d @ U.T  # sum_jk d[h_j, u_k]
    if "first_move" in blocks:  # the same in every pairing
        m += blocks["first_move"][:, None, None]
    if "syn_stsp" in blocks:  # syn(deck1) - syn(deck2)
        first, second = np.triu_indices(layout.specs_per_deck, 1)

        def syn(s, x):
            own = blocks["syn_stsp"][:, s[:, None], x].sum(axis=-1)
            return own + blocks["syn_spsp"][:, x[:, first], x[:, second]].sum(axis=-1)

        m += syn(g, h)[:, :, None] - syn(t, u)[:, None, :]
    for block in layout.declared:  # any other block of decks alone, read as a match reads it
        if block.name not in _SUMMED_BLOCKS and set(block.kinds) <= {"starter", "spec"}:
            m += _pair_sum(layout, block, theta_flat, (g, h), (t, u))
    return m


#: The blocks `deck_logits` sums in closed form (or leaves out: skills, familiarity, walk).
_SUMMED_BLOCKS = frozenset(
    {"skill", "stst", "stsp", "spst", "spsp", "first_move", "syn_stsp", "syn_spsp"}
    | {"fam_st", "fam_sp", "walk"}
)


def _pair_sum(layout: Layout, block: EffectBlock, theta, deck1, deck2) -> np.ndarray:
    """One block's part of m(deck1, deck2) for every pair of decks: (n_draws, n1, n2)."""
    (g, h), (t, u) = deck1, deck2
    n1, n2 = len(g), len(t)
    zeros = np.zeros(n1 * n2, dtype=np.int64)
    pairs = MatchCodes(
        zeros, zeros, np.repeat(g, n2), np.tile(t, n1), np.repeat(h, n2, axis=0),
        np.tile(u, (n1, 1)), layout.n_players, layout.n_starters, layout.n_specs,
    )  # fmt: skip
    out = np.zeros((theta.shape[0], n1 * n2))
    for cols, sign in layout._block_columns(block, pairs):
        out += sign * theta[:, cols].sum(axis=-1)
    return out.reshape(-1, n1, n2)


def _spec_counts(specs: np.ndarray, n_specs: int) -> np.ndarray:
    out = np.zeros((len(specs), n_specs))
    np.add.at(out, (np.repeat(np.arange(len(specs)), specs.shape[1]), specs.ravel()), 1.0)
    return out


# -- levels never seen in fit -----------------------------------------------------------

#: Working memory for the draws of never-seen levels in one chunk of matches.
_UNSEEN_BYTES = 64 * 2**20


def _name_key(name) -> int:
    """A stable 64-bit key of a level's name (the same in every process and batch)."""
    digest = hashlib.blake2b(str(name).encode("utf-8", "surrogatepass"), digest_size=8)
    return int.from_bytes(digest.digest(), "little")


def _cell_positions(layout: Layout, positions: np.ndarray):
    """Block name and coordinates of flat ``theta`` positions of ``layout``."""
    names = [name for name, _ in layout.blocks]
    starts = np.array([layout.offsets[n] for n in names])
    which = np.searchsorted(starts, positions, side="right") - 1
    for pos, b in zip(positions.tolist(), which.tolist()):
        name = names[b]
        yield pos, name, np.unravel_index(pos - starts[b], layout.shapes[name])


def old_positions(old: Layout, new: Layout, positions: np.ndarray | None = None) -> np.ndarray:
    """For entries of ``new``'s theta (all, or ``positions``), their place in ``old``'s, or -1.

    -1 marks a new cell: an effect involving a level beyond ``old``'s sizes.
    """
    positions = np.arange(new.size) if positions is None else np.asarray(positions)
    names = [name for name, _ in new.blocks]
    starts = np.array([new.offsets[n] for n in names])
    which = np.searchsorted(starts, positions, side="right") - 1
    out = np.full(positions.shape, -1, dtype=np.int64)
    for b, name in enumerate(names):
        mask = which == b
        if not mask.any() or name not in old.shapes:
            continue
        if not new.shapes[name]:  # a single effect (the first-move effect): always known
            out[mask] = old.offsets[name]
            continue
        coords = np.unravel_index(positions[mask] - starts[b], new.shapes[name])
        inside = np.all([c < n for c, n in zip(coords, old.shapes[name])], axis=0)
        flat = np.full(len(inside), -1, dtype=np.int64)
        if inside.any():
            flat[inside] = old.offsets[name] + np.ravel_multi_index(
                tuple(c[inside] for c in coords), old.shapes[name]
            )
        out[mask] = flat
    return out


def unseen_draws(
    sd: np.ndarray, layout: Layout, positions: np.ndarray, levels: dict, seed: int
) -> np.ndarray:
    """Fresh N(0, sd) draws for new cells of ``layout``, keyed to their names.

    Each cell (an effect involving at least one level never seen in fit) gets
    its own stream of standard normals (`counter_normals`), keyed by ``seed``,
    its block and the names of the levels it pairs, times its block's spread
    per draw: draw ``d`` of a cell is a function of its key and ``d`` alone. A cell's
    draws therefore do not depend on which other matches are forecast with
    it, and the same forecast repeats exactly. In a symmetric layout the new
    cells keep its structure: a cell of an antisymmetric block and its
    transpose share one stream (with opposite signs; zero on the diagonal),
    and a cell of a block tied to another is minus that block's cell.

    Parameters
    ----------
    sd : ndarray of shape (n_draws, n_spreads)
        Spread draws.
    layout : Layout
        The grown layout the positions refer to.
    positions : ndarray of int
        Flat positions in ``layout``'s theta.
    levels : dict
        Level names by kind, ``{"player": [...], "starter": [...], "spec": [...],
        "epoch": [...]}``, covering ``layout``'s sizes.
    seed : int

    Returns
    -------
    ndarray of shape (n_draws, len(positions))
    """
    groups = dict(layout.blocks)
    declared = {b.name: b for b in layout.declared}
    out = np.zeros((sd.shape[0], len(positions)))
    keys = np.zeros(len(positions), dtype=np.uint64)
    spread = np.zeros(len(positions), dtype=np.int64)
    sign_of = np.zeros(len(positions))  # 0 on the diagonal of an antisymmetric block
    for j, (_, name, coords) in enumerate(_cell_positions(layout, np.asarray(positions))):
        block = declared[name]
        names = [levels[k][int(i)] for k, i in zip(block.kinds, coords)]
        sign, mirror = 1.0, layout.mirror_of(block)
        if mirror == name:  # antisymmetric: one draw per unordered pair, zero on the diagonal
            if int(coords[0]) == int(coords[1]):
                continue
            if _pair_order(names[1]) < _pair_order(names[0]):
                names, sign = names[::-1], -1.0
        elif mirror is not None:  # minus the cell of the mirrored block, sides swapped
            name, names, sign = mirror, names[::-1], -1.0
        keys[j], spread[j], sign_of[j] = _cell_key(seed, name, names), groups[name], sign
    for lo in range(0, len(keys), _CELLS_PER_BLOCK):
        hi = min(lo + _CELLS_PER_BLOCK, len(keys))
        scale = sd[:, spread[lo:hi]] * sign_of[lo:hi]
        out[:, lo:hi] = counter_normals(keys[lo:hi], sd.shape[0]) * scale
    return out


#: New cells whose standard normals are generated at once (bounds the temporaries).
_CELLS_PER_BLOCK = 256
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _cell_key(seed: int, block: str, names) -> np.uint64:
    """A stable 64-bit key of one new cell: the seed, its block and its levels' names."""
    parts = [str(int(seed)), block, *(str(n) for n in names)]
    text = "\x1f".join(parts).encode("utf-8", "surrogatepass")
    return np.uint64(int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "little"))


def _mix64(x: np.ndarray) -> np.ndarray:
    """SplitMix64's output function (in place on a uint64 array, wrapping arithmetic)."""
    x ^= x >> np.uint64(30)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(27)
    x *= np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(31)
    return x


def counter_normals(keys: np.ndarray, n_draws: int) -> np.ndarray:
    """Standard normals from a counter-based generator: draw ``d`` of stream ``key``.

    Entry ``[d, j]`` depends on ``keys[j]`` and ``d`` alone (SplitMix64: the
    ``i``-th 64-bit number of stream ``key`` is a fixed bijective mix of
    ``key + (i + 1) * 0x9E3779B97F4A7C15``), so a stream's draws are the same
    whichever other streams are generated with it, in one vectorised pass.
    Two uniforms per draw give one normal (Box-Muller, cosine branch).

    Parameters
    ----------
    keys : ndarray of uint64, shape (n_streams,)
    n_draws : int

    Returns
    -------
    ndarray of float64, shape (n_draws, n_streams)
    """
    keys = np.asarray(keys, dtype=np.uint64)
    counter = np.arange(1, 2 * n_draws + 1, dtype=np.uint64)[:, None] * _GOLDEN
    with np.errstate(over="ignore"):
        bits = _mix64(keys[None, :] + counter)
    unit = ((bits >> np.uint64(11)).astype(np.float64) + 1.0) * 2.0**-53  # in (0, 1]
    radius = np.sqrt(-2.0 * np.log(unit[0::2]))
    return radius * np.cos(2.0 * np.pi * unit[1::2])


def _pair_order(name) -> tuple[int, str]:
    """Which of two levels comes first in an unordered pair (the same in every batch)."""
    return _name_key(name), str(name)


def extend_effects(
    theta: np.ndarray,
    sd: np.ndarray,
    old: Layout,
    new: Layout,
    *,
    levels: dict | None = None,
    seed: int,
) -> np.ndarray:
    """Effects in a larger layout: fitted values where known, fresh N(0, sd) draws elsewhere.

    The fresh draws are those of `unseen_draws` (keyed to the levels' names,
    or to their positions when ``levels`` is None, and to ``seed``).
    ``levels`` and ``seed`` are keyword-only, as for `chunks_with_unseen`.

    Returns
    -------
    ndarray of shape (n_draws, new.size)
    """
    levels = levels or _positional_levels(new)
    old_pos = old_positions(old, new)
    out = np.empty((theta.shape[0], new.size))
    known = old_pos >= 0
    out[:, known] = theta[:, old_pos[known]]
    fresh = np.flatnonzero(~known)
    if len(fresh):
        out[:, fresh] = unseen_draws(sd, new, fresh, levels, seed)
    return out


def _positional_levels(layout: Layout) -> dict:
    return {
        "player": range(layout.n_players),
        "starter": range(layout.n_starters),
        "spec": range(layout.n_specs),
        "epoch": range(layout.n_epochs),
        "stage": blocks.DEBUT_LEVELS,
        "period": range(layout.n_periods),
    }


def newcomer_terms(
    old: Layout, new: Layout, index: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What the matches of ``index`` know, and the spread of what they do not.

    ``index`` names positions of the grown layout ``new``. Each new cell is an
    independent ``N(0, sd)`` of its block's spread, so the signed sum of the
    new cells a match reads is ``N(0, s^2)`` with ``s^2`` the sum over
    spreads of ``sd^2`` times the squared net signs of its new cells of that
    spread (a newcomer on both sides of a match cancels out). That holds
    except where a symmetric layout ties new cells to each other (a block
    mirroring itself or another): those matches are flagged to be drawn.

    Returns
    -------
    known_index : ndarray of int, shape index.shape
        Positions in ``old``'s theta; ``old.size`` (an effect of value 0)
        for a new cell.
    variance_weights : ndarray of float, shape (n_matches, n_spreads)
        The squared net signs of each match's new cells, by spread.
    needs_draws : ndarray of bool, shape (n_matches,)
        Matches that read a new cell of a mirrored block.
    """
    index = np.asarray(index, dtype=np.int64)
    known = old_positions(old, new, index)
    fresh = known < 0
    mirrored = np.zeros(new.size, dtype=bool)
    for b in new.declared:
        if new.mirror_of(b) is not None:
            start = new.offsets[b.name]
            mirrored[start : start + int(np.prod(new.shapes[b.name]))] = True
    needs_draws = (fresh & mirrored[index]).any(axis=1)
    row, col = np.nonzero(fresh)
    cells, at = np.unique(row * new.size + index[row, col], return_inverse=True)
    net = np.bincount(np.ravel(at), weights=new.signs[col], minlength=len(cells))
    weights = np.zeros((len(index), len(new.spreads)))
    group = new.group[cells % new.size]
    if np.any(group < 0):
        raise ValueError("a never-seen cell of an effect no spread scales")
    np.add.at(weights, (cells // new.size, group), np.square(net))
    known[fresh] = old.size
    return known, weights, needs_draws


def chunks_with_unseen(
    theta: np.ndarray,
    sd: np.ndarray,
    old: Layout,
    new: Layout,
    index: np.ndarray,
    *,
    levels: dict,
    seed: int,
):
    """Split matches into chunks whose effects fit in memory, with unseen cells drawn.

    ``index`` names positions of the grown layout ``new``; ``levels`` and
    ``seed`` key the fresh draws (`unseen_draws`) and are keyword-only. Yields
    ``(rows, theta_chunk, index_chunk)``: the matches' row numbers, the
    fitted effects followed by fresh draws for the new cells those matches
    read, and their index into that array. Matches that read no new cell
    come in one chunk that uses ``theta`` as it is. Working memory stays
    within a fixed budget however many levels are new.
    """
    mapped = old_positions(old, new, index)
    touches = (mapped < 0).any(axis=1)
    plain = np.flatnonzero(~touches)
    if len(plain):
        yield plain, theta, mapped[plain]
    rows = np.flatnonzero(touches)
    if not len(rows):
        return
    per_row = max(1, theta.shape[0] * index.shape[1] * 8)
    step = max(1, _UNSEEN_BYTES // per_row)
    for start in range(0, len(rows), step):
        part = rows[start : start + step]
        cells, inverse = np.unique(index[part], return_inverse=True)
        inverse = inverse.reshape(len(part), -1)
        known = old_positions(old, new, cells)
        fresh = known < 0
        new_cols = np.empty(len(cells), dtype=np.int64)
        new_cols[~fresh] = known[~fresh]
        new_cols[fresh] = theta.shape[1] + np.arange(int(fresh.sum()))
        extra = unseen_draws(sd, new, cells[fresh], levels, seed)
        yield part, np.concatenate([theta, extra], axis=1), new_cols[inverse]


# -- matches that read the same effects -------------------------------------------------


def collapse_matches(index: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct rows of an index matrix, with how many matches and outcomes each holds.

    Matches with the same index row (same players, decks, first-move and
    period cells) share one log-odds, and the model's likelihood is linear
    in the outcomes, so together they add exactly
    ``k log sigmoid(q) + (n - k) log sigmoid(-q)`` with ``n`` the matches and
    ``k`` the sum of their outcomes: the binomial log-likelihood of ``k``
    wins in ``n`` (without its constant), and for luck-adjusted outcomes the
    same binomial quasi-likelihood. The model then costs one term per
    distinct row, not per match.

    Parameters
    ----------
    index : ndarray of int, shape (n_matches, n_columns)
        `Layout.index_matrix` of the matches.
    y : ndarray of float, shape (n_matches,)
        Their outcomes (1 where player 1 won) or luck-adjusted outcomes.

    Returns
    -------
    rows : ndarray of int, shape (n_rows, n_columns)
        The distinct rows, in sorted order (the same for the same matches in
        any order).
    trials : ndarray of float, shape (n_rows,)
        The number of matches behind each row.
    totals : ndarray of float, shape (n_rows,)
        The sum of their outcomes, added in the order the matches are given.
    """
    index = np.asarray(index, dtype=np.int64)
    y = np.asarray(y, dtype=float)
    if index.ndim != 2 or y.shape != (len(index),):
        raise ValueError(
            f"need an index (n_matches, n_columns) and one outcome per match; "
            f"got {index.shape} and {y.shape}"
        )
    if len(index) == 0:
        return index, np.zeros(0), np.zeros(0)
    rows, inverse = np.unique(index, axis=0, return_inverse=True)
    inverse = np.ravel(inverse)
    trials = np.bincount(inverse, minlength=len(rows)).astype(float)
    totals = np.bincount(inverse, weights=y, minlength=len(rows))
    return rows, trials, totals
