"""Simulate a tournament many times, each on one posterior draw shared by all its matches."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from skcodex.tournament._forecast import TournamentForecast
from skcodex.tournament._formats import (
    Format,
    Knockout,
    LossElimination,
    TournamentError,
    parse_format,
)
from skcodex.tournament._play import Matches
from skcodex.tournament._probabilities import Field, check_entrants, win_probability_draws
from skcodex.tournament._results import Results, check_results
from skcodex.tournament._stages import play_stage, stage_rounds

__all__ = ["simulate_tournament"]

# Bytes the meeting counts of one batch of simulated tournaments may take.
_BATCH_BYTES = 64 * 2**20


def _check_probabilities(probabilities: Any, n: int) -> np.ndarray:
    p = np.asarray(probabilities, dtype=float)
    if p.ndim == 2:
        p = p[None]
    if p.ndim != 3 or p.shape[1:] != (n, n):
        raise TournamentError(
            f"probabilities must be ({n}, {n}) or (n_draws, {n}, {n}) for {n} entrants, "
            f"got shape {np.shape(probabilities)}"
        )
    off = ~np.eye(n, dtype=bool)
    if not np.all(np.isfinite(p)) or p[:, off].min() < 0 or p[:, off].max() > 1:
        raise TournamentError("probabilities must lie between 0 and 1")
    return p


def _check_count(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise TournamentError(f"{name} must be a positive whole number, got {value!r}")
    return int(value)


def simulate_tournament(
    format: Format | str,
    entrants: Any,
    estimator: Any = None,
    *,
    probabilities: Any = None,
    deck_rule: str = "fixed order",
    results: Any = None,
    n_simulations: int = 10_000,
    n_draws: int | None = None,
    first_move: str | None = None,
    random_state: Any = None,
) -> TournamentForecast:
    """Forecast a tournament by playing it many times.

    Each simulated tournament takes one posterior draw and plays every match
    with it, so a player's uncertain skill moves all their matches together.
    Draws are used in turn (a shuffled cycle), each about equally often.

    Parameters
    ----------
    format : Format or str
        The stages (`skcodex.tournament.Format`, or text for `parse_format`
        such as ``"swiss:5+knockout:8"``).
    entrants : DataFrame, mapping or list
        Entrants in seeding order (first = top seed): a table with ``player``
        and ``deck`` columns (a deck cell holds one deck, several joined by
        ``;``, or a list), a mapping of players to decks, or a list of names
        (with ``probabilities``, or an estimator that reads no decks).
    estimator : fitted classifier, optional
        A `BayesianMatchupClassifier` (one draw per simulated tournament; never
        seen players and decks are integrated as in ``predict_proba``) or any
        fitted classifier with ``predict_proba`` on match tables (a rating
        system: the same probabilities in every tournament).
    probabilities : array-like of shape (n, n) or (n_draws, n, n), optional
        Instead of an estimator: P(entrant i beats j when i moves first).
    deck_rule : {"fixed order", "uniform", "nash"}
        How an entrant with several decks picks one per match.
    results : DataFrame, optional
        Matches already played (or paired): ``round`` (the tournament round,
        stages numbering on from each other), ``player1`` (moved first),
        ``player2``, ``winner`` (empty: paired, not yet played). Each result
        binds the one meeting it was recorded for: a Swiss round's recorded
        pairs meet as recorded and the others are paired among themselves; in
        round robins a result binds its pair in the leg of its round; in
        knockouts the pair's meetings, in the order of their rounds.
    n_simulations : int, default 10000
    n_draws : int, optional
        Use this many evenly spaced posterior draws (all by default).
    first_move : {"random", "alternating"}, optional
        Overrides the format's rule for who moves first.
    random_state : int, numpy Generator or None

    Returns
    -------
    TournamentForecast
    """
    if isinstance(format, str):
        format = parse_format(format)
    if not isinstance(format, Format):
        raise TournamentError(f"format must be a Format or text, got {type(format).__name__}")
    rule = format.first_move if first_move is None else first_move
    format = Format(format.stages, rule)
    field = check_entrants(entrants)
    format.check_entrants(field.n_entrants)
    n_simulations = _check_count(n_simulations, "n_simulations")
    if (estimator is None) == (probabilities is None):
        raise TournamentError("give either a fitted estimator or probabilities, not both")
    if estimator is not None:
        p, offsets, n_decks = win_probability_draws(estimator, field, deck_rule, n_draws)
    else:
        p = _check_probabilities(probabilities, field.n_entrants)
        offsets, n_decks = np.arange(field.n_entrants), np.ones(field.n_entrants, dtype=np.int64)
    recorded = check_results(results, field.names)
    _check_result_rounds(format, field.n_entrants, recorded)
    rng = np.random.default_rng(random_state)
    forecast = _run(format, field, p, offsets, n_decks, recorded, n_simulations, rng)
    forecast.decks = None if field.decks is None else [list(d) for d in field.decks]
    with_decks = estimator is not None and field.decks is not None
    forecast.deck_rule = deck_rule if with_decks else None
    forecast.n_draws = len(p)
    forecast.results = None if len(recorded) == 0 else _results_table(recorded, field.names)
    return forecast


def _results_table(recorded: Results, names: list) -> pd.DataFrame:
    """The checked results by entrant name, in round order (a new table)."""
    order = np.argsort(recorded.rounds, kind="stable")
    return pd.DataFrame(
        {
            "round": recorded.rounds[order],
            "player1": pd.Series([names[k] for k in recorded.first[order]], dtype=object),
            "player2": pd.Series([names[k] for k in recorded.second[order]], dtype=object),
            "winner": pd.Series(
                [names[k] if k >= 0 else None for k in recorded.winner[order]], dtype=object
            ),
        }
    )


def _check_result_rounds(format: Format, n: int, recorded: Results) -> None:
    """Refuse results from rounds the format does not have."""
    if len(recorded) == 0 or isinstance(format.stages[-1], LossElimination):
        return
    total, field = 0, n
    for stage in format.stages:
        if isinstance(stage, Knockout) and stage.size:
            field = stage.size
        total += stage_rounds(stage, field)
    late = recorded.rounds.max()
    if late > total:
        raise TournamentError(f"the results have a round {late}, but the format has {total} rounds")


def _run(format, field: Field, p, offsets, n_decks, recorded: Results, n_simulations, rng):
    n = field.n_entrants
    cycles = -(-n_simulations // len(p))
    draws = np.concatenate([rng.permutation(len(p)) for _ in range(cycles)])[:n_simulations]
    batch = max(1, _BATCH_BYTES // (2 * n * n))
    parts = []
    for start in range(0, n_simulations, batch):
        matches = Matches(p, offsets, n_decks, draws[start : start + batch], format.first_move, rng)
        parts.append(_play(format, matches, recorded))
    return TournamentForecast.from_batches(format, field.names, parts)


def _play(format: Format, matches: Matches, recorded: Results) -> dict:
    """Play every stage for one batch; the standings so far seed the next stage."""
    n_sims, n = matches.wins.shape
    standing = np.broadcast_to(np.arange(n), (n_sims, n)).copy()
    first_round = 1
    reached, final = [], None
    for stage in format.stages:
        size = stage.size if isinstance(stage, Knockout) and stage.size else standing.shape[1]
        result = play_stage(stage, matches, standing[:, :size], first_round, recorded)
        standing = np.hstack([result.ranking, standing[:, size:]])
        first_round += stage_rounds(stage, size)
        if result.reached is not None:
            reached.append((result.reached, result.ranking.shape[1]))
        if result.final is not None:
            final = result.final
    place = np.empty_like(standing)
    np.put_along_axis(place, standing, np.arange(1, n + 1)[None, :], axis=1)
    return {
        "place": place,
        "wins": matches.wins,
        "byes": matches.byes,
        "reached": reached,
        "final": final,
    }
