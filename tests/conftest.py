"""Shared fixtures: the real codexdata folder (skipped when absent) and small synthetic data."""

from pathlib import Path

import pytest

from skcodex.datasets import make_matches

CODEXDATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "codexdata"


@pytest.fixture(scope="session")
def codexdata_path() -> Path:
    """The shared codexdata folder beside the checkout; the test skips when it is absent."""
    if not (CODEXDATA / "matches.csv").exists():
        pytest.skip(f"real data not found at {CODEXDATA}")
    return CODEXDATA


@pytest.fixture(scope="session")
def small_matches():
    """A small synthetic tournament series (30 players, 400 matches)."""
    return make_matches(n_players=30, n_matches=400, n_tournaments=5, random_state=7)


def pytest_collection_modifyitems(config, items):
    """Mark every test that reads the real data ``realdata`` (CI runs them on every line)."""
    for item in items:
        if "codexdata_path" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.realdata)
