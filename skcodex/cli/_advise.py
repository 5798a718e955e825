"""``skcodex advise``: which of a player's decks to bring against a field."""

from __future__ import annotations

import argparse
import os
from typing import Any

import numpy as np

from skcodex.cli.errors import CommandError, shown


def add_advise_parser(sub: Any) -> None:
    """Register ``skcodex advise`` with the command's subparsers."""
    from skcodex.cli.parser import _positive, _probability

    advise = sub.add_parser(
        "advise",
        help="which of a player's decks to bring: win rate against a field, chance to win",
        description="Rank a player's candidate decks by their expected win rate against a "
        "field and, with --format, by the chance of winning the event, from a model written "
        "by 'skcodex fit'. Every figure is computed per posterior draw, with its interval "
        "and the probability that each deck is the best.",
    )
    advise.add_argument("model", metavar="MODEL", help="fitted model file, or its folder")
    advise.add_argument("--player", required=True, metavar="NAME", help="the player to advise")
    advise.add_argument(
        "--candidates",
        required=True,
        metavar="DECKS",
        help="the decks to choose among, separated by commas",
    )
    advise.add_argument(
        "--field",
        required=True,
        metavar="CSV",
        help="the opponents: columns player and deck (entrants, one deck each, in seeding "
        "order), deck alone (unnamed entrants), or deck and share (shares summing to 1)",
    )
    advise.add_argument(
        "--format",
        default=None,
        metavar="FORMAT",
        help="the event's format, as for 'skcodex simulate' (e.g. swiss:5+knockout:8): adds "
        "each deck's chance to win the event",
    )
    advise.add_argument(
        "--entrants",
        type=_positive,
        default=None,
        metavar="N",
        help="with a field of shares and --format: how many enter, the player included",
    )
    advise.add_argument(
        "--player-seed",
        type=_positive,
        default=1,
        metavar="K",
        help="the player's seed in the event (1, the top seed)",
    )
    advise.add_argument(
        "--simulations",
        type=_positive,
        default=10_000,
        help="simulated events per deck, spread over the posterior draws (10000)",
    )
    advise.add_argument(
        "--posterior-draws",
        type=_positive,
        default=200,
        metavar="N",
        help="evenly spaced posterior draws to use (200)",
    )
    advise.add_argument("--interval", type=_probability, default=0.9, help="interval width (0.9)")
    advise.add_argument("--table", metavar="FILE", default=None, help="write the table as CSV")
    advise.add_argument(
        "--html", metavar="FILE", default=None, help="write the advice as an HTML page"
    )
    advise.add_argument(
        "--title", default=None, help="the page's title with --html ('What to bring')"
    )
    advise.add_argument("--seed", type=int, default=0, help="random seed (0)")
    advise.set_defaults(run=run_advise)


def _candidates(text: str) -> list[str]:
    decks = [part.strip() for part in text.split(",") if part.strip()]
    if not decks:
        raise CommandError("--candidates: give the decks to choose among, separated by commas")
    return decks


def run_advise(args: argparse.Namespace) -> int:
    """Run ``skcodex advise``: print the candidates ranked, and write ``--table``."""
    from skcodex.analysis import deck_advice
    from skcodex.cli.commands import (
        _check_files_outside,
        _is_path,
        _note_unseen,
        _player_id,
        _read_csv,
    )
    from skcodex.cli.output import load_model

    inputs = tuple(str(p) for p in (args.model, args.field) if _is_path(p))
    if args.table and args.html and os.path.abspath(args.table) == os.path.abspath(args.html):
        raise CommandError("--table and --html name the same file; give each its own")
    _check_files_outside(None, {"--table": args.table, "--html": args.html}, inputs)
    candidates = _candidates(args.candidates)
    clf = load_model(args.model)
    players = clf.vocabulary_.players
    player = _player_id(args.player, players)
    field = _read_csv(args.field, "field")
    if "deck" not in field.columns:
        raise CommandError(
            f"{args.field}: the field file needs a deck column (with player for entrants, or "
            "share for shares of decks)"
        )
    if args.format and "share" in field.columns and args.entrants is None:
        raise CommandError(
            "with a field of shares and --format, give --entrants N: how many enter the event, "
            "the player included"
        )
    named = list(field["player"]) if "player" in field.columns else []
    if named:
        field = field.assign(
            player=[_player_id(p, players) if isinstance(p, str) else None for p in named]
        )
    _note_unseen([player, *field.get("player", [])], players)
    advice = deck_advice(
        clf,
        player,
        candidates,
        field,
        format=args.format,
        n_entrants=args.entrants,
        seed=args.player_seed,
        n_draws=args.posterior_draws,
        n_simulations=args.simulations,
        interval=args.interval,
        random_state=args.seed,
    )
    _print_advice(advice)
    if args.table:
        from skcodex.report import spreadsheet_safe

        spreadsheet_safe(advice).to_csv(args.table, index=False)
        print(f"Wrote {shown(args.table)}")
    if args.html:
        from skcodex.report import game_words, render_advice_html

        page = render_advice_html(
            advice,
            title=args.title,
            source=f"Model: {args.model}; field: {args.field}",
            deck_word=game_words(clf).get("deck_word", "deck"),
            symmetric=bool(getattr(clf, "symmetric", False)),
        )
        with open(args.html, "w", encoding="utf-8") as out:
            out.write(page)
        print(f"Wrote {shown(args.html)}")
    return 0


def _print_advice(advice: Any) -> None:
    attrs = advice.attrs
    field = "shares of decks" if attrs["field"] == "shares" else "entrants"
    width = round(100 * attrs["interval"])
    head = f"Advice for {shown(attrs['player'])} against a field of {field}"
    if attrs["format"] is not None:
        head += f", {shown(attrs['format'])} with {attrs['n_entrants']} entrants"
    print(head + f" ({attrs['n_draws']} posterior draws; {width}% intervals):")
    event = "p_event" in advice.columns
    decks = [shown(d) for d in advice["deck"]]
    size = max(12, *(len(d) for d in decks))
    line = f"  {'deck':<{size}}  {'win rate':>8} {'interval':>13} {'P(best)':>7}"
    if event:
        line += f"  {'P(win event)':>12} {'interval':>13} {'P(best)':>7}"
    print(line)
    for deck, (_, row) in zip(decks, advice.iterrows()):
        line = (
            f"  {deck:<{size}}  {row['win_rate']:>8.3f} "
            f"{_interval(row['win_rate_lower'], row['win_rate_upper']):>13} "
            f"{row['p_best_win_rate']:>7.2f}"
        )
        if event:
            line += (
                f"  {row['p_event']:>12.3f} "
                f"{_interval(row['p_event_lower'], row['p_event_upper']):>13} "
                f"{row['p_best_event']:>7.2f}"
            )
        print(line)
    if event:
        se = float(np.max(advice["p_event_se"]))
        print(
            f"P(win event) from {attrs['simulations_per_draw']:,} simulated events per draw "
            f"(Monte Carlo standard error at most {se:.3f})."
        )
    print(f"Bring {decks[0]}.")


def _interval(lower: float, upper: float) -> str:
    return f"[{lower:.3f}, {upper:.3f}]"
