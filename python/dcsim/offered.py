"""The load a spec's traffic matrix offers each link, before a run: from
the topology (the engine's own links), the matrix and the load, each
source's traffic split evenly over the equal-cost next hops at every hop
(what ECMP's hashing and spraying give on average). A link offered more
than it carries makes a run's numbers those of an overloaded network,
however long it runs: `dcsim run` and `dcsim sweep` warn of it
(`overloads`)."""

from __future__ import annotations

from collections import deque
from typing import Optional

#: Warn when a link is offered more than this share of its rate.
OVERLOAD = 1.0
#: Matrices whose pair rates follow from the spec alone.
MATRICES = ("all_to_all", "heterogeneous", "rack_local", "many_to_one")
#: Above this many (destination switch x link) steps the estimate is
#: skipped (about a second of Python)...
BUDGET = 4_000_000
#: ...and above this many hosts it is not tried (building the 6,144-host
#: fabrics' networks alone takes a second or more).
MAX_HOSTS = 2048

TIERS = {0: "host", 1: "leaf/edge", 2: "spine/aggregation", 3: "core"}


def link_loads(spec, ports: list[dict]) -> Optional[list[float]]:
    """Offered bits per second on each port's link (`ports`: the engine's
    port reports, with node, peer, rate and tier), or None where the
    matrix is not one of `MATRICES` or the fabric is beyond `BUDGET`."""
    from .spec.experiment import _capacity

    w = spec.workload
    if w.matrix not in MATRICES or w.load is None:
        return None
    hosts = spec.topology.host_count()
    out: dict[int, list[tuple[int, int]]] = {}
    for i, p in enumerate(ports):
        out.setdefault(p["node"], []).append((i, p["peer"]))
    tor = {h: out[h][0][1] for h in range(hosts) if h in out}
    under: dict[int, list[int]] = {}
    for h, t in tor.items():
        under.setdefault(t, []).append(h)
    if len(under) * len(ports) > BUDGET:
        return None
    rate = _pair_rates(spec, w.load * _capacity(spec), hosts, tor)
    load = [0.0] * len(ports)
    into: dict[int, list[tuple[int, int]]] = {}  # node -> (port, its node) of the links into it
    for i, p in enumerate(ports):
        into.setdefault(p["peer"], []).append((i, p["node"]))
    for t, dsts in under.items():
        # hops to t from every node (hosts forward nothing)
        dist = {t: 0}
        todo = deque([t])
        while todo:
            y = todo.popleft()
            for _, x in into.get(y, ()):
                if x not in dist:
                    dist[x] = dist[y] + 1
                    if x >= hosts:
                        todo.append(x)
        here = {s: sum(rate(s, d) for d in dsts if d != s) for s in range(hosts) if s in dist}
        for x in sorted(dist, key=dist.get, reverse=True):
            a = here.pop(x, 0.0)
            if not a or x == t:
                continue
            nxt = [(i, y) for i, y in out.get(x, ()) if dist.get(y) == dist[x] - 1]
            for i, y in nxt:
                load[i] += a / len(nxt)
                here[y] = here.get(y, 0.0) + a / len(nxt)
        for i, d in out.get(t, ()):
            if d < hosts:
                load[i] += sum(rate(s, d) for s in range(hosts) if s != d)
    return load


def _pair_rates(spec, total_bps: float, hosts: int, tor: dict[int, int]):
    """rate(src, dst), bits per second, of the spec's matrix carrying
    `total_bps` in all."""
    w = spec.workload
    if w.matrix == "many_to_one":
        each = total_bps / max(hosts - 1, 1)
        return lambda s, d: each if d == w.dst and s != d else 0.0
    per_host = total_bps / hosts
    if w.matrix != "rack_local":
        each = per_host / max(hosts - 1, 1)
        return lambda s, d: each
    if w.rack_hosts:
        rack = {h: h // w.rack_hosts for h in range(hosts)}
    else:
        rack = tor
    size: dict[int, int] = {}
    for h in range(hosts):
        size[rack[h]] = size.get(rack[h], 0) + 1

    def rate(s: int, d: int) -> float:
        n = size[rack[s]]
        if rack[s] == rack[d]:
            return per_host * w.local_share / (n - 1) if n > 1 else 0.0
        return per_host * (1 - w.local_share if n > 1 else 1.0) / (hosts - n)

    return rate


def overloads(spec, ports: list[dict]) -> list[str]:
    """What the matrix offers more than links carry, by kind of link (the
    tiers it joins): [] if nothing, else one line naming each kind, how
    much of its rate at most, and how many of its links."""
    load = link_loads(spec, ports)
    if load is None:
        return []
    shares: dict[tuple[int, int], list[float]] = {}
    tier = {p["node"]: p["tier"] for p in ports}
    for p, offered in zip(ports, load):
        shares.setdefault((p["tier"], tier.get(p["peer"], 0)), []).append(offered / p["rate_bps"])
    kinds = []
    for (a, b), xs in sorted(shares.items()):
        over = [x for x in xs if x > OVERLOAD]
        if over:
            kinds.append(f"{TIERS.get(a, a)} -> {TIERS.get(b, b)} up to {100 * max(over):.0f}% "
                         f"({len(over)} of {len(xs)} links)")
    if not kinds:
        return []
    return [f"workload.load = {spec.workload.load:g} offers links more than their rate on this topology: "
            f"{'; '.join(kinds)}. Queues there grow without bound and the numbers depend on how long the run is "
            "(a lower load, or load_basis = \"core\" on an oversubscribed fabric, keeps every link below its rate)"]


def overload_caveats(spec) -> list[str]:
    """`overloads` for a spec, before it runs (the network built, no flow
    run); [] for matrices `link_loads` does not model."""
    import json

    if spec.workload.matrix not in MATRICES or spec.workload.load is None \
            or spec.topology.host_count() > MAX_HOSTS:
        return []
    from .simulate import build

    return overloads(spec, json.loads(build(spec).summary_json())["ports"])
