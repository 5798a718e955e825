"""Tournament forecasts on the real data, each made before the tournament started.

For every tournament of the codexdata folder with at least 8 entrants whose
format the simulator plays, the Bayesian model and Elo are fitted on the matches
that ended before it started; the tournament is then simulated with its
entrants (seeded by their entrant numbers), their decks in the order they played
them, and its format. Scored against what happened:

- winner log score: log P(the actual winner wins), the probability smoothed by
  one simulated tournament spread evenly over the entrants so that a winner
  never simulated scores finitely; the uniform forecast scores log(1/n);
- rank correlation: Spearman's correlation of the forecast expected wins with
  the wins each entrant actually recorded (every match in the file, timeouts
  and forfeits included); undefined for the uniform forecast (all equal).

Formats, from tournaments.csv's notes and the rounds in matches.csv: the seasonal
tournaments (CA*, XCA*, LDT*) are Swiss elimination at three losses; LLL2 is four
Swiss rounds and a top-four knockout; XCAFRR19 two round-robin groups into a
top-four knockout. MMM1 (a series, not a tournament) and RACE3 (asynchronous, no
rounds or set pairings) are left out.

Run: python benchmarks/tournament_forecasts.py [DATA_FOLDER] [--draws 300]
     [--simulations 10000] [--only CAMS20,LDT1] [--seed 0]
Writes benchmarks/results/tournament_forecasts.json (``_seed<N>`` for another seed).
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from skcodex import BayesianMatchupClassifier, EloClassifier
from skcodex.datasets import load_codex_matches
from skcodex.tournament import simulate_tournament

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parents[1] / "shared" / "data" / "codexdata"
OUT = HERE / "results" / "tournament_forecasts.json"

#: Formats by tournament; any other tournament type "tournament" is Swiss elimination.
FORMATS = {"LLL2": "swiss:4+knockout:4", "XCAFRR19": "groups:2+knockout:4"}
LEFT_OUT = {"RACE3": "asynchronous, no rounds or set pairings", "MMM1": "a series"}
DEFAULT_FORMAT = "losses:3"
MIN_ENTRANTS = 8


def tournaments(folder: Path) -> list[dict]:
    """Each tournament's start, entrants (in entrant order), decks, actual wins and winner."""
    matches = pd.read_csv(folder / "matches.csv")
    entries = pd.read_csv(folder / "entries.csv")
    kinds = pd.read_csv(folder / "tournaments.csv").set_index("tournament")["tournament_type"]
    out = []
    for name, games in matches.groupby("tournament", sort=False):
        if name in LEFT_OUT or kinds.get(name) != "tournament":
            continue
        listed = entries.loc[entries["tournament"] == name].sort_values("entrant_number")
        players = list(listed["player"])
        for p in pd.unique(games[["player1", "player2"]].to_numpy().ravel()):
            if p not in players:
                players.append(p)
        if len(players) < MIN_ENTRANTS:
            continue
        games = games.sort_values(["round", "round_match_number"], kind="stable")
        decks = {p: [] for p in players}
        for row in games.itertuples(index=False):
            for player, deck in ((row.player1, row.deck1), (row.player2, row.deck2)):
                if isinstance(deck, str) and deck.strip():
                    decks[player].append(deck.strip())
        wins = games["victor"].value_counts().reindex(players, fill_value=0)
        last = games.loc[games["round"] == games["round"].max()]
        winner = last["victor"].iloc[0] if len(last) == 1 else wins.idxmax()
        out.append(
            {
                "name": name,
                "start": pd.Timestamp(games["start"].min()),
                "players": players,
                "decks": decks,
                "wins": wins.to_numpy(),
                "winner": winner,
                "format": FORMATS.get(name, DEFAULT_FORMAT),
            }
        )
    return sorted(out, key=lambda t: t["start"])


def scores(p_win: np.ndarray, expected_wins: np.ndarray | None, t: dict, n_sims: int) -> dict:
    n = len(t["players"])
    smoothed = (p_win * n_sims + 1.0 / n) / (n_sims + 1)
    k = t["players"].index(t["winner"])
    rho = np.nan if expected_wins is None else spearmanr(expected_wins, t["wins"]).statistic
    return {"log_score": float(np.log(smoothed[k])), "rank_correlation": float(rho)}


