"""Notes on printed table cells that the report's errata table shows as the software's own findings.

The numbers are computed at report time (``verify.report.reproduce``); this file only says which printed
cells a note belongs to and what the note says, with provenance.  ``kind``:

* ``"confirmed"``: a printed value the paper notes could not reproduce and the computation does;
* ``"mismatch"``: what a printed value that does not reproduce means (the report attaches the note to that
  cell's finding instead of to an unrelated erratum).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class TableNote:
    table: str  # PrintedTable.id
    row: str  # Row.label
    column: str  # Column.key
    kind: Literal["confirmed", "mismatch"]
    text: str
    source: str = ""


TABLE_NOTES: tuple[TableNote, ...] = (
    TableNote("bu2020/table1", "eta=0.25, R=1.5, sigma=0.5, 100 epochs", "eps_ma", "confirmed",
              "the moments-accountant value 32.40 is correct: with the exact fractional-order RDP (quadrature) it "
              "reproduces; the paper notes lists it as not reproducible (33.03 from dp_accounting 0.6.0's series, "
              "which over-states D_1.8)",
              source="docs/papers/bu2020.md (MA columns, MNIST-6); theorems/bu2020.py APP_B_3 notes"),
    TableNote("bu2020/figure4", "top, sigma = 1.3, 20 epochs", "eps_ma", "mismatch",
              "the moments accountant gives 1.3498 for sigma = 1.3 at 20 epochs, 1.35 at the printed precision; "
              "Figure 4 prints 1.34, the CLT value of the recalibrated sigma~ = 1.06 (1.341), whose exact eps is "
              "1.408 (see the CLT under-statement)",
              source="docs/papers/bu2020.md (Fig 4 top) and §9 (1.3498, 1.408)"),
)

__all__ = ["TABLE_NOTES", "TableNote"]
