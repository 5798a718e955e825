"""The rule for changing a default (docs/model-choice.md), applied to the estimator's defaults.

For each record, every model is fitted on each forward fold's training matches (every
match that ended before the fold began) and forecasts the fold:

- ``codex``: the shared forum data, every tournament from the fifth on (14 folds);
- the public records of `game_records` (``nfl``: the last five seasons; ``hockey``: the
  last ten weeks; ``football``: the Premier League's last four seasons; ``chess``: a chess
  player's decisive games, the last five years), when their packages are installed.

Models: the estimator's defaults, the static model (no walk, no debut), the ``"auto"``
parts decided by the table's own forward evidence (``part_selection="forward"``), the
walk and debut forced on (what ``"auto"`` fitted on these tables before), the debut
option alone and with the experience effect (``experience=True``), the walk under its
exponential step prior (alone and with the debut option), the static model with exponential
priors on the spec blocks' spreads (``spec_prior="exponential"``), Elo with its
k chosen by forward validation inside each training table (`ForwardTuned`), a
players-only logistic regression (its penalty chosen the same way), Whole-History
Rating and TrueSkill Through Time, each with the drift per period set for the forum's
tournaments and with it chosen the same way (``DRIFT_GRIDS``); and Elo, WHR and
TrueSkill Through Time tuned the same way and given player 1's edge (``HOME_EDGE_PARAMS``), which
the Bayesian model learns as its starter-v-starter cell.

The rule: a candidate replaces the incumbent only if, pooled over every fold, its Brier
score is lower, and on neither half of the folds (the earlier and the later) it is
higher by more than one standard error of the paired difference; and it does not lose
on the other games' records. Prints, per record, every model's pooled Brier and log
loss, each half, the paired differences from the static model with their standard
errors and 95% bootstrap intervals, and the rule's verdict for each change against the
static model.

Each record's forecasts are also split into the matches with a newcomer (a player not in
the fold's training matches) and those between seen players, on all folds and on the later
half.

Run: python benchmarks/default_rule.py [--records codex,nfl,hockey,football,chess,nba]
     [--draws 1000] [--cache DIR] [--models NAME,...] [--extend]
     [--out benchmarks/results/default_rule.json]
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import game_records
import numpy as np
import pandas as pd
from forecast import DEFAULT_DATA, HERE, STATIC, cached_forecasts, rating_systems
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin, clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline

from skcodex import (
    BayesianMatchupClassifier,
    EloClassifier,
    TournamentSplit,
    brier_score,
    brier_scorer,
)
from skcodex.codex import PlainCatalogue
from skcodex.datasets import load_codex_matches
from skcodex.evaluation import log_loss, paired_bootstrap

DEFAULT = "skcodex default"
STATIC_NAME = "skcodex static"
EARLIER = "skcodex walk + debut"
EVIDENCE = "skcodex forward evidence"
#: The learned newcomer mean on static skills: the debut offset (and its deck factor) alone.
DEBUT = "skcodex debut"
#: The debut offset and a skill mean by rating periods played before (a learning curve).
EXPERIENCE = "skcodex debut + experience"
#: The walk under the step prior whose mode is no drift (``step_prior="exponential"``).
EXPONENTIAL_WALK = "skcodex exponential-step walk"
#: That walk with the debut option.
EXPONENTIAL_WALK_DEBUT = "skcodex exponential-step walk + debut"
#: The spec blocks' spreads under the prior whose mode is no effect (``spec_prior="exponential"``).
EXPONENTIAL_SPECS = "skcodex exponential spec spreads"
#: The whole-history rating systems' drift per period, tuned as Elo's k is.
DRIFT_GRIDS = {
    "WHR": {"w2": [1.0, 4.0, 14.0, 56.0, 225.0, 900.0, 3600.0]},
    "TrueSkill Through Time": {"gamma": [0.0025, 0.005, 0.01, 0.02, 0.04, 0.08, 0.16]},
}
#: Player 1's edge for each: Elo's and WHR's from player 1's training share of wins
#: (``first_mover_advantage="auto"``), TrueSkill Through Time's a learned teammate.
HOME_EDGE_PARAMS = {
    "WHR": {"first_mover_advantage": "auto"},
    "TrueSkill Through Time": {"first_mover": True},
}
ELO_K_GRID = [8, 16, 24, 32, 48, 64]
#: The changes the rule is applied to, each against the static model.
CHANGES = (
    EARLIER,
    EVIDENCE,
    DEBUT,
    EXPERIENCE,
    EXPONENTIAL_WALK,
    EXPONENTIAL_WALK_DEBUT,
    EXPONENTIAL_SPECS,
)


class PlayersOnly(TransformerMixin, BaseEstimator):
    """+1 for player 1's column, -1 for player 2's: a Bradley-Terry design of players alone."""

    def fit(self, X, y=None):
        self.players_ = np.unique(np.concatenate([X["player1"], X["player2"]]).astype(str))
        return self

    def transform(self, X):
        from scipy import sparse

        n = len(X)
        out = sparse.lil_matrix((n, len(self.players_)))
        for side, sign in (("player1", 1.0), ("player2", -1.0)):
            at = np.searchsorted(self.players_, X[side].astype(str).to_numpy())
            known = (at < len(self.players_)) & (
                self.players_[np.minimum(at, len(self.players_) - 1)] == X[side].astype(str)
            )
            out[np.flatnonzero(known), at[known]] = sign
        return out.tocsr()


class ForwardTuned(ClassifierMixin, BaseEstimator):
    """``estimator`` with ``param_grid`` chosen by forward validation on the last training periods.

    The last three periods of the training table (as many as it has after its first, when
    it has fewer than four) are each forecast from the ones before; with a single period
    there is nothing to validate on and ``estimator``'s own parameters are kept.
    """

    def __init__(self, estimator=None, param_grid=None):
        self.estimator = estimator
        self.param_grid = param_grid

    def fit(self, X, y):
        splits = min(3, X["period"].nunique() - 1)
        if splits >= 1:
            search = GridSearchCV(
                clone(self.estimator),
                self.param_grid,
                cv=TournamentSplit(n_splits=splits),
                scoring=brier_scorer,
            ).fit(X, y)
            self.best_params_, self.best_estimator_ = search.best_params_, search.best_estimator_
        else:
            self.best_params_, self.best_estimator_ = {}, clone(self.estimator).fit(X, y)
        self.classes_ = self.best_estimator_.classes_
        return self

    def predict_proba(self, X):
        return self.best_estimator_.predict_proba(X)


def tuned(model, grid: dict) -> ForwardTuned:
    """``model`` with ``grid`` chosen by forward validation on the last 3 training periods."""
    return ForwardTuned(model, grid)


def models(catalogue, draws: int) -> dict:
    bayes = {"draws": draws, "tune": draws, "random_state": 0, "catalogue": catalogue}
    out = {
        DEFAULT: BayesianMatchupClassifier(**bayes),
        STATIC_NAME: BayesianMatchupClassifier(**bayes, **STATIC),
        EVIDENCE: BayesianMatchupClassifier(**bayes, part_selection="forward"),
        EARLIER: BayesianMatchupClassifier(**bayes, time_varying=True, debut=True),
        DEBUT: BayesianMatchupClassifier(**bayes, time_varying=False, debut=True),
        EXPERIENCE: BayesianMatchupClassifier(
            **bayes, time_varying=False, debut=True, experience=True
        ),
        EXPONENTIAL_WALK: BayesianMatchupClassifier(
            **bayes, time_varying=True, debut=False, step_prior="exponential"
        ),
        EXPONENTIAL_WALK_DEBUT: BayesianMatchupClassifier(
            **bayes, time_varying=True, debut=True, step_prior="exponential"
        ),
        EXPONENTIAL_SPECS: BayesianMatchupClassifier(**bayes, **STATIC, spec_prior="exponential"),
        "Elo (k tuned)": tuned(EloClassifier(), {"k_factor": ELO_K_GRID}),
        "Elo with home edge (k tuned)": tuned(
            EloClassifier(first_mover_advantage="auto"), {"k_factor": ELO_K_GRID}
        ),
        "players-only logistic": tuned(
            make_pipeline(PlayersOnly(), LogisticRegression(max_iter=2000)),
            {"logisticregression__C": list(np.logspace(-2, 2, 9))},
        ),
    }
    systems = rating_systems()
    for name in ("WHR", "TrueSkill Through Time"):
        if name in systems:
            out[name] = systems[name]
            # Its drift per period chosen like Elo's k, inside each training table: steps of
            # two in the drift's sd, from a nearly static rating to a fast one, around the
            # drift set for the forum's tournaments (WHR 14 Elo squared, TTT 0.01).
            (drift,) = DRIFT_GRIDS[name]
            out[f"{name} ({drift} tuned)"] = tuned(clone(systems[name]), DRIFT_GRIDS[name])
            # and with player 1's edge, which the Bayesian model and Elo's "auto" have
            out[f"{name} with home edge ({drift} tuned)"] = tuned(
                clone(systems[name]).set_params(**HOME_EDGE_PARAMS[name]), DRIFT_GRIDS[name]
            )
    return out


def paired(forecasts: pd.DataFrame, model: str, other: str) -> dict:
    """Brier difference ``model - other``: mean, standard error, 95% bootstrap interval."""
    y = forecasts["y"].to_numpy()
    d = (y - forecasts[model].to_numpy()) ** 2 - (y - forecasts[other].to_numpy()) ** 2
    boot = paired_bootstrap(forecasts, model, other)
    return {
        "difference": float(d.mean()),
        "se": float(d.std(ddof=1) / np.sqrt(len(d))),
        "lower": boot["lower"],
        "upper": boot["upper"],
    }


def halves(forecasts: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """All folds, the earlier half of the folds and the later half (by fold order)."""
    split = forecasts["split"].to_numpy()
    folds = np.unique(split)
    cut = folds[len(folds) // 2]
    return {
        "all folds": forecasts,
        "earlier half": forecasts[split < cut],
        "later half": forecasts[split >= cut],
    }


def rule(forecasts: pd.DataFrame, candidate: str, incumbent: str) -> dict:
    """The parts of the rule of docs/model-choice.md on one record.

    ``wins pooled``: a lower pooled Brier score; ``halves hold``: on neither half of the
    folds higher by more than one standard error of the paired difference (the forum
    data's test); ``does not lose``: a pooled Brier score no higher (the other records'
    test).
    """
    parts = {name: paired(part, candidate, incumbent) for name, part in halves(forecasts).items()}
    pooled = parts["all folds"]["difference"]
    holds = all(parts[h]["difference"] <= parts[h]["se"] for h in ("earlier half", "later half"))
    return {
        "parts": parts,
        "wins pooled": bool(pooled < 0),
        "halves hold": bool(holds),
        "does not lose": bool(pooled <= 0),
    }


def verdict(records: dict, key: str) -> dict:
    """The whole rule for one change: the forum data's folds, then every other record."""
    codex = records.get("codex", {}).get(key)
    others = {name: rec[key]["does not lose"] for name, rec in records.items() if name != "codex"}
    forum = None if codex is None else codex["wins pooled"] and codex["halves hold"]
    passes = bool(forum) and len(others) >= 2 and all(others.values())
    return {"forum folds": forum, "other records": others, "passes": passes}


