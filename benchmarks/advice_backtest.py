"""What to bring, backtested on the forum tournaments: would the advice beat the players' pick?

Folds: each tournament of the shared data (codexdata) from the fourth on, with a
model fitted on every match that ended before it started (`skcodex.TournamentSplit`).
For every entrant of the fold's tournament, the field is the other entrants with the
deck each played there (the most played one if several): the advice is given knowing
the field, as on the eve of an event whose decklists are published. Two kinds of case:

A. **Across tournaments.** An entrant who played one deck in the tournament and had
   played two or more distinct decks before it: `deck_advice` ranks the decks they had
   played before by expected win rate against the field, and the advised deck (the
   first) is compared with the deck they brought. The advised deck's own results are
   unobserved when it is not the deck they brought, so the comparison is of forecasts:
   the gain the fold's model expected (advised minus brought, both against the same
   field), and the gain a later model sees (one fit on every match, the tournament's
   own included: hindsight, which has seen how the brought deck actually did).
   A candidate picked at random, scored by the later model, is the reference the
   advised deck must beat (a model agrees with itself: the advised deck is the fold
   model's best, and a later model, fitted on much the same matches, tends to agree).
   Realised: the brought deck's win rate in the tournament, beside the fold's
   forecast of it, split by whether the player happened to bring the advised deck.
B. **Within a tournament.** An entrant who played two or more decks in the tournament
   itself (some events allow it): the advice ranks those decks, and the advised deck's
   realised win rate there is compared with that of the player's other decks there.
   Both are observed, though against different opponents and in few matches.

The event chance (`format=`) is not backtested: these events' formats and brackets are
not in the data. Differences are summarised by their mean with a 90% bootstrap
interval over cases (resampling players' cases, 2,000 resamples).

Writes benchmarks/results/advice_backtest.json (``--out``); ``--markdown`` prints the
docs' table (docs/what-to-bring.md) from it.

Run: nice -n 10 python benchmarks/advice_backtest.py [--draws 300] [--chains 2] [--first 3]
"""

from __future__ import annotations

import argparse
import json
import platform
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning

from skcodex import BayesianMatchupClassifier, TournamentSplit
from skcodex.analysis import deck_advice
from skcodex.codex import deck_label, parse_deck
from skcodex.datasets import load_codex_matches

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parent.parent / "shared" / "data" / "codexdata"
RESULTS = HERE / "results" / "advice_backtest.json"


