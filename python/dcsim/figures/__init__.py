"""The figure registry: each paper figure as a named entry (`core.py`: the
machinery; one module per paper registers its figures).

    dcsim list figures
    dcsim reproduce pfabric-fig7-9 --quick --out out/fig7-9
    dcsim reproduce pfabric --quick --out out/pfabric     (every figure of the paper)
"""

from .core import (
    COMPARISON_HEADERS,
    REGISTRY,
    Figure,
    Mode,
    Panel,
    PaperBound,
    compare,
    comparison_rows,
    compute,
    draw,
    get,
    plot,
    register,
    reproduce,
    resolve,
)
from .paper import PaperResult, figures_of, papers, reproduce_paper
from . import pfabric  # noqa: F401  (registers the pFabric figures)
from . import pias  # noqa: F401  (registers the PIAS figures)
from . import pias_testbed  # noqa: F401  (the PIAS testbed figures, on a model of the testbed)
from . import model  # noqa: F401  (figures of a model: pFabric Fig. 22)
from . import cs244  # noqa: F401  (the CS244 '13 student reproduction of pFabric)
from . import bfc  # noqa: F401  (the BFC figures)
from . import bfc_testbed  # noqa: F401  (BFC's testbed figure, on a model of the testbed)
from . import faults  # noqa: F401  (dcsim's own figure of a spine failure, docs/faults.md)

__all__ = ["COMPARISON_HEADERS", "REGISTRY", "Figure", "Mode", "Panel", "PaperBound", "compare", "comparison_rows",
           "compute", "draw", "figures_of", "get", "papers", "plot", "register", "reproduce", "reproduce_paper",
           "resolve", "PaperResult"]
