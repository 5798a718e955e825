"""The ``skcodex`` command line."""

from __future__ import annotations

import argparse
import sys
import time
import warnings


def _demo(args: argparse.Namespace) -> int:
    from sklearn.exceptions import ConvergenceWarning

    from skcodex import BayesianMatchupClassifier, brier_score
    from skcodex.analysis import skill_table, skill_versus_decks
    from skcodex.datasets import make_matches

    data = make_matches(
        n_players=args.players, n_matches=args.matches, n_tournaments=8, random_state=args.seed
    )
    last = data.X["period"] == data.X["period"].iloc[-1]
    train, test = ~last.to_numpy(), last.to_numpy()
    print(
        f"Synthetic tournament series: {args.players} players, {args.matches} matches in "
        f"8 tournaments; fitting on the first 7 ({train.sum()} matches), "
        f"holding out the last ({test.sum()})."
    )
    clf = BayesianMatchupClassifier(
        draws=args.draws, tune=args.draws, chains=4, random_state=args.seed, progressbar=True
    )
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        clf.fit(data.X[train], data.y[train])
    print(f"Fitted in {time.perf_counter() - start:.1f} s.")
    for w in caught:
        if issubclass(w.category, ConvergenceWarning):
            print(f"warning: {w.message}")

    skills = skill_table(clf, data.X[train])
    truth = data.params["skill"]
    top = skills.head(args.top)
    print(f"\nTop {len(top)} players (posterior mean skill, 90% interval; true skill):")
    for player, row in top.iterrows():
        print(
            f"  {player:>10}  {row['mean']:+.2f}  [{row['lower']:+.2f}, {row['upper']:+.2f}]"
            f"  P(best) {row['p_best']:.2f}   true {truth[player]:+.2f}"
        )
    spreads = skill_versus_decks(clf)
    print("\nSkill versus decks (posterior mean, 90% interval; true value):")
    true_deck = (
        data.params["sd"]["stst"] ** 2
        + 6 * data.params["sd"]["stsp"] ** 2
        + 9 * data.params["sd"]["spsp"] ** 2
    ) ** 0.5
    for name, true in (("sd_player", data.params["sd"]["player"]), ("sd_deck", true_deck)):
        row = spreads.loc[name]
        print(
            f"  {name:>10}  {row['mean']:.2f}  [{row['lower']:.2f}, {row['upper']:.2f}]"
            f"   true {true:.2f}"
        )
    print(f"  P(skill matters more than decks) = {spreads.attrs['p_skill_matters_more']:.2f}")

    in_sample = brier_score(data.y[train], clf.predict_proba(data.X[train])[:, 1])
    held_out = brier_score(data.y[test], clf.predict_proba(data.X[test])[:, 1])
    oracle = brier_score(data.y[test], data.p_win[test])
    print("\nBrier score (lower is better; a coin flip scores 0.250):")
    print(
        f"  in-sample {in_sample:.3f}   held-out {held_out:.3f}   "
        f"true probabilities on the held-out matches {oracle:.3f}"
    )
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``skcodex`` command."""
    parser = argparse.ArgumentParser(
        prog="skcodex",
        description="Predict who wins a Codex match from the players, their decks and turn order.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="fit a synthetic tournament series and show the results")
    demo.add_argument("--players", type=int, default=40, help="number of players (40)")
    demo.add_argument("--matches", type=int, default=1200, help="number of matches (1200)")
    demo.add_argument("--draws", type=int, default=500, help="draws and tuning steps per chain")
    demo.add_argument("--seed", type=int, default=0, help="random seed (0)")
    demo.add_argument("--top", type=int, default=10, help="players to list (10)")
    demo.set_defaults(run=_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command; errors are one readable line and exit status 2."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except (ValueError, OSError, ImportError) as err:
        print(f"skcodex: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
