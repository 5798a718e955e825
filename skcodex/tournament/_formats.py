"""Tournament formats: the stages a tournament is played in, and how to read them from text."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from skcodex.tournament import _stages
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
class ResultRules:
    """How the results recorded in a stage are checked (see `Stage.result_rules`).

    Attributes
    ----------
    leg_rounds : int or None
        Round robins: the rounds of one leg; a pair meets once in each leg.
    once : bool
        A pair meets once in the stage.
    out_at : int or None
        An entrant is out at this many losses (no result may follow).
    max_meetings : int or None
        A pair meets at most this many times.
    bracket : bool
        A seeded bracket: as the first stage, two seeds can meet in one round only.
    """

    leg_rounds: int | None = None
    once: bool = False
    out_at: int | None = None
    max_meetings: int | None = None
    bracket: bool = False


class Stage:
    """A stage of a tournament: its words in a format, its rules, and how it is played.

    A stage is a frozen dataclass deriving from `Stage`, registered with
    `register_stage`; its ``words`` put it in format text (`parse_format`)
    and the command line's ``--format`` help, and its methods are all that
    `Format`, `simulate_tournament` and the reports ask of it.

    Attributes
    ----------
    words : dict of str to str
        Each word naming the stage in format text, with its help (``"swiss:N
        (N rounds)"``).
    ends_tournament : bool
        Only the last stage may be this stage.
    final_of_last_two : bool
        Its final is the last two standing meeting until one is out.
    """

    words: ClassVar[dict[str, str]] = {}
    ends_tournament: ClassVar[bool] = False
    final_of_last_two: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # a stage's methods say what Stage's say: their docstrings are Stage's
        for name, value in vars(cls).items():
            base = getattr(Stage, name, None)
            target = getattr(value, "__func__", value)
            if callable(target) and not getattr(target, "__doc__", None) and base is not None:
                target.__doc__ = base.__doc__

    @classmethod
    def from_word(cls, word: str, number: int | None) -> Stage:
        """The stage that format text names ``word`` or ``word:number``.

        Parameters
        ----------
        word : str
            One of ``words``.
        number : int or None
            The number after ``:``, or None without one.

        Returns
        -------
        Stage
        """
        raise NotImplementedError(f"{cls.__name__} does not say how it is read from text")

    def describe(self) -> str:
        """The stage in words, e.g. ``"5 rounds of Swiss"``.

        Returns
        -------
        str
        """
        return type(self).__name__

    def min_entrants(self) -> int:
        """The fewest entrants the stage can be played with.

        Returns
        -------
        int
        """
        return 2

    def cut(self, field: int) -> int:
        """How many of the best of the standings so far play the stage.

        Parameters
        ----------
        field : int
            Entrants in the standings so far.

        Returns
        -------
        int
        """
        return field

    def n_rounds(self, m: int) -> int:
        """Tournament rounds the stage takes with ``m`` entrants (results are assigned by them).

        Parameters
        ----------
        m : int
            Entrants of the stage.

        Returns
        -------
        int
        """
        raise NotImplementedError(f"{type(self).__name__} does not say how many rounds it takes")

    def last_round(self, m: int) -> int:
        """The latest round of the stage a result may be recorded in, counted from 1.

        Parameters
        ----------
        m : int
            Entrants of the stage.

        Returns
        -------
        int
        """
        return self.n_rounds(m)

    def result_rules(self, m: int) -> ResultRules:
        """How the results recorded in the stage are checked.

        Parameters
        ----------
        m : int
            Entrants of the stage.

        Returns
        -------
        ResultRules
        """
        return ResultRules()

    def play(self, matches: Any, seeding: Any, first_round: int, results: Any) -> StageResult:
        """Play the stage for a batch of simulated tournaments at once.

        Parameters
        ----------
        matches : Matches
            The batch's matches: ``matches.play(a, b, forced)`` plays entrants
            ``a`` against ``b`` (arrays of shape ``(n_simulations, k)``, -1 for
            nobody) and returns the winners and losers; ``wins``, ``losses``,
            ``byes``, ``met`` and ``tiebreak`` are the counts so far.
        seeding : ndarray of shape (n_simulations, m)
            The stage's entrants, best seed first.
        first_round : int
            The tournament round the stage starts in.
        results : Results
            The recorded results; ``results.meetings(start, stop, n_simulations)``
            gives the ``forced`` outcomes of rounds ``start`` to ``stop - 1``.

        Returns
        -------
        StageResult
        """
        raise NotImplementedError(f"{type(self).__name__} does not say how it is played")


#: Every stage by the words that name it in format text (see `register_stage`).
STAGE_WORDS: dict[str, type[Stage]] = {}


def register_stage(cls: type[Stage]) -> type[Stage]:
    """Put a stage class into format text: its ``words`` name it there from now on.

    Use it as a class decorator on a subclass of `Stage`.

    Parameters
    ----------
    cls : type
        A subclass of `Stage` with at least one word.

    Returns
    -------
    type
        ``cls``, unchanged.

    Raises
    ------
    TournamentError
        When ``cls`` is no `Stage`, has no words, or a word names another stage.
    """
    if not (isinstance(cls, type) and issubclass(cls, Stage)) or not cls.words:
        raise TournamentError(f"a tournament stage is a Stage subclass with words, got {cls!r}")
    for word in cls.words:
        other = STAGE_WORDS.get(word)
        if other is not None and other is not cls:
            raise TournamentError(f"the format word {word!r} already names {other.__name__}")
    for word in cls.words:
        STAGE_WORDS[word] = cls
    return cls


def format_help() -> str:
    """The format text in words, every registered stage with its help: the ``--format`` help."""
    stages = "; ".join(dict.fromkeys(h for cls in STAGE_WORDS.values() for h in cls.words.values()))
    return f"stages joined by '+': {stages}; e.g. swiss:5+knockout:8"


def _needs(n: int | None, word: str) -> int:
    if n is None:
        raise TournamentError(f"'{word}' needs a number, e.g. '{word}:4'")
    return n


@register_stage
@dataclass(frozen=True)
class RoundRobin(Stage):
    """Every entrant plays every other ``legs`` times (1: single, 2: double round robin)."""

    words: ClassVar[dict[str, str]] = {
        "round-robin": "round-robin (round-robin:N: N legs)",
        "double-round-robin": "double-round-robin",
    }
    legs: int = 1

    def __post_init__(self):
        _count(self.legs, "round robin legs", 1)

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
@dataclass(frozen=True)
class Groups(Stage):
    """Entrants split into ``n_groups`` round-robin groups (pods) by snake seeding.

    The stage's standings list every group winner first (best record first),
    then every runner-up, and so on, so that a following knockout meets group
    winners against other groups' lower places.
    """

    words: ClassVar[dict[str, str]] = {"groups": "groups:N (N round-robin groups)"}
    n_groups: int
    legs: int = 1

    def __post_init__(self):
        _count(self.n_groups, "the number of groups", 2)
        _count(self.legs, "round robin legs", 1)

    @classmethod
    def from_word(cls, word, number):
        return cls(_needs(number, word))

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
@dataclass(frozen=True)
class Swiss(Stage):
    """``rounds`` rounds paired by score without repeats; an odd entrant out gets a bye.

    Each round, entrants are ordered by score (wins plus byes; ties in a random
    order fixed per simulated tournament) and the highest unpaired entrant
    meets the next highest they have not met yet; when only rematches remain
    the rematch is played. The bye (a win) goes to the lowest entrant without
    one. The final standings break ties in score by the sum of the opponents'
    scores (Buchholz), then at random.
    """

    words: ClassVar[dict[str, str]] = {"swiss": "swiss:N (N rounds)"}
    rounds: int

    def __post_init__(self):
        _count(self.rounds, "Swiss rounds", 1)

    @classmethod
    def from_word(cls, word, number):
        return cls(_needs(number, word))

    def describe(self):
        return f"{self.rounds} rounds of Swiss"

    def n_rounds(self, m):
        return self.rounds

    def play(self, matches, seeding, first_round, results):
        return _stages.swiss(matches, seeding, first_round, results, n_rounds=self.rounds)


@register_stage
@dataclass(frozen=True)
class LossElimination(Stage):
    """Swiss pairing among the entrants left, each out at ``losses`` losses, until one is left.

    The format of the Codex forum's seasonal tournaments (three losses).
    Rematches are avoided while possible; the last two entrants may meet again.
    """

    words: ClassVar[dict[str, str]] = {"losses": "losses:N (out at N losses, 3 by default)"}
    ends_tournament: ClassVar[bool] = True
    final_of_last_two: ClassVar[bool] = True
    losses: int = 3

    def __post_init__(self):
        _count(self.losses, "losses", 1)

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
@dataclass(frozen=True)
class Knockout(Stage):
    """Single or double elimination of the ``size`` best of the previous standings.

    Seeds meet as in a standard bracket (1 v 8, 4 v 5, 2 v 7, 3 v 6 for eight);
    when the field is not a power of two the best seeds get byes. In double
    elimination a first loss drops an entrant into the losers' bracket and the
    grand final is replayed if the losers' bracket winner wins it.
    ``size=None`` takes every entrant.
    """

    words: ClassVar[dict[str, str]] = {
        "knockout": "knockout:N or single-elimination:N (top N; all without N)",
        "single-elimination": "knockout:N or single-elimination:N (top N; all without N)",
        "double-elimination": "double-elimination:N",
    }
    size: int | None = None
    double: bool = False

    def __post_init__(self):
        if self.size is not None:
            _count(self.size, "knockout size", 2)

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


def describe_stage(stage: Stage) -> str:
    """A stage in words, e.g. ``"5 rounds of Swiss"`` (its `Stage.describe`)."""
    return stage.describe()


def parse_format(text: str, first_move: str = "random") -> Format:
    """Read a format written as stages joined by ``+``.

    Each stage is a word with an optional ``:N``: ``round-robin`` (``:N`` legs),
    ``double-round-robin``, ``groups:N``, ``swiss:N`` (rounds), ``losses:N``
    (Swiss elimination at N losses, 3 by default), ``knockout:N`` or
    ``single-elimination:N`` (top N; all without N), ``double-elimination:N``,
    and the words of every stage registered since (`register_stage`).

    Parameters
    ----------
    text : str
        The format, e.g. ``"swiss:5+knockout:8"``.
    first_move : {"random", "alternating"}, default "random"
        Who moves first in a match (see `FIRST_MOVE_RULES`).

    Returns
    -------
    Format

    Examples
    --------
    >>> parse_format("swiss:5+knockout:8").stages
    (Swiss(rounds=5), Knockout(size=8, double=False))
    """
    if not isinstance(text, str) or not text.strip():
        raise TournamentError("a tournament format must be text such as 'swiss:5+knockout:8'")
    stages = []
    for part in text.split("+"):
        word, _, number = part.strip().lower().partition(":")
        if word not in STAGE_WORDS:
            raise TournamentError(
                f"unknown tournament format {part.strip()!r}; use one of {', '.join(STAGE_WORDS)}"
            )
        stages.append(STAGE_WORDS[word].from_word(word, _number(part, number)))
    return Format(tuple(stages), first_move)


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
