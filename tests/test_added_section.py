"""A new output of the report is one section record, one analysis function and one template.

The section below (how often the underdog won, tournament by tournament) is
added the way docs/code-layout.md says: a `Section` appended to the report's
table of sections, with its analysis function, its table and CSV makers and its
template. No module of skcodex changes, and the written report shows its
heading, its table and its CSV file, whose numbers are checked against a count
made here from the forecasts and outcomes.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

from skcodex import BayesianMatchupClassifier
from skcodex._pages.text import Table, fmt
from skcodex.report import write_report
from skcodex.report._sections import SECTION_TABLE, Section


def upsets(given) -> dict:
    """The analysis: per tournament, matches and how many the underdog won."""
    p = given.clf.predict_proba(given.X)[:, 1]
    y = np.asarray(given.y)
    underdog_won = np.where(p < 0.5, y == 1, y == 0)
    frame = pd.DataFrame({"period": given.X["period"].to_numpy(), "upset": underdog_won})
    table = frame.groupby("period", sort=False)["upset"].agg(matches="size", upsets="sum")
    table["share"] = table["upsets"] / table["matches"]
    return {"upsets": table}


def upsets_table(result) -> Table:
    t = result.extra["upsets"]
    return Table.from_columns(
        "table-upsets",
        {
            "tournament": [str(k) for k in t.index],
            "matches": t["matches"].tolist(),
            "underdog won": [fmt(v) for v in t["share"]],
        },
    )


TEMPLATE = """{% from "macros.html.j2" import table with context %}
<p>How often the player the model rated less likely to win won anyway.</p>
{{ table(tables.upsets) }}"""

UPSETS = Section(
    "upsets",
    "Upsets by tournament",
    upsets,
    tables={"upsets": upsets_table},
    csv={"upsets.csv": lambda result: result.extra["upsets"].reset_index()},
    template=TEMPLATE,
)


@pytest.fixture
def with_upsets():
    SECTION_TABLE.append(UPSETS)
    yield UPSETS
    SECTION_TABLE.remove(UPSETS)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_an_added_section_is_in_the_written_report(with_upsets, small_matches, tmp_path):
    X, y = small_matches.X, small_matches.y
    clf = BayesianMatchupClassifier(
        draws=50, tune=50, chains=1, random_state=0, time_varying=False, debut=False
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X, y)
    page = write_report(clf, X, y, tmp_path, nash_draws=10).read_text(encoding="utf-8")
    assert '<section id="upsets"><h2>Upsets by tournament</h2>' in page
    assert '<a href="#upsets">Upsets by tournament</a>' in page
    assert 'id="table-upsets"' in page

    # the CSV file, checked against a count made here
    written = pd.read_csv(tmp_path / "upsets.csv")
    p = clf.predict_proba(X)[:, 1]
    for _, row in written.iterrows():
        here = (X["period"] == row["period"]).to_numpy()
        favourite_lost = np.where(p[here] < 0.5, y[here] == 1, y[here] == 0)
        assert row["matches"] == here.sum() and row["upsets"] == favourite_lost.sum()
        assert f"<td>{fmt(row['share'])}</td>" in page
    assert written["matches"].sum() == len(X)
    # the built-in sections are all still there, the new one last
    assert page.index('id="calibration"') < page.index('id="upsets"')
    assert (tmp_path / "skills.csv").exists()


def test_the_section_leaves_the_table_when_the_test_ends():
    assert UPSETS not in SECTION_TABLE