def markdown_table(rows: list[dict], means: dict) -> str:
    """The docs' table: one row a tournament, then the means."""
    lines = [
        "| tournament | entrants | format | training matches | winner | skcodex P(winner) "
        "| log score skcodex | Elo | uniform | rank corr. skcodex | Elo |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['tournament']} | {r['entrants']} | {r['format']} | {r['training_matches']} "
            f"| {r['winner']} | {r['skcodex']['p_winner']:.3f} "
            f"| {r['skcodex']['log_score']:.2f} | {r['Elo']['log_score']:.2f} "
            f"| {r['uniform']['log_score']:.2f} | {r['skcodex']['rank_correlation']:.2f} "
            f"| {r['Elo']['rank_correlation']:.2f} |"
        )
    lines.append(
        f"| **mean** | | | | | | **{means['skcodex']['log_score']:.2f}** "
        f"| **{means['Elo']['log_score']:.2f}** | **{means['uniform']['log_score']:.2f}** "
        f"| **{means['skcodex']['rank_correlation']:.2f}** "
        f"| **{means['Elo']['rank_correlation']:.2f}** |"
    )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", nargs="?", default=str(DEFAULT_DATA))
    ap.add_argument("--draws", type=int, default=300)
    ap.add_argument("--chains", type=int, default=2)
    ap.add_argument("--simulations", type=int, default=10_000)
    ap.add_argument("--only", default=None, help="comma-separated tournaments")
    ap.add_argument("--seed", type=int, default=0, help="seed of the fits and simulations")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    folder = Path(args.data)
    data = load_codex_matches(folder)
    X, y = data.X, data.y
    rows = []
    started = time.perf_counter()
    for t in tournaments(folder):
        if args.only and t["name"] not in args.only.split(","):
            continue
        train = (X["end"] < t["start"]).to_numpy()
        entrants = pd.DataFrame(
            {"player": t["players"], "deck": [t["decks"][p] for p in t["players"]]}
        )
        n = len(t["players"])
        row = {
            "tournament": t["name"],
            "entrants": n,
            "format": t["format"],
            "training_matches": int(train.sum()),
            "winner": t["winner"],
            "uniform": scores(np.full(n, 1.0 / n), None, t, args.simulations),
        }
        tic = time.perf_counter()
        models = {
            "skcodex": BayesianMatchupClassifier(
                catalogue=data.catalogue,
                draws=args.draws,
                tune=args.draws,
                chains=args.chains,
                random_state=args.seed,
            ),
            "Elo": EloClassifier(),
        }
        for label, model in models.items():
            model.fit(X[train], y[train])
            fc = simulate_tournament(
                t["format"],
                entrants,
                model,
                n_simulations=args.simulations,
                random_state=args.seed,
            )
            row[label] = scores(fc.p_win, fc.wins.mean(axis=0), t, args.simulations)
            row[label]["p_winner"] = float(fc.p_win[t["players"].index(t["winner"])])
            row[label]["favourite"] = t["players"][int(np.argmax(fc.p_win))]
        row["seconds"] = time.perf_counter() - tic
        rows.append(row)
        print(
            f"{t['name']:<9} n={n:>2} train={row['training_matches']:>3}  log score: "
            f"skcodex {row['skcodex']['log_score']:6.3f}  Elo {row['Elo']['log_score']:6.3f}  "
            f"uniform {row['uniform']['log_score']:6.3f}   rank corr: skcodex "
            f"{row['skcodex']['rank_correlation']:5.2f}  Elo {row['Elo']['rank_correlation']:5.2f}"
            f"  ({row['seconds']:.0f} s)",
            flush=True,
        )
    means = {
        label: {
            "log_score": float(np.mean([r[label]["log_score"] for r in rows])),
            "rank_correlation": float(np.nanmean([r[label]["rank_correlation"] for r in rows]))
            if label != "uniform"
            else None,
        }
        for label in ("skcodex", "Elo", "uniform")
    }
    print("mean:", json.dumps(means))
    print(markdown_table(rows, means))
    result = {
        "settings": {
            "draws": args.draws,
            "tune": args.draws,
            "chains": args.chains,
            "simulations": args.simulations,
            "min_entrants": MIN_ENTRANTS,
            "left_out": LEFT_OUT,
            "only": args.only,
            "seed": args.seed,
        },
        "tournaments": rows,
        "mean": means,
        "seconds": time.perf_counter() - started,
    }
    if not args.only:
        out = OUT if args.seed == 0 else OUT.with_name(f"{OUT.stem}_seed{args.seed}.json")
        out.parent.mkdir(exist_ok=True)
        out.write_text(json.dumps(result, indent=2) + "\n")
        print(f"wrote {out}")


if __name__ == "__main__":
    main()
