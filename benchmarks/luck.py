"""Hedging toward skill: unbiased luck estimates and luck-adjusted skill estimates.

Four parts, all on known truth:

1. Zare's worked game: the luck column is evaluation minus average, row by row,
   and its sum.
2. Unbiasedness on the dice game: over many simulated games the mean estimated
   net luck is zero within three standard errors, with the exact evaluator and
   with a deliberately biased one; the "value after the roll minus value
   before it" estimate with the biased evaluator is not.
3. Variance reduction: player skills estimated from luck-adjusted outcomes of N
   matches against raw outcomes of 2N matches (Spearman rank correlation with
   the true move accuracy, and RMSE after standardising both), for a
   Bradley-Terry reference fit, Elo and Glicko-2, over replications; the curve
   of matches needed for a target rank correlation.
4. The Bayesian classifier fitted to raw and to luck-adjusted outcomes (a few
   replications; skip with ``--no-bayes``).

Run ``python benchmarks/luck.py`` (about ten minutes; ``--quick`` for a smoke
run). It prints tables, writes ``benchmarks/results/luck.json`` and draws
``docs/img/luck_curve.png`` and ``docs/img/luck_outcomes.png``.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from skcodex.datasets import DiceGame, make_dice_matches
from skcodex.luck import (
    adjusted_outcome,
    fit_skills,
    luck_by_match,
    luck_from_pairs,
    zare_example,
)

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "luck.json"
IMG = ROOT / "docs" / "img"
N_PLAYERS = 20
TARGETS = (0.8, 0.9)


def mean_se(x) -> tuple[float, float]:
    x = np.asarray(x, dtype=float)
    return float(x.mean()), float(x.std(ddof=1) / np.sqrt(len(x)))


def standardised_rmse(estimate: pd.Series, truth: pd.Series) -> float:
    """RMSE between z-scores across players (equals sqrt(2 (1 - Pearson r)) with ddof=1 sd)."""
    t = truth[estimate.index]
    e = (estimate - estimate.mean()) / estimate.std()
    t = (t - t.mean()) / t.std()
    return float(np.sqrt(np.mean((e - t) ** 2)))


# -- 1. the seed's worked game --------------------------------------------------------


def zare_section() -> dict:
    game = zare_example()
    game["computed"] = luck_from_pairs(game["average"], game["evaluation"])
    print("1. Zare's worked game (match equity, Jellyfish's view)")
    print(
        game[["roll", "dice", "average", "evaluation", "luck", "computed"]].to_string(index=False)
    )
    worst = float((game["computed"] - game["luck"]).abs().max())
    total = float(game["computed"].sum())
    print(
        f"   largest |computed - printed| = {worst:.4f} (printed to 3 decimals); "
        f"sum of luck = {game['luck'].sum():+.3f} printed, {total:+.3f} computed "
        f"= {total / 2:+.4f} on the win-probability scale\n"
    )
    return {
        "rows": game.to_dict(orient="records"),
        "max_abs_difference": worst,
        "sum_printed": float(game["luck"].sum()),
        "sum_computed": total,
    }


# -- 2. unbiasedness -------------------------------------------------------------------


def unbiasedness_section(n_games: int) -> dict:
    data = make_dice_matches(N_PLAYERS, n_games, random_state=0)
    game, events, y = data.game, data.events, data.y
    biased = game.biased_values()
    a, b, r = events["mover_distance"], events["opponent_distance"], events["roll"]
    rows = []
    for name, table, fair in (
        ("exact, fair", game.values, True),
        ("biased, fair", biased, True),
        ("biased, naive", biased, False),
    ):
        after = game.roll_values(table)
        if fair:
            per_roll = game.annotate_luck(events, table)["luck"].to_numpy()
        else:  # value after the roll minus the evaluator's value before it
            per_roll = after[a, b, r] - table[a, b]
        luck = luck_by_match(events.assign(luck=per_roll), n_games)
        m, se = mean_se(luck)
        mr, ser = mean_se(per_roll)
        rows.append(
            {
                "estimate": name,
                "net_luck_mean": m,
                "net_luck_se": se,
                "z": m / se,
                "per_roll_mean": mr,
                "per_roll_se": ser,
                "net_luck_sd": float(luck.std(ddof=1)),
                "var_y": float(np.var(y)),
                "var_adjusted": float(np.var(y - luck)),
            }
        )
    frame = pd.DataFrame(rows)
    print(f"2. Unbiasedness: {n_games} games, {N_PLAYERS} players, skills U(0.5, 1)")
    print("   net luck = player 1's net luck per game (win-probability scale)")
    with pd.option_context("display.float_format", "{:+.4f}".format):
        print(frame.to_string(index=False))
    print(
        f"   rolls per game {len(events) / n_games:.1f}; exact initial value "
        f"P(player 1 wins) = {data.initial_value:.4f}\n"
    )
    return {"n_games": n_games, "rows": rows, "rolls_per_game": len(events) / n_games}


# -- 3. variance reduction --------------------------------------------------------------


def _ratings_series(model) -> pd.Series:
    return model.ratings_.set_index("player")["rating"]


def _estimators() -> dict:
    out = {"bradley_terry": lambda X, y, luck: fit_skills(X, y if luck is None else y - luck)}
    try:
        from skcodex import EloClassifier, Glicko2Classifier
    except ImportError:  # pragma: no cover - the rating systems are part of the package
        return out
    out["elo"] = lambda X, y, luck: _ratings_series(
        EloClassifier(first_mover_advantage="auto").fit(X, y, luck=luck)
    )
    out["glicko2"] = lambda X, y, luck: _ratings_series(
        Glicko2Classifier(first_mover_advantage="auto").fit(X, y, luck=luck)
    )
    return out


def variance_section(grid: list[int], reps: int) -> dict:
    estimators = _estimators()
    kinds = ("raw", "adjusted_exact", "adjusted_biased")
    records = []
    n_max = max(grid)
    for rep in range(reps):
        data = make_dice_matches(N_PLAYERS, n_max, random_state=1000 + rep)
        biased_luck = luck_by_match(data.game.annotate_luck(data.events, "biased"), n_max)
        lucks = {"raw": None, "adjusted_exact": data.luck, "adjusted_biased": biased_luck}
        for n in grid:
            X, y = data.X.iloc[:n], data.y[:n]
            for est_name, fit in estimators.items():
                for kind in kinds:
                    luck = None if lucks[kind] is None else lucks[kind][:n]
                    estimate = fit(X, y, luck)
                    truth = data.skills[estimate.index]
                    records.append(
                        {
                            "rep": rep,
                            "n_matches": n,
                            "estimator": est_name,
                            "outcome": kind,
                            "spearman": float(spearmanr(estimate, truth).statistic),
                            "rmse": standardised_rmse(estimate, data.skills),
                        }
                    )
    frame = pd.DataFrame(records)
    summary = (
        frame.groupby(["estimator", "outcome", "n_matches"])[["spearman", "rmse"]]
        .agg(["mean", "sem"])
        .reset_index()
    )
    summary.columns = ["_".join(c).strip("_") for c in summary.columns]

    print(f"3. Variance reduction: {N_PLAYERS} players, skills U(0.5, 1), {reps} replications")
    print("   Spearman = rank correlation of estimated strength with true move accuracy;")
    print("   RMSE = root mean squared difference of the two after standardising each")
    wide = summary.pivot(index=["estimator", "n_matches"], columns="outcome")
    for est_name in estimators:
        sub = wide.loc[est_name]
        table = pd.DataFrame(
            {
                f"rho {k}": [
                    f"{m:.3f}±{s:.3f}"
                    for m, s in zip(sub[("spearman_mean", k)], sub[("spearman_sem", k)])
                ]
                for k in kinds
            }
            | {
                f"rmse {k}": [
                    f"{m:.3f}±{s:.3f}" for m, s in zip(sub[("rmse_mean", k)], sub[("rmse_sem", k)])
                ]
                for k in kinds
            },
            index=sub.index,
        )
        print(f"   -- {est_name}")
        print(table.to_string())

    # adjusted with N against raw with 2N, paired by replication
    paired = []
    for est_name in estimators:
        for n in grid:
            if 2 * n not in grid:
                continue
            for kind in ("adjusted_exact", "adjusted_biased"):
                adj = frame.query(
                    "estimator == @est_name and outcome == @kind and n_matches == @n"
                ).set_index("rep")
                raw = frame.query(
                    "estimator == @est_name and outcome == 'raw' and n_matches == @m",
                    local_dict={"est_name": est_name, "m": 2 * n},
                ).set_index("rep")
                d_rho = adj["spearman"] - raw["spearman"]
                d_rmse = adj["rmse"] - raw["rmse"]
                paired.append(
                    {
                        "estimator": est_name,
                        "outcome": kind,
                        "n_adjusted": n,
                        "n_raw": 2 * n,
                        "spearman_adjusted": float(adj["spearman"].mean()),
                        "spearman_raw": float(raw["spearman"].mean()),
                        "spearman_diff": float(d_rho.mean()),
                        "spearman_diff_se": float(d_rho.sem()),
                        "rmse_adjusted": float(adj["rmse"].mean()),
                        "rmse_raw": float(raw["rmse"].mean()),
                        "rmse_diff": float(d_rmse.mean()),
                        "rmse_diff_se": float(d_rmse.sem()),
                    }
                )
    paired = pd.DataFrame(paired)
    print("   -- adjusted outcomes of N matches against raw outcomes of 2N (paired differences)")
    show = paired.copy()
    show["rho adj(N)"] = show["spearman_adjusted"].map("{:.3f}".format)
    show["rho raw(2N)"] = show["spearman_raw"].map("{:.3f}".format)
    show["diff"] = [
        f"{m:+.3f}±{s:.3f}" for m, s in zip(show["spearman_diff"], show["spearman_diff_se"])
    ]
    show["rmse adj(N)"] = show["rmse_adjusted"].map("{:.3f}".format)
    show["rmse raw(2N)"] = show["rmse_raw"].map("{:.3f}".format)
    show["rmse diff"] = [
        f"{m:+.3f}±{s:.3f}" for m, s in zip(show["rmse_diff"], show["rmse_diff_se"])
    ]
    cols = ["estimator", "outcome", "n_adjusted", "n_raw", "rho adj(N)", "rho raw(2N)", "diff"]
    cols += ["rmse adj(N)", "rmse raw(2N)", "rmse diff"]
    print(show[cols].to_string(index=False))

    needed = []
    for est_name in estimators:
        for kind in kinds:
            sub = summary.query("estimator == @est_name and outcome == @kind")
            for target in TARGETS:
                n_needed = matches_needed(
                    sub["n_matches"].to_numpy(), sub["spearman_mean"].to_numpy(), target
                )
                needed.append(
                    {"estimator": est_name, "outcome": kind, "target": target, "matches": n_needed}
                )
    needed = pd.DataFrame(needed)
    print("   -- matches needed for a target mean rank correlation (log-linear interpolation)")
    table = needed.pivot(index=["estimator", "target"], columns="outcome", values="matches")
    table = table[list(kinds)]
    for kind in kinds[1:]:
        table[f"raw / {kind}"] = table["raw"] / table[kind]
    print(table.round(2).to_string())
    print()
    return {
        "n_players": N_PLAYERS,
        "reps": reps,
        "grid": grid,
        "summary": summary.to_dict(orient="records"),
        "adjusted_n_vs_raw_2n": paired.to_dict(orient="records"),
        "matches_needed": needed.to_dict(orient="records"),
    }


def matches_needed(n: np.ndarray, rho: np.ndarray, target: float) -> float | None:
    """First crossing of ``target`` by the mean curve, interpolating linearly in log N."""
    order = np.argsort(n)
    n, rho = n[order], rho[order]
    for i in range(len(n)):
        if rho[i] >= target:
            if i == 0:
                return float(n[0])
            frac = (target - rho[i - 1]) / (rho[i] - rho[i - 1])
            return float(np.exp(np.log(n[i - 1]) + frac * (np.log(n[i]) - np.log(n[i - 1]))))
    return None


# -- 4. the Bayesian classifier ----------------------------------------------------------


def bayes_section(n: int, reps: int) -> dict | None:
    try:
        from skcodex import BayesianMatchupClassifier
        from skcodex.analysis import skill_table
    except ImportError:  # pragma: no cover
        return None
    rows = []
    start = time.perf_counter()
    for rep in range(reps):
        data = make_dice_matches(N_PLAYERS, 2 * n, random_state=1000 + rep)
        for kind, X, y, luck in (
            ("raw", data.X, data.y, None),
            ("adjusted_exact", data.X.iloc[:n], data.y[:n], data.luck[:n]),
        ):
            clf = BayesianMatchupClassifier(draws=500, tune=500, chains=2, random_state=rep)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                clf.fit(X, y, luck=luck)
            skill = skill_table(clf)["mean"]
            rows.append(
                {
                    "rep": rep,
                    "outcome": kind,
                    "n_matches": len(X),
                    "spearman": float(spearmanr(skill, data.skills[skill.index]).statistic),
                    "rmse": standardised_rmse(skill, data.skills),
                }
            )
    frame = pd.DataFrame(rows)
    print(
        f"4. Bayesian classifier, {reps} replications, posterior mean skill "
        f"({time.perf_counter() - start:.0f} s)"
    )
    out = frame.groupby(["outcome", "n_matches"])[["spearman", "rmse"]].agg(["mean", "sem"])
    print(out.round(3).to_string())
    print()
    return {"n_adjusted": n, "n_raw": 2 * n, "reps": reps, "rows": rows}


# -- figures -----------------------------------------------------------------------------


LABELS = {
    "raw": "raw results (y)",
    "adjusted_exact": "luck-adjusted, exact evaluator",
    "adjusted_biased": "luck-adjusted, biased evaluator",
}
COLOURS = {"raw": "tab:grey", "adjusted_exact": "tab:blue", "adjusted_biased": "tab:orange"}


def draw_curve(variance: dict, path: Path) -> None:
    """Rank correlation and RMSE against matches, raw and adjusted, Bradley-Terry fit."""
    summary = pd.DataFrame(variance["summary"]).query("estimator == 'bradley_terry'")
    needed = pd.DataFrame(variance["matches_needed"]).query(
        "estimator == 'bradley_terry' and target == 0.9"
    )
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2))
    for offset, kind in enumerate(LABELS):
        sub = summary.query("outcome == @kind").sort_values("n_matches")
        n = sub["n_matches"].to_numpy()
        for ax, metric in zip(axes, ("spearman", "rmse")):
            m, s = sub[f"{metric}_mean"].to_numpy(), sub[f"{metric}_sem"].to_numpy()
            ax.plot(n, m, "o-", color=COLOURS[kind], label=LABELS[kind])
            ax.fill_between(n, m - 2 * s, m + 2 * s, color=COLOURS[kind], alpha=0.2)
        hit = needed.query("outcome == @kind")["matches"].iloc[0]
        if hit is not None and np.isfinite(hit):
            axes[0].plot([hit, hit], [0, 0.9], ":", color=COLOURS[kind])
            axes[0].annotate(
                f"{hit:.0f}",
                (hit, 0.2),
                textcoords="offset points",
                xytext=(3, 4 + 12 * offset),
                color=COLOURS[kind],
                fontsize=8,
            )
    axes[0].axhline(0.9, ls="--", color="black", lw=0.8)
    axes[0].set_ylim(0.2, 1.0)
    axes[0].set_ylabel("rank correlation with true skill")
    axes[1].set_ylabel("RMSE of standardised skills")
    grid = sorted(summary["n_matches"].unique())
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xticks(grid, [str(g) for g in grid])
        ax.minorticks_off()
        ax.set_xlabel("matches")
        ax.grid(alpha=0.3)
    axes[0].legend(loc="upper left", fontsize=8)
    fig.suptitle(
        f"Dice game, {variance['n_players']} players, Bradley-Terry fit, "
        f"{variance['reps']} replications (bands: ±2 SE); dotted: matches needed for 0.9",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def draw_outcomes(path: Path, n_games: int = 20_000) -> dict:
    """Raw and luck-adjusted results of one pairing, played many times."""
    game = DiceGame()
    s1, s2 = 0.9, 0.6
    y, events = game.play(np.full(n_games, s1), np.full(n_games, s2), random_state=7)
    exact = luck_by_match(game.annotate_luck(events, "exact"), n_games)
    biased = luck_by_match(game.annotate_luck(events, "biased"), n_games)
    fig, axes = plt.subplots(2, 1, figsize=(7, 5), sharex=True)
    bins = np.linspace(-0.75, 1.75, 51)
    weights = np.full(n_games, 1.0 / n_games)
    axes[0].hist(y, bins=bins, weights=weights, color=COLOURS["raw"], label="raw result")
    for name, luck in (("adjusted_exact", exact), ("adjusted_biased", biased)):
        axes[1].hist(
            np.clip(adjusted_outcome(y, luck), bins[0], bins[-1]),
            bins=bins,
            weights=weights,
            histtype="step",
            lw=1.8,
            color=COLOURS[name],
            label=LABELS[name],
        )
    for ax in axes:
        ax.axvline(y.mean(), color="black", ls="--", lw=1, label=f"mean result {y.mean():.3f}")
        ax.set_ylabel("share of games")
        ax.legend(fontsize=8, loc="upper left")
    axes[1].set_xlabel("player 1's result (win = 1, loss = 0) and luck-adjusted result y - luck")
    axes[0].set_title(
        f"Player 1 (skill {s1}, moves first) against player 2 (skill {s2}), {n_games} games",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return {
        "skills": [s1, s2],
        "n_games": n_games,
        "mean_raw": float(y.mean()),
        "sd_raw": float(y.std(ddof=1)),
        "mean_adjusted_exact": float((y - exact).mean()),
        "sd_adjusted_exact": float((y - exact).std(ddof=1)),
        "mean_adjusted_biased": float((y - biased).mean()),
        "sd_adjusted_biased": float((y - biased).std(ddof=1)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small smoke run")
    parser.add_argument("--reps", type=int, default=None, help="replications per setting")
    parser.add_argument("--no-bayes", action="store_true", help="skip the Bayesian classifier")
    parser.add_argument(
        "--plot-only", action="store_true", help="redraw the figures from the saved results"
    )
    args = parser.parse_args()
    IMG.mkdir(parents=True, exist_ok=True)
    if args.plot_only:
        saved = json.loads(RESULTS.read_text())
        draw_curve(saved["variance_reduction"], IMG / "luck_curve.png")
        draw_outcomes(IMG / "luck_outcomes.png")
        return
    reps = args.reps or (4 if args.quick else 30)
    grid = [50, 100, 200, 400, 800] if args.quick else [50, 100, 200, 400, 800, 1600, 3200, 6400]
    n_games = 5_000 if args.quick else 50_000

    start = time.perf_counter()
    out = {"zare": zare_section(), "unbiasedness": unbiasedness_section(n_games)}
    variance = variance_section(grid, reps)
    out["variance_reduction"] = variance
    if not args.no_bayes:
        out["bayesian"] = bayes_section(100 if args.quick else 200, 2 if args.quick else 5)
    draw_curve(variance, IMG / "luck_curve.png")
    out["outcomes_figure"] = draw_outcomes(IMG / "luck_outcomes.png")
    print(
        "one pairing, raw vs adjusted: "
        + ", ".join(
            f"{k} {v:.3f}"
            for k, v in out["outcomes_figure"].items()
            if k.startswith(("mean", "sd"))
        )
    )
    out["seconds"] = time.perf_counter() - start
    out["quick"] = bool(args.quick)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=1, default=float))
    print(f"wrote {RESULTS.relative_to(ROOT)} and docs/img/luck_*.png in {out['seconds']:.0f} s")


if __name__ == "__main__":
    main()
