"""Real records with draws, on forward folds: NCAA ice hockey 2009-10 and a chess player's games.

``--record hockey``: the record of `game_records.hockey` with its 125 ties kept as
draws (``y = 0.5``): 1,083 games, the home team player 1, a week a period, the forward
folds the last ten weeks (each forecast by models fitted on every game before it).
``--record chess``: `game_records.chess`, Vladimir Malakhov's 1,802 games (787 draws)
from PySimpleGUI-chess 0.0.3's ``Malakhov.pgn``, White player 1, the opening's ECO
family (letter and first digit) the "deck", a year a period, the forward folds the last
five years.

Models, each forecasting the three outcomes (home win, tie, away win):

- **skcodex**: `BayesianMatchupClassifier` with its defaults (the draw threshold
  learned; with draws the ``"auto"`` parts stay off); 4 chains x 1,000 draws.
- **TrueSkill Through Time** (``trueskillthroughtime``) with its draw probability set
  to the training share of ties (its draw margin), forecasting
  ``Phi((d -+ margin) / s)``; the prior and drift of `rating_systems.TTTClassifier`.
- **Elo** scoring a tie as 0.5, with a home advantage from the training home score
  and k chosen among 8-48 by the prequential RPS of the training table's last three
  weeks; three outcomes from its expected score E and the training tie share t:
  P(home win) = E - t/2, P(away win) = 1 - E - t/2 (clipped, renormalised).
- **Glicko-2** (`skcodex.ratings.glicko2_update`, tau 0.5, one period a week), a
  tie scored 0.5, home advantage and three outcomes as Elo's.
- **shares**: the training shares of the three outcomes (no player information).

Scores: the ranked probability score, the multi-class Brier score and the
three-outcome log loss (lower is better), with each model's difference from skcodex
and its 95% paired bootstrap interval over games. Prints a table; writes
``benchmarks/results/draw_records_<record>.json``.

Run: nice -n 10 python benchmarks/draw_records.py --record hockey [--draws 1000] [--chains 4]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import ndtr

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from game_records import chess, hockey  # noqa: E402
from rating_systems import _chronological, tournament_index  # noqa: E402

from skcodex import BayesianMatchupClassifier  # noqa: E402
from skcodex.metrics import multiclass_brier_score, ranked_probability_score  # noqa: E402
from skcodex.ratings import glicko2_update  # noqa: E402

#: Forecasts are clipped to this floor (then renormalised) before a log loss is taken.
FLOOR = 1e-4
Q = math.log(10) / 400


def three_from_expected(e: np.ndarray, tie: float) -> np.ndarray:
    """[P(away win), P(tie), P(home win)] with expected home score ``e`` and tie chance ``tie``."""
    win = np.clip(e - tie / 2, FLOOR, 1)
    loss = np.clip(1 - e - tie / 2, FLOOR, 1)
    p = np.column_stack([loss, np.full(len(e), tie), win])
    return p / p.sum(axis=1, keepdims=True)


def home_advantage(y: np.ndarray) -> float:
    """Elo points that make the training home score the expected one."""
    s = float(np.clip(np.mean(y), 0.01, 0.99))
    return 400 * math.log10(s / (1 - s))


def elo_replay(X, y, k, h, ratings=None, score_rows=None):
    """Replay Elo in time order; returns ratings and the pre-game expected home scores."""
    ratings = {} if ratings is None else ratings
    expected = np.empty(len(X))
    for i in _chronological(X):
        a, b = str(X["player1"].iat[i]), str(X["player2"].iat[i])
        ra, rb = ratings.get(a, 1500.0), ratings.get(b, 1500.0)
        e = 1 / (1 + 10 ** (-(ra + h - rb) / 400))
        expected[i] = e
        ratings[a], ratings[b] = ra + k * (y[i] - e), rb - k * (y[i] - e)
    return ratings, expected


def elo_forecast(Xtr, ytr, Xte) -> np.ndarray:
    h = home_advantage(ytr)
    tie = float(np.mean(ytr == 0.5))
    weeks = Xtr["period"].to_numpy()
    late = weeks >= np.sort(np.unique(weeks))[-3]
    best = None
    for k in (8, 16, 24, 32, 48):
        _, e = elo_replay(Xtr, ytr, k, h)
        rps = ranked_probability_score(ytr[late], three_from_expected(e[late], tie))
        if best is None or rps < best[0]:
            best = (rps, k)
    ratings, _ = elo_replay(Xtr, ytr, best[1], h)
    e = np.array(
        [
            1 / (1 + 10 ** (-(ratings.get(str(a), 1500.0) + h - ratings.get(str(b), 1500.0)) / 400))
            for a, b in zip(Xte["player1"], Xte["player2"])
        ]
    )
    return three_from_expected(e, tie)


def _g(rd2):
    return 1 / np.sqrt(1 + 3 * Q**2 * rd2 / math.pi**2)


def glicko_forecast(Xtr, ytr, Xte, tau: float = 0.5) -> np.ndarray:
    h = home_advantage(ytr)
    tie = float(np.mean(ytr == 0.5))
    state: dict[str, tuple[float, float, float]] = {}
    new = (1500.0, 350.0, 0.06)
    weeks = Xtr["period"].to_numpy()
    for week in np.sort(np.unique(weeks)):
        rows = np.flatnonzero(weeks == week)
        games: dict[str, tuple[list, list]] = {}
        start = dict(state)
        for i in rows:
            a, b = str(Xtr["player1"].iat[i]), str(Xtr["player2"].iat[i])
            ra, rb = start.get(a, new), start.get(b, new)
            games.setdefault(a, ([], []))
            games.setdefault(b, ([], []))
            games[a][0].append((rb[0] - h, rb[1]))
            games[a][1].append(float(ytr[i]))
            games[b][0].append((ra[0] + h, ra[1]))
            games[b][1].append(1 - float(ytr[i]))
        for p, (opponents, scores) in games.items():
            state[p] = glicko2_update(start.get(p, new), opponents, scores, tau=tau)
        for p in start:  # a week without games widens the deviation
            if p not in games:
                state[p] = glicko2_update(start[p], [], [], tau=tau)
    e = []
    for a, b in zip(Xte["player1"], Xte["player2"]):
        (ra, da, _), (rb, db, _) = state.get(str(a), new), state.get(str(b), new)
        e.append(1 / (1 + 10 ** (-_g(da**2 + db**2) * (ra + h - rb) / 400)))
    return three_from_expected(np.array(e), tie)


def ttt_forecast(Xtr, ytr, Xte, sigma=1.6, beta=1.0, gamma=0.02) -> np.ndarray:
    import trueskillthroughtime as ttt

    tie = float(np.mean(ytr == 0.5))
    order = _chronological(Xtr)
    step = tournament_index(Xtr)
    composition = [[[str(Xtr["player1"].iat[i])], [str(Xtr["player2"].iat[i])]] for i in order]
    results = [[float(ytr[i]), 1.0 - float(ytr[i])] for i in order]  # a tie: equal scores
    history = ttt.History(
        composition,
        results=results,
        times=[int(step[i]) for i in order],
        mu=0.0,
        sigma=sigma,
        beta=beta,
        gamma=gamma,
        p_draw=tie,
    )
    history.convergence(verbose=False)
    skill = {p: (c[-1][1].mu, c[-1][1].sigma) for p, c in history.learning_curves().items()}
    margin = ttt.compute_margin(tie, math.sqrt(2) * beta)
    out = []
    for a, b in zip(Xte["player1"], Xte["player2"]):
        (ma, sa), (mb, sb) = skill.get(str(a), (0.0, sigma)), skill.get(str(b), (0.0, sigma))
        s = math.sqrt(sa**2 + sb**2 + 2 * gamma**2 + 2 * beta**2)
        win, loss = ndtr((ma - mb - margin) / s), ndtr((mb - ma - margin) / s)
        out.append([loss, 1 - win - loss, win])
    return np.array(out)


def shares_forecast(Xtr, ytr, Xte) -> np.ndarray:
    share = np.array([np.mean(ytr == c) for c in (0.0, 0.5, 1.0)])
    return np.tile(share, (len(Xte), 1))


def log_loss_rows(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    p = np.clip(p, FLOOR, 1)
    p = p / p.sum(axis=1, keepdims=True)
    return -np.log(p[np.arange(len(y)), (2 * y).astype(int)])


def per_game(y: np.ndarray, p: np.ndarray) -> dict[str, np.ndarray]:
    onehot = (y[:, None] == np.array([0.0, 0.5, 1.0])).astype(float)
    f, o = np.cumsum(p, axis=1)[:, :2], np.cumsum(onehot, axis=1)[:, :2]
    return {
        "rps": ((f - o) ** 2).sum(axis=1) / 2,
        "brier3": ((p - onehot) ** 2).sum(axis=1),
        "log loss": log_loss_rows(y, p),
    }


def bootstrap(diff: np.ndarray, n: int = 4000, seed: int = 0) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(0, len(diff), (n, len(diff)))].mean(axis=1)
    return float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--record", choices=("hockey", "chess"), default="hockey")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    out = args.out or str(HERE / "results" / f"draw_records_{args.record}.json")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # rdata's note on the file type
        X, y, splitter = hockey(ties=True) if args.record == "hockey" else chess()
    models = {
        "skcodex": None,
        "TrueSkill Through Time": ttt_forecast,
        "Elo (k tuned)": elo_forecast,
        "Glicko-2": glicko_forecast,
        "shares": shares_forecast,
    }
    forecasts = {name: np.empty((len(y), 3)) for name in models}
    tested = np.zeros(len(y), dtype=bool)
    thresholds = []
    start = time.perf_counter()
    for fold, (train, test) in enumerate(splitter.split(X)):
        Xtr, ytr, Xte = X.iloc[train], y[train], X.iloc[test]
        for name, forecast in models.items():
            if forecast is None:
                clf = BayesianMatchupClassifier(
                    draws=args.draws,
                    tune=args.draws,
                    chains=args.chains,
                    cores=args.cores,
                    random_state=fold,
                )
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    clf.fit(Xtr, ytr)
                    forecasts[name][test] = clf.predict_proba(Xte)
                thresholds.append(clf.draw_.loc["threshold"].to_dict())
            else:
                forecasts[name][test] = forecast(Xtr, ytr, Xte)
        tested[test] = True
        took = time.perf_counter() - start
        print(f"fold {fold + 1}: {len(test)} games, {took:.0f} s", flush=True)
    yt = y[tested]
    scores = {name: per_game(yt, p[tested]) for name, p in forecasts.items()}
    for name, p in forecasts.items():  # the library's scores agree with the per-game ones
        assert np.isclose(ranked_probability_score(yt, p[tested]), scores[name]["rps"].mean())
        assert np.isclose(multiclass_brier_score(yt, p[tested]), scores[name]["brier3"].mean())
    table = []
    for name in models:
        row = {"model": name}
        for metric in ("rps", "brier3", "log loss"):
            row[metric] = float(scores[name][metric].mean())
        diff = scores[name]["rps"] - scores["skcodex"]["rps"]
        row["rps minus skcodex"] = float(diff.mean())
        row["interval"] = bootstrap(diff) if name != "skcodex" else (0.0, 0.0)
        table.append(row)
    frame = pd.DataFrame(table).set_index("model")
    print(f"\n{int(tested.sum())} forecast games ({int(np.sum(yt == 0.5))} ties)")
    print(frame.to_string(float_format=lambda v: f"{v:.4f}"))
    records = {
        "hockey": "NCAA men's ice hockey 2009-10 (BradleyTerry2 icehockey), ties kept",
        "chess": "Vladimir Malakhov's games 1992-2018 (PySimpleGUI-chess 0.0.3 Malakhov.pgn)",
    }
    result = {
        "record": records[args.record],
        "games": len(y),
        "ties": int(np.sum(y == 0.5)),
        "forecast_games": int(tested.sum()),
        "forecast_ties": int(np.sum(yt == 0.5)),
        "sampling": {"draws": args.draws, "tune": args.draws, "chains": args.chains},
        "table": table,
        "skcodex_threshold_by_fold": thresholds,
        "seconds": time.perf_counter() - start,
    }
    Path(out).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
