"""Levels never seen in fit: a fitted layout grown to hold them, and forecasts over them.

A player, starter, spec or rating period that was not in the fitted table is a
never-seen level. Every effect that involves one (a never-seen cell) is a draw
from its block's population distribution, ``N(0, sd)``, per posterior draw; a
never-seen player's skill may have a mean of its own per draw (``skill_mean``,
the late arrivals' of `skcodex._matchup.newcomers`).
This module is the one place that knows it:

- `old_positions` maps a grown layout back to the fitted one (-1: a never-seen
  cell);
- `never_seen_draws` draws never-seen cells, keyed to the levels' names
  (`counter_normals`), so a forecast repeats exactly and does not depend on the
  other matches forecast with it; `extend_effects` and `chunks_with_never_seen`
  give the grown effects whole or in chunks of bounded memory;
- `never_seen_terms` gives what a match knows and the spread of the never-seen
  cells it reads, which a forecast integrates out by quadrature;
- `FittedDraws` is what a forecast reads of a fitted model, and
  `mean_win_probabilities` and `win_probability_draws` are the forecasts
  (`BayesianMatchupClassifier.predict_proba` and ``predict_proba_draws``).
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass

import numpy as np

from skcodex._matchup import debut, prediction
from skcodex._matchup.layout import Layout
from skcodex.data import _kinds as kinds

#: The block of player skills: a never-seen player's cell there may have a mean.
SKILL = "skill"
#: Working memory for the draws of never-seen levels in one chunk of matches.
_NEVER_SEEN_BYTES = 64 * 2**20


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


def never_seen_draws(
    sd: np.ndarray,
    layout: Layout,
    positions: np.ndarray,
    levels: dict,
    seed: int,
    skill_mean: np.ndarray | None = None,
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
    skill_mean : ndarray of shape (n_draws,), optional
        The mean of a never-seen player's skill per draw
        (`skcodex._matchup.newcomers`); 0 when None.

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
    skill = np.zeros(len(positions), dtype=bool)
    for j, (_, name, coords) in enumerate(_cell_positions(layout, np.asarray(positions))):
        block = declared[name]
        skill[j] = name == SKILL
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
    if skill_mean is not None and skill.any():
        out[:, skill] += np.asarray(skill_mean, dtype=float)[:, None]
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


def grown_layout(layout: Layout, codes) -> Layout:
    """``layout`` grown by the levels of ``codes`` never seen in fit, kind by kind.

    Each kind of level that grows (`skcodex.data._kinds.grown_sizes`) takes the
    count of ``codes``, seen and never seen; a kind the layout has no levels
    of stays without.
    """
    return dataclasses.replace(layout, **kinds.grown_sizes(layout, codes))


def level_names(vocab, codes) -> dict:
    """Every kind's levels by name: those seen in fit, then the never-seen of ``codes``.

    The names key the never-seen draws (`never_seen_draws`), so a level's draws
    are the same whichever other levels a forecast meets.
    """
    return kinds.level_names(vocab, codes)


def extend_effects(
    theta: np.ndarray,
    sd: np.ndarray,
    old: Layout,
    new: Layout,
    *,
    levels: dict | None = None,
    seed: int,
    skill_mean: np.ndarray | None = None,
) -> np.ndarray:
    """Effects in a larger layout: fitted values where known, fresh N(0, sd) draws elsewhere.

    The fresh draws are those of `never_seen_draws` (keyed to the levels' names,
    or to their positions when ``levels`` is None, and to ``seed``; a never-seen
    player's skill moved by ``skill_mean``). ``levels``, ``seed`` and
    ``skill_mean`` are keyword-only, as for `chunks_with_never_seen`.

    Returns
    -------
    ndarray of shape (n_draws, new.size)
    """
    levels = levels or kinds.positional_levels(new)
    old_pos = old_positions(old, new)
    out = np.empty((theta.shape[0], new.size))
    known = old_pos >= 0
    out[:, known] = theta[:, old_pos[known]]
    fresh = np.flatnonzero(~known)
    if len(fresh):
        out[:, fresh] = never_seen_draws(sd, new, fresh, levels, seed, skill_mean)
    return out


def never_seen_terms(
    old: Layout, new: Layout, index: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What the matches of ``index`` know, and the spread of what they do not.

    ``index`` names positions of the grown layout ``new``. Each new cell is an
    independent ``N(0, sd)`` of its block's spread, so the signed sum of the
    new cells a match reads is ``N(0, s^2)`` with ``s^2`` the sum over
    spreads of ``sd^2`` times the squared net signs of its new cells of that
    spread (a never-seen player on both sides of a match cancels out). That holds
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


def chunks_with_never_seen(
    theta: np.ndarray,
    sd: np.ndarray,
    old: Layout,
    new: Layout,
    index: np.ndarray,
    *,
    levels: dict,
    seed: int,
    skill_mean: np.ndarray | None = None,
):
    """Split matches into chunks whose effects fit in memory, with never-seen cells drawn.

    ``index`` names positions of the grown layout ``new``; ``levels`` and
    ``seed`` key the fresh draws (`never_seen_draws`, a never-seen player's
    skill moved by ``skill_mean``) and are keyword-only. Yields
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
    step = max(1, _NEVER_SEEN_BYTES // per_row)
    for start in range(0, len(rows), step):
        part = rows[start : start + step]
        cells, inverse = np.unique(index[part], return_inverse=True)
        inverse = inverse.reshape(len(part), -1)
        known = old_positions(old, new, cells)
        fresh = known < 0
        new_cols = np.empty(len(cells), dtype=np.int64)
        new_cols[~fresh] = known[~fresh]
        new_cols[fresh] = theta.shape[1] + np.arange(int(fresh.sum()))
        extra = never_seen_draws(sd, new, cells[fresh], levels, seed, skill_mean)
        yield part, np.concatenate([theta, extra], axis=1), new_cols[inverse]


# -- the forecasts ------------------------------------------------------------------------


@dataclass(frozen=True)
class FittedDraws:
    """What a forecast reads of a fitted model.

    Parameters
    ----------
    effects : ndarray of shape (n_draws, layout.size)
        Every effect per posterior draw, in ``layout``.
    spreads : ndarray of shape (n_draws, n_spreads)
        The spreads per draw, in the order of ``sampled_spreads``.
    layout : Layout
        The fitted layout the effects are laid out in (without the skill walk).
    sampled_spreads : tuple of str
        The names of the sampled layout's spreads (a walk's step among them).
    factor : ndarray of shape (n_draws,) or None
        The debut deck factor per draw; None without one.
    seed : int
        The seed that keys the draws of never-seen cells.
    skill_mean : ndarray of shape (n_draws,) or None
        The mean of a never-seen player's skill per draw (`skcodex._matchup.newcomers`);
        None: 0, the population's.
    """

    effects: np.ndarray
    spreads: np.ndarray
    layout: Layout
    sampled_spreads: tuple
    factor: np.ndarray | None
    seed: int
    skill_mean: np.ndarray | None = None

    def debut_rows(self, grown: Layout, index: np.ndarray):
        """For rows of ``index``: debut rows, deck columns and factor draws (`debut.by_rows`)."""
        if self.factor is None:
            no_rows = np.zeros(len(index), dtype=bool)
            return lambda which: (no_rows[which], None, None)
        rows = debut.debut_rows(grown, index)
        columns = debut.deck_columns(self.layout)
        return lambda which: (rows[which], columns, self.factor)

    def chunks(self, grown: Layout, index: np.ndarray, rows: np.ndarray, levels: dict):
        """Row numbers, effect draws and index of each chunk of the matches ``rows``."""
        if grown == self.layout:
            return [(rows, self.effects, index[rows])]
        chunks = chunks_with_never_seen(
            self.effects,
            self.spreads,
            self.layout,
            grown,
            index[rows],
            levels=levels,
            seed=self.seed,
            skill_mean=self.skill_mean,
        )
        return ((rows[part], theta, part_index) for part, theta, part_index in chunks)


def win_probability_draws(
    fitted: FittedDraws, grown: Layout, index: np.ndarray, levels: dict, per_draw=None
) -> np.ndarray:
    """P(player 1 wins) per posterior draw, never-seen cells drawn: (n_draws, n_matches).

    ``index`` is the matches' index matrix in the layout ``grown`` (the fitted
    layout grown by their never-seen levels), whose names by kind are ``levels``.
    ``per_draw(theta, index)`` computes another quantity per draw and match
    instead (the log-odds of a model with draws).
    """
    signs = fitted.layout.signs
    if per_draw is None:

        def per_draw(t, i):
            return prediction.win_probability_draws(t, i, signs)

    by_debut = fitted.debut_rows(grown, index)
    out = np.empty((fitted.effects.shape[0], len(index)))
    for rows, theta, part in fitted.chunks(grown, index, np.arange(len(index)), levels):
        out[:, rows] = debut.by_rows(
            lambda t, i, _: per_draw(t, i),
            theta,
            part,
            *by_debut(rows),
        )
    return out


def mean_win_probabilities(
    fitted: FittedDraws, grown: Layout, index: np.ndarray, levels: dict
) -> np.ndarray:
    """P(player 1 wins) averaged over the posterior draws, one per match.

    A match that reads no never-seen cell is averaged over the draws as it is. A
    match that reads some has their signed sum integrated out per draw by
    Gauss-Hermite quadrature (`never_seen_terms`), with no Monte Carlo noise from
    them; in a symmetric layout, where never-seen cells are tied to each other,
    they are drawn instead (`chunks_with_never_seen`). A match's forecast does not
    depend on the other matches forecast with it.
    """
    forecast = fitted.layout
    signs = forecast.signs
    by_debut = fitted.debut_rows(grown, index)
    p1 = np.empty(len(index))
    drawn = np.arange(len(index))

    def mean(t, i, _):
        return prediction.mean_win_probability(t, i, signs)

    if grown != forecast:
        known, weights, needs_draws = never_seen_terms(forecast, grown, index)
        never_seen = (known == forecast.size).any(axis=1)
        integrated = np.flatnonzero(never_seen & ~needs_draws)
        _integrate(fitted, integrated, known, weights, by_debut, p1)
        plain = np.flatnonzero(~never_seen)  # as in a batch with no never-seen level
        p1[plain] = debut.by_rows(mean, fitted.effects, known[plain], *by_debut(plain))
        drawn = np.flatnonzero(needs_draws)
    if len(drawn):
        for rows, theta, part in fitted.chunks(grown, index, drawn, levels):
            p1[rows] = debut.by_rows(mean, theta, part, *by_debut(rows))
    return p1


def _integrate(fitted: FittedDraws, integrated, known, weights, by_debut, p1) -> None:
    """Fill ``p1`` at the matches ``integrated`` with their never-seen cells integrated out."""
    forecast = fitted.layout
    signs = forecast.signs
    # the spreads the forecast layout's blocks are drawn with (a walk's step is not one)
    sd = fitted.spreads[:, [fitted.sampled_spreads.index(s) for s in forecast.spreads]]
    deck_sd = debut.deck_spreads(forecast)
    rows_debut, columns, factor = by_debut(integrated)
    theta, index, zero = _with_skill_mean(fitted, known[integrated])

    def integrate(t, i, scaled):
        at = integrated[~rows_debut] if not scaled else integrated[rows_debut]
        scale = sd
        if scaled:  # the never-seen deck cells of a debut match, times the factor too
            scale = sd * np.where(deck_sd, factor[:, None], 1.0)
        return prediction.mean_win_probability_integrated(t, i, signs, weights[at], scale)

    p1[integrated] = debut.by_rows(integrate, theta, index, rows_debut, columns, factor, zero=zero)


def _with_skill_mean(fitted: FittedDraws, known: np.ndarray):
    """``(theta, index, zero)`` in which a never-seen player's skill reads ``skill_mean``.

    ``known`` is `never_seen_terms`' index (``layout.size`` for a never-seen
    cell, read as 0). With a skill mean, ``theta`` holds the effects these rows
    read (not a copy of every effect) and then the mean as one more column; the
    never-seen skills read it (their column's sign applies, so two never-seen
    players' means cancel), and ``zero``, the column after it, reads 0.
    """
    size = fitted.layout.size
    skill = np.array([b.name == SKILL for b in fitted.layout.column_blocks])
    one_new = (known[:, skill] == size).sum(axis=1) == 1  # two: the means cancel
    if fitted.skill_mean is None or not one_new.any():
        return fitted.effects, known, size
    cells = np.unique(known[known < size])
    theta = np.empty((fitted.effects.shape[0], len(cells) + 1))
    theta[:, :-1] = fitted.effects[:, cells]
    theta[:, -1] = fitted.skill_mean
    index = np.where(known < size, np.searchsorted(cells, known), len(cells) + 1)
    index[:, skill] = np.where(known[:, skill] == size, len(cells), index[:, skill])
    return theta, index, len(cells) + 1
