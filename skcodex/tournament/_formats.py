"""Tournament formats: the stages a tournament is played in, and how to read them from text."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from skcodex._docstrings import shared_parameters
from skcodex.tournament import _stages
from skcodex.tournament._stage import (
    MAX_STAGE_NUMBER,
    STAGE_WORDS,
    ResultRules,
    Stage,
    TournamentError,
    count,
    format_help,
    needs,
    register_stage,
)
from skcodex.tournament._stages import StageResult

__all__ = [
    "FIRST_MOVE_RULES",
    "STAGE_WORDS",
    "Format",
    "Groups",
    "Knockout",
    "LossElimination",
    "ResultRules",
    "RoundRobin",
    "Stage",
    "StageResult",
    "Swiss",
    "TournamentError",
    "describe_stage",
    "format_help",
    "parse_format",
    "register_stage",
]

#: How the first mover of a match is chosen: a coin flip, or the entrant who has
#: moved first fewer times so far in the tournament (a coin flip on a tie).
FIRST_MOVE_RULES = ("random", "alternating")


@register_stage
@shared_parameters
@dataclass(frozen=True)
class RoundRobin(Stage):
    """Every entrant plays every other ``legs`` times (1: single, 2: double round robin).

    Parameters
    ----------
    legs : int, default 1
        How many times each pair meets.
    {best_of}
    """

    words: ClassVar[dict[str, str]] = {
        "round-robin": "round-robin (round-robin:N: N legs)",
        "double-round-robin": "double-round-robin",
    }
    legs: int = 1
    best_of: int = 1

    def __post_init__(self):
        count(self.legs, "round robin legs", 1)
        _sets(self.best_of)

    @classmethod
    def from_word(cls, word, number):
        return cls(2) if word == "double-round-robin" else cls(1 if number is None else number)

    def describe(self):
        return "double round robin" if self.legs == 2 else f"round robin ({self.legs} legs)"

    def n_rounds(self, m):
        return self.legs * len(_stages.round_robin_rounds(m))

    def result_rules(self, m):
        return ResultRules(leg_rounds=self.n_rounds(m) // self.legs)

    def play(self, matches, seeding, first_round, results):
        return _stages.round_robin(self.legs, matches, seeding, first_round, results)


@register_stage
@shared_parameters
@dataclass(frozen=True)
class Groups(Stage):
    """Entrants split into ``n_groups`` round-robin groups (pods) by snake seeding.

    The stage's standings list every group winner first (best record first),
    then every runner-up, and so on, so that a following knockout meets group
    winners against other groups' lower places.

    Parameters
    ----------
    n_groups : int
        Groups, at least two.
    legs : int, default 1
        How many times each pair of a group meets.
    {best_of}
    """

    words: ClassVar[dict[str, str]] = {"groups": "groups:N (N round-robin groups)"}
    n_groups: int
    legs: int = 1
    best_of: int = 1

    def __post_init__(self):
        count(self.n_groups, "the number of groups", 2)
        count(self.legs, "round robin legs", 1)
        _sets(self.best_of)

    @classmethod
    def from_word(cls, word, number):
        return cls(needs(number, word))

    def describe(self):
        return f"{self.n_groups} round-robin groups"

    def min_entrants(self):
        return 2 * self.n_groups

    def n_rounds(self, m):
        return self.legs * len(_stages.round_robin_rounds(-(-m // self.n_groups)))

    def result_rules(self, m):
        return ResultRules(leg_rounds=self.n_rounds(m) // self.legs)

    def play(self, matches, seeding, first_round, results):
        return _stages.groups(
            self.n_groups, self.legs, matches, seeding, first_round, results, self.n_rounds
        )


@register_stage
@shared_parameters
@dataclass(frozen=True)
class Swiss(Stage):
    """``rounds`` rounds paired by score without repeats; an odd entrant out gets a bye.

    Each round, entrants are ordered by score (wins plus byes; ties in a random
    order fixed per simulated tournament) and the highest unpaired entrant
    meets the next highest they have not met yet; when only rematches remain
    the rematch is played. The bye (a win) goes to the lowest entrant without
    one. The final standings break ties in score by the sum of the opponents'
    scores (Buchholz), then at random.

    Parameters
    ----------
    rounds : int
        Rounds played.
    {best_of}
    """

    words: ClassVar[dict[str, str]] = {"swiss": "swiss:N (N rounds)"}
    rounds: int
    best_of: int = 1

    def __post_init__(self):
        count(self.rounds, "Swiss rounds", 1)
        _sets(self.best_of)

    @classmethod
    def from_word(cls, word, number):
        return cls(needs(number, word))

    def describe(self):
        return f"{self.rounds} rounds of Swiss"

    def n_rounds(self, m):
        return self.rounds

    def play(self, matches, seeding, first_round, results):
        return _stages.swiss(matches, seeding, first_round, results, n_rounds=self.rounds)


@register_stage
@shared_parameters
@dataclass(frozen=True)
class LossElimination(Stage):
    """Swiss pairing among the entrants left, each out at ``losses`` losses, until one is left.

    The format of the Codex forum's seasonal tournaments (three losses).
    Rematches are avoided while possible; the last two entrants may meet again.

    Parameters
    ----------
    losses : int, default 3
        Losses that put an entrant out.
    {best_of}
    """

    words: ClassVar[dict[str, str]] = {"losses": "losses:N (out at N losses, 3 by default)"}
    ends_tournament: ClassVar[bool] = True
    final_of_last_two: ClassVar[bool] = True
    losses: int = 3
    best_of: int = 1

    def __post_init__(self):
        count(self.losses, "losses", 1)
        _sets(self.best_of)

    @classmethod
    def from_word(cls, word, number):
        return cls(3 if number is None else number)

    def describe(self):
        return f"Swiss elimination at {self.losses} losses"

    def n_rounds(self, m):
        return 10**6  # every round left

    def last_round(self, m):
        return self.losses * m

    def result_rules(self, m):
        return ResultRules(out_at=self.losses)

    def play(self, matches, seeding, first_round, results):
        return _stages.swiss(matches, seeding, first_round, results, out_at=self.losses)


@register_stage
@shared_parameters
@dataclass(frozen=True)
class Knockout(Stage):
    """Single or double elimination of the ``size`` best of the previous standings.

    Seeds meet as in a standard bracket (1 v 8, 4 v 5, 2 v 7, 3 v 6 for eight);
    when the field is not a power of two the best seeds get byes. In double
    elimination a first loss drops an entrant into the losers' bracket and the
    grand final is replayed if the losers' bracket winner wins it.
    ``size=None`` takes every entrant.

    Parameters
    ----------
    size : int or None, default None
        How many of the best of the standings so far play (None: every entrant).
    double : bool, default False
        Double elimination instead of single.
    {best_of}
    final_best_of : int or None, default None
        Games in the final's sets (the grand final and its replay in double
        elimination); None: ``best_of``.
    """

    words: ClassVar[dict[str, str]] = {
        "knockout": "knockout:N or single-elimination:N (top N; all without N)",
        "single-elimination": "knockout:N or single-elimination:N (top N; all without N)",
        "double-elimination": "double-elimination:N",
    }
    size: int | None = None
    double: bool = False
    best_of: int = 1
    final_best_of: int | None = None

    def __post_init__(self):
        if self.size is not None:
            count(self.size, "knockout size", 2)
        _sets(self.best_of)
        if self.final_best_of is not None:
            _sets(self.final_best_of, "final_best_of")

    @classmethod
    def from_word(cls, word, number):
        return cls(number, double=word == "double-elimination")

    def describe(self):
        kind = "double" if self.double else "single"
        top = "all" if self.size is None else f"top {self.size}"
        return f"{kind} elimination ({top})"

    def cut(self, field):
        if self.size is None:
            return field
        if self.size > field:
            raise TournamentError(
                f"a knockout of the best {self.size} needs at least {self.size} "
                f"entrants, got {field}"
            )
        return self.size

    def n_rounds(self, m):
        depth = _stages.bracket_size(m).bit_length() - 1
        return _stages.double_elimination_rounds(depth) if self.double else depth

    def sets(self):
        return self.best_of, self.final_best_of

    def result_rules(self, m):
        if self.double:  # a bracket match, the grand final and its replay
            return ResultRules(out_at=2, max_meetings=3)
        return ResultRules(once=True, out_at=1, bracket=True)

    def play(self, matches, seeding, first_round, results):
        if self.double:
            return _stages.double_elimination(matches, seeding, first_round, results)
        return _stages.single_elimination(matches, seeding, first_round, results)


@dataclass(frozen=True)
class Format:
    """Stages played one after another; each stage seeds the next by its standings.

    Parameters
    ----------
    stages : tuple of stages
        Each a `Stage`: `RoundRobin`, `Groups`, `Swiss`, `LossElimination`,
        `Knockout`, or one of your own (`register_stage`). A stage after the
        first takes the best entrants of the standings so far that it cuts to
        (only a `Knockout` of the built-in stages cuts the field).
    first_move : {"random", "alternating"}, default "random"
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
            if not isinstance(stage, Stage):
                raise TournamentError(f"unknown tournament stage {stage!r}")
        for stage in stages[:-1]:
            if stage.ends_tournament:
                raise TournamentError(f"{stage.describe()} ends the tournament; put it last")
        if self.first_move not in FIRST_MOVE_RULES:
            raise TournamentError(
                f"first_move must be one of {', '.join(FIRST_MOVE_RULES)}, got {self.first_move!r}"
            )

    def check_entrants(self, n_entrants: int) -> None:
        """Refuse a field too small for a stage.

        Parameters
        ----------
        n_entrants : int
            Entrants of the tournament.

        Raises
        ------
        TournamentError
            When a stage would have fewer entrants than it needs.
        """
        field = n_entrants
        for stage in self.stages:
            least = stage.min_entrants()
            if field < least:
                raise TournamentError(
                    f"{stage.describe()} needs at least {least} entrants, got {field}"
                )
            field = stage.cut(field)