def record(name: str, args) -> tuple[pd.DataFrame, pd.DataFrame, object]:
    if name == "codex":
        data = load_codex_matches(args.data)
        X, y = data.X, data.y
        return X, y, TournamentSplit(n_splits=14), None
    X, y, cv = game_records.RECORDS[name]()
    first = X["deck1"].iloc[0]  # a team or opening alone, or a Deck with its side components
    return X, y, cv, PlainCatalogue(specs_per_deck=len(getattr(first, "specs", ())))


def newcomer_sides(forecasts, X, y, cv) -> tuple[np.ndarray, np.ndarray]:
    """Per forecast match: is player 1 new, is player 2 new (to the fold's training matches)."""
    flags = {}
    for split, (train, test) in enumerate(cv.split(X, y)):
        seen = set(X["player1"].iloc[train]) | set(X["player2"].iloc[train])
        for row in test:
            flags[(split, int(row))] = (
                X["player1"].iloc[row] not in seen,
                X["player2"].iloc[row] not in seen,
            )
    pairs = [flags[(int(s), int(r))] for s, r in zip(forecasts["split"], forecasts["row"])]
    new = np.array(pairs, dtype=bool).reshape(-1, 2)
    return new[:, 0], new[:, 1]


def newcomer_flags(forecasts: pd.DataFrame, X: pd.DataFrame, y, cv) -> np.ndarray:
    """Per forecast match, whether either side's player is new to the fold's training matches."""
    new1, new2 = newcomer_sides(forecasts, X, y, cv)
    return new1 | new2


