"""Promise: no CSV memrecall writes runs as a spreadsheet formula; numbers stay numbers."""

import csv
import io

import pytest

from memrecall.corpus.labels import disputes_csv, sample_csv
from memrecall.io import csv_cell
from memrecall.reports.exports.sweep_summary import csv_summary
from memrecall.reports.exports.table_text import csv_table

FORMULAS = ["=1+2", "+cmd", "-2+3", "@SUM(A1)", "\tx", "\rx", '=HYPERLINK("http://x")']
NUMERALS = ["-0.0123", "+1", "-1e-05", "0.964", "-3"]


# Every CSV writer, as a function of one text cell -> (CSV text, the column the cell lands in).
def _table(cell):
    return csv_table(["system", "value"], [[cell, "-0.5"]]), 0


def _summary(cell):
    return csv_summary([["epirec", cell, "ok", "overall", "recall@3", "-0.5", "", "", "", "", "", ""]]), 1


def _sample(cell):
    return sample_csv([{"id": "-0.5", "text": cell}]), 1


def _disputes(cell):
    row = {"episode_id": cell, "authored_band": "high", "consensus_band": "low"}
    return disputes_csv([{**row, "authored_valence": "positive", "consensus_valence": "-0.5"}]), 0


WRITERS = {"csv_table": _table, "sweep csv_summary": _summary, "labels sample_csv": _sample, "disputes": _disputes}


def _cells(text: str) -> list[str]:
    """The cells of the CSV's first data row."""
    return list(csv.reader(io.StringIO(text, newline="")))[1]


@pytest.mark.parametrize("writer", sorted(WRITERS))
@pytest.mark.parametrize("formula", FORMULAS)
def test_a_formula_like_text_cell_gets_a_leading_apostrophe(writer, formula):
    text, column = WRITERS[writer](formula)
    assert _cells(text)[column] == "'" + formula


@pytest.mark.parametrize("writer", sorted(WRITERS))
@pytest.mark.parametrize("numeral", NUMERALS)
def test_a_number_stays_a_number(writer, numeral):
    text, column = WRITERS[writer](numeral)
    cells = _cells(text)
    assert cells[column] == numeral
    assert "-0.5" in cells  # the writer's own negative number cell is untouched


@pytest.mark.parametrize("value", ["plain", "a=b", "", "x-1", 3, -2.5, None])
def test_other_cells_are_left_alone(value):
    assert csv_cell(value) == value
