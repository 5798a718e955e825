"""``skcodex predict --best-of N``: the chance of a best-of-N set, on the posterior."""

from __future__ import annotations

import argparse
import warnings

import pandas as pd

from skcodex.cli._commands import (
    _cmd_predict,
    _did_you_mean,
    _player1_words,
    _player_id,
    newcomer_words,
)
from skcodex.cli._draws import set_draw_words
from skcodex.cli._errors import CommandError, shown
from skcodex.cli._output import load_model


def run_predict(args: argparse.Namespace) -> int:
    """Run ``skcodex predict``: one game (`_cmd_predict`), or a set with ``--best-of``."""
    if getattr(args, "best_of", 1) > 1 or ";" in args.deck1 + args.deck2:
        return _predict_series(args)
    return _cmd_predict(args)


#: Who is player 1 in the games after game 1, by ``--set-order``.
_THEN = {
    "alternating": "the other player in turn",
    "loser": "the loser of the last game",
    "random": "either at random",
}


def _predict_series(args: argparse.Namespace) -> int:
    """``skcodex predict --best-of N``: P(player 1 wins the set), with its interval."""
    from skcodex.codex import deck_label, parse_deck
    from skcodex.data import normalise_name
    from skcodex.tournament import predict_series

    model = load_model(args.model)
    catalogue = getattr(model, "catalogue", None) or getattr(model, "catalogue_", None)
    decks = []
    for flag, text in (("--deck1", args.deck1), ("--deck2", args.deck2)):
        listed = [part.strip() for part in text.split(";") if part.strip()]
        if not listed:
            raise CommandError(f"{flag} names no deck")
        try:
            decks.append([parse_deck(part, catalogue) for part in listed])
        except ValueError as err:
            raise CommandError(f"{flag}: {err}") from None
    players = model.vocabulary_.players
    names = []
    for flag, given in (("--p1", args.p1), ("--p2", args.p2)):
        name = normalise_name(given)
        if not name:
            raise CommandError(f"{flag} {given!r} names no player (it has nothing visible)")
        names.append(_player_id(name, players))
    if names[0] == names[1]:
        raise CommandError("--p1 and --p2 name the same player")
    if args.best_of == 1 and max(len(d) for d in decks) > 1:
        raise CommandError(
            "several decks need a set to pick them in: give --best-of N (N = 3, 5, ...)"
        )
    table = pd.DataFrame(
        {
            "player1": [names[0]],
            "player2": [names[1]],
            "deck1": pd.Series([decks[0]], dtype=object),
            "deck2": pd.Series([decks[1]], dtype=object),
        }
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        row = predict_series(
            model,
            table,
            args.best_of,
            rule=args.series_rule,
            pick=args.pick,
            first_move=args.set_order,
            interval=args.interval,
            draw_rule=args.draw_rule,
        ).iloc[0]
    for w in caught:
        if issubclass(w.category, UserWarning):
            print(f"note: {' '.join(str(w.message).split())}")
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    for name in names:
        if name not in players:
            hint = _did_you_mean(name, players)
            print(
                f"note: player {shown(repr(name))} was not in the fitted matches{hint}; their "
                f"skill is {newcomer_words(model)}, so the interval is wide."
            )
    d1, d2 = ("; ".join(deck_label(d, catalogue) for d in side) for side in decks)
    p1, p2, d1, d2 = (shown(str(text)) for text in (names[0], names[1], d1, d2))
    print(
        f"P({p1} with {d1} beats {p2} with {d2} in a best-of-{args.best_of} set) = "
        f"{row['mean']:.3f}"
    )
    print(f"{round(100 * args.interval)}% interval: {row['lower']:.3f} to {row['upper']:.3f}")
    then = _THEN[args.set_order]
    # a symmetric game has no player 1 to speak of (`_player1_words` says nothing)
    order = f"; player 1 in game 1: {p1}, then {then}" if _player1_words(model) else ""
    one_each = len(decks[0]) == len(decks[1]) == 1
    rule = "fixed decks" if args.series_rule == "fixed" else args.series_rule
    picks = "" if one_each else f", decks picked: {args.pick}"
    alone = f"; one game alone: {row['p_game']:.3f}" if one_each else ""
    print(f"set: {rule}{picks}{order}{alone}{set_draw_words(model, args.draw_rule)}")
    return 0