def newcomer_split(forecasts: pd.DataFrame, new: np.ndarray, names: list[str]) -> dict:
    """Each model's Brier over the matches with a newcomer and over those between seen players.

    With the difference from the static model and its paired standard error in each, on all
    folds and on the later half of the folds (where the forum data's newcomers are).
    """
    out = {}
    later = halves(forecasts)["later half"].index
    for window, rows in (("all folds", forecasts.index), ("later half", later)):
        part, flag = forecasts.loc[rows], new[forecasts.index.get_indexer(rows)]
        entry = {"newcomer matches": int(flag.sum()), "seen-player matches": int((~flag).sum())}
        for label, mask in (("with a newcomer", flag), ("seen players", ~flag)):
            sub = part[mask]
            if len(sub) == 0:
                continue
            yy = sub["y"].to_numpy()
            entry[label] = {
                "brier": {m: brier_score(yy, sub[m]) for m in names},
                "minus static": {m: paired(sub, m, STATIC_NAME) for m in names if m != STATIC_NAME}
                if len(sub) > 1
                else {},
            }
        out[window] = entry
    return out


def evaluate(name: str, args) -> dict:
    X, y, cv, catalogue = record(name, args)
    started = time.time()
    chosen = models(catalogue, args.draws)
    if args.models:
        # the static model is what every difference is measured from
        wanted = [STATIC_NAME, *(m.strip() for m in args.models.split(","))]
        unknown = sorted(set(wanted) - set(chosen))
        if unknown:
            raise SystemExit(f"unknown models {unknown}; choose among {sorted(chosen)}")
        chosen = {m: chosen[m] for m in chosen if m in wanted}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        forecasts = cached_forecasts(chosen, X, y, cv, args.cache)
    names = [c for c in forecasts.columns if c not in {"split", "period", "row", "y"}]
    out = {"matches": len(forecasts), "folds": int(forecasts["split"].nunique()), "windows": {}}
    out["newcomers"] = newcomer_split(forecasts, newcomer_flags(forecasts, X, y, cv), names)
    for window, part in halves(forecasts).items():
        yy = part["y"].to_numpy()
        out["windows"][window] = {
            "matches": len(part),
            "brier": {m: brier_score(yy, part[m]) for m in names},
            "log loss": {m: log_loss(yy, part[m].to_numpy()) for m in names},
            "minus static": {m: paired(part, m, STATIC_NAME) for m in names if m != STATIC_NAME},
        }
    for change in CHANGES:
        if change in names and STATIC_NAME in names:
            out[f"rule: {change[8:]} against static"] = rule(forecasts, change, STATIC_NAME)
    if EXPERIENCE in names and DEBUT in names:
        out["rule: debut + experience against debut"] = rule(forecasts, EXPERIENCE, DEBUT)
    if EVIDENCE in names and EARLIER in names:
        out["rule: forward evidence against walk + debut"] = rule(forecasts, EVIDENCE, EARLIER)
    out["seconds"] = round(time.time() - started, 1)
    return out


