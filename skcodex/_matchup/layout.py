"""The seed's linear predictor in NumPy: where each effect sits, what each match reads.

A match's log-odds that player 1 wins are a signed sum of entries of one flat
effect vector ``theta``, read through one row of an integer index matrix:

    q_i = p[f_i] - p[s_i] + a[g_i, t_i] + sum_k b[g_i, u_ik] + sum_j c[h_ij, t_i]
          + sum_jk d[h_ij, u_ik]

with player skills ``p``, starter-vs-starter ``a``, starter-vs-spec ``b``,
spec-vs-starter ``c`` and spec-vs-spec ``d`` effects (player 1's component
first), plus the optional blocks of `ModelOptions` (see `skcodex._matchup.graph` for
their priors). This module owns that formula once, for every user of it:

- `Layout`: the blocks of ``theta``, their shapes and offsets, the index
  matrix of encoded matches (`Layout.index_matrix`) and its signs, and the
  effects from standard normals and spreads (`Layout.theta`);
- the options that switch blocks on are `options.py`'s `ModelOptions`, the skill
  walk's steps `walk.py`'s `WalkPath`, and the deck part of the sum for every pair
  of decks at once `deck_pairs.py`'s `deck_logits`.

A layout grown for levels never seen in fit is read by `never_seen.py`.

The PyMC model (`skcodex._matchup.graph`), prediction (`skcodex._matchup.prediction`), the
analyses and `MatchupEncoder` all read the formula from here. This module
knows nothing of PyMC, pandas or scikit-learn.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace

import numpy as np

from skcodex._matchup import blocks
from skcodex._matchup.blocks import EffectBlock
from skcodex._matchup.options import SPREADS, ModelOptions
from skcodex._matchup.walk import WALK_ANCHORS, WalkPath, _walk_path
from skcodex.data import MatchCodes
from skcodex.data import _kinds as kinds
from skcodex.data._codes import ColumnCodes


@dataclass(frozen=True)
class Layout:
    """Where each effect sits in the flat vector ``theta``, and what each match reads.

    The blocks, their shapes, how a match reads them and how they are drawn
    come from `skcodex._matchup.blocks.BLOCK_TABLE`: the blocks the options switch on,
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
        this many step slots: one step per player into each period the
        player played after the walk's start (`walk_anchor`), of spread
        ``sd_step * sqrt(gap)``
        (the same Gaussian random walk with its unplayed periods integrated
        out; see `walk_path`). A player's walk holds its last played value
        through the periods after it, and 0 before the first period played.
    walk_anchor : {"first period", "first played"}
        Where each player's integrated walk is 0: ``"first played"``, the
        first period the player played (a fit's walk: a newcomer's skill is
        drawn from the population, whenever they arrive), or ``"first
        period"``, the table's first period, with a step from there to the
        first period played (files written before; and every layout without a
        walk, where it means nothing).
    n_periods : int
        Rating periods of the per-period skill offsets (0 when they are off).
    empty_spreads : bool
        Whether spreads only blocks without cells use are sampled all the same.
    column_counts : tuple of (str, int)
        The number of levels of each column kind of level
        (`skcodex.data._kinds`), by kind; a kind not listed has none.
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
    column_counts: tuple = ()
    walk_anchor: str = "first period"

    def __post_init__(self) -> None:
        if self.walk_anchor not in WALK_ANCHORS:
            raise ValueError(f"walk_anchor must be one of {WALK_ANCHORS}, got {self.walk_anchor!r}")
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
        """The number of levels of each kind (`skcodex.data._kinds.KIND_TABLE`)."""
        return {kind.name: kinds.count(kind, self) for kind in kinds.KIND_TABLE}

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
            columns={k: ColumnCodes(np.zeros(1, dtype=np.int64), 1) for k, _ in self.column_counts},
        )
        return list(self._columns(one))

    def static(self) -> Layout:
        """The same layout without the skill walk: what prediction works with."""
        if not self.options.time_varying:
            return self
        opts = replace(self.options, time_varying=False)
        return replace(self, options=opts, n_epochs=1, walk_steps=None, walk_anchor="first period")

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

        A player's walk is 0 in the first period they played (`walk_anchor`
        ``"first played"``; in the table's first period with ``"first
        period"``, from which it takes a step to the first period played); it
        takes one step from each period played to the next one played, the
        step spanning ``gap`` periods (its spread ``sd_step * sqrt(gap)``).
        The cells read by ``index`` are the periods played.

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
        return _walk_path(self.periods_played(index), int(self.walk_steps), self.walk_anchor)

    def periods_played(self, index: np.ndarray) -> np.ndarray:
        """The (players, periods) mask of the walk's cells an index matrix reads."""
        P, E = self.n_players, self.n_epochs
        start = next(self.offsets[b.name] for b in self.declared if b.form == "walk")
        cells = np.asarray(index, dtype=np.int64).ravel() - start
        played = np.zeros(P * E, dtype=bool)
        played[cells[(cells >= 0) & (cells < P * E)]] = True
        return played.reshape(P, E)

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


# -- matches that read the same effects -------------------------------------------------


def collapse_matches(
    index: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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
    weights : ndarray of float, shape (n_matches,), optional
        How much each match counts (``sample_weight``): a row then holds the
        sum of its matches' weights as ``trials`` and of their weighted
        outcomes as ``totals``, so that weight 2 counts as two such matches.

    Returns
    -------
    rows : ndarray of int, shape (n_rows, n_columns)
        The distinct rows, in sorted order (the same for the same matches in
        any order).
    trials : ndarray of float, shape (n_rows,)
        The number of matches behind each row (the sum of their weights).
    totals : ndarray of float, shape (n_rows,)
        The sum of their (weighted) outcomes, added in the order the matches are given.
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
    weights = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=float)
    trials = np.bincount(inverse, weights=weights, minlength=len(rows))
    totals = np.bincount(inverse, weights=weights * y, minlength=len(rows))
    return rows, trials, totals