def _sets(value: object, name: str = "best_of") -> int:
    """A stage's set length: an odd number of games (1: single games)."""
    from skcodex.tournament._series import check_best_of

    return check_best_of(value, name)


def describe_stage(stage: Stage) -> str:
    """A stage in words, e.g. ``"5 rounds of Swiss"``, ``"double elimination (all), best of 3"``.

    Its `Stage.describe`, and the length of its sets when it plays sets.
    """
    from skcodex.tournament._set_words import describe_sets

    return stage.describe() + describe_sets(stage)


def parse_format(text: str, first_move: str = "random") -> Format:
    """Read a format written as stages joined by ``+``.

    Each stage is a word with an optional ``:N``: ``round-robin`` (``:N`` legs),
    ``double-round-robin``, ``groups:N``, ``swiss:N`` (rounds), ``losses:N``
    (Swiss elimination at N losses, 3 by default), ``knockout:N`` or
    ``single-elimination:N`` (top N; all without N), ``double-elimination:N``,
    and the words of every stage registered since (`register_stage`). A
    stage played in best-of-K sets ends in ``:boK`` (``swiss:5:bo3``); a
    knockout's final may have a length of its own, ``:final-boK``
    (``knockout:8:bo3:final-bo5``).

    Parameters
    ----------
    text : str
        The format, e.g. ``"swiss:5+knockout:8"``.
    first_move : {"random", "alternating"}, default "random"
        Who moves first in a match (see `FIRST_MOVE_RULES`).

    Returns
    -------
    Format
        The stages read, in order.

    Examples
    --------
    >>> parse_format("swiss:5+knockout:8").stages
    (Swiss(rounds=5, best_of=1), Knockout(size=8, double=False, best_of=1, final_best_of=None))
    >>> parse_format("knockout:8:bo3:final-bo5").stages[0].final_best_of
    5
    """
    if not isinstance(text, str) or not text.strip():
        raise TournamentError("a tournament format must be text such as 'swiss:5+knockout:8'")
    from skcodex.tournament._set_words import split_sets

    stages = []
    for whole in text.split("+"):
        part, best_of, final = split_sets(whole)
        word, _, number = part.strip().lower().partition(":")
        if word not in STAGE_WORDS:
            raise TournamentError(
                f"unknown tournament format {part.strip()!r}; use one of {', '.join(STAGE_WORDS)}"
            )
        stage = STAGE_WORDS[word].from_word(word, _number(part, number))
        stages.append(_with_sets(stage, whole, best_of, final))
    return Format(tuple(stages), first_move)


