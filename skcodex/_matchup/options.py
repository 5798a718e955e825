"""Which parts of the matchup model are switched on: `ModelOptions`, and the seed model's names.

`ModelOptions` is saved with every fitted estimator (inside its `Layout`); the
blocks each option switches on are declared in `blocks.py`.
"""

from __future__ import annotations

from dataclasses import dataclass

from skcodex._matchup import blocks
from skcodex._matchup.blocks import BLOCK_TABLE, SPREAD_TABLE

#: The spreads of the seed model, in the order of the spread vector.
SPREADS = tuple(s.name for s in SPREAD_TABLE if s.option is None)
#: The seed model's effect blocks, in order, with the index of the spread each is drawn with.
BLOCKS = tuple((b.name, SPREADS.index(b.spread)) for b in BLOCK_TABLE if b.option is None)
#: The dimensions of every built-in effect block, by name (see `blocks.block_dims`).
BLOCK_DIMS = {b.name: b.dims for b in BLOCK_TABLE}
PRIORS = ("lognormal", "balanced")


@dataclass(frozen=True)
class ModelOptions:
    """Which extensions of the seed model are switched on (all off: the seed model).

    ``symmetric=True`` is for games where no side moves first: the matchup of
    deck a against deck b is minus that of b against a (see `Layout`), so it
    cannot be combined with ``first_move=True``.

    ``debut=True`` adds one learned offset to a player's skill in the matches
    of their first rating period (the ``debut`` block of `skcodex._matchup.blocks`);
    it needs each match's debut flags (`skcodex.data.MatchCodes`).
    ``period_offset=True`` shifts a player's skill in each rating period by
    an effect of its own, ``N(0, sd_period)`` (the ``period_skill`` block).
    ``experience=True`` moves a player's skill by how many rating periods they
    played before the match's (the ``experience`` block); it needs each
    match's experience levels (`skcodex.data.MatchCodes`).
    ``draws=True`` adds a third outcome, the draw, with a learned threshold
    (`skcodex._matchup.draws`); no effect block.
    ``signed_spreads=True`` samples each spread whose prior is exponential as a
    signed spread through zero, and keeps its effects non-centred
    (`skcodex._matchup.spread_model.spreads_through_zero`); set whenever an exponential spread
    prior is asked for. No effect block.
    """

    time_varying: bool = False
    synergy: bool = False
    familiarity: bool = False
    prior: str = "lognormal"
    first_move: bool = False
    symmetric: bool = False
    debut: bool = False
    period_offset: bool = False
    experience: bool = False
    draws: bool = False
    signed_spreads: bool = False

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
