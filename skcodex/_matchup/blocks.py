"""The model's effect blocks and spreads, each declared once.

Every part of the package that needs to know what an effect block is reads it
from the two tables of this module:

- `SPREAD_TABLE`: the spreads (standard deviations) that effects are drawn
  with, in the order of the spread vector, each with the option that switches
  it on and its default prior ``log sd ~ N(loc, scale)``;
- `BLOCK_TABLE`: the effect blocks, in the order they sit in the flat effect
  vector ``theta``, each an `EffectBlock`: its name, its dimensions (level
  kinds), the spread that scales it (or its own prior), the option that
  switches it on, how a match reads it (which cells, with which sign), how it
  is drawn (independent cells, or the skill walk), what it becomes in a
  symmetric game, and its words in a report.

`skcodex._matchup.layout.Layout` builds the flat vector, its index matrix and signs
from `BLOCK_TABLE`; the PyMC model (`skcodex._matchup.graph`), the padding of the
compiled model (`skcodex._matchup.padding`), the draws for never-seen levels
(`skcodex._matchup.never_seen.never_seen_draws`), the convergence checks
(`skcodex._matchup.diagnostics`) and the estimator's prior parameters
(`skcodex._classifier`) all read it from there. Adding a block is one entry
here (and, if it has an option, one field of `skcodex._matchup.options.ModelOptions`).

A dimension is a kind of level (a record of `skcodex.data._kinds.KIND_TABLE`), with
``1`` or ``2`` appended when it is player 1's or player 2's side of a matchup
(``"starter1"``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = [
    "BLOCK_TABLE",
    "PRIOR_DEFAULTS",
    "SPREAD_TABLE",
    "EffectBlock",
    "Spread",
    "block_dims",
    "level_kind",
]


def level_kind(dim: str) -> str:
    """The level kind of a dimension: ``"starter1"`` -> ``"starter"``."""
    return dim.rstrip("12")


@dataclass(frozen=True)
class Spread:
    """A spread effects are drawn with, ``N(0, sd)``, and its prior ``log sd ~ N(loc, scale)``.

    Attributes
    ----------
    name : str
        Its name in the spread vector (the ``spread`` coordinate of a posterior).
    prior : tuple of float
        The default ``(loc, scale)`` of its log.
    option : str or None
        The `ModelOptions` field that switches it on; None: always there.
    label : str
        What it spreads, in words.
    """

    name: str
    prior: tuple[float, float]
    option: str | None = None
    label: str = ""


# Coordinates of the cells a match reads in one block, with the sign each enters with.
# Each coordinate array has one row per match (and one column per cell read).
Reads = list[tuple[tuple[np.ndarray, ...], float]]


@dataclass(frozen=True)
class EffectBlock:
    """One block of effects in the flat effect vector ``theta``.

    Attributes
    ----------
    name : str
        Its name in ``theta`` and in the posterior.
    dims : tuple of str
        Its dimensions, level kinds with the side appended where a matchup
        has two (``("starter1", "spec2")``); empty for a single effect.
    spread : str or None
        The `Spread` its effects are drawn with, ``N(0, sd)``; None for a
        single effect with its own prior ``N(loc, scale)`` (`prior`).
    reads : callable
        ``reads(codes, layout)``: the cells each match reads, as a list of
        ``(coordinates, sign)`` (see `skcodex._matchup.layout.Layout.index_matrix`).
    option : str or None
        The `ModelOptions` field that switches it on; None: always there.
    form : {"independent", "walk", "baseline"}
        ``"independent"``: every cell its own draw. ``"walk"``: a Gaussian
        random walk along the last dimension, starting at 0, with steps of
        the block's spread; it is dropped for forecasts (see
        `skcodex._matchup.layout.Layout.static`). ``"baseline"``: every cell its own
        draw except the first along the last dimension, which is 0 (the
        level the others are measured from).
    mirror : str or None
        In a symmetric game (``ModelOptions.symmetric``): the block this one
        is minus the transpose of, ``x[i, j] = -mirror[j, i]``. Its own name:
        antisymmetric, one free effect per unordered pair and zeros on the
        diagonal; another block's name: no free effects of its own. None:
        the same in both kinds of game.
    prior : tuple of float or None
        For a block without a spread, the default ``(loc, scale)`` of its
        effect.
    label : str
        What the block is, in words (for reports).
    """

    name: str
    dims: tuple[str, ...]
    spread: str | None
    reads: Callable[..., Reads]
    option: str | None = None
    form: str = "independent"
    mirror: str | None = None
    prior: tuple[float, float] | None = None
    label: str = ""

    @property
    def kinds(self) -> tuple[str, ...]:
        """The level kind of each dimension."""
        return tuple(level_kind(d) for d in self.dims)

    def is_on(self, options) -> bool:
        """Whether ``options`` (a `ModelOptions`) switch this block on."""
        return self.option is None or bool(getattr(options, self.option))


# -- how a match reads each block ------------------------------------------------------
# ``codes`` is a `skcodex.data.MatchCodes`: players f (1) and s (2), starters g and t,
# spec matrices h and u (one column per spec), the rating epoch of each match (epoch), its
# period against the training periods (period), and whether each
# side's player is in their debut period (debut1, debut2; None: not known).


def _players(codes):
    return codes.player1[:, None], codes.player2[:, None]


def _starters(codes):
    return codes.starter1[:, None], codes.starter2[:, None]


def _read_skill(codes, layout) -> Reads:
    f, s = _players(codes)
    return [((f,), 1.0), ((s,), -1.0)]


def _read_stst(codes, layout) -> Reads:
    g, t = _starters(codes)
    return [((g, t), 1.0)]


def _read_stsp(codes, layout) -> Reads:
    g, _ = _starters(codes)
    return [((g, codes.specs2), 1.0)]


def _read_spst(codes, layout) -> Reads:
    _, t = _starters(codes)
    return [((codes.specs1, t), 1.0)]


def _read_spsp(codes, layout) -> Reads:
    h, u = codes.specs1[:, :, None], codes.specs2[:, None, :]
    return [((h, u), 1.0)]


def _read_once(codes, layout) -> Reads:
    return [((), 1.0)]


def _read_syn_stsp(codes, layout) -> Reads:
    g, t = _starters(codes)
    return [((g, codes.specs1), 1.0), ((t, codes.specs2), -1.0)]


def _read_syn_spsp(codes, layout) -> Reads:
    first, second = np.triu_indices(layout.specs_per_deck, 1)
    h, u = codes.specs1, codes.specs2
    return [((h[:, first], h[:, second]), 1.0), ((u[:, first], u[:, second]), -1.0)]


def _read_fam_st(codes, layout) -> Reads:
    (f, s), (g, t) = _players(codes), _starters(codes)
    return [((f, g), 1.0), ((s, t), -1.0)]


def _read_fam_sp(codes, layout) -> Reads:
    f, s = _players(codes)
    return [((f, codes.specs1), 1.0), ((s, codes.specs2), -1.0)]


def _read_walk(codes, layout) -> Reads:
    if codes.epoch is None:
        raise ValueError("a time-varying model needs a period for every match")
    f, s = _players(codes)
    e = np.minimum(codes.epoch, layout.n_epochs - 1)[:, None]
    return [((f, e), 1.0), ((s, e), -1.0)]


def _read_period_skill(codes, layout) -> Reads:
    if codes.period is None:
        raise ValueError("a per-period skill offset needs a period for every match")
    f, s = _players(codes)
    p = codes.period[:, None]
    return [((f, p), 1.0), ((s, p), -1.0)]


def _read_experience(codes, layout) -> Reads:
    zeros = np.zeros(len(codes), dtype=np.int64)  # not known: the baseline, as for a debut
    e1 = zeros if codes.experience1 is None else codes.experience1.astype(np.int64)
    e2 = zeros if codes.experience2 is None else codes.experience2.astype(np.int64)
    return [((e1[:, None],), 1.0), ((e2[:, None],), -1.0)]


def _read_debut(codes, layout) -> Reads:
    n = len(codes)
    zeros = np.zeros(n, dtype=np.int64)
    d1 = zeros if codes.debut1 is None else codes.debut1.astype(np.int64)
    d2 = zeros if codes.debut2 is None else codes.debut2.astype(np.int64)
    return [((d1[:, None],), 1.0), ((d2[:, None],), -1.0)]


# -- the tables --------------------------------------------------------------------------

#: Every spread, in the order of the spread vector.
SPREAD_TABLE = (
    Spread("player", (0.0, 0.5), label="player skills"),
    Spread("stst", (-1.0, 0.5), label="starter-vs-starter effects"),
    Spread("stsp", (-1.5, 0.5), label="starter-vs-spec and spec-vs-starter effects"),
    Spread("spsp", (-2.0, 0.5), label="spec-vs-spec effects"),
    Spread("syn", (-1.5, 0.5), "synergy", "within-deck pair effects"),
    Spread("fam", (-2.0, 0.5), "familiarity", "player-component familiarity"),
    Spread("period", (-1.5, 0.5), "period_offset", "per-period skill offsets"),
    Spread("step", (-2.0, 0.25), "time_varying", "steps of the skill walk"),
    Spread("experience", (-1.0, 0.5), "experience", "skill by rating periods played before"),
)

#: Every effect block, in ``theta`` order.
BLOCK_TABLE = (
    EffectBlock("skill", ("player",), "player", _read_skill, label="player skill"),
    EffectBlock(
        "stst",
        ("starter1", "starter2"),
        "stst",
        _read_stst,
        mirror="stst",
        label="starter against starter",
    ),
    EffectBlock("stsp", ("starter1", "spec2"), "stsp", _read_stsp, label="starter against spec"),
    EffectBlock(
        "spst",
        ("spec1", "starter2"),
        "stsp",
        _read_spst,
        mirror="stsp",
        label="spec against starter",
    ),
    EffectBlock(
        "spsp", ("spec1", "spec2"), "spsp", _read_spsp, mirror="spsp", label="spec against spec"
    ),
    EffectBlock(
        "first_move",
        (),
        None,
        _read_once,
        option="first_move",
        prior=(0.0, 0.5),
        label="first-move advantage",
    ),
    EffectBlock(
        "debut",
        ("stage",),
        None,
        _read_debut,
        option="debut",
        form="baseline",
        prior=(0.0, 0.5),
        label="debut offset (a player's first rating period)",
    ),
    EffectBlock(
        "experience",
        ("experience_level",),
        "experience",
        _read_experience,
        option="experience",
        form="baseline",
        label="skill by rating periods played before (none or one: 0)",
    ),
    EffectBlock(
        "syn_stsp",
        ("starter1", "spec2"),
        "syn",
        _read_syn_stsp,
        option="synergy",
        label="starter-spec synergy",
    ),
    EffectBlock(
        "syn_spsp",
        ("spec1", "spec2"),
        "syn",
        _read_syn_spsp,
        option="synergy",
        label="spec-spec synergy",
    ),
    EffectBlock(
        "fam_st",
        ("player", "starter2"),
        "fam",
        _read_fam_st,
        option="familiarity",
        label="familiarity with a starter",
    ),
    EffectBlock(
        "fam_sp",
        ("player", "spec2"),
        "fam",
        _read_fam_sp,
        option="familiarity",
        label="familiarity with a spec",
    ),
    EffectBlock(
        "period_skill",
        ("player", "period"),
        "period",
        _read_period_skill,
        option="period_offset",
        label="a player's skill offset in one rating period",
    ),
    EffectBlock(
        "walk",
        ("player", "epoch"),
        "step",
        _read_walk,
        option="time_varying",
        form="walk",
        label="skill walk over rating periods",
    ),
)


def block_dims() -> dict[str, tuple[str, ...]]:
    """The dimensions of every declared block, by name (read from `BLOCK_TABLE` when called)."""
    return {b.name: b.dims for b in BLOCK_TABLE}


#: The balanced prior's log total spread: its default (loc, scale).
TOTAL_PRIOR = (0.5, 0.5)

#: Default (loc, scale) of every prior, by prior name (see `ModelOptions.prior_names`).
PRIOR_DEFAULTS: dict[str, tuple[float, float]] = {
    **{s.name: s.prior for s in SPREAD_TABLE},
    "total": TOTAL_PRIOR,
    **{b.name: b.prior for b in BLOCK_TABLE if b.spread is None},
}
