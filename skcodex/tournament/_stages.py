"""Each stage of a tournament played for a batch of simulated tournaments at once."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from skcodex.tournament._pairing import bracket_order, rank, round_robin_rounds, swiss_pairs

__all__ = [
    "StageResult",
    "bracket_size",
    "double_elimination",
    "double_elimination_rounds",
    "groups",
    "round_robin",
    "round_robin_rounds",
    "single_elimination",
    "swiss",
]


@dataclass
class StageResult:
    """What a stage leaves: its standings, its rounds, and (knockouts) how far each got.

    Parameters
    ----------
    ranking : ndarray of shape (n_simulations, m)
        The stage's entrants, best first.
    rounds : int
        Tournament rounds the stage took.
    reached : ndarray of shape (n_simulations, n_entrants) or None, default None
        Single elimination: the bracket rounds each entrant played or got a
        bye into (0: not in the bracket; ``log2(bracket) + 1``: champion).
    final : tuple of three ndarrays of shape (n_simulations,) or None, default None
        Knockouts: the two finalists and the winner of the final; Swiss
        elimination: the last two standing (who meet until one is out) and
        the winner.
    """

    ranking: np.ndarray
    rounds: int
    reached: np.ndarray | None = None
    final: tuple | None = None


def _gather(values: np.ndarray, entrants: np.ndarray) -> np.ndarray:
    return np.take_along_axis(values, entrants, axis=1)


def bracket_size(m: int) -> int:
    """The bracket of ``m`` entrants: the next power of two."""
    return 1 << (m - 1).bit_length()


def double_elimination_rounds(depth: int) -> int:
    """Rounds of a double elimination whose winners' bracket has ``depth`` rounds.

    The winners' bracket plays its round ``k`` in round ``2k - 2`` (round 1 for
    the first), the losers' bracket its ``2(depth - 1)`` rounds from round 2 on,
    the grand final in round ``2 depth`` and its replay, when played, in the next.
    """
    return 2 * depth + 1 if depth else 0


# -- round robin and groups ---------------------------------------------------


def round_robin(legs, matches, seeding, first_round, results) -> StageResult:
    """A round robin of ``legs`` legs among ``seeding``."""
    m = seeding.shape[1]
    schedule = round_robin_rounds(m)
    n_rounds = legs * len(schedule)
    start = matches.points.copy()
    for leg in range(legs):
        # A result binds the leg of the round it was recorded in.
        leg_start = first_round + leg * len(schedule)
        forced = results.meetings(leg_start, leg_start + len(schedule), len(seeding))
        for a, b in schedule:
            matches.play(seeding[:, a], seeding[:, b], forced)
    stage_wins = _gather(matches.points - start, seeding)
    order = rank([stage_wins], _gather(matches.tiebreak, seeding))
    return StageResult(_gather(seeding, order), n_rounds)


def groups(n_groups, legs, matches, seeding, first_round, results, n_rounds) -> StageResult:
    """Round-robin groups by snake seeding; ``n_rounds(m)`` the rounds the stage takes."""
    m = seeding.shape[1]
    start = matches.points + matches.byes
    pods = [[] for _ in range(n_groups)]
    for k in range(m):
        row, col = divmod(k, n_groups)
        pods[col if row % 2 == 0 else n_groups - 1 - col].append(k)
    rankings = [
        round_robin(legs, matches, seeding[:, g], first_round, results).ranking for g in pods
    ]
    # Group winners first (better record in the groups first), then runners-up, and so on.
    total = matches.points + matches.byes - start
    ordered = []
    for place in range(max(len(g) for g in pods)):
        at_place = np.column_stack([r[:, place] for r in rankings if r.shape[1] > place])
        order = rank([_gather(total, at_place)], _gather(matches.tiebreak, at_place))
        ordered.append(_gather(at_place, order))
    return StageResult(np.hstack(ordered), n_rounds(m))


# -- Swiss and Swiss elimination ----------------------------------------------


def swiss(matches, seeding, first_round, results, n_rounds=None, out_at=None) -> StageResult:
    """Swiss rounds: ``n_rounds`` of them, or until one is left, each out at ``out_at`` losses."""
    n_sims, m = seeding.shape
    sims = np.arange(n_sims)
    start_wins, start_byes = matches.points.copy(), matches.byes.copy()
    losses_start = matches.losses.copy()
    active = np.ones((n_sims, m), dtype=bool)
    out_round = np.zeros((n_sims, m), dtype=np.int64)
    eliminating = out_at is not None
    played_rounds = 0
    while True:
        if n_rounds is not None and played_rounds == n_rounds:
            break
        if eliminating and not (active.sum(axis=1) > 1).any():
            break
        this_round = first_round + played_rounds
        score = _gather(matches.points - start_wins + matches.byes - start_byes, seeding)
        # A tournament with one entrant left is over: nobody there is paired.
        playing = active & (active.sum(axis=1) > 1)[:, None]
        order = rank([score], _gather(matches.tiebreak, seeding))
        byes = _gather(matches.byes, seeding)
        recorded = results.round_pairs(this_round)
        forced = None
        if recorded is not None:
            # The recorded pairs meet as recorded; whoever is not listed is paired
            # among themselves by the Swiss rule (a bye only if they are odd).
            a_rec, b_rec = _recorded_positions(recorded, seeding, matches.wins.shape[1])
            taken = np.zeros((n_sims, m + 1), dtype=bool)  # column m: nobody
            taken[sims[:, None], np.where(a_rec >= 0, a_rec, m)] = True
            taken[sims[:, None], np.where(b_rec >= 0, b_rec, m)] = True
            playing &= ~taken[:, :m]
            forced = results.meetings(this_round, this_round + 1, n_sims)
        a, b, bye = swiss_pairs(order, playing, byes, matches.met, seeding)
        if recorded is not None:
            a, b = np.hstack([a_rec, a]), np.hstack([b_rec, b])
        entrant_a = np.where(a >= 0, np.take_along_axis(seeding, np.maximum(a, 0), 1), -1)
        entrant_b = np.where(b >= 0, np.take_along_axis(seeding, np.maximum(b, 0), 1), -1)
        matches.play(entrant_a, entrant_b, forced)
        matches.give_byes(np.where(bye >= 0, seeding[sims, np.maximum(bye, 0)], -1))
        played_rounds += 1
        if eliminating:
            lost_out = active & (_gather(matches.losses - losses_start, seeding) >= out_at)
            out_round[lost_out] = played_rounds
            active &= ~lost_out
    score = _gather(matches.points - start_wins + matches.byes - start_byes, seeding)
    if eliminating:
        keys = [np.where(active, n_rounds or played_rounds + 1, out_round), score]
    else:
        keys = [score, _buchholz(matches.met, seeding, score)]
    order = rank(keys, _gather(matches.tiebreak, seeding))
    ranking = _gather(seeding, order)
    final = None
    if eliminating and m > 1:
        # Eliminations leave exactly two standing at some round (a round of k entrants
        # puts out at most k // 2), and those two meet until one is out: the final.
        final = (ranking[:, 0], ranking[:, 1], ranking[:, 0])
    return StageResult(ranking, played_rounds, final=final)


def _buchholz(met: np.ndarray, seeding: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Each entrant's opponents' scores summed (Buchholz), over the stage's entrants."""
    sims = np.arange(len(seeding))[:, None, None]
    met_here = met[sims, seeding[:, :, None], seeding[:, None, :]]
    return np.einsum("smk,sk->sm", met_here, score)


