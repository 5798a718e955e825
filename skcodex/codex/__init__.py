"""The game itself, no statistics: the Codex catalogue and forum deck notation."""

from skcodex.codex._catalogue import (
    CODEX,
    NICKNAMES,
    SPEC_COLOURS,
    STARTERS,
    Catalogue,
    legal_decks,
    monocolour_decks,
)
from skcodex.codex._deck import Deck, DeckParseError
from skcodex.codex._notation import (
    deck_label,
    format_deck,
    parse_deck,
    parse_decks,
)
from skcodex.codex._plain import CatalogueFileError, PlainCatalogue

__all__ = [
    "CODEX",
    "NICKNAMES",
    "SPEC_COLOURS",
    "STARTERS",
    "Catalogue",
    "CatalogueFileError",
    "Deck",
    "DeckParseError",
    "PlainCatalogue",
    "deck_label",
    "format_deck",
    "legal_decks",
    "monocolour_decks",
    "parse_deck",
    "parse_decks",
]
