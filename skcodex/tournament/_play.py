"""Matches of many simulated tournaments at once, and the records they leave."""

from __future__ import annotations

import numpy as np

__all__ = ["Matches"]


class Matches:
    """Plays matches for every simulated tournament of a batch, and keeps the records.

    Parameters
    ----------
    probabilities : ndarray of shape (n_draws, n_slots, n_slots)
        ``probabilities[d, u, v]``: P(slot ``u`` beats slot ``v`` when ``u``
        moves first) in posterior draw ``d``. A slot is an entrant with one of
        their decks (`deck_slot`).
    offsets, n_decks : ndarray of shape (n_entrants,)
        Entrant ``i``'s decks are the slots ``offsets[i]`` to
        ``offsets[i] + n_decks[i] - 1``, used in turn, match after match.
    draws : ndarray of shape (n_simulations,)
        The posterior draw of each simulated tournament: all its matches use it.
    first_move : {"random", "alternating"}
        Who moves first in a match; in a best-of-N set (`sets`), who moves first
        in its game 1, the first move alternating in the games after it, each
        side keeping its deck for the whole set.
    rng : numpy.random.Generator
    draw_probabilities : ndarray of shape (n_draws, n_slots, n_slots), optional
        P(a draw when slot ``u`` moves first against ``v``): a game with
        draws (`skcodex.tournament._draws`); None, no draws.
    draw_rule : {"replay", "points"}, default "replay"
        What a drawn game of a best-of-N set counts for
        (`skcodex.tournament._series_draws`); a set is never drawn.

    Attributes
    ----------
    wins, losses, byes, played, firsts : ndarray of shape (n_simulations, n_entrants)
        Match wins, losses, byes, matches played and matches moved first.
    drawn : ndarray of shape (n_simulations, n_entrants)
        Matches drawn (neither a win nor a loss).
    met : ndarray of bool, shape (n_simulations, n_entrants, n_entrants)
        Whether each pair has met.
    tiebreak : ndarray of shape (n_simulations, n_entrants)
        A uniform number per entrant and tournament, the last tie-break of every standing.
    """

    def __init__(
        self,
        probabilities,
        offsets,
        n_decks,
        draws,
        first_move,
        rng,
        draw_probabilities=None,
        draw_rule="replay",
    ):
        self.probabilities = probabilities
        self.draw_probabilities = draw_probabilities
        self.draw_rule = draw_rule
        self.offsets = offsets
        self.n_decks = n_decks
        self.draws = draws
        self.first_move = first_move
        self.rng = rng
        n_sims, n = len(draws), len(offsets)
        self.wins = np.zeros((n_sims, n), dtype=np.int32)
        self.losses = np.zeros((n_sims, n), dtype=np.int32)
        self.byes = np.zeros((n_sims, n), dtype=np.int32)
        self.played = np.zeros((n_sims, n), dtype=np.int32)
        self.firsts = np.zeros((n_sims, n), dtype=np.int32)
        self.drawn = np.zeros((n_sims, n), dtype=np.int32)
        self.met = np.zeros((n_sims, n, n), dtype=bool)
        self._one_deck_each = bool((n_decks == 1).all())
        self.tiebreak = rng.random((n_sims, n))
        # Matches are best-of-N sets from here on (1: single games); `final_round`
        # switches to the final's length.
        self.best_of = 1
        self.final_best_of = 1
        self._sets: dict = {}

    def sets(self, best_of: int, final_best_of: int | None = None) -> None:
        """Play best-of-``best_of`` sets from now on (and ``final_best_of`` in a final)."""
        self.best_of = best_of
        self.final_best_of = best_of if final_best_of is None else final_best_of

    def final_round(self) -> None:
        """The next matches are a final: play them at the final's set length."""
        self.best_of = self.final_best_of

    def _set_probabilities(self) -> np.ndarray:
        """P(slot u wins a set against v when u moves first in its game 1), per draw."""
        if self.best_of == 1:
            return self.probabilities
        if self.best_of not in self._sets:
            from skcodex.tournament._series import fixed_deck_sets

            self._sets[self.best_of] = fixed_deck_sets(
                self.probabilities, self.best_of, self.draw_probabilities, self.draw_rule
            )
        return self._sets[self.best_of]

    @property
    def points(self) -> np.ndarray:
        """Wins plus `skcodex.tournament._draws.DRAW_POINTS` per draw (the wins without draws)."""
        if self.draw_probabilities is None:
            return self.wins
        from skcodex.tournament._draws import DRAW_POINTS

        return self.wins + DRAW_POINTS * self.drawn

    @property
    def n_simulations(self) -> int:
        return len(self.draws)

    def deck_slot(self, sims: np.ndarray, entrant: np.ndarray) -> np.ndarray:
        """The slot of each entrant's deck for their next match."""
        if self._one_deck_each:
            return self.offsets[entrant]
        return self.offsets[entrant] + self.played[sims, entrant] % self.n_decks[entrant]

    def play(self, a: np.ndarray, b: np.ndarray, forced=None) -> tuple[np.ndarray, np.ndarray]:
        """Play ``a[s, k]`` against ``b[s, k]`` in every tournament ``s``.

        ``-1`` is nobody: a match against nobody is not played and the other
        side goes through (a bye is recorded by the caller when it counts).
        Each entrant appears at most once per tournament in a call.

        Parameters
        ----------
        a, b : ndarray of shape (n_simulations, n_matches)
        forced : Recorded, optional
            Results already played (`Results.meetings`): each binds the meeting
            of its pair it was recorded for, with its winner and first mover.

        Returns
        -------
        winner, loser : ndarray of shape (n_simulations, n_matches)
        """
        real = (a >= 0) & (b >= 0)
        winner = np.where(a >= 0, a, b)
        loser = np.full_like(a, -1)
        sims, col = np.nonzero(real)
        if len(sims) == 0:
            return winner, loser
        i, j = a[sims, col], b[sims, col]
        coin = self.rng.random(len(sims)) < 0.5
        if self.first_move == "alternating":
            fi, fj = self.firsts[sims, i], self.firsts[sims, j]
            coin = (fj < fi) | ((fj == fi) & coin)
        first, second = np.where(coin, j, i), np.where(coin, i, j)
        known = None
        if forced is not None:
            recorded, recorded_first = forced.take(sims, i, j)
            known = recorded >= 0
            first = np.where(known, recorded_first, first)
            second = np.where(known, i + j - recorded_first, second)
        slot = (self.draws[sims], self.deck_slot(sims, first), self.deck_slot(sims, second))
        p = self._set_probabilities()[slot]
        uniform = self.rng.random(len(sims))
        won = np.where(uniform < p, first, second)
        tied = None
        if self.draw_probabilities is not None and self.best_of == 1:  # a set is never drawn
            # a draw between the win and the loss; the decider (for knockouts) leaves it out
            d = self.draw_probabilities[slot]
            tied = (uniform >= p) & (uniform < p + d)
            decider = self.rng.random(len(sims)) * np.maximum(1.0 - d, 1e-300) < p
            won = np.where(tied, np.where(decider, first, second), won)
            if known is not None:
                tied &= ~known
        if known is not None:
            won = np.where(known, recorded, won)
        lost = i + j - won
        winner[sims, col], loser[sims, col] = won, lost
        if tied is None:
            self.wins[sims, won] += 1
            self.losses[sims, lost] += 1
        else:
            decided = ~tied
            self.wins[sims[decided], won[decided]] += 1
            self.losses[sims[decided], lost[decided]] += 1
            self.drawn[sims[tied], i[tied]] += 1
            self.drawn[sims[tied], j[tied]] += 1
        self.played[sims, i] += 1
        self.played[sims, j] += 1
        self.firsts[sims, first] += 1
        self.met[sims, i, j] = True
        self.met[sims, j, i] = True
        return winner, loser

    def give_byes(self, entrant: np.ndarray) -> None:
        """Record a bye (a win without a match) for ``entrant[s]`` where it is not -1."""
        sims = np.flatnonzero(entrant >= 0)
        self.byes[sims, entrant[sims]] += 1
