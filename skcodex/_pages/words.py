"""What a page calls the game's parts and sides, from the fitted model and its catalogue."""

from __future__ import annotations

from typing import Any

__all__ = ["game_words", "is_symmetric"]


def is_symmetric(clf: Any) -> bool:
    """Whether the fitted matchups are antisymmetric (no side moves first)."""
    layout = getattr(clf, "layout_", None)
    if layout is not None:  # what was fitted, whatever set_params says since
        return bool(getattr(layout.options, "symmetric", False))
    return bool(clf.get_params().get("symmetric", False))


def game_words(clf: Any) -> dict[str, Any]:
    """What the report calls the game's parts and sides, from the fitted model and catalogue.

    Parameters
    ----------
    clf : BayesianMatchupClassifier
        Fitted: its model options and catalogue are read.

    Returns
    -------
    dict
        ``codex`` (the Codex model: Codex decks of three specs), ``specs_per_deck``,
        ``n_deck_effects``, ``starter_word`` and ``spec_word`` (the catalogue's
        nouns), ``deck_word`` (``"deck"``, or the catalogue's noun for a starter
        when a deck is a starter alone, e.g. ``"race"``), ``symmetric`` (no side moves first),
        ``first_move`` (the fitted model has a first-move effect) and
        ``player1``, how player 1 is described: ``"who moves first"`` for Codex
        or a model with a first-move effect, ``"listed first"`` for an ordered
        model of another game, None for a symmetric model (no turn wording).
    """
    from skcodex.codex import PlainCatalogue

    cat = getattr(clf, "catalogue", None) or getattr(clf, "catalogue_", None)
    plain = isinstance(cat, PlainCatalogue)
    k = int(clf.layout_.specs_per_deck)
    starter = cat.starter_word if plain else "starter"
    symmetric = is_symmetric(clf)
    first_move = bool(getattr(clf.layout_.options, "first_move", False))
    codex = not plain and k == 3
    if symmetric:
        player1 = None
    elif codex or first_move:
        player1 = "who moves first"
    else:
        player1 = "listed first"
    return {
        "codex": codex,
        "specs_per_deck": k,
        "n_deck_effects": 1 + 2 * k + k * k,
        "starter_word": starter,
        "spec_word": cat.component_word if plain else "spec",
        # a deck of a starter alone takes the game's own noun for it, when it has one
        "deck_word": starter if plain and k == 0 and starter != "starter" else "deck",
        "symmetric": symmetric,
        "first_move": first_move,
        "player1": player1,
    }
