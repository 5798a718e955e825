"""The model's options of ``skcodex fit``: the game's catalogue and the model's parts."""

from __future__ import annotations

import argparse

from skcodex.cli._checks import half_life, non_negative
from skcodex.data._catalogues import WALK_STEPS_SLOW

#: ``--newcomer-skill`` values and the estimator's ``newcomer_skill`` each stands for.
NEWCOMER_SKILLS = {"late-arrivals": "late arrivals", "population": "population"}


def model_options(p: argparse.ArgumentParser) -> None:
    """The game's catalogue and the model's optional parts, as ``skcodex fit`` takes them."""
    p.add_argument(
        "--catalogue",
        metavar="FILE",
        default=None,
        help="CSV of another game's names, header 'kind,name', rows 'starter,NAME' and "
        "'component,NAME' (optionally 'specs_per_deck,K'); decks are then read as "
        "starter/component/...; a header 'kind,name,starter' ties a component to the "
        "starter named on its row (component,Deneghra,Cryx)",
    )
    p.add_argument(
        "--tie-components",
        action="store_true",
        help="take each component the matches only ever pair with one starter as tied to it "
        "(listed when the matches are read): a later deck holding it under another starter "
        "is refused",
    )
    p.add_argument(
        "--specs-per-deck",
        type=non_negative,
        metavar="K",
        default=None,
        help="read decks as starter/component/... with K components each (0: characters "
        "alone), every name seen a level",
    )
    sides = p.add_mutually_exclusive_group()  # a symmetric game has no first-move edge
    sides.add_argument(
        "--first-move",
        action="store_true",
        help="add an advantage of player 1 (the side listed first), for games whose deck "
        "effects do not already carry one",
    )
    sides.add_argument(
        "--symmetric",
        action="store_true",
        help="a game whose two sides are alike: the matchup of a against b is minus that "
        "of b against a (not with --first-move)",
    )
    _part_options(p)


def _part_options(p: argparse.ArgumentParser) -> None:
    """The parts the matches may decide, the half-life, and how they are decided."""
    p.add_argument(
        "--debut",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="learn how players play in their first period: a skill offset and a factor "
        "on the deck effects; never-seen players are forecast as debutants (default: off, "
        "or decided by --part-selection forward)",
    )
    p.add_argument(
        "--time-varying",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="let each player's skill walk over the periods; --time-varying needs a period "
        "column (default: off, or decided by --part-selection forward when the matches "
        f"span two periods or more, every match is dated and the walk takes fewer than "
        f"{WALK_STEPS_SLOW:,} steps)",
    )
    p.add_argument(
        "--part-selection",
        choices=("none", "forward"),
        default="none",
        help="how the parts left to the data (--debut, --time-varying not given, "
        "--half-life auto) are "
        "decided: none (they stay off; the default) or forward (each combination "
        "forecasts the matches' last three periods from the ones before, and a part is "
        "kept only when it beats the model without it by two standard errors; it costs "
        "about one more fit, and the evidence is printed)",
    )
    p.add_argument(
        "--half-life",
        type=half_life,
        metavar="H",
        default=None,
        help="count recent matches more: a match H periods older than the latest counts half "
        "as much (default: every match alike); auto tries 8, 4 and 2 periods against none "
        "with --part-selection forward, after the parts, and prints the evidence",
    )
    p.add_argument(
        "--newcomer-skill",
        choices=tuple(NEWCOMER_SKILLS),
        default="late-arrivals",
        help="what a player the matches never show is forecast around: late-arrivals (the "
        "mean skill of the players who joined after the first period; the default) or "
        "population (every player's mean); with --debut, the learned debut level instead",
    )
