"""Tournament formats: the stages a tournament is played in, and how to read them from text."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "FIRST_MOVE_RULES",
    "Format",
    "Groups",
    "Knockout",
    "LossElimination",
    "RoundRobin",
    "Swiss",
    "TournamentError",
    "parse_format",
]

#: How the first mover of a match is chosen: a coin flip, or the entrant who has
#: moved first fewer times so far in the tournament (a coin flip on a tie).
FIRST_MOVE_RULES = ("random", "alternating")


class TournamentError(ValueError):
    """A tournament format, entrant list or result table that cannot be simulated."""


#: The largest number a stage takes (rounds, losses, legs, groups, knockout size): a
#: tournament is played by people, and each round is simulated for every tournament.
MAX_STAGE_NUMBER = 1_000


def _count(value: object, name: str, least: int) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or not least <= value <= MAX_STAGE_NUMBER
    ):
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:40] + "..."
        raise TournamentError(
            f"{name} must be a whole number from {least} to {MAX_STAGE_NUMBER:,}, got {shown}"
        )
    return value


@dataclass(frozen=True)
class RoundRobin:
    """Every entrant plays every other ``legs`` times (1: single, 2: double round robin)."""

    legs: int = 1
    best_of: int = 1

    def __post_init__(self):
        _count(self.legs, "round robin legs", 1)
        _sets(self.best_of)


@dataclass(frozen=True)
class Groups:
    """Entrants split into ``n_groups`` round-robin groups (pods) by snake seeding.

    The stage's standings list every group winner first (best record first),
    then every runner-up, and so on, so that a following knockout meets group
    winners against other groups' lower places.
    """

    n_groups: int
    legs: int = 1
    best_of: int = 1

    def __post_init__(self):
        _count(self.n_groups, "the number of groups", 2)
        _count(self.legs, "round robin legs", 1)
        _sets(self.best_of)


@dataclass(frozen=True)
class Swiss:
    """``rounds`` rounds paired by score without repeats; an odd entrant out gets a bye.

    Each round, entrants are ordered by score (wins plus byes; ties in a random
    order fixed per simulated tournament) and the highest unpaired entrant
    meets the next highest they have not met yet; when only rematches remain
    the rematch is played. The bye (a win) goes to the lowest entrant without
    one. The final standings break ties in score by the sum of the opponents'
    scores (Buchholz), then at random.
    """

    rounds: int
    best_of: int = 1

    def __post_init__(self):
        _count(self.rounds, "Swiss rounds", 1)
        _sets(self.best_of)


@dataclass(frozen=True)
class LossElimination:
    """Swiss pairing among the entrants left, each out at ``losses`` losses, until one is left.

    The format of the Codex forum's seasonal tournaments (three losses).
    Rematches are avoided while possible; the last two entrants may meet again.
    """

    losses: int = 3
    best_of: int = 1

    def __post_init__(self):
        _count(self.losses, "losses", 1)
        _sets(self.best_of)


@dataclass(frozen=True)
class Knockout:
    """Single or double elimination of the ``size`` best of the previous standings.

    Seeds meet as in a standard bracket (1 v 8, 4 v 5, 2 v 7, 3 v 6 for eight);
    when the field is not a power of two the best seeds get byes. In double
    elimination a first loss drops an entrant into the losers' bracket and the
    grand final is replayed if the losers' bracket winner wins it.
    ``size=None`` takes every entrant. ``final_best_of`` sets the final's length
    (the grand final and its replay in double elimination) apart from the
    other rounds' ``best_of``.
    """

    size: int | None = None
    double: bool = False
    best_of: int = 1
    final_best_of: int | None = None

    def __post_init__(self):
        if self.size is not None:
            _count(self.size, "knockout size", 2)
        _sets(self.best_of)
        if self.final_best_of is not None:
            _sets(self.final_best_of, "final_best_of")


def _sets(value: object, name: str = "best_of") -> int:
    """A stage's set length: an odd number of games (1: single games)."""
    from skcodex.tournament._series import check_best_of

    return check_best_of(value, name)


Stage = RoundRobin | Groups | Swiss | LossElimination | Knockout