def _with_sets(stage: Stage, whole: str, best_of: int | None, final: int | None) -> Stage:
    """``stage`` played in the sets its text asks for (``:boK``, ``:final-boK``)."""
    from dataclasses import fields, replace

    if final is not None and "final_best_of" not in {f.name for f in fields(stage)}:
        raise TournamentError(
            f"{whole.strip()[:40]!r}: only a knockout has a final of its own length "
            "('final-boN'); use 'boN' for the whole stage"
        )
    if best_of is None and final is None:
        return stage
    if "best_of" not in {f.name for f in fields(stage)}:
        raise TournamentError(f"{whole.strip()[:40]!r}: this stage is not played in sets")
    extra = {"best_of": best_of or 1}
    if final is not None:
        extra["final_best_of"] = final
    return replace(stage, **extra)


def _number(part: str, number: str) -> int | None:
    """The whole number after ``:`` in one stage of format text (None without one)."""
    if not number:
        return None
    digits = number.strip()
    # ASCII digits only ('²' and other Unicode digits are no number for int())
    if not (digits.isascii() and digits.isdigit()):
        raise TournamentError(f"{part.strip()!r}: the number after ':' must be whole")
    if len(digits) > 12:
        raise TournamentError(
            f"{part.strip()[:40]!r}: the number after ':' may be at most {MAX_STAGE_NUMBER:,}"
        )
    return int(digits)