def _recorded_positions(recorded, seeding, n_entrants):
    """Stage positions of a recorded round's pairs, per simulation.

    A pair with an entrant outside the stage is left out (-1 on both sides).
    """
    first, second = recorded
    position = np.full((seeding.shape[0], n_entrants), -1)
    np.put_along_axis(position, seeding, np.arange(seeding.shape[1])[None, :], axis=1)
    a, b = position[:, first], position[:, second]
    outside = (a < 0) | (b < 0)
    return np.where(outside, -1, a), np.where(outside, -1, b)


# -- knockouts ----------------------------------------------------------------


def _bracket(seeding: np.ndarray) -> np.ndarray:
    """Entrants in bracket positions, -1 for a bye."""
    n_sims, m = seeding.shape
    order = bracket_order(bracket_size(m))
    padded = np.hstack([seeding, np.full((n_sims, len(order) - m), -1)])
    return padded[:, order]


def _seed_order(n_sims: int, m: int) -> np.ndarray:
    """A tie-break that prefers the better seed (earlier position)."""
    return np.broadcast_to(1.0 - (np.arange(m) + 0.5) / m, (n_sims, m))


def single_elimination(matches, seeding, first_round, results) -> StageResult:
    """A single-elimination bracket of ``seeding``, byes to the best seeds."""
    n_sims, m = seeding.shape
    sims = np.arange(n_sims)[:, None]
    alive = _bracket(seeding)
    depth = alive.shape[1].bit_length() - 1
    forced = results.meetings(first_round, first_round + depth, n_sims)
    reached = np.zeros(matches.wins.shape, dtype=np.int64)
    final = None
    for r in range(depth):
        present = alive >= 0
        reached[np.broadcast_to(sims, alive.shape)[present], alive[present]] = r + 1
        a, b = alive[:, 0::2], alive[:, 1::2]
        if r == depth - 1:
            matches.final_round()
        alive, _ = matches.play(a, b, forced)
        if r == depth - 1:
            final = (a[:, 0], b[:, 0], alive[:, 0])
    reached[np.arange(n_sims), alive[:, 0]] = depth + 1
    order = rank([_gather(reached, seeding)], _seed_order(n_sims, m))
    return StageResult(_gather(seeding, order), depth, reached, final)


