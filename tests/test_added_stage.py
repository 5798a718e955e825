"""A new tournament stage is one class: declared, registered, read from text, simulated, helped.

The ladder below (the lowest seed challenges upwards, the winner of each match
meeting the next seed up) is declared the documented way: a frozen dataclass
deriving from `skcodex.tournament.Stage`, decorated with `register_stage`. No
module of skcodex is changed, and the format parser, the simulation, the result
checks and the command line's ``--format`` help all find it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest
from tournament_odds import coin_flip_odds, entrant_names, random_matrix

from skcodex.tournament import (
    Format,
    Stage,
    StageResult,
    TournamentError,
    parse_format,
    register_stage,
    simulate_tournament,
)
from skcodex.tournament._stage import STAGE_WORDS

N_SIMS = 20_000


@dataclass(frozen=True)
class Ladder(Stage):
    """The lowest seed plays the next lowest; each winner meets the next seed up."""

    words: ClassVar[dict[str, str]] = {"ladder": "ladder (the lowest seed challenges upwards)"}

    @classmethod
    def from_word(cls, word, number):
        if number is not None:
            raise TournamentError("'ladder' takes no number")
        return cls()

    def describe(self):
        return "a ladder"

    def n_rounds(self, m):
        return m - 1

    def result_rules(self, m):
        from skcodex.tournament._stage import ResultRules

        return ResultRules(once=True, out_at=1)

    def play(self, matches, seeding, first_round, results):
        n_sims, m = seeding.shape
        forced = results.meetings(first_round, first_round + m - 1, n_sims)
        holder = seeding[:, -1]
        out = []  # losers, first out first
        for k in range(m - 2, -1, -1):
            winner, loser = matches.play(holder[:, None], seeding[:, k : k + 1], forced)
            final = (holder, seeding[:, k], winner[:, 0])
            holder = winner[:, 0]
            out.append(loser[:, 0])
        ranking = np.column_stack([holder, *out[::-1]])
        return StageResult(ranking, m - 1, final=final)


@pytest.fixture
def ladder():
    """The ladder, registered for one test and taken out after it."""
    before = dict(STAGE_WORDS)
    register_stage(Ladder)
    yield Ladder
    STAGE_WORDS.clear()
    STAGE_WORDS.update(before)


def _within(got, want, n):
    se = np.sqrt(np.clip(want * (1 - want), 1e-4, None) / n)
    assert np.all(np.abs(np.asarray(got) - want) < 4.5 * se), (got, want)


def test_a_new_stage_is_read_from_text_after_its_one_class(ladder):
    fmt = parse_format("swiss:2+ladder")
    assert fmt.stages[1] == Ladder()
    assert isinstance(fmt, Format)
    with pytest.raises(TournamentError, match="takes no number"):
        parse_format("ladder:3")


def test_a_new_stage_is_simulated_as_exact_enumeration_says(ladder):
    p = random_matrix(3, 11)
    q = coin_flip_odds(p)
    fc = simulate_tournament(
        "ladder", entrant_names(3), probabilities=p, n_simulations=N_SIMS, random_state=5
    )
    # Seed 3 (entrant 2) meets seed 2, the winner meets seed 1.
    exact = np.array([q[0, 1] * q[1, 2] + q[0, 2] * q[2, 1], q[1, 2] * q[1, 0], q[2, 1] * q[2, 0]])
    _within(fc.p_win, exact, N_SIMS)
    assert fc.format.stages[0].describe() == "a ladder"


def test_a_new_stage_follows_another_and_its_results_are_checked(ladder):
    p = random_matrix(4, 12)
    fc = simulate_tournament(
        "round-robin+ladder", entrant_names(4), probabilities=p, n_simulations=500, random_state=1
    )
    assert np.isclose(fc.p_win.sum(), 1.0)
    import pandas as pd

    twice = pd.DataFrame(
        {"round": [4, 5], "player1": ["e0", "e0"], "player2": ["e1", "e1"], "winner": ["e0", "e0"]}
    )
    with pytest.raises(TournamentError, match="put them out"):
        simulate_tournament(
            "round-robin+ladder",
            entrant_names(4),
            probabilities=p,
            results=twice,
            n_simulations=10,
            random_state=1,
        )


def test_a_new_stage_is_in_the_command_lines_format_help(ladder, capsys):
    from skcodex.cli import main

    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "ladder (the lowest seed challenges upwards)" in help_text
    assert "swiss:N (N rounds)" in help_text


def test_a_word_of_another_stage_is_refused():
    @dataclass(frozen=True)
    class Clash(Stage):
        words: ClassVar[dict[str, str]] = {"swiss": "swiss again"}

    with pytest.raises(TournamentError, match="already names Swiss"):
        register_stage(Clash)
    with pytest.raises(TournamentError, match="Stage subclass with words"):
        register_stage(int)


def test_a_stage_that_does_not_say_how_it_is_played_cannot_be_made():
    @dataclass(frozen=True)
    class Unplayable(Stage):
        @classmethod
        def from_word(cls, word, number):
            return cls()

        def n_rounds(self, m):
            return 1

    with pytest.raises(TypeError, match="play"):
        Unplayable()
