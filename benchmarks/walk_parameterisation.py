"""Two ways to write the skill walk, measured on the same matches: every period, or played ones.

A prototype outside the package, to test the change docs/model-choice.md
recommends for ``time_varying=True``. Both models are skill-only Bradley-Terry
models with a Gaussian random walk of skill over rating periods (the deck
effects are left out of both, so only the walk differs):

- ``every period`` (the package's walk): one standard-normal step per player
  and period after the first, ``skill[f, e] = p[f] + sd_step * cumsum(z)[f, e]``;
- ``played periods``: one step per player between consecutive periods in which
  the player played, scaled by ``sd_step * sqrt(gap)`` (the same random walk
  with its unobserved periods integrated out), anchored at the player's first
  period.

Matches come from `skcodex.datasets.make_matches` (skills walking with step
spread 0.15); the latest tournaments holding at least 15% of the matches are
held out and forecast with each player's latest skill. Sampled with nutpie
(compile time reported apart). Prints a table; writes
benchmarks/results/walk_parameterisation.json.

A third variant, ``played periods, from the first period``, also steps from
the first period to each player's first period played (as the package's
walk does, so that it is exactly the walk through every period).

Run: python benchmarks/walk_parameterisation.py [--matches 5000] [--players 300]
     [--tournaments 50] [--draws 300] [--chains 2]
     [--walks every,played,played-from-first] (another choice of walks writes
     walk_parameterisation_<walks>.json)
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from scipy.special import expit

from skcodex import brier_score
from skcodex._matchup.convergence_stats import convergence_statistics
from skcodex.data import check_match_table, encode
from skcodex.data._codes import Vocabulary
from skcodex.datasets import make_matches
from skcodex.model_selection import latest_share_split

RESULTS = Path(__file__).resolve().parent / "results" / "walk_parameterisation.json"


def every_period_model(f, s, e, y, P, E):
    import pymc as pm
    import pytensor.tensor as pt

    with pm.Model() as model:
        log_sd = pm.Normal("log_sd", [0.0, -2.0], 0.5)  # player, step
        sd = pt.exp(log_sd)
        p = pm.Normal("z_p", 0, 1, shape=P) * sd[0]
        steps = pm.Normal("z_step", 0, 1, shape=(P, E - 1)) * sd[1]
        walk = pt.concatenate([pt.zeros((P, 1)), pt.cumsum(steps, axis=1)], axis=1)
        skill = p[:, None] + walk
        q = skill[f, e] - skill[s, e]
        pm.Potential("loglik", -(y * pt.softplus(-q) + (1 - y) * pt.softplus(q)).sum())
        pm.Deterministic("latest", skill[:, -1])
    return model


def every_period_model_sized(f, s, e, y, P, E):
    return every_period_model(f, s, e, y, P, E), P * (E - 1)


def played_period_model(f, s, e, y, P, from_first_period=False):
    """The walk through played periods; anchored at each player's first period played.

    ``from_first_period=True`` adds, for every player, the first period as a
    cell of the walk (at 0), so the walk also steps from it to the player's
    first period played, as the package's walk does.
    """
    import pymc as pm
    import pytensor.tensor as pt

    cells = np.unique(np.concatenate([f * 10**6 + e, s * 10**6 + e]))
    if from_first_period:
        cells = np.unique(np.concatenate([cells, np.arange(P) * 10**6]))
    player, epoch = cells // 10**6, cells % 10**6
    first = np.r_[True, player[1:] != player[:-1]]
    gap = np.where(first, 0, np.r_[0, np.diff(epoch)])
    start = np.flatnonzero(first)
    group = np.cumsum(first) - 1
    cell_of = {int(c): i for i, c in enumerate(cells)}
    c1 = np.array([cell_of[int(a * 10**6 + b)] for a, b in zip(f, e)])
    c2 = np.array([cell_of[int(a * 10**6 + b)] for a, b in zip(s, e)])
    last = np.r_[start[1:] - 1, len(cells) - 1]
    with pm.Model() as model:
        log_sd = pm.Normal("log_sd", [0.0, -2.0], 0.5)
        sd = pt.exp(log_sd)
        p = pm.Normal("z_p", 0, 1, shape=P) * sd[0]
        z = pm.Normal("z_step", 0, 1, shape=int((~first).sum()))
        steps = pt.set_subtensor(pt.zeros(len(cells))[~first], z * sd[1] * np.sqrt(gap[~first]))
        total = pt.cumsum(steps)
        walk = total - total[start][group]
        skill = p[player] + walk
        q = skill[c1] - skill[c2]
        pm.Potential("loglik", -(y * pt.softplus(-q) + (1 - y) * pt.softplus(q)).sum())
        latest = pt.zeros(P)
        pm.Deterministic("latest", pt.set_subtensor(latest[player[last]], skill[last]))
    return model, int(len(cells) - len(start))


def sample(model, draws: int, chains: int, seed: int) -> tuple[dict, float, float]:
    import nutpie

    start = time.perf_counter()
    compiled = nutpie.compile_pymc_model(model)
    compile_s = time.perf_counter() - start
    start = time.perf_counter()
    trace = nutpie.sample(
        compiled, draws=draws, tune=draws, chains=chains, seed=seed, progress_bar=False
    )
    return trace, compile_s, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=5000)
    parser.add_argument("--players", type=int, default=300)
    parser.add_argument("--tournaments", type=int, default=50)
    parser.add_argument("--draws", type=int, default=300)
    parser.add_argument("--chains", type=int, default=2)
    parser.add_argument("--walks", default="every,played,played-from-first")
    args = parser.parse_args()
    data = make_matches(
        n_players=args.players,
        n_matches=args.matches,
        n_tournaments=args.tournaments,
        sd_step=0.15,
        deck_kind="monocolour",
        random_state=1,
    )
    X, y = data.X, data.y.astype(float)
    train, test = latest_share_split(X, share=0.15)
    table = check_match_table(X.iloc[train])
    vocab = Vocabulary.from_table(table)
    codes = encode(table, vocab)
    f, s, e = codes.player1, codes.player2, codes.epoch
    P, E = len(vocab.players), codes.n_epochs
    held = encode(check_match_table(X.iloc[test]), vocab)
    known = (held.player1 < P) & (held.player2 < P)
    rows = []
    models = {
        "every": lambda: ("every period", *every_period_model_sized(f, s, e, y[train], P, E)),
        "played": lambda: ("played periods", *played_period_model(f, s, e, y[train], P)),
        "played-from-first": lambda: (
            "played periods, from the first period",
            *played_period_model(f, s, e, y[train], P, from_first_period=True),
        ),
    }
    for key in args.walks.split(","):
        name, model, n_steps = models[key]()
        trace, compile_s, sample_s = sample(model, args.draws, args.chains, seed=0)
        post = trace.posterior
        log_sd = post["log_sd"].transpose("chain", "draw", ...).to_numpy()
        stats = convergence_statistics(log_sd, tail=True)
        latest = post["latest"].stack(d=("chain", "draw")).transpose("d", ...).to_numpy()
        q = latest[:, held.player1[known]] - latest[:, held.player2[known]]
        p_win = expit(q).mean(axis=0)
        rows.append(
            {
                "walk": name,
                "walk steps": n_steps,
                "sampling s": round(sample_s, 1),
                "compile s": round(compile_s, 1),
                "gradients per draw": round(float(trace.sample_stats["n_steps"].mean()), 1),
                "sd_step mean": round(float(np.exp(log_sd[..., 1]).mean()), 3),
                "ESS log sd_step": round(float(stats["ess_bulk"][1]), 0),
                "R-hat log sd_step": round(float(stats["rhat"][1]), 3),
                "held-out Brier": round(float(brier_score(y[test][known], p_win)), 4),
                "held-out matches": int(known.sum()),
            }
        )
        print(json.dumps(rows[-1]), flush=True)
    truth = round(float(brier_score(y[test][known], data.p_win[test][known])), 4)
    header = list(rows[0])
    print("| " + " | ".join(header) + " |\n|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(str(row[h]) for h in header) + " |")
    print(f"true probabilities on the same matches: {truth}")
    default = parser.get_default("walks")
    out = (
        RESULTS
        if args.walks == default
        else RESULTS.with_name("walk_parameterisation_" + args.walks.replace(",", "_") + ".json")
    )
    out.write_text(
        json.dumps({"settings": vars(args), "rows": rows, "true_brier": truth}, indent=2) + "\n"
    )


if __name__ == "__main__":
    main()
