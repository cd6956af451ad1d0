"""What a flow takes alone, with the run's scheme, beyond its ideal FCT:
slow start, a handshake, delayed ACKs (`overhead`). A link's simulation
measures a flow's FCT there; what the link added is that FCT less the
flow's FCT alone on the same small fabric, so that what every flow pays
alone is counted once, not once per link of its path (with TCP's slow
start, a 100 KB flow pays about three round trips alone: counted on each
of a leaf-spine path's four links, the estimate would be several times
the FCT at low load).

Alone FCTs come from the engine itself: one run per path (a tuple of
(rate, delay) hops) holds one flow of each packet count on a chain of its
own (the chains meet at a hub no flow crosses, as the engine wants a
connected fabric), so none meets another. Every count up to `EXACT`
packets is run; above it a geometric grid (`STEP`), interpolated, up to
`CAP` packets; beyond, the overhead is extended along the line through
the last two runs. Alone, a long flow settles at a steady rate, so its
overhead past the start grows linearly with its size (not at all at line
rate): exact in both cases, where running data mining's 1 GB flows alone
took 20 s of every estimate.
"""

from __future__ import annotations

import numpy as np

EXACT = 64
STEP = 1.1
CAP = 16_384


def grid(packets: np.ndarray) -> np.ndarray:
    """The packet counts to run for flows of these counts."""
    packets = np.unique(packets)
    top = min(int(packets.max()), CAP)
    packets = packets[packets <= top]
    small = packets[packets <= EXACT]
    big = []
    n = float(EXACT)
    while n < top:
        n *= STEP
        big.append(min(int(np.ceil(n)), top))
    return np.unique(np.concatenate([small, np.asarray(big, dtype=small.dtype), [top]]))


def chain_fabric(hops: tuple, flows: int) -> dict:
    """`flows` disjoint copies of the path `hops` ((rate, delay), ...; the
    first out of the source, the last into the destination), and a hub."""
    k = len(hops)
    hosts = 2 * flows
    per = k - 1  # switches a chain has
    hub = hosts + flows * per
    links = []
    for f in range(flows):
        sw = [hosts + f * per + j for j in range(per)]
        nodes = [f, *sw, flows + f]
        links += [[nodes[j], nodes[j + 1], int(r), int(d)] for j, (r, d) in enumerate(hops)]
        links.append([sw[0], hub, 1_000_000_000, 1_000_000])
    return {"kind": "graph", "hosts": hosts, "switches": flows * per + 1, "links": links}


def alone_config(base: dict, hops: tuple, packets: np.ndarray, mss: int) -> dict:
    """The engine configuration that runs one flow of each of `packets`
    full segments alone on `hops`."""
    n = len(packets)
    return {**base, "topology": chain_fabric(hops, n),
            "workload": {"kind": "trace", "flows": [[0, f, n + f, int(p) * mss] for f, p in enumerate(packets)]}}


def overhead(packets_run: np.ndarray, fct_ps: np.ndarray, ideal_ps: np.ndarray, packets: np.ndarray) -> np.ndarray:
    """Each of `packets`' overhead alone (ps), from the runs of
    `packets_run` (exact where run, linear in between and beyond)."""
    extra = fct_ps.astype(np.float64) - ideal_ps.astype(np.float64)
    x, n = packets_run.astype(np.float64), packets.astype(np.float64)
    out = np.interp(n, x, extra)
    if len(x) > 1:
        past = n > x[-1]
        out[past] = extra[-1] + (n[past] - x[-1]) * (extra[-1] - extra[-2]) / (x[-1] - x[-2])
    return out