def markdown(result: dict) -> str:
    lines = []
    for name, rec in result["records"].items():
        windows = rec["windows"]
        models_ = list(windows["all folds"]["brier"])
        lines += [
            f"\n**{name}** ({rec['folds']} folds, {rec['matches']} forecast matches)\n",
            "| model | all folds | earlier half | later half | log loss | minus static (se) |",
            "|---|---:|---:|---:|---:|---|",
        ]
        for m in models_:
            diff = windows["all folds"]["minus static"].get(m)
            text = "" if diff is None else f"{diff['difference']:+.4f} ({diff['se']:.4f})"
            lines.append(
                f"| {m} | {windows['all folds']['brier'][m]:.4f} | "
                f"{windows['earlier half']['brier'][m]:.4f} | "
                f"{windows['later half']['brier'][m]:.4f} | "
                f"{windows['all folds']['log loss'][m]:.4f} | {text} |"
            )
        for window, entry in rec.get("newcomers", {}).items():
            if "with a newcomer" not in entry:
                continue
            lines += [
                f"\nNewcomers, {window} ({entry['newcomer matches']} matches with a "
                f"newcomer, {entry['seen-player matches']} between seen players):\n",
                "| model | with a newcomer | minus static (se) | seen players "
                "| minus static (se) |",
                "|---|---:|---|---:|---|",
            ]
            for m in entry["with a newcomer"]["brier"]:
                cells = []
                for label in ("with a newcomer", "seen players"):
                    part = entry.get(label, {"brier": {}, "minus static": {}})
                    diff = part["minus static"].get(m)
                    text = "" if diff is None else f"{diff['difference']:+.4f} ({diff['se']:.4f})"
                    cells += [f"{part['brier'].get(m, float('nan')):.4f}", text]
                lines.append(f"| {m} | " + " | ".join(cells) + " |")
        for key in [k for k in rec if k.startswith("rule:")]:
            parts = rec[key]["parts"]
            diffs = ", ".join(
                f"{h} {p['difference']:+.4f} (se {p['se']:.4f})" for h, p in parts.items()
            )
            lines.append(f"\n{key[6:]}: {diffs}")
    lines += ["\n**Every record, pooled**\n", *summary_lines(result)]
    lines += ["\n**The rule's verdicts**\n", *verdict_lines(result.get("verdicts", {}))]
    return "\n".join(lines)