@dataclass(frozen=True)
class Format:
    """Stages played one after another; each stage seeds the next by its standings.

    Parameters
    ----------
    stages : tuple of stages
        `RoundRobin`, `Groups`, `Swiss`, `LossElimination`, `Knockout`. A stage
        after the first takes the best ``size`` entrants of the standings so
        far (only a `Knockout` may cut the field).
    first_move : {"random", "alternating"}
        Who moves first in a match (see `FIRST_MOVE_RULES`).
    """

    stages: tuple
    first_move: str = "random"

    def __post_init__(self):
        stages = tuple(self.stages)
        object.__setattr__(self, "stages", stages)
        if not stages:
            raise TournamentError("a tournament format needs at least one stage")
        for stage in stages:
            if not isinstance(stage, (RoundRobin, Groups, Swiss, LossElimination, Knockout)):
                raise TournamentError(f"unknown tournament stage {stage!r}")
        for stage in stages[:-1]:
            if isinstance(stage, LossElimination):
                raise TournamentError("a loss-elimination stage ends the tournament; put it last")
        if self.first_move not in FIRST_MOVE_RULES:
            raise TournamentError(
                f"first_move must be one of {', '.join(FIRST_MOVE_RULES)}, got {self.first_move!r}"
            )

    def check_entrants(self, n_entrants: int) -> None:
        """Refuse a field too small for a stage."""
        field = n_entrants
        for stage in self.stages:
            least = 2 * stage.n_groups if isinstance(stage, Groups) else 2
            if field < least:
                raise TournamentError(
                    f"{describe_stage(stage)} needs at least {least} entrants, got {field}"
                )
            if isinstance(stage, Knockout) and stage.size is not None:
                if stage.size > field:
                    raise TournamentError(
                        f"a knockout of the best {stage.size} needs at least {stage.size} "
                        f"entrants, got {field}"
                    )
                field = stage.size


def describe_stage(stage: Stage) -> str:
    """A stage in words, e.g. ``"5 rounds of Swiss"``, ``"double elimination (all), best of 3"``."""
    from skcodex.tournament._series import describe_sets

    return _describe_games(stage) + describe_sets(stage)


def _describe_games(stage: Stage) -> str:
    if isinstance(stage, RoundRobin):
        return "double round robin" if stage.legs == 2 else f"round robin ({stage.legs} legs)"
    if isinstance(stage, Groups):
        return f"{stage.n_groups} round-robin groups"
    if isinstance(stage, Swiss):
        return f"{stage.rounds} rounds of Swiss"
    if isinstance(stage, LossElimination):
        return f"Swiss elimination at {stage.losses} losses"
    kind = "double" if stage.double else "single"
    top = "all" if stage.size is None else f"top {stage.size}"
    return f"{kind} elimination ({top})"


_WORDS = {
    "round-robin": lambda n: RoundRobin(1 if n is None else n),
    "double-round-robin": lambda n: RoundRobin(2),
    "groups": lambda n: Groups(_needs(n, "groups")),
    "swiss": lambda n: Swiss(_needs(n, "swiss")),
    "losses": lambda n: LossElimination(3 if n is None else n),
    "knockout": lambda n: Knockout(n),
    "single-elimination": lambda n: Knockout(n),
    "double-elimination": lambda n: Knockout(n, double=True),
}


def _needs(n: int | None, word: str) -> int:
    if n is None:
        raise TournamentError(f"'{word}' needs a number, e.g. '{word}:4'")
    return n


def parse_format(text: str, first_move: str = "random") -> Format:
    """Read a format written as stages joined by ``+``.

    Each stage is a word with an optional ``:N``: ``round-robin`` (``:N`` legs),
    ``double-round-robin``, ``groups:N``, ``swiss:N`` (rounds), ``losses:N``
    (Swiss elimination at N losses, 3 by default), ``knockout:N`` or
    ``single-elimination:N`` (top N; all without N), ``double-elimination:N``.
    A stage played in best-of-K sets ends in ``:boK`` (``swiss:5:bo3``); a
    knockout's final may have a length of its own, ``:final-boK``
    (``knockout:8:bo3:final-bo5``).

    Examples
    --------
    >>> parse_format("swiss:5+knockout:8").stages
    (Swiss(rounds=5, best_of=1), Knockout(size=8, double=False, best_of=1, final_best_of=None))
    >>> parse_format("knockout:8:bo3:final-bo5").stages[0].final_best_of
    5
    """
    if not isinstance(text, str) or not text.strip():
        raise TournamentError("a tournament format must be text such as 'swiss:5+knockout:8'")
    from dataclasses import replace

    from skcodex.tournament._series import split_sets

    stages = []
    for whole in text.split("+"):
        part, best_of, final = split_sets(whole)
        word, _, number = part.strip().lower().partition(":")
        if word not in _WORDS:
            raise TournamentError(
                f"unknown tournament format {part.strip()!r}; use one of {', '.join(_WORDS)}"
            )
        n = None
        if number:
            digits = number.strip()
            # ASCII digits only ('²' and other Unicode digits are no number for int())
            if not (digits.isascii() and digits.isdigit()):
                raise TournamentError(f"{part.strip()!r}: the number after ':' must be whole")
            if len(digits) > 12:
                raise TournamentError(
                    f"{part.strip()[:40]!r}: the number after ':' may be at most "
                    f"{MAX_STAGE_NUMBER:,}"
                )
            n = int(digits)
        stage = _WORDS[word](n)
        if final is not None and not isinstance(stage, Knockout):
            raise TournamentError(
                f"{whole.strip()[:40]!r}: only a knockout has a final of its own length "
                "('final-boN'); use 'boN' for the whole stage"
            )
        if best_of is not None or final is not None:
            extra = {"best_of": best_of or 1}
            if final is not None:
                extra["final_best_of"] = final
            stage = replace(stage, **extra)
        stages.append(stage)
    return Format(tuple(stages), first_move)
