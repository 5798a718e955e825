"""What every analysis shares: intervals, the fitted check, the catalogue, thinning."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from skcodex.codex import CODEX, Catalogue, PlainCatalogue

#: Width of the credible intervals reported throughout.
INTERVAL = 0.90

# Bytes of working memory one chunk of matchup draws may use.
CHUNK_BYTES = 64 * 2**20


def quantiles(draws: np.ndarray, interval: float = INTERVAL) -> tuple[np.ndarray, np.ndarray]:
    """The equal-tailed ``interval`` of ``draws`` along the first axis."""
    if not 0 < interval < 1:
        raise ValueError(f"interval must be between 0 and 1, got {interval!r}")
    tail = (1.0 - interval) / 2.0
    return np.quantile(draws, tail, axis=0), np.quantile(draws, 1.0 - tail, axis=0)


def check_fitted(clf: Any) -> None:
    """Refuse a classifier that is not fitted, with scikit-learn's `NotFittedError`."""
    check_is_fitted(clf, ("effect_draws_", "spread_draws_", "vocabulary_", "layout_"))


def catalogue(clf: Any) -> Catalogue | PlainCatalogue:
    """The catalogue a fitted classifier read its decks against (base Codex by default)."""
    cat = getattr(clf, "catalogue", None)
    if cat is None:
        cat = getattr(clf, "catalogue_", None)
    return CODEX if cat is None else cat


def thin(n_total: int, n_draws: int | None) -> np.ndarray:
    """Evenly spaced draw indices: every draw when ``n_draws`` is None or large enough."""
    if n_draws is None:
        return np.arange(n_total)
    if isinstance(n_draws, bool) or not isinstance(n_draws, (int, np.integer)) or n_draws < 1:
        raise ValueError(f"n_draws must be a positive integer or None, got {n_draws!r}")
    picked = np.linspace(0, n_total - 1, min(int(n_draws), n_total)).round()
    return np.unique(picked.astype(np.int64))


def check_count(value: Any, name: str) -> int:
    """A positive integer, or a one-line error naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)