def summary_lines(result: dict) -> list[str]:
    """Each model's pooled Brier score on each record, with its difference from the static
    model and that difference's standard error."""
    records = result["records"]
    names = list(
        dict.fromkeys(m for rec in records.values() for m in rec["windows"]["all folds"]["brier"])
    )
    lines = [
        "| model | " + " | ".join(f"{r} ({rec['matches']})" for r, rec in records.items()) + " |",
        "|---|" + "---:|" * len(records),
    ]
    for m in names:
        cells = []
        for rec in records.values():
            pooled = rec["windows"]["all folds"]
            diff = pooled["minus static"].get(m)
            cell = f"{pooled['brier'][m]:.4f}" if m in pooled["brier"] else ""
            if diff is not None:
                cell += f" ({diff['difference']:+.4f}, se {diff['se']:.4f})"
            cells.append(cell)
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    return lines


def verdict_lines(verdicts: dict) -> list[str]:
    """The verdicts' table: each change, the forum folds, the other records, whether it passes."""
    lines = ["| change | forum folds | other records | passes |", "|---|---|---|---|"]
    for key, v in verdicts.items():
        others = ", ".join(
            f"{k}: {'holds' if ok else 'loses'}" for k, ok in v["other records"].items()
        )
        lines.append(f"| {key[6:]} | {v['forum folds']} | {others} | **{v['passes']}** |")
    return lines


def rule_arguments(description: str, out: str) -> argparse.ArgumentParser:
    """The command line every script of the rule shares; ``out`` names its JSON file."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--records", default="codex,nfl,hockey,football,chess,nba")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=HERE / "results" / out)
    parser.add_argument("--markdown", action="store_true", help="print the tables of --out")
    parser.add_argument(
        "--extend",
        action="store_true",
        help="add the records of --records to those already in --out (same --draws)",
    )
    return parser


def main(argv: list[str] | None = None) -> dict:
    parser = rule_arguments(__doc__.splitlines()[0], "default_rule.json")
    parser.add_argument(
        "--models", default=None, help="comma-separated names of the models to fit (default: all)"
    )
    return run_records(parser.parse_args(argv), evaluate, markdown)


def run_records(args, evaluate_record, to_markdown) -> dict:
    """Each record of ``--records`` evaluated, the rule's verdicts, the JSON and its tables.

    The JSON is written after every record, so a long run keeps what it has done. With
    ``--extend`` the records already in ``--out`` are kept and the verdicts cover them
    all; with ``--markdown`` the tables of an existing ``--out`` are printed instead.
    """
    if args.markdown:
        print(to_markdown(json.loads(args.out.read_text())))
        return {}
    result = {"draws": args.draws, "records": {}}
    if args.extend and args.out.exists():
        result = json.loads(args.out.read_text())
        if result["draws"] != args.draws:
            raise SystemExit(
                f"--extend: {args.out} was run at {result['draws']} draws, not {args.draws}"
            )
    for name in args.records.split(","):
        print(f"{name} ...", flush=True)
        result["records"][name] = evaluate_record(name, args)
        keys = [k for k in result["records"][name] if k.startswith("rule:")]
        result["verdicts"] = {k: verdict(result["records"], k) for k in keys}
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1))
    print(to_markdown(result))
    return result


if __name__ == "__main__":
    main()
