"""Plant single-line defects one at a time and record whether the fast tests catch them.

Each defect replaces one line of the package with a plausible mistake (a reversed
rank, a forgotten term, a wrong threshold) in a scratch copy of the repository,
runs the fast tests of the area it touches there, and records whether they fail.
The working tree is never modified. A defect is *caught* when the tests fail, and
*survives* when they pass.

Run from the repository root (one pytest process at a time)::

    python tools/planted_defects.py                 # all defects
    python tools/planted_defects.py --only 1 5 12   # some of them
    python tools/planted_defects.py --list          # what is planted where

It prints a table and writes ``benchmarks/results/planted_defects.json``. Before
planting, each area's tests are run once on the unchanged copy: they must pass,
otherwise a failure would say nothing about the defect.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "planted_defects.json"


@dataclass(frozen=True)
class Defect:
    """One planted mistake: the first ``old`` in ``path`` becomes ``new``.

    ``count`` is how often ``old`` occurs in the file, checked before planting so
    that a changed source cannot silently move a defect elsewhere.
    """

    area: str
    what: str
    path: str
    old: str
    new: str
    tests: tuple[str, ...]
    k: str | None = None
    count: int = 1


# Test selections, by area.
ANALYSIS = ("tests/test_analysis.py", "tests/test_analysis_fitted.py")
DIAGNOSTICS = ("tests/test_diagnostics.py", "tests/test_analysis_fitted.py")
CLI = ("tests/test_cli.py",)
EVALUATION = ("tests/test_evaluation.py",)
CLASSIFIER = ("tests/test_classifier.py",)
MODEL = ("tests/test_model.py",)
CODEXDATA = ("tests/test_codexdata.py",)
DATA = ("tests/test_data.py",)
LUCK = ("tests/test_luck.py",)

DEFECTS = [
    # -- analyses -------------------------------------------------------------------
    Defect(
        "analysis",
        "skill_table: P(best) counted for the worst player",
        "skcodex/analysis/_skills.py",
        "best = np.bincount(skills.argmax(axis=1)",
        "best = np.bincount(skills.argmin(axis=1)",
        ANALYSIS,
        "skill_table",
    ),
    Defect(
        "analysis",
        "skill_table: ranks reversed (1 = worst)",
        "skcodex/analysis/_skills.py",
        "ranks = (-skills).argsort(axis=1).argsort(axis=1) + 1",
        "ranks = skills.argsort(axis=1).argsort(axis=1) + 1",
        ANALYSIS,
        "skill_table",
    ),
    Defect(
        "analysis",
        "Nash: player 2 solved as a maximiser of player 1's payoff",
        "skcodex/analysis/_nash.py",
        "y, _ = solve(-A.T)",
        "y, _ = solve(A.T)",
        ANALYSIS,
        "nash",
    ),
    Defect(
        "analysis",
        "match_forecast: interval wider than asked",
        "skcodex/analysis/_matchups.py",
        "lower, upper = quantiles(p, interval)",
        "lower, upper = quantiles(p, (1 + interval) / 2)",
        ANALYSIS,
        "match_forecast",
    ),
    Defect(
        "analysis",
        "credible intervals: the whole tail on each side",
        "skcodex/analysis/_base.py",
        "tail = (1.0 - interval) / 2.0",
        "tail = 1.0 - interval",
        ANALYSIS,
        "match_forecast or skill_table",
    ),
    Defect(
        "analysis",
        "deck_ranking: P(best) counted for the worst deck",
        "skcodex/analysis/_matchups.py",
        "np.bincount(score.argmax(axis=1)",
        "np.bincount(score.argmin(axis=1)",
        ANALYSIS,
        "deck_ranking",
    ),
    Defect(
        "analysis",
        "skill_versus_decks: P(skill matters more) compared the wrong way",
        "skcodex/analysis/_skills.py",
        'float(np.mean(draws["skill_share"] > 0.5))',
        'float(np.mean(draws["skill_share"] < 0.5))',
        ANALYSIS,
        "skill_versus_decks or spread",
    ),
    Defect(
        "analysis",
        "deck spread: k instead of 2k starter-vs-spec effects",
        "skcodex/analysis/_spreads.py",
        "var = sd[:, 1] ** 2 + 2 * k * sd[:, 2] ** 2",
        "var = sd[:, 1] ** 2 + k * sd[:, 2] ** 2",
        ANALYSIS,
        "spread",
    ),
    Defect(
        "analysis",
        "convergence_summary: divergences counted as 0 or 1",
        "skcodex/_matchup/diagnostics.py",
        'divergences = int(np.asarray(stats["diverging"]).sum())',
        'divergences = int(np.asarray(stats["diverging"]).any())',
        DIAGNOSTICS,
        "convergence",
    ),
    # -- command line ---------------------------------------------------------------
    Defect(
        "cli",
        "predict: players 1 and 2 swapped",
        "skcodex/cli/_commands.py",
        "p1, p2 = _player_id(names[0], players), _player_id(names[1], players)",
        "p2, p1 = _player_id(names[0], players), _player_id(names[1], players)",
        CLI,
        "predict",
    ),
    Defect(
        "cli",
        "predict: prints P(player 2 wins)",
        "skcodex/cli/_commands.py",
        "= {forecast['mean']:.3f}\")",
        "= {1 - forecast['mean']:.3f}\")",
        CLI,
        "predict",
    ),
    Defect(
        "cli",
        "predict: --interval ignored",
        "skcodex/cli/_commands.py",
        "forecast = match_forecast(clf, table, args.interval).iloc[0]",
        "forecast = match_forecast(clf, table).iloc[0]",
        CLI,
        "predict",
    ),
    # -- evaluation -----------------------------------------------------------------
    Defect(
        "evaluation",
        "paired_bootstrap: the two models resampled unpaired",
        "skcodex/evaluation.py",
        "means = diff[idx].mean(axis=1)",
        "means = ((y - forecasts[model].to_numpy()) ** 2)[idx].mean(axis=1)"
        " - ((y - forecasts[other].to_numpy()) ** 2)[idx[::-1]].mean(axis=1)",
        EVALUATION,
    ),
    Defect(
        "evaluation",
        "paired_bootstrap: difference with the wrong sign",
        "skcodex/evaluation.py",
        '"difference": float(diff.mean()),',
        '"difference": float(-diff.mean()),',
        EVALUATION,
    ),
    Defect(
        "evaluation",
        "score_table: pooled score is the mean absolute error",
        "skcodex/evaluation.py",
        'rows["pooled"] = {m: brier_score(y, forecasts[m]) for m in models}',
        'rows["pooled"] = {m: float(np.mean(np.abs(y - forecasts[m]))) for m in models}',
        EVALUATION,
    ),
    Defect(
        "evaluation",
        "bootstrap_against_best_other: compares with the worst other",
        "skcodex/evaluation.py",
        "best = min(others, key=brier.get)",
        "best = max(others, key=brier.get)",
        EVALUATION,
    ),
    # -- never-seen levels ------------------------------------------------------------
    Defect(
        "never-seen levels",
        "never-seen levels drawn at half the spread",
        "skcodex/_matchup/never_seen.py",
        "scale = sd[:, spread[lo:hi]] * sign_of[lo:hi]",
        "scale = 0.5 * sd[:, spread[lo:hi]] * sign_of[lo:hi]",
        (*CLASSIFIER, *ANALYSIS, "tests/test_unseen.py"),
        "unseen",
    ),
    Defect(
        "never-seen levels",
        "never-seen levels drawn with the player spread in every block",
        "skcodex/_matchup/never_seen.py",
        "scale = sd[:, spread[lo:hi]] * sign_of[lo:hi]",
        "scale = sd[:, np.zeros_like(spread[lo:hi])] * sign_of[lo:hi]",
        (*CLASSIFIER, *ANALYSIS, "tests/test_unseen.py"),
        "unseen",
    ),
    Defect(
        "never-seen levels",
        "never-seen level draws not seeded by the fitted model",
        "skcodex/_matchup/never_seen.py",
        "keys[j], spread[j], sign_of[j] = _cell_key(seed, name, names), groups[name], sign",
        "keys[j], spread[j], sign_of[j] = _cell_key(0, name, names), groups[name], sign",
        (*CLASSIFIER, *ANALYSIS, "tests/test_unseen.py"),
        "unseen",
    ),
    Defect(
        "never-seen levels",
        "forecasts integrate never-seen effects at half their variance",
        "skcodex/_matchup/never_seen.py",
        "np.add.at(weights, (cells // new.size, group), np.square(net))",
        "np.add.at(weights, (cells // new.size, group), 0.5 * np.square(net))",
        (*CLASSIFIER, "tests/test_unseen.py"),
        "unseen or newcomer",
    ),
    Defect(
        "matches as counts",
        "distinct rows fitted as one match each",
        "skcodex/_matchup/sampling.py",
        "return replace(self, index=rows, outcome=totals, trials=trials)",
        "return replace(self, index=rows, outcome=totals)",
        ("tests/test_counts.py",),
        "counts",
    ),
    # -- time-varying skills --------------------------------------------------------
    Defect(
        "time-varying",
        "forecasts without the extra step of the walk",
        "skcodex/_matchup/readers.py",
        'current["skill"] = blocks["skill"] + blocks["walk"][..., -1] + noise',
        'current["skill"] = blocks["skill"] + blocks["walk"][..., -1]',
        CLASSIFIER,
        "time_varying",
    ),
    Defect(
        "time-varying",
        "forecasts ignore the walk",
        "skcodex/_matchup/readers.py",
        'current["skill"] = blocks["skill"] + blocks["walk"][..., -1] + noise',
        'current["skill"] = blocks["skill"] + noise',
        CLASSIFIER,
        "time_varying",
    ),
    Defect(
        "time-varying",
        "forecasts from the first epoch's skill",
        "skcodex/_matchup/readers.py",
        'current["skill"] = blocks["skill"] + blocks["walk"][..., -1] + noise',
        'current["skill"] = blocks["skill"] + blocks["walk"][..., 0] + noise',
        CLASSIFIER,
        "time_varying",
    ),
    # -- balanced prior -------------------------------------------------------------
    Defect(
        "balanced prior",
        "skill share's logit with sd 2",
        "skcodex/_matchup/graph.py",
        'share_logit = pm.Normal("skill_share_logit", 0.0, 1.0)',
        'share_logit = pm.Normal("skill_share_logit", 0.0, 2.0)',
        MODEL,
        "balanced",
    ),
    Defect(
        "balanced prior",
        "total spread's prior scale ignored",
        "skcodex/_matchup/graph.py",
        'log_total = pm.Normal("log_total", loc[0], scale[0])',
        'log_total = pm.Normal("log_total", loc[0], 0.5)',
        MODEL,
        "balanced",
    ),
    Defect(
        "balanced prior",
        "deck split's reference logit 1 instead of 0",
        "skcodex/_matchup/graph.py",
        "pt.concatenate([pt.zeros(1), split_logits])",
        "pt.concatenate([pt.ones(1), split_logits])",
        MODEL,
        "balanced",
    ),
    Defect(
        "balanced prior",
        "extra spreads' prior scale ignored",
        "skcodex/_matchup/graph.py",
        'extra = pm.Normal("log_sd_extra", loc[1 : 1 + n_extra], scale[1 : 1 + n_extra])',
        'extra = pm.Normal("log_sd_extra", loc[1 : 1 + n_extra], 1.0)',
        MODEL,
        "balanced",
    ),
    # -- convergence ----------------------------------------------------------------
    Defect(
        "convergence",
        "R-hat warning threshold 1.1",
        "skcodex/_matchup/diagnostics.py",
        "max_rhat: float = 1.01",
        "max_rhat: float = 1.1",
        DIAGNOSTICS,
        "rhat or convergence",
    ),
    # -- data -----------------------------------------------------------------------
    Defect(
        "codexdata",
        "F20 filter reads the specs only",
        "skcodex/datasets/_codexdata.py",
        "return deck.starter.endswith(F20_SUFFIX) or any(",
        "return any(",
        CODEXDATA,
    ),
    Defect(
        "data",
        "outcome 2 read as a win",
        "skcodex/data/_table.py",
        "and value in (0, 1)",
        "and value in (0, 1, 2)",
        DATA,
    ),
    Defect(
        "data",
        "y=None not reported as missing",
        "skcodex/data/_table.py",
        "    if y is None:\n",
        "    if y is None and False:\n",
        DATA,
    ),
    # -- approximate inference ------------------------------------------------------
    Defect(
        "ADVI",
        "a minibatch's log-likelihood not scaled up to the table",
        "skcodex/_matchup/graph.py",
        'data_scale = len(y) / pt.cast(batch_rows.shape[0], "float64")',
        "data_scale = 1.0",
        ("tests/test_properties.py",),
        "minibatch or variational",
    ),
    # -- kinds that once survived the fast tests ----------------------------------------
    Defect(
        "model",
        "first-move prior: its location read from the first prior entry",
        "skcodex/_matchup/graph.py",
        "z_loc = pt.set_subtensor(pt.zeros(layout.n_free)[at], loc[which])",
        "z_loc = pt.set_subtensor(pt.zeros(layout.n_free)[at], loc[[0] * len(which)])",
        MODEL,
        "first_move",
    ),
    Defect(
        "model",
        "first-move prior: its scale read from the first prior entry",
        "skcodex/_matchup/graph.py",
        "z_scale = pt.set_subtensor(pt.ones(layout.n_free)[at], scale[which])",
        "z_scale = pt.set_subtensor(pt.ones(layout.n_free)[at], scale[[0] * len(which)])",
        MODEL,
        "first_move",
    ),
    Defect(
        "time-varying",
        "the forecast's extra step of the walk drawn from an unseeded generator",
        "skcodex/_matchup/readers.py",
        "rng = np.random.default_rng([seed, 1])",
        "rng = np.random.default_rng()",
        CLASSIFIER,
        "one_more_step",
    ),
    Defect(
        "luck",
        "fit_skills(first_move=False) still fits a first-move advantage",
        "skcodex/luck.py",
        "grad[n] = resid.sum() if first_move else 0.0",
        "grad[n] = resid.sum()",
        LUCK,
        "fit_skills",
    ),
    Defect(
        "analysis",
        "named-player matchup draws: cells paired with the wrong decks",
        "skcodex/analysis/_matchups.py",
        "return p.reshape(len(draws), len(d1), len(d2))",
        "return p.reshape(len(draws), len(d2), len(d1)).transpose(0, 2, 1)",
        ANALYSIS,
        "matchup",
    ),
]


def _copy(target: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis", "mutants")
    for name in ("skcodex", "tests", "examples", "docs"):
        shutil.copytree(ROOT / name, target / name, ignore=ignore)
    for name in ("pyproject.toml", "README.md", "mkdocs.yml"):
        shutil.copy2(ROOT / name, target / name)


def _pytest(copy: Path, tests: tuple[str, ...], k: str | None) -> tuple[int, float]:
    env = {**os.environ, "PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("CI", None)
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-m", "not slow", "-p", "no:cacheprovider"]
    cmd += ["-W", "ignore", *tests] + (["-k", k] if k else [])
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=copy, env=env, capture_output=True, text=True)
    return done.returncode, time.perf_counter() - start


def _check_isolated(copy: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(copy)}
    out = subprocess.run(
        [sys.executable, "-c", "import skcodex; print(skcodex.__file__)"],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if not out.startswith(str(copy)):
        raise SystemExit(f"the scratch copy is not the one imported ({out})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", type=int, nargs="*", help="defect numbers (1-based)")
    parser.add_argument("--list", action="store_true", help="list the defects and exit")
    args = parser.parse_args(argv)
    chosen = [(i, d) for i, d in enumerate(DEFECTS, 1) if not args.only or i in args.only]
    if args.list:
        for i, d in chosen:
            print(f"{i:3d}  {d.area:15s} {d.what}  ({d.path})")
        return 0
    with tempfile.TemporaryDirectory(prefix="skcodex-defects-") as scratch:
        copy = Path(scratch)
        _copy(copy)
        _check_isolated(copy)
        baseline = {}
        for _, d in chosen:
            key = (d.tests, d.k)
            if key not in baseline:
                code, seconds = _pytest(copy, d.tests, d.k)
                baseline[key] = code
                status = "pass" if code == 0 else f"FAIL ({code})"
                print(f"baseline {' '.join(d.tests)} -k {d.k!r}: {status} in {seconds:.0f} s")
        rows = []
        for i, d in chosen:
            path = copy / d.path
            source = path.read_text(encoding="utf-8")
            count = source.count(d.old)
            if count != d.count:
                raise SystemExit(f"defect {i}: {d.old!r} occurs {count} times in {d.path}")
            if baseline[(d.tests, d.k)] != 0:
                rows.append({"n": i, **asdict(d), "result": "not run (baseline fails)"})
                continue
            path.write_text(source.replace(d.old, d.new, 1), encoding="utf-8")
            try:
                code, seconds = _pytest(copy, d.tests, d.k)
            finally:
                path.write_text(source, encoding="utf-8")
            result = "caught" if code == 1 else ("survived" if code == 0 else f"error {code}")
            rows.append({"n": i, **asdict(d), "result": result, "seconds": round(seconds, 1)})
            print(f"{i:3d}  {result:8s} {seconds:5.0f} s  {d.area}: {d.what}", flush=True)
    run = [r for r in rows if r["result"] in ("caught", "survived")]
    caught = sum(r["result"] == "caught" for r in run)
    share = 100 * caught / max(1, len(run))
    print(f"\ncaught {caught} of {len(run)} planted defects ({share:.0f}%)")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    summary = {"caught": caught, "run": len(run), "defects": rows}
    if not args.only:
        RESULTS.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
