"""What a tournament stage is: the declaration every stage makes, and the table of stages.

A stage is a frozen dataclass deriving from `Stage`, registered with
`register_stage`: its words put it in format text and the ``--format`` help,
and its methods are all the simulation, the result checks and the reports ask
of it. The built-in stages are in ``_formats.py``; a new stage is one class.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from skcodex._docstrings import shared_parameters

if TYPE_CHECKING:
    from skcodex.tournament._stages import StageResult

__all__ = [
    "MAX_STAGE_NUMBER",
    "STAGE_WORDS",
    "ResultRules",
    "Stage",
    "TournamentError",
    "count",
    "format_help",
    "needs",
    "register_stage",
]


class TournamentError(ValueError):
    """A tournament format, entrant list or result table that cannot be simulated."""


#: The largest number a stage takes (rounds, losses, legs, groups, knockout size): a
#: tournament is played by people, and each round is simulated for every tournament.
MAX_STAGE_NUMBER = 1_000


def count(value: object, name: str, least: int) -> int:
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


class Stage(ABC):
    """A stage of a tournament: its words in a format, its rules, and how it is played.

    A stage is a frozen dataclass deriving from `Stage`, registered with
    `register_stage`; its ``words`` put it in format text (`parse_format`)
    and the command line's ``--format`` help, and its methods are all that
    `Format`, `simulate_tournament` and the reports ask of it.
    ``from_word``, ``n_rounds`` and ``play`` have no default: a stage class
    without one of them cannot be made (Python says which is missing).

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

    def sets(self) -> tuple[int, int | None]:
        """Count the games in each set of this stage, and in its final's (None: as the others).

        Returns
        -------
        tuple of (int, int or None)
            ``(best_of, final_best_of)``; ``(1, None)``: single games.
        """
        return getattr(self, "best_of", 1), None

    @classmethod
    @abstractmethod
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
            The stage the text names.
        """

    def describe(self) -> str:
        """The stage in words, e.g. ``"5 rounds of Swiss"``.

        Returns
        -------
        str
            What the reports and errors call the stage.
        """
        return type(self).__name__

    def min_entrants(self) -> int:
        """The fewest entrants the stage can be played with.

        Returns
        -------
        int
            Two by default.
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
            Every entrant (``field``) by default.
        """
        return field

    @shared_parameters
    @abstractmethod
    def n_rounds(self, m: int) -> int:
        """Tournament rounds the stage takes with ``m`` entrants (results are assigned by them).

        {stage_parameters}

        Returns
        -------
        int
            The rounds; the next stage starts in the round after them.
        """

    @shared_parameters
    def last_round(self, m: int) -> int:
        """The latest round of the stage a result may be recorded in, counted from 1.

        {stage_parameters}

        Returns
        -------
        int
            `n_rounds` by default.
        """
        return self.n_rounds(m)

    @shared_parameters
    def result_rules(self, m: int) -> ResultRules:
        """How the results recorded in the stage are checked.

        {stage_parameters}

        Returns
        -------
        ResultRules
            No rule by default (results are checked only against the stage's rounds).
        """
        return ResultRules()

    @abstractmethod
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
            The stage's standings (best first) and rounds, with its final when it has one.
        """


#: Every stage by the words that name it in format text (see `register_stage`).
STAGE_WORDS: dict[str, type[Stage]] = {}


def register_stage(stage: type[Stage]) -> type[Stage]:
    """Put a stage class into format text: its ``words`` name it there from now on.

    Use it as a class decorator on a subclass of `Stage`.

    Parameters
    ----------
    stage : type
        A subclass of `Stage` with at least one word.

    Returns
    -------
    type
        ``stage``, unchanged.

    Raises
    ------
    TournamentError
        When ``stage`` is no `Stage`, has no words, or a word names another stage.
    """
    if not (isinstance(stage, type) and issubclass(stage, Stage)) or not stage.words:
        raise TournamentError(f"a tournament stage is a Stage subclass with words, got {stage!r}")
    for word in stage.words:
        other = STAGE_WORDS.get(word)
        if other is not None and other is not stage:
            raise TournamentError(f"the format word {word!r} already names {other.__name__}")
    for word in stage.words:
        STAGE_WORDS[word] = stage
    return stage


def format_help() -> str:
    """The format text in words, every registered stage with its help: the ``--format`` help."""
    stages = "; ".join(dict.fromkeys(h for cls in STAGE_WORDS.values() for h in cls.words.values()))
    return f"stages joined by '+': {stages}; e.g. swiss:5+knockout:8"


def needs(n: int | None, word: str) -> int:
    if n is None:
        raise TournamentError(f"'{word}' needs a number, e.g. '{word}:4'")
    return n
