"""What simulated tournaments say: chances to win, to reach each round, expected standings."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from skcodex.tournament._formats import Format

__all__ = ["TournamentForecast"]


def _round_name(remaining: int) -> str:
    return {1: "champion", 2: "final", 4: "semi-final", 8: "quarter-final"}.get(
        remaining, f"last {remaining}"
    )


@dataclass
class TournamentForecast:
    """The outcome of every simulated tournament.

    Parameters
    ----------
    format : Format
        The format played.
    entrants : list
        Entrant names in seeding order; every array's columns follow it.
    place : ndarray of shape (n_simulations, n_entrants)
        Final place (1 = winner). A knockout ranks by the round reached, ties
        by the earlier standing; other stages by wins plus byes (a Swiss stage
        then by its Buchholz score), ties at random.
    wins : ndarray of shape (n_simulations, n_entrants)
        Matches won (byes not counted), over the whole tournament.
    byes : ndarray of shape (n_simulations, n_entrants)
        Byes, over the whole tournament.
    reached : list of (ndarray of shape (n_simulations, n_entrants), int)
        Per single-elimination stage: the bracket rounds each entrant reached
        (0: not in it) and the stage's field.
    final : tuple of three ndarrays of shape (n_simulations,) or None
        The final: the two finalists and the winner (the last knockout's
        final, or in Swiss elimination the last two standing).
    decks : list of list or None, default None
        Each entrant's decks as given (None: entrants given without decks).
    deck_rule : str or None, default None
        How an entrant with several decks picked one per match.
    n_draws : int or None, default None
        Posterior draws the simulated tournaments were played on (1 for a
        rating system or one matrix of probabilities).
    results : pandas.DataFrame or None, default None
        The results the forecast is conditioned on: ``round``, ``player1``
        (moved first), ``player2``, ``winner`` (None: paired, not yet
        played); None when there were none.
    """

    format: Format
    entrants: list
    place: np.ndarray
    wins: np.ndarray
    byes: np.ndarray
    reached: list
    final: tuple | None
    decks: list | None = None
    deck_rule: str | None = None
    n_draws: int | None = None
    results: pd.DataFrame | None = None

    @classmethod
    def from_batches(cls, format: Format, entrants: list, parts: list) -> TournamentForecast:
        """Join batches of simulated tournaments (the fields after ``final`` left unset).

        Parameters
        ----------
        format : Format
            The format played.
        entrants : list
            Entrant names in seeding order.
        parts : list of dict
            Each batch's ``place``, ``wins``, ``byes``, ``reached`` and ``final``.

        Returns
        -------
        TournamentForecast
            The batches as one forecast.
        """
        first = parts[0]
        reached = [
            (np.concatenate([p["reached"][k][0] for p in parts]), size)
            for k, (_, size) in enumerate(first["reached"])
        ]
        final = None
        if first["final"] is not None:
            final = tuple(np.concatenate([p["final"][k] for p in parts]) for k in range(3))
        return cls(
            format=format,
            entrants=list(entrants),
            place=np.concatenate([p["place"] for p in parts]),
            wins=np.concatenate([p["wins"] for p in parts]),
            byes=np.concatenate([p["byes"] for p in parts]),
            reached=reached,
            final=final,
        )

    @property
    def n_simulations(self) -> int:
        """Tournaments simulated."""
        return len(self.place)

    @property
    def p_win(self) -> np.ndarray:
        """P(each entrant wins the tournament); sums to 1."""
        return (self.place == 1).mean(axis=0)

    def p_top(self, k: int) -> np.ndarray:
        """P(each entrant finishes in the top ``k``).

        Parameters
        ----------
        k : int
            Places counted.

        Returns
        -------
        ndarray of shape (n_entrants,)
            Each entrant's chance, in seeding order.
        """
        return (self.place <= k).mean(axis=0)

    def p_reach(self) -> pd.DataFrame:
        """P(reaching each round of every single-elimination stage), one column a round.

        Returns
        -------
        pandas.DataFrame
            One row per entrant, one column per round of each knockout.
        """
        columns = {}
        for stage, (reached, size) in enumerate(self.reached):
            depth = (size - 1).bit_length()
            for r in range(1, depth + 2):
                remaining = 1 << (depth + 1 - r)
                name = f"p_{_round_name(remaining)}" if r > 1 else f"p_top{size}_cut"
                if len(self.reached) > 1:
                    name = f"{name}_{stage + 1}"
                columns[name] = (reached >= r).mean(axis=0)
        return pd.DataFrame(columns, index=pd.Index(self.entrants, name="player"))

    def table(self) -> pd.DataFrame:
        """One row per entrant, most likely winner first.

        Columns: ``p_win`` and its Monte Carlo standard error ``p_win_se``,
        ``p_top2``, ``p_top4``, ``p_top8`` (those below the field size), the
        knockout rounds (`p_reach`), ``expected_wins``, ``expected_byes`` and
        ``expected_place``.

        Returns
        -------
        pandas.DataFrame
            Indexed by player.
        """
        n = len(self.entrants)
        p = self.p_win
        out = pd.DataFrame(
            {"p_win": p, "p_win_se": np.sqrt(p * (1 - p) / self.n_simulations)},
            index=pd.Index(self.entrants, name="player"),
        )
        for k in (2, 4, 8):
            if k < n:
                out[f"p_top{k}"] = self.p_top(k)
        reach = self.p_reach()
        for column in reach.columns:
            if not column.startswith("p_champion"):
                out[column] = reach[column].to_numpy()
        out["expected_wins"] = self.wins.mean(axis=0)
        out["expected_byes"] = self.byes.mean(axis=0)
        out["expected_place"] = self.place.mean(axis=0)
        return out.sort_values(["p_win", "expected_place"], ascending=[False, True])

    def standard_errors(self) -> pd.DataFrame:
        """The Monte Carlo standard error of every column of `table`, rows in its order.

        A chance ``p`` estimated from ``n`` simulated tournaments has the
        binomial error ``sqrt(p (1 - p) / n)``; an expected count the sample
        standard deviation over ``sqrt(n)``. Both treat the tournaments as
        independent; drawing the posterior draws in a shuffled cycle (each
        about equally often) does not make the error larger.

        Returns
        -------
        pandas.DataFrame
            The columns of `table` but ``p_win_se``, each the error of that
            column's figure.
        """
        table = self.table()
        n = self.n_simulations
        order = [self.entrants.index(name) for name in table.index]
        spread = {
            "expected_wins": self.wins,
            "expected_byes": self.byes,
            "expected_place": self.place,
        }
        out = pd.DataFrame(index=table.index)
        for column in table.columns:
            if column == "p_win_se":
                continue
            if column in spread:
                values = spread[column][:, order]
                sd = values.std(axis=0, ddof=1) if n > 1 else np.zeros(len(order))
                out[column] = sd / np.sqrt(n)
            else:
                p = table[column].to_numpy()
                out[column] = np.sqrt(p * (1 - p) / n)
        return out

    def likely_final(self) -> pd.DataFrame:
        """The most frequent finals, with each finalist's chance to win that final.

        Returns
        -------
        pandas.DataFrame
            Up to five finals, most likely first: ``player_a``, ``player_b``,
            ``p_final`` (how often that final is played), ``p_a_wins``
            (how often ``player_a`` won it, among the tournaments where it was
            played: the posterior odds given that both got there) and
            ``n_played`` (in how many simulated tournaments it was played, so
            ``p_a_wins`` has the standard error
            ``sqrt(p_a_wins (1 - p_a_wins) / n_played)``). In Swiss
            elimination the final is the last two standing, who meet until
            one is out. Empty for a format without a knockout or elimination.
        """
        columns = ["player_a", "player_b", "p_final", "p_a_wins", "n_played"]
        if self.final is None:
            return pd.DataFrame(columns=columns)
        a, b, winner = self.final
        played = (a >= 0) & (b >= 0)
        low, high = np.minimum(a, b)[played], np.maximum(a, b)[played]
        n = len(self.entrants)
        key = low * n + high
        counts = np.bincount(key, minlength=n * n)
        rows = []
        for k in np.argsort(-counts, kind="stable")[:5]:
            if counts[k] == 0:
                break
            i, j = divmod(int(k), n)
            here = key == k
            rows.append(
                {
                    "player_a": self.entrants[i],
                    "player_b": self.entrants[j],
                    "p_final": counts[k] / self.n_simulations,
                    "p_a_wins": float((winner[played][here] == i).mean()),
                    "n_played": int(counts[k]),
                }
            )
        return pd.DataFrame(rows, columns=columns)
