"""The figures docs/analysis.md quotes for "skill versus decks", recomputed.

Three groups, each from the classifier at its defaults (the default log-normal
spread priors, 4 chains of 1,000 draws, ``random_state=0``):

- the prior alone: P(skill matters more) under the default priors and under the
  seed's N(0, 0.5) for every spread (`prior_spread_comparison_draws`);
- the synthetic series the page's figures come from (40 players, 1,200 matches,
  8 tournaments, ``make_matches(random_state=0)``): the posterior means of
  ``sd_player`` and ``sd_deck``, the skill share's interval and P(skill matters
  more), against the true spreads;
- the real forum tournaments (codexdata, the matches `load_codex_matches` keeps):
  the skill share with its interval and P(skill matters more);
- the optional parts' values (`extension_table`): on a fighting game drawn with a
  known first-move effect (``make_game_matches``, ``first_move=True,
  time_varying=True``), and on the real tournaments with ``debut=True,
  time_varying=True``.

Run ``python benchmarks/analysis_figures.py [--data CODEXDATA] [--groups NAME ...]``
(a few minutes on two cores; ``--groups`` recomputes only the groups named, keeping the
others as the JSON has them). It prints a table and writes
``benchmarks/results/analysis_figures.json``;
`page_phrases` turns that JSON into the phrases docs/analysis.md must contain, and
tests/test_docs_figures.py checks that it does.
"""

from __future__ import annotations

import argparse
import json
import os
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "analysis_figures.json"
DEFAULT_DATA = Path(
    os.environ.get("SKCODEX_CODEXDATA", HERE.parents[1] / "shared" / "data" / "codexdata")
)
SEED = 0


def _fit(X, y, **params):
    from skcodex import BayesianMatchupClassifier

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return BayesianMatchupClassifier(random_state=SEED, **params).fit(X, y)


#: The fighting game of the extension table's example (docs/analysis.md).
FIGHT = {"n_players": 40, "n_matches": 1500, "starters": 10, "first_move": 0.3}


def _extension_rows(clf) -> dict:
    from skcodex.analysis import extension_table

    table = extension_table(clf)
    return {
        name: {col: float(table.loc[name, col]) for col in ("mean", "lower", "upper")}
        | {"what": table.loc[name, "what"], "scale": table.loc[name, "scale"]}
        for name in table.index
    } | {"convergence_problems": list(clf.convergence_problems_)}


def extension_figures(folder: Path) -> dict:
    """`extension_table` on the fighting game (known first move) and on the real data."""
    from skcodex.datasets import load_codex_matches, make_game_matches

    fight = make_game_matches(**FIGHT, random_state=SEED)
    options = {"first_move": True, "time_varying": True, "debut": False}
    synthetic = _extension_rows(_fit(fight.X, fight.y, catalogue=fight.catalogue, **options))
    synthetic["true_first_move"] = FIGHT["first_move"]
    X, y = load_codex_matches(folder, return_X_y=True)
    real = _extension_rows(_fit(X, y, debut=True, time_varying=True))
    return {"synthetic": synthetic, "real": real}


def _spread_summary(clf) -> dict:
    from skcodex.analysis import skill_versus_decks

    table = skill_versus_decks(clf)
    out = {
        name: {col: float(table.loc[name, col]) for col in ("mean", "lower", "upper")}
        for name in ("sd_player", "sd_deck", "skill_share")
    }
    out["p_skill_matters_more"] = table.attrs["p_skill_matters_more"]
    out["prior_p_skill_matters_more"] = table.attrs["prior_p_skill_matters_more"]
    out["convergence_problems"] = list(clf.convergence_problems_)
    return out


def prior_figures() -> dict:
    """P(skill matters more) under the default priors and under the seed's priors alone."""
    from skcodex import BayesianMatchupClassifier
    from skcodex._classifier import SEED_PRIORS
    from skcodex.analysis import prior_spread_comparison_draws

    out = {}
    for name, params in (("default", {}), ("seed", SEED_PRIORS)):
        draws = prior_spread_comparison_draws(BayesianMatchupClassifier(**params))
        out[name] = float(np.mean(draws["skill_share"] > 0.5))
    return out


