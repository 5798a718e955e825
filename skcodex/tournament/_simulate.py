"""Simulate a tournament many times, each on one posterior draw shared by all its matches."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from skcodex.tournament._draws import (
    check_draw_probabilities,
    draw_probability_draws,
    fits_draws,
)
from skcodex.tournament._forecast import TournamentForecast
from skcodex.tournament._formats import Format, TournamentError, parse_format
from skcodex.tournament._play import Matches
from skcodex.tournament._probabilities import Field, check_entrants, win_probability_draws
from skcodex.tournament._results import Results, check_results

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


#: The most simulated tournaments a forecast plays: 1,000 times the default, whose chances
#: already carry a Monte Carlo standard error of at most 0.005.
MAX_SIMULATIONS = 10_000_000


def _check_count(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise TournamentError(f"{name} must be a positive whole number, got {value!r}")
    if value > MAX_SIMULATIONS:
        raise TournamentError(
            f"{name} may be at most {MAX_SIMULATIONS:,} (a standard error of 0.00016 on "
            f"every chance), got {value:,}"
        )
    return int(value)


def simulate_tournament(
    format: Format | str,
    entrants: Any,
    estimator: Any = None,
    *,
    probabilities: Any = None,
    draw_probabilities: Any = None,
    deck_rule: str = "fixed order",
    results: Any = None,
    n_simulations: int = 10_000,
    n_draws: int | None = None,
    first_move: str | None = None,
    random_state: Any = None,
    draw_rule: str = "replay",
) -> TournamentForecast:
    """Forecast a tournament by playing it many times.

    Each simulated tournament takes one posterior draw and plays every match
    with it, so a player's uncertain skill moves all their matches together.
    Draws are used in turn (a shuffled cycle), each about equally often.

    Parameters
    ----------
    format : Format or str
        The stages (`skcodex.tournament.Format`, or text for `parse_format`
        such as ``"swiss:5+knockout:8"``). A stage may be played in best-of-N
        sets (``"knockout:8:bo3:final-bo5"``): each set is computed exactly from
        the simulated tournament's posterior draw, decks kept and the first move
        alternating within it, and counts as one match.
    entrants : DataFrame, mapping or list
        Entrants in seeding order (first = top seed): a table with ``player``
        and ``deck`` columns (a deck cell holds one deck, several joined by
        ``;``, or a list), a mapping of players to decks, or a list of names
        (with ``probabilities``, or an estimator that reads no decks).
    estimator : fitted classifier or None, default None
        A `BayesianMatchupClassifier` (one draw per simulated tournament; never
        seen players and decks are integrated as in ``predict_proba``) or any
        fitted classifier with ``predict_proba`` on match tables (a rating
        system: the same probabilities in every tournament).
    probabilities : array-like of shape (n, n) or (n_draws, n, n), or None, default None
        Instead of an estimator: P(entrant i beats j when i moves first).
    draw_probabilities : array-like of the shape of ``probabilities`` or None, default None
        With ``probabilities``, in a game with draws: P(i and j draw when i
        moves first); i then loses with the rest. An estimator fitted with
        draws (``classes_`` ``[0, 0.5, 1]``) gives them itself. In Swiss,
        round-robin and group standings a draw is worth half a win; a drawn
        knockout match goes to the winner of a decider played with the draw
        left out.
    deck_rule : {"fixed order", "uniform", "nash"}, default "fixed order"
        How an entrant with several decks picks one per match.
    results : DataFrame or None, default None
        Matches already played (or paired): ``round`` (the tournament round,
        stages numbering on from each other), ``player1`` (moved first),
        ``player2``, ``winner`` (empty: paired, not yet played). Each result
        binds the one meeting it was recorded for: a Swiss round's recorded
        pairs meet as recorded and the others are paired among themselves; in
        round robins a result binds its pair in the leg of its round; in
        knockouts the pair's meetings, in the order of their rounds.
    n_simulations : int, default 10000
        Tournaments simulated, each on one posterior draw (draws reused in turn).
    n_draws : int or None, default None
        Use this many evenly spaced posterior draws (all by default).
    first_move : {"random", "alternating"} or None, default None
        Overrides the format's rule for who moves first.
    random_state : int, numpy Generator or None, default None
        The seed of the simulation.
    draw_rule : {"replay", "points"}, default "replay"
        In a game with draws, what a drawn game of a best-of-N set counts for
        (`SERIES_DRAW_RULES`): replayed with the same decks and first mover, the
        set going to the first to win a majority of its games (card games), or
        half a point each, the set to who has more than half the points and a
        set level on points to a decider with the draw left out (chess). A set
        is never drawn; its chance is exact per posterior draw.

    Returns
    -------
    TournamentForecast
        Every simulated tournament's places, wins, byes and final.
    """
    from skcodex.tournament._series_draws import SERIES_DRAW_RULES

    if not isinstance(draw_rule, str) or draw_rule not in SERIES_DRAW_RULES:
        raise TournamentError(
            f"draw_rule must be one of {', '.join(map(repr, SERIES_DRAW_RULES))}, got {draw_rule!r}"
        )
    format = _check_format(format, first_move)
    field = check_entrants(entrants)
    format.check_entrants(field.n_entrants)
    n_simulations = _check_count(n_simulations, "n_simulations")
    if (estimator is None) == (probabilities is None):
        raise TournamentError("give either a fitted estimator or probabilities, not both")
    drawn = _estimator_draw_probabilities(estimator, draw_probabilities, field, deck_rule, n_draws)
    p, offsets, n_decks = _win_probabilities(estimator, probabilities, field, deck_rule, n_draws)
    if estimator is None and draw_probabilities is not None:
        drawn = check_draw_probabilities(draw_probabilities, p)
    recorded = check_results(results, field.names)
    _check_result_rounds(format, field.n_entrants, recorded, field.names)
    rng = np.random.default_rng(random_state)
    forecast = _run(
        format, field, p, offsets, n_decks, recorded, n_simulations, rng, (drawn, draw_rule)
    )
    forecast.decks = None if field.decks is None else [list(d) for d in field.decks]
    with_decks = estimator is not None and field.decks is not None
    forecast.deck_rule = deck_rule if with_decks else None
    forecast.n_draws = len(p)
    forecast.results = None if len(recorded) == 0 else _results_table(recorded, field.names)
    return forecast


def _win_probabilities(estimator, probabilities, field, deck_rule, n_draws) -> tuple:
    """Each draw's win probabilities, and each entrant's first deck slot and number of decks."""
    if n_draws is not None:
        if isinstance(n_draws, bool) or not isinstance(n_draws, (int, np.integer)) or n_draws < 1:
            raise TournamentError(f"n_draws must be a positive whole number, got {n_draws!r}")
    if estimator is not None:
        return win_probability_draws(estimator, field, deck_rule, n_draws)
    p = _check_probabilities(probabilities, field.n_entrants)
    return p, np.arange(field.n_entrants), np.ones(field.n_entrants, dtype=np.int64)


def _estimator_draw_probabilities(estimator, draw_probabilities, field, deck_rule, n_draws):
    """Each draw's draw probabilities of an estimator fitted with draws (None: no draws).

    Computed before the win probabilities, so that a deck rule a model with draws
    cannot mix is refused before any work.
    """
    if estimator is None:
        return None
    if draw_probabilities is not None:
        raise TournamentError("draw_probabilities go with probabilities, not an estimator")
    if not fits_draws(estimator):
        return None
    return draw_probability_draws(estimator, field, deck_rule, n_draws)


def _check_format(format: Any, first_move: str | None) -> Format:
    """The format as given (a `Format` or its text), with ``first_move`` overriding its rule."""
    if isinstance(format, str):
        format = parse_format(format)
    if not isinstance(format, Format):
        raise TournamentError(f"format must be a Format or text, got {type(format).__name__}")
    rule = format.first_move if first_move is None else first_move
    return Format(format.stages, rule)


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


def _check_result_rounds(format: Format, n: int, recorded: Results, names: list) -> None:
    """Refuse results the format cannot hold, naming the row.

    A round the format does not have; a pair recorded twice where it meets once (a
    knockout, a round robin's leg); an entrant recorded playing after the recorded
    results put them out; and, in a knockout seeded by the entrants' order (the first
    stage), a pair recorded in a round where the bracket cannot bring them together.
    """
    if len(recorded) == 0:
        return
    start, field = 1, n
    for number, stage in enumerate(format.stages):
        size = stage.cut(field)
        rounds = stage.n_rounds(size)
        last = start + stage.last_round(size) - 1
        here = np.flatnonzero((recorded.rounds >= start) & (recorded.rounds < start + rounds))
        late = here[recorded.rounds[here] > last]
        if len(late):
            k = late[np.argmax(recorded.rounds[late])]
            raise TournamentError(
                f"results row {recorded.rows[k]}: a round {recorded.rounds[k]}, but the format "
                f"has {last} rounds"
            )
        _check_stage_results(stage, number == 0, start, size, recorded, here, names)
        start, field = start + rounds, size
    late = np.flatnonzero(recorded.rounds >= start)
    if len(late):
        k = late[np.argmax(recorded.rounds[late])]
        raise TournamentError(
            f"results row {recorded.rows[k]}: a round {recorded.rounds[k]}, but the format has "
            f"{start - 1} rounds"
        )


def _check_stage_results(stage, first_stage, start, size, recorded, here, names) -> None:
    """The checks of `_check_result_rounds` within one stage (records ``here``)."""
    order = here[np.lexsort((recorded.rows[here], recorded.rounds[here]))]
    rules = stage.result_rules(size)
    per_leg, once, out_at = rules.leg_rounds, rules.once, rules.out_at
    seen: dict = {}
    losses: dict = {}
    for k in order:
        i, j, r, row = recorded.first[k], recorded.second[k], recorded.rounds[k], recorded.rows[k]
        who = f"{names[i]!r} v {names[j]!r}"
        if out_at is not None:
            for e in (i, j):
                if losses.get(e, 0) >= out_at:
                    raise TournamentError(
                        f"results row {row}: {names[e]!r} plays in round {r}, but the results "
                        "before it put them out"
                    )
        pair = (min(i, j), max(i, j))
        if rules.max_meetings is not None:
            seen[pair] = seen.get(pair, 0) + 1
            if seen[pair] > rules.max_meetings:
                raise TournamentError(
                    f"results row {row}: {who} is recorded {_again(seen[pair])}; a pair meets "
                    f"at most {_times(rules.max_meetings)} in {stage.describe()}"
                )
        leg = None if per_leg is None else (r - start) // per_leg
        if once or per_leg is not None:
            if (pair, leg) in seen:
                where = "in a knockout" if once else f"in leg {leg + 1} of the round robin"
                raise TournamentError(
                    f"results row {row}: {who} is recorded again (row {seen[pair, leg]}); "
                    f"a pair meets once {where}"
                )
            seen[pair, leg] = row
        if rules.bracket and first_stage and i < size and j < size:
            _check_bracket_round(i, j, r - start + 1, size, row, who)
        if recorded.winner[k] >= 0:
            loser = i + j - recorded.winner[k]
            losses[loser] = losses.get(loser, 0) + 1


def _times(n: int) -> str:
    """A count of meetings in words: "once", "twice", "three times"."""
    return {1: "once", 2: "twice", 3: "three times"}.get(n, f"{n} times")


def _again(n: int) -> str:
    """The ``n``-th meeting in words: "a second time", ..., "a fourth time"."""
    return {2: "a second time", 3: "a third time", 4: "a fourth time"}.get(n, f"{n} times")


def _check_bracket_round(i: int, j: int, r: int, size: int, row: int, who: str) -> None:
    """Seeds ``i`` and ``j`` of a bracket of ``size`` entrants can meet only in one round."""
    from skcodex.tournament._pairing import bracket_order

    order = bracket_order(1 << (size - 1).bit_length())
    position = np.argsort(order)
    meet = int(position[i] ^ position[j]).bit_length()
    if meet != r:
        raise TournamentError(
            f"results row {row}: {who} is recorded in round {r} of the knockout, but seeds "
            f"{i + 1} and {j + 1} can meet only in its round {meet}"
        )


def _run(
    format,
    field: Field,
    p,
    offsets,
    n_decks,
    recorded: Results,
    n_simulations,
    rng,
    drawn=(None, "replay"),
):
    """Play ``n_simulations`` tournaments in batches; ``drawn`` the draw chances and set rule."""
    n = field.n_entrants
    cycles = -(-n_simulations // len(p))
    draws = np.concatenate([rng.permutation(len(p)) for _ in range(cycles)])[:n_simulations]
    batch = max(1, _BATCH_BYTES // (2 * n * n))
    parts = []
    for start in range(0, n_simulations, batch):
        matches = Matches(
            p, offsets, n_decks, draws[start : start + batch], format.first_move, rng, *drawn
        )
        parts.append(_play(format, matches, recorded))
    return TournamentForecast.from_batches(format, field.names, parts)


def _play(format: Format, matches: Matches, recorded: Results) -> dict:
    """Play every stage for one batch; the standings so far seed the next stage."""
    n_sims, n = matches.wins.shape
    standing = np.broadcast_to(np.arange(n), (n_sims, n)).copy()
    first_round = 1
    reached, final = [], None
    for stage in format.stages:
        size = stage.cut(standing.shape[1])
        matches.sets(*stage.sets())
        result = stage.play(matches, standing[:, :size], first_round, recorded)
        standing = np.hstack([result.ranking, standing[:, size:]])
        first_round += stage.n_rounds(size)
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
