"""BFC (NSDI'22) figures, one module per part of the paper; importing the
package registers them all (docs/reproductions/bfc.md):

- `models`: the queueing models of one link (Figs. 3, 4);
- `by_size`: what the packet-level figures share (BFC's set-up, the figure
  of schemes side by side by flow size);
- `end_to_end`: BFC against the end-to-end schemes (Figs. 9-11, 22, 29);
- `stress`: load and incast degree (Figs. 12, 13, 24);
- `appendix`: BFC's variants and the other schemes' settings (Figs. 14,
  16, 20, 21, 23, 25, 27, 28);
- `srf`: BFC-SRF against Homa and IdealSRF (Figs. 17-19);
- `two_dc`: two datacenters joined by a long link (Fig. 26);
- `limits`: mice among many long flows (Fig. 15) and the pause
  threshold's worst case (Fig. 30);
- `table1`: one long flow against cross traffic (Table 1)."""

from . import models, end_to_end, stress, appendix, srf, table1, two_dc, limits  # noqa: F401  (registers the figures)
from .appendix import fig23_stats
from .by_size import BySizeFigure
from .models import FIG3_FLOWS, FIG3_WORKLOADS, FIG4_FLOWS, fig3_compute, fig4_compute
from .table1 import BFC_CONFIG_DCQCN, table1_table

__all__ = ["BySizeFigure", "BFC_CONFIG_DCQCN", "FIG3_FLOWS", "FIG3_WORKLOADS", "FIG4_FLOWS", "fig23_stats",
           "fig3_compute", "fig4_compute", "table1_table"]