def double_elimination(matches, seeding, first_round, results) -> StageResult:
    """A double-elimination bracket, the grand final replayed if the losers' side wins it."""
    n_sims, m = seeding.shape
    winners = _bracket(seeding)
    depth = winners.shape[1].bit_length() - 1
    # A pair meets up to three times (a bracket match, the grand final and its
    # replay): its records bind those meetings in the order they were recorded.
    forced = results.meetings(first_round, first_round + double_elimination_rounds(depth), n_sims)
    out_step = np.zeros(matches.wins.shape, dtype=np.int64)
    sims = np.arange(n_sims)[:, None]
    step = 0

    def knocked_out(loser):
        present = loser >= 0
        out_step[np.broadcast_to(sims, loser.shape)[present], loser[present]] = step

    losers = None
    for r in range(depth):
        winners, dropped = matches.play(winners[:, 0::2], winners[:, 1::2], forced)
        step += 1
        if losers is None:
            losers = dropped
            if losers.shape[1] > 1:
                losers, lost = matches.play(losers[:, 0::2], losers[:, 1::2], forced)
                knocked_out(lost)
            continue
        # Losers dropping in meet the losers' bracket survivors, in reverse order
        # every other round so that early opponents do not meet again at once.
        incoming = dropped[:, ::-1] if r % 2 else dropped
        losers, lost = matches.play(losers, incoming, forced)
        knocked_out(lost)
        step += 1
        if losers.shape[1] > 1:
            losers, lost = matches.play(losers[:, 0::2], losers[:, 1::2], forced)
            knocked_out(lost)
            step += 1
    top, bottom = winners[:, 0], losers[:, 0]
    matches.final_round()
    champion, runner_up = matches.play(top[:, None], bottom[:, None], forced)
    champion, runner_up = champion[:, 0], runner_up[:, 0]
    reset = (champion == bottom) & (top >= 0) & (bottom >= 0)
    again_a = np.where(reset, top, -1)[:, None]
    again_b = np.where(reset, bottom, -1)[:, None]
    second_winner, second_loser = matches.play(again_a, again_b, forced)
    champion = np.where(reset, second_winner[:, 0], champion)
    runner_up = np.where(reset, second_loser[:, 0], runner_up)
    step += 1
    out_step[np.arange(n_sims)[runner_up >= 0], runner_up[runner_up >= 0]] = step
    out_step[np.arange(n_sims), champion] = step + 1
    order = rank([_gather(out_step, seeding)], _seed_order(n_sims, m))
    final = (top, bottom, champion)
    return StageResult(_gather(seeding, order), double_elimination_rounds(depth), None, final)
