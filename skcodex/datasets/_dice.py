"""Exact race: a small dice game with a real decision each turn and an exact value function.

The game exists to check claims about luck and skill against known truth. Its
rules fit in a sentence (see `DiceGame`), its exact value function is a dynamic
programme over under a thousand positions, and a player's skill is a single
number: how often they pick the move the exact value function calls best.
`make_dice_matches` draws matches between players of known skill.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy.special import expit, logit
from sklearn.utils import check_random_state

from skcodex._docstrings import shared_parameters
from skcodex.codex import Deck
from skcodex.datasets import _dice_values as solver

#: An evaluator: ``"exact"``, ``"biased"`` or a value table (see `DiceGame.evaluator_values`).
Evaluator = str | np.ndarray
#: An ordered roll ``(die1, die2)``.
Roll = tuple[int, int]

DICE_DECK = Deck("Dice", ("dice",))
"""The one deck of the dice game: every player brings it."""


def _check_int(value: Any, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _check_skills(skill1: Any, skill2: Any) -> tuple[np.ndarray, np.ndarray]:
    """Both players' move accuracies as one-dimensional arrays of one length, in [0, 1]."""
    s1 = np.atleast_1d(np.asarray(skill1, dtype=float))
    s2 = np.atleast_1d(np.asarray(skill2, dtype=float))
    s1, s2 = np.broadcast_arrays(s1, s2)
    if s1.ndim != 1:
        raise ValueError("skill1 and skill2 must be numbers or one-dimensional arrays")
    for s in (s1, s2):
        if not (np.isfinite(s).all() and ((s >= 0) & (s <= 1)).all()):
            raise ValueError("skills must lie in [0, 1]")
    return s1, s2


