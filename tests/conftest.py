"""Shared fixtures: the real codexdata folder (skipped when absent) and small synthetic data."""

import os
from pathlib import Path

import pytest

from skcodex.datasets import make_matches

# A clone of the codexdata repository's data folder: $SKCODEX_CODEXDATA, else beside the checkout.
CODEXDATA = Path(
    os.environ.get(
        "SKCODEX_CODEXDATA",
        Path(__file__).resolve().parents[1].parent / "shared" / "data" / "codexdata",
    )
)


@pytest.fixture(scope="session")
def codexdata_path() -> Path:
    """The codexdata folder (see `CODEXDATA`); the test skips when it is absent."""
    if not (CODEXDATA / "matches.csv").exists():
        pytest.skip(f"real data not found at {CODEXDATA}")
    return CODEXDATA


@pytest.fixture(scope="session")
def small_matches():
    """A small synthetic tournament series (30 players, 400 matches)."""
    return make_matches(n_players=30, n_matches=400, n_tournaments=5, random_state=7)
