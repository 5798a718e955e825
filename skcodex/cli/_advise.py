"""``skcodex advise``: which of a player's decks to bring against a field."""

from __future__ import annotations

import argparse
import os
from typing import Any

import numpy as np

from skcodex.cli._errors import CommandError, shown


def _candidates(text: str) -> list[str]:
    decks = [part.strip() for part in text.split(",") if part.strip()]
    if not decks:
        raise CommandError("--candidates: give the decks to choose among, separated by commas")
    return decks


def run_advise(args: argparse.Namespace) -> int:
    """Run ``skcodex advise``: print the candidates ranked, and write ``--table``."""
    from skcodex.analysis import deck_advice
    from skcodex.cli._commands import _is_path, _note_unseen, _player_id
    from skcodex.cli._output import load_model
    from skcodex.cli._simulate import _check_files_outside, _read_csv

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
    _note_unseen([player, *field.get("player", [])], clf)
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