class DiceGame:
    """Exact race, a two-player dice game with an exact value function.

    Each player has a counter ``length`` steps from home; player 1 moves first.
    A turn is a roll of two dice (the chance event) and a move (the decision):
    the counter goes home-ward by one die, the other die, or their sum, but may
    not overshoot home; if nothing fits the turn passes. First home exactly wins.

    A position is ``(mover, opponent)``, the distances to home of the player
    about to roll and of the other. All values are the probability that the
    player to move wins under optimal play, indexed ``[mover, opponent]``; the
    opponent's is one minus it. Row 0 and column 0 hold finished games:
    ``values[a, 0] = 0`` and ``values[0, b] = 1``. The exact table is computed
    once per ``(length, faces)`` by dynamic programming and cached.

    Parameters
    ----------
    length : int, default 30
        Distance from start to home.
    faces : int, default 6
        Faces on each die.

    Attributes
    ----------
    rolls : ndarray of shape (faces ** 2, 2)
        The ordered rolls; a roll's index is ``(die1 - 1) * faces + die2 - 1``.
    roll_probabilities : ndarray of shape (faces ** 2,)
        Each ordered roll's probability (all equal).

    Examples
    --------
    >>> from skcodex.datasets import DiceGame
    >>> game = DiceGame()
    >>> round(game.initial_value, 3)      # player 1 (moving first) wins this often
    0.584
    >>> game.moves(5, (2, 4))              # 6 would overshoot
    (2, 4)
    >>> game.best_move(5, 9, (2, 4))       # leaving 3 beats leaving 1
    2
    >>> round(game.value(1, 1), 4)         # 11/36 per turn to roll a 1
    0.5902
    """

    def __init__(self, length: int = 30, faces: int = 6):
        self.length = _check_int(length, "length", 1)
        self.faces = _check_int(faces, "faces", 2)
        self.rolls, self.roll_probabilities, self._options = solver.rules(self.faces)

    def __repr__(self) -> str:
        return f"DiceGame(length={self.length}, faces={self.faces})"

    # -- rules ---------------------------------------------------------------------

    @shared_parameters
    def roll_index(self, roll: tuple[int, int]) -> int:
        """Index of an ordered roll ``(die1, die2)`` in `rolls`.

        Parameters
        ----------
        {dice_roll}

        Returns
        -------
        int
            The roll's row in `rolls`.
        """
        d1, d2 = (int(d) for d in roll)
        if not (1 <= d1 <= self.faces and 1 <= d2 <= self.faces):
            raise ValueError(f"a roll is two dice from 1 to {self.faces}, got {roll!r}")
        return (d1 - 1) * self.faces + (d2 - 1)

    def _check_position(self, mover: int, opponent: int) -> tuple[int, int]:
        a = _check_int(mover, "mover", 1)
        b = _check_int(opponent, "opponent", 1)
        if a > self.length or b > self.length:
            raise ValueError(
                f"distances run from 1 to {self.length}, got ({mover!r}, {opponent!r})"
            )
        return a, b

    @shared_parameters
    def moves(self, distance: int, roll: tuple[int, int]) -> tuple[int, ...]:
        """The legal moves (steps) from ``distance`` with ``roll``; empty when the turn passes.

        Parameters
        ----------
        distance : int
            The moving counter's distance to home.
        {dice_roll}

        Returns
        -------
        tuple of int
            The legal moves, shortest first.
        """
        a = _check_int(distance, "distance", 1)
        options = self._options[self.roll_index(roll)]
        return tuple(sorted(int(m) for m in options if 1 <= m <= a))

    # -- values --------------------------------------------------------------------

    @property
    def values(self) -> np.ndarray:
        """The exact value table, shape ``(length + 1, length + 1)``, read-only."""
        return solver.solve(self.length, self.faces)

    @shared_parameters
    def value(self, mover: int, opponent: int) -> float:
        """Exact probability that the player to move at ``(mover, opponent)`` wins.

        Parameters
        ----------
        {dice_position}

        Returns
        -------
        float
            The probability, under optimal play by both.
        """
        a, b = self._check_position(mover, opponent)
        return float(self.values[a, b])

    @property
    def initial_value(self) -> float:
        """Exact probability that player 1 wins from the start, both playing optimally."""
        return float(self.values[self.length, self.length])

    def biased_values(
        self,
        *,
        slope: float = 0.7,
        shift: float = 0.4,
        noise: float = 0.3,
        random_state: Any = 0,
    ) -> np.ndarray:
        """A deliberately wrong value table: skewed, tilted toward the mover, and noisy.

        ``logit(E[a, b]) = slope * logit(V[a, b]) + shift + noise * z[a, b]`` with
        ``z`` standard normal, fixed per position by ``random_state``. Finished
        games keep their exact values. Such an evaluator misjudges positions in a
        systematic way (it flattens the odds and favours whoever is to roll) and
        at random, as a real program might.

        Parameters
        ----------
        slope : float, default 0.7
            Factor on the exact log-odds (below 1 flattens the odds).
        shift : float, default 0.4
            Log-odds added for the player to move.
        noise : float, default 0.3
            Standard deviation of the random error, on the log-odds scale (>= 0).
        random_state : int, RandomState instance or None, default 0
            Fixes the random error of each position.

        Returns
        -------
        ndarray of shape (length + 1, length + 1)
            The biased values to the player to move, indexed ``[mover, opponent]``.
        """
        for name, val in (("slope", slope), ("shift", shift), ("noise", noise)):
            if not np.isfinite(val):
                raise ValueError(f"{name} must be finite, got {val!r}")
        if noise < 0:
            raise ValueError(f"noise must be >= 0, got {noise!r}")
        rng = check_random_state(random_state)
        exact = self.values
        z = rng.standard_normal(exact.shape)
        inner = np.clip(exact[1:, 1:], 1e-12, 1 - 1e-12)
        out = exact.copy()
        out[1:, 1:] = expit(slope * logit(inner) + shift + noise * z[1:, 1:])
        out.setflags(write=False)
        return out

    def evaluator_values(self, evaluator: str | np.ndarray = "exact") -> np.ndarray:
        """Resolve an evaluator to its value table.

        ``"exact"`` is `values`, ``"biased"`` is `biased_values` with its defaults,
        and an array of shape ``(length + 1, length + 1)`` is used as given
        (values to the player to move).

        Parameters
        ----------
        evaluator : {"exact", "biased"} or ndarray, default "exact"
            The evaluator.

        Returns
        -------
        ndarray of shape (length + 1, length + 1)
            The evaluator's values to the player to move, indexed ``[mover, opponent]``.
        """
        if isinstance(evaluator, str):
            if evaluator == "exact":
                return self.values
            if evaluator == "biased":
                return self.biased_values()
            raise ValueError(f"evaluator must be 'exact', 'biased' or a table, got {evaluator!r}")
        table = np.asarray(evaluator, dtype=float)
        shape = (self.length + 1, self.length + 1)
        if table.shape != shape:
            raise ValueError(f"an evaluator table must have shape {shape}, got {table.shape}")
        if not np.isfinite(table[1:, 1:]).all():
            raise ValueError("an evaluator table must be finite at every position")
        return table

    @shared_parameters
    def move_values(self, evaluator: str | np.ndarray = "exact") -> np.ndarray:
        """Value to the roller of each move slot, ``[mover, opponent, roll, slot]``.

        Slots follow ``(die1, die2, die1 + die2)``; NaN where the slot is not a
        legal, distinct move.

        {dice_evaluator_parameters}

        Returns
        -------
        ndarray of shape (length + 1, length + 1, faces ** 2, 3)
            The value after each move, to the player who rolled.
        """
        return solver.move_values(self.evaluator_values(evaluator), self._options)

    @shared_parameters
    def roll_values(self, evaluator: str | np.ndarray = "exact") -> np.ndarray:
        """Value to the roller just after each roll, ``[mover, opponent, roll]``.

        This is the evaluator's value of the position after the roll, assuming
        the move the evaluator thinks best (or the pass when nothing fits): the
        "evaluation" of the chance event. Its average over rolls,
        ``roll_values(e) @ roll_probabilities``, is the "average" at the same
        depth. For the exact evaluator the average equals `values`.

        {dice_evaluator_parameters}

        Returns
        -------
        ndarray of shape (length + 1, length + 1, faces ** 2)
            The value after each roll, to the player who rolled.
        """
        return solver.roll_values(self.evaluator_values(evaluator), self._options)

    @shared_parameters
    def luck_table(self, evaluator: str | np.ndarray = "exact") -> np.ndarray:
        """Luck of every roll from every position, ``[mover, opponent, roll]``, roller's view.

        ``roll_values - average over rolls``, both from the same evaluator at
        the same depth, so it averages to exactly zero over the rolls of any
        position whatever the evaluator.

        {dice_evaluator_parameters}

        Returns
        -------
        ndarray of shape (length + 1, length + 1, faces ** 2)
            The luck of each roll, to the player who rolled.
        """
        after = self.roll_values(evaluator)
        average = after @ self.roll_probabilities
        return after - average[:, :, None]

    def _at(self, mover: int, opponent: int, roll: tuple[int, int]) -> tuple[int, int, int]:
        """A checked position and roll index."""
        a, b = self._check_position(mover, opponent)
        return a, b, self.roll_index(roll)

    @shared_parameters
    def best_move(
        self, mover: int, opponent: int, roll: Roll, evaluator: Evaluator = "exact"
    ) -> int:
        """The move the evaluator calls best (the shortest among ties); 0 when the turn passes.

        {dice_move_parameters}

        Returns
        -------
        int
            The move, in steps.
        """
        a, b, r = self._at(mover, opponent, roll)
        vals = self.move_values(evaluator)[a, b, r]
        if not np.isfinite(vals).any():
            return 0
        top = np.nanmax(vals)
        slots = [k for k in range(3) if np.isfinite(vals[k]) and vals[k] >= top - solver.TIE]
        return int(min(self._options[r, k] for k in slots))

    @shared_parameters
    def luck(self, mover: int, opponent: int, roll: Roll, evaluator: Evaluator = "exact") -> float:
        """Luck of ``roll`` at ``(mover, opponent)`` for the roller, by ``evaluator``.

        {dice_move_parameters}

        Returns
        -------
        float
            The value after the roll minus the average over rolls, to the roller.
        """
        a, b, r = self._at(mover, opponent, roll)
        return float(self.luck_table(evaluator)[a, b, r])

    # -- play ----------------------------------------------------------------------

    def play(
        self,
        skill1: Any,
        skill2: Any,
        *,
        start: tuple[int, int] | None = None,
        random_state: Any = None,
    ) -> tuple[np.ndarray, pd.DataFrame]:
        """Play games between players of given skills, all at once.

        At each roll the player picks the exact best move with probability equal
        to their skill, and otherwise one of the other legal moves uniformly at
        random. When every legal move is best (or only one fits) there is no
        choice to get wrong.

        Parameters
        ----------
        skill1, skill2 : float or array-like of shape (n_games,)
            Move accuracy, in [0, 1], of the first and second player of each game.
        start : (int, int), optional
            Distances of the first and second player at the start, the first to
            move; ``(length, length)`` by default.
        random_state : int, RandomState instance or None, default None
            Seed or generator of the dice and the players' choices.

        Returns
        -------
        y : ndarray of shape (n_games,)
            1 where the first player won, 0 where the second won.
        events : DataFrame
            One row a roll, ordered by game then turn: ``match``, ``turn``,
            ``roller`` (1 or 2), ``mover_distance`` and ``opponent_distance``
            before the roll, ``die1``, ``die2``, ``roll`` (index), ``move``
            (steps, 0 for a pass), ``best_move`` (exact, 0 for a pass) and
            ``error``: the exact value of the move played minus that of the best
            move, to the roller (0 for a best move, negative otherwise).
        """
        s1, s2 = _check_skills(skill1, skill2)
        first, second = (self.length, self.length) if start is None else start
        a0, b0 = self._check_position(first, second)
        rng = check_random_state(random_state)
        n = len(s1)
        exact = self.move_values("exact")
        a = np.full(n, a0)
        b = np.full(n, b0)
        roller = np.ones(n, dtype=np.int64)
        y = np.full(n, -1, dtype=np.int64)
        active = np.arange(n)
        turn = 0
        chunks = []
        while active.size:
            who = roller[active]
            skill = np.where(who == 1, s1[active], s2[active])
            aa, bb = a[active], b[active]
            r, move, best, error = self._turn(exact, aa, bb, skill, rng)
            chunks.append((active, np.full(active.size, turn), who, aa, bb, r, move, best, error))
            left = aa - move
            done = left == 0
            y[active[done]] = (who[done] == 1).astype(np.int64)
            stay = ~done
            idx = active[stay]
            a[idx], b[idx] = bb[stay], left[stay]
            roller[idx] = 3 - who[stay]
            active = idx
            turn += 1
        return y, self._events(chunks)

    def _turn(
        self,
        exact: np.ndarray,
        aa: np.ndarray,
        bb: np.ndarray,
        skill: np.ndarray,
        rng: np.random.RandomState,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """One roll and move in each game still going, from positions ``(aa, bb)``.

        ``exact`` is ``move_values("exact")``. The roller picks the exact best
        move with probability ``skill``, else one of the other legal moves
        uniformly at random. Returns the roll
        indices, the moves played, the best moves (0 for a pass) and the
        errors (exact value of the move played minus the best's, to the roller).
        """
        k = aa.size
        r = rng.randint(len(self.roll_probabilities), size=k)
        u_skill = rng.uniform(size=k)
        u_pick = rng.uniform(size=k)
        vals = exact[aa, bb, r]
        legal = np.isfinite(vals)
        top = np.max(np.where(legal, vals, -np.inf), axis=1)
        is_best = legal & (vals >= top[:, None] - solver.TIE)
        wrong = legal & ~is_best
        # the best slot: the shortest move among ties
        slot_moves = self._options[r]
        best_slot = np.argmin(np.where(is_best, slot_moves, np.iinfo(np.int64).max), axis=1)
        n_wrong = wrong.sum(axis=1)
        blunder = (u_skill >= skill) & (n_wrong > 0)
        pick = np.minimum((u_pick * n_wrong).astype(np.int64), np.maximum(n_wrong - 1, 0))
        wrong_rank = np.cumsum(wrong, axis=1) - 1
        wrong_slot = np.argmax(wrong & (wrong_rank == pick[:, None]), axis=1)
        slot = np.where(blunder, wrong_slot, best_slot)
        can_move = legal.any(axis=1)
        rows = np.arange(k)
        move = np.where(can_move, slot_moves[rows, slot], 0)
        best = np.where(can_move, slot_moves[rows, best_slot], 0)
        error = np.where(can_move, vals[rows, slot] - top, 0.0)
        return r, move, best, error

    def _events(self, chunks: list[tuple[np.ndarray, ...]]) -> pd.DataFrame:
        """The event record of `play` from its turns' columns, ordered by game then turn."""
        cols = [np.concatenate(c) for c in zip(*chunks)]
        events = pd.DataFrame(
            {
                "match": cols[0],
                "turn": cols[1],
                "roller": cols[2],
                "mover_distance": cols[3],
                "opponent_distance": cols[4],
                "die1": self.rolls[cols[5], 0],
                "die2": self.rolls[cols[5], 1],
                "roll": cols[5],
                "move": cols[6],
                "best_move": cols[7],
                "error": cols[8],
            }
        )
        return events.sort_values(["match", "turn"], kind="stable").reset_index(drop=True)

    @shared_parameters
    def annotate_luck(
        self, events: pd.DataFrame, evaluator: str | np.ndarray = "exact"
    ) -> pd.DataFrame:
        """Add the luck of every roll in an event record, by one evaluator.

        The copy returned has the columns ``average`` (the
        evaluator's mean over rolls of the value after rolling), ``value``
        (its value after the actual roll) and ``luck`` (``value - average``),
        all to the roller, and ``luck_p1``: the same luck to player 1
        (``luck`` for player 1's rolls, ``-luck`` for player 2's, since player
        2's chance is one minus player 1's).

        Parameters
        ----------
        events : pandas.DataFrame
            An event record from `play`.
        {dice_evaluator}

        Returns
        -------
        pandas.DataFrame
            A copy of ``events`` with the four columns added.
        """
        after = self.roll_values(evaluator)
        average = after @ self.roll_probabilities
        a = events["mover_distance"].to_numpy()
        b = events["opponent_distance"].to_numpy()
        r = events["roll"].to_numpy()
        out = events.copy()
        out["average"] = average[a, b]
        out["value"] = after[a, b, r]
        out["luck"] = out["value"] - out["average"]
        out["luck_p1"] = np.where(out["roller"].to_numpy() == 1, 1.0, -1.0) * out["luck"]
        return out