def synthetic_figures() -> dict:
    from skcodex.datasets import make_matches

    data = make_matches(n_players=40, n_matches=1200, n_tournaments=8, random_state=SEED)
    out = _spread_summary(_fit(data.X, data.y))
    sd = data.params["sd"]
    out["true_sd_player"] = float(sd["player"])
    out["true_sd_deck"] = float(
        np.sqrt(sd["stst"] ** 2 + 6 * sd["stsp"] ** 2 + 9 * sd["spsp"] ** 2)
    )
    out["n_matches"] = len(data.y)
    return out


def real_figures(folder: Path) -> dict:
    from skcodex.datasets import load_codex_matches

    X, y = load_codex_matches(folder, return_X_y=True)
    out = _spread_summary(_fit(X, y))
    out["n_matches"] = len(y)
    return out


def probability(p: float) -> str:
    """A probability as the page writes it: two decimals, or four when that rounds to 0 or 1."""
    text = f"{p:.2f}"
    return f"{p:.4f}" if text in ("0.00", "1.00") else text


def page_phrases(results: dict) -> list[str]:
    """The phrases of docs/analysis.md that state the figures in ``results``.

    Whitespace in them is single spaces; compare against the page with its
    whitespace collapsed the same way (line breaks fall anywhere).
    """
    prior, syn, real = results["prior"], results["synthetic"], results["real"]
    true_share = 2 * syn["true_sd_player"] ** 2
    true_share /= true_share + syn["true_sd_deck"] ** 2
    share, syn_share = real["skill_share"], syn["skill_share"]
    table_rows = [
        f"| `{name}` | {row['what']} | {row['scale']} | {row['mean']:.2f} | "
        f"{row['lower']:.2f} | {row['upper']:.2f} |"
        for group in ("synthetic", "real")
        for name, row in results["extensions"][group].items()
        if isinstance(row, dict)
    ]
    return [
        *table_rows,
        f"P(skill matters more) is already {probability(prior['default'])}",
        f"N(0, 0.5) for all four it is {probability(prior['seed'])}",
        f"the real data's {probability(real['p_skill_matters_more'])} (below)",
        f'table.attrs["p_skill_matters_more"] # {probability(syn["p_skill_matters_more"])} here',
        f"the truth is sd_player = {syn['true_sd_player']:.2f}",
        f"= {syn['true_sd_deck']:.2f}; the posterior means are "
        f"{syn['sd_player']['mean']:.2f} and {syn['sd_deck']['mean']:.2f}",
        f"the skill share's interval ({syn_share['lower']:.2f} to {syn_share['upper']:.2f}) "
        f"holds the true share, {true_share:.2f} (probability "
        f"{probability(syn['p_skill_matters_more'])} that skill matters more)",
        f"the {real['n_matches']} matches of codexdata",
        f"skill share of {share['mean']:.2f} ({share['lower']:.2f} to {share['upper']:.2f}) "
        f"and P(skill matters more) = {probability(real['p_skill_matters_more'])}",
    ]


#: The groups of figures, each recomputed by ``--groups``.
GROUPS = ["prior", "synthetic", "real", "extensions"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="codexdata folder")
    parser.add_argument(
        "--groups", nargs="+", choices=GROUPS, default=GROUPS, help="the groups to recompute"
    )
    args = parser.parse_args()
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    results["settings"] = (
        "BayesianMatchupClassifier(random_state=0), all other parameters default "
        "(the extension tables: the options they name)"
    )
    makers = {
        "prior": prior_figures,
        "synthetic": synthetic_figures,
        "real": lambda: real_figures(args.data),
        "extensions": lambda: extension_figures(args.data),
    }
    for group in args.groups:
        results[group] = makers[group]()
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print("| data | matches | sd_player | sd_deck | skill share (90%) | P(skill matters more) |")
    print("|---|---:|---:|---:|---|---:|")
    for name in ("synthetic", "real"):
        r = results[name]
        share = r["skill_share"]
        print(
            f"| {name} | {r['n_matches']} | {r['sd_player']['mean']:.3f} | "
            f"{r['sd_deck']['mean']:.3f} | {share['mean']:.3f} "
            f"({share['lower']:.3f} to {share['upper']:.3f}) | {r['p_skill_matters_more']:.4f} |"
        )
    print(
        f"prior alone: P(skill matters more) {results['prior']['default']:.4f} (default), "
        f"{results['prior']['seed']:.4f} (seed priors)"
    )
    print(f"written to {RESULTS}")


if __name__ == "__main__":
    main()