def _long(X: pd.DataFrame, y: np.ndarray, catalogue) -> pd.DataFrame:
    """One row per player and match: period, player, deck (its label), won."""
    won = np.asarray(y, dtype=int)
    labels = {}
    for deck in pd.concat([X["deck1"], X["deck2"]]):
        if str(deck) not in labels:
            labels[str(deck)] = deck_label(parse_deck(deck, catalogue), catalogue)
    parts = []
    for side, w in (("1", won), ("2", 1 - won)):
        parts.append(
            pd.DataFrame(
                {
                    "period": X["period"].to_numpy(),
                    "player": X[f"player{side}"].to_numpy(),
                    "deck": [labels[str(d)] for d in X[f"deck{side}"]],
                    "won": w,
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def _fit(X, y, args) -> BayesianMatchupClassifier:
    clf = BayesianMatchupClassifier(
        draws=args.draws, tune=args.draws, chains=args.chains, random_state=args.seed
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # short chains, said in the docs
        return clf.fit(X, y)


def _win_rates(clf, player, decks, field):
    """Each deck's expected win rate (by label) and the advice table."""
    advice = deck_advice(clf, player, decks, field, n_draws=None)
    return advice.set_index("deck")["win_rate"], advice


def _bootstrap(values: np.ndarray, groups: np.ndarray, rng, n: int = 2000) -> list[float]:
    """90% interval of the mean, resampling groups (players) with their cases."""
    if len(values) == 0:
        return [float("nan"), float("nan")]
    keys = np.unique(groups)
    by = [values[groups == k] for k in keys]
    means = []
    for _ in range(n):
        pick = rng.integers(len(keys), size=len(keys))
        means.append(np.concatenate([by[i] for i in pick]).mean())
    return [float(np.quantile(means, 0.05)), float(np.quantile(means, 0.95))]


def run(args) -> dict:
    data = load_codex_matches(args.data)
    X, y = data.X, np.asarray(data.y)
    X = X.reset_index(drop=True)
    long = _long(X, y, data.catalogue)
    n_periods = X["period"].nunique()
    splitter = TournamentSplit(n_splits=n_periods - args.first)
    started = time.perf_counter()
    full = _fit(X, y, args)  # the later model: every match, each fold's own included
    cases_a, cases_b = [], []
    for fold, (train, test) in enumerate(splitter.split(X)):
        period = X["period"].iloc[test[0]]
        if len(train) < 50:
            continue
        clf = _fit(X.iloc[train], y[train], args)
        before = long[long.index.isin(train) | long.index.isin(train + len(X))]
        here = long[long.index.isin(test) | long.index.isin(test + len(X))]
        played = here.groupby("player")["deck"].agg(lambda d: d.value_counts().index[0])
        for player, decks_here in here.groupby("player")["deck"]:
            field = pd.DataFrame(
                {"player": [p for p in played.index if p != player],
                 "deck": [played[p] for p in played.index if p != player]}
            )  # fmt: skip
            if len(field) == 0:
                continue
            record = here[here["player"] == player]
            distinct_here = list(dict.fromkeys(decks_here))
            if len(distinct_here) >= 2:  # B: several decks in this tournament
                rates, advice = _win_rates(clf, player, distinct_here, field)
                advised_raw = advice["deck"].iloc[0]
                mine = record[record["deck"] == advised_raw]["won"]
                rest = record[record["deck"] != advised_raw]["won"]
                cases_b.append(
                    {
                        "period": period, "player": player, "decks": distinct_here,
                        "advised": advised_raw, "p_best": float(advice["p_best_win_rate"].iloc[0]),
                        "advised_realised": float(mine.mean()), "advised_matches": len(mine),
                        "others_realised": float(rest.mean()), "others_matches": len(rest),
                    }
                )  # fmt: skip
                continue
            brought = distinct_here[0]
            history = before[before["player"] == player]["deck"]
            candidates = list(dict.fromkeys(history[::-1]))  # most recent first
            if len(candidates) < 2:
                continue
            evaluated = candidates if brought in candidates else [*candidates, brought]
            rates, advice = _win_rates(clf, player, evaluated, field)
            ranked = advice[advice["deck"].isin(candidates)]
            advised = ranked["deck"].iloc[0]
            later, _ = _win_rates(full, player, evaluated, field)
            cases_a.append(
                {
                    "period": period, "player": player, "n_candidates": len(candidates),
                    "brought": brought, "brought_seen_before": brought in candidates,
                    "advised": advised, "followed": advised == brought,
                    "p_best": float(ranked["p_best_win_rate"].iloc[0]),
                    "predicted_advised": float(rates[advised]),
                    "predicted_brought": float(rates[brought]),
                    "later_advised": float(later[advised]),
                    "later_brought": float(later[brought]),
                    "later_random": float(later[candidates].mean()),
                    "realised_brought": float(record["won"].mean()),
                    "matches": len(record),
                }
            )  # fmt: skip
        print(f"fold {fold + 1}: {period}, {len(cases_a)} cases A, {len(cases_b)} cases B so far")
    seconds = time.perf_counter() - started
    return {
        "cases_a": cases_a,
        "cases_b": cases_b,
        "summary": summarise(cases_a, cases_b, args.seed),
        "settings": {"draws": args.draws, "chains": args.chains, "first": args.first,
                     "seed": args.seed, "n_matches": len(X), "n_periods": int(n_periods)},
        "seconds": round(seconds, 1),
        "machine": {"python": platform.python_version(), "processor": platform.machine()},
    }  # fmt: skip


def summarise(cases_a: list, cases_b: list, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    a = pd.DataFrame(cases_a)
    b = pd.DataFrame(cases_b)
    out: dict = {"n_cases_a": len(a), "n_cases_b": len(b)}
    if len(a):
        groups = a["player"].to_numpy()
        gain = (a["predicted_advised"] - a["predicted_brought"]).to_numpy()
        later = (a["later_advised"] - a["later_brought"]).to_numpy()
        random = (a["later_random"] - a["later_brought"]).to_numpy()
        out.update(
            n_players_a=int(a["player"].nunique()),
            followed_share=float(a["followed"].mean()),
            brought_seen_before_share=float(a["brought_seen_before"].mean()),
            expected_gain=float(gain.mean()),
            expected_gain_interval=_bootstrap(gain, groups, rng),
            later_gain=float(later.mean()),
            later_gain_interval=_bootstrap(later, groups, rng),
            later_gain_positive_share=float((later > 0).mean()),
            later_random_gain=float(random.mean()),
            later_random_gain_interval=_bootstrap(random, groups, rng),
            later_over_random=float((later - random).mean()),
            later_over_random_interval=_bootstrap(later - random, groups, rng),
            mean_p_best=float(a["p_best"].mean()),
        )
        for name, part in (("followed", a[a["followed"]]), ("not_followed", a[~a["followed"]])):
            w = part["matches"].to_numpy()
            out[f"{name}_cases"] = len(part)
            out[f"{name}_matches"] = int(w.sum())
            if len(part):
                out[f"{name}_realised"] = float(np.average(part["realised_brought"], weights=w))
                out[f"{name}_predicted"] = float(np.average(part["predicted_brought"], weights=w))
    if len(b):
        diff = (b["advised_realised"] - b["others_realised"]).to_numpy()
        out.update(
            n_players_b=int(b["player"].nunique()),
            within_realised_gain=float(diff.mean()),
            within_realised_gain_interval=_bootstrap(diff, b["player"].to_numpy(), rng),
            within_advised_better_share=float((diff > 0).mean()),
            within_advised_worse_share=float((diff < 0).mean()),
            within_matches=int(b["advised_matches"].sum() + b["others_matches"].sum()),
        )
    return out


def markdown(results: dict) -> str:
    s = results["summary"]

    def ci(key: str) -> str:
        lo, hi = s[key]
        return f"{s[key.removesuffix('_interval')]:+.3f} [{lo:+.3f}, {hi:+.3f}]"

    rows = [
        "| | value |",
        "|---|---|",
        f"| A: cases (entrant with one deck, two or more played before) | {s['n_cases_a']} "
        f"({s['n_players_a']} players) |",
        f"| A: brought a deck they had played before | {s['brought_seen_before_share']:.0%} |",
        f"| A: brought the advised deck | {s['followed_share']:.0%} |",
        f"| A: mean P(advised deck is best) | {s['mean_p_best']:.2f} |",
        f"| A: expected gain in win rate, advised minus brought (fold's model) | "
        f"{ci('expected_gain_interval')} |",
        f"| A: the same gain seen by a later model (every match; hindsight) | "
        f"{ci('later_gain_interval')} |",
        f"| A: cases where the later model favours the advised deck | "
        f"{s['later_gain_positive_share']:.0%} |",
        f"| A: the later model's gain for a candidate picked at random (reference) | "
        f"{ci('later_random_gain_interval')} |",
        f"| A: the later model's gain of the advised deck over one picked at random | "
        f"{ci('later_over_random_interval')} |",
    ]
    for name, words in (("followed", "brought the advised deck"),
                        ("not_followed", "brought another deck")):  # fmt: skip
        if s.get(f"{name}_cases"):
            rows.append(
                f"| A: {words}: realised win rate (forecast) | "
                f"{s[f'{name}_realised']:.3f} ({s[f'{name}_predicted']:.3f}), "
                f"{s[f'{name}_cases']} cases, {s[f'{name}_matches']} matches |"
            )
    if s.get("n_cases_b"):
        rows += [
            f"| B: cases (entrant with two or more decks in one tournament) | {s['n_cases_b']} "
            f"({s['n_players_b']} players, {s['within_matches']} matches) |",
            f"| B: realised win rate, advised deck minus the player's other decks | "
            f"{ci('within_realised_gain_interval')} |",
            f"| B: advised deck did better / worse | {s['within_advised_better_share']:.0%} / "
            f"{s['within_advised_worse_share']:.0%} |",
        ]
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="codexdata folder")
    parser.add_argument("--draws", type=int, default=300, help="draws (and tuning) per chain")
    parser.add_argument("--chains", type=int, default=2)
    parser.add_argument("--first", type=int, default=3, help="tournaments kept for training only")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--markdown", action="store_true", help="print the table from --out")
    args = parser.parse_args()
    if args.markdown:
        print(markdown(json.loads(args.out.read_text())))
        return
    results = run(args)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1, default=str) + "\n")
    print(markdown(results))
    print(f"wrote {args.out} ({results['seconds']:.0f} s)")


if __name__ == "__main__":
    main()
