"""Shared fixtures (the real codexdata folder, small synthetic data) and the CI rule on skips.

Under ``CI=true`` a test that would be skipped because nutpie, Chromium or the
real codexdata folder is missing fails instead: CI installs all three, so such a
skip would hide a test that never ran. Elsewhere those tests skip as usual.
"""

import os
import re
from pathlib import Path

import pytest

from skcodex.datasets import make_matches

pytest_plugins = ["pytester"]

# A clone of the codexdata repository's data folder: $SKCODEX_CODEXDATA, else beside the checkout.
CODEXDATA = Path(
    os.environ.get(
        "SKCODEX_CODEXDATA",
        Path(__file__).resolve().parents[1].parent / "shared" / "data" / "codexdata",
    )
)

#: Skip reasons that mean a dependency CI provides is missing, by what is missing.
REQUIRED_IN_CI = {
    "nutpie": re.compile(r"could not import 'nutpie'"),
    "Chromium": re.compile(r"Chromium is not installed"),
    "the codexdata folder": re.compile(r"real data not found"),
}


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() == "true"


def _skip_reason(report) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


def _fail_required_skip(report) -> None:
    """Turn a skip for a dependency CI provides into a failure (only under CI=true)."""
    if not (report.skipped and _in_ci()) or hasattr(report, "wasxfail"):
        return
    reason = _skip_reason(report)
    for what, pattern in REQUIRED_IN_CI.items():
        if pattern.search(reason):
            report.outcome = "failed"
            report.longrepr = f"{what} is required under CI=true, but the test skipped: {reason}"
            return


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    _fail_required_skip(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    _fail_required_skip(outcome.get_result())


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


def pytest_collection_modifyitems(config, items):
    """Mark every test that reads the real data ``realdata`` (CI runs them on every line)."""
    for item in items:
        if "codexdata_path" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.realdata)
