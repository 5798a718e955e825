"""docs/real-data.md's tables of the default against WHR are the results as written."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import whr_goal  # noqa: E402


def test_every_row_of_the_whr_tables_is_in_the_docs_as_the_results_give_it(capsys):
    doc = (ROOT / "docs" / "real-data.md").read_text()
    lines = [line for line in whr_goal.main().splitlines() if line]
    assert len(lines) == 2 + 3 + 2 + len(whr_goal.CHANGES)
    assert [line for line in lines if line not in doc] == []
