"""A fabric decomposed into its links' workloads, as Parsimon does
(Zhao et al., NSDI'23: each directed link simulated on its own, with the
flows that cross it).

Every flow is routed as the run routes it (ECMP's hash of the flow, on the
engine's own tables: `Sim.flow_ports`), and each directed link (an output
port, a "channel") gets the flows whose path crosses it. A busy channel's
own small fabric (`link_fabric`) carries those flows:

- sources reach the channel through one link each, of their first hop's
  rate (their NIC: a source sends no faster), carrying the propagation of
  the path up to the channel;
- the channel itself, at its rate and delay, with the switch ports the
  run's scheme gives every switch;
- destinations hang off fast links (`FAT` times the slowest rate of the
  path after the channel, so they do not queue: their queues are other
  channels' business), carrying the propagation after it.

A host's NIC is its own channel (the source link is the channel), and the
link into a host is one (no fast link after it). Flows keep their start
times (Parsimon does not shift them: the upstream delay is the source
link's). The acknowledgements travel back over the same small fabric."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: destination links' rate over the slowest rate after the channel
#: (Parsimon's fat links: ten times)
FAT = 10


@dataclass
class Decomposition:
    """The flows (arrays indexed by flow, in flow id order), each flow's
    path as output ports (flow i's are `ports[offsets[i]:offsets[i + 1]]`),
    and every output port's ends, rate and delay."""

    flow_id: np.ndarray
    start_ps: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    size: np.ndarray
    ideal_ps: np.ndarray
    offsets: np.ndarray
    ports: np.ndarray
    node: np.ndarray
    peer: np.ndarray
    rate_bps: np.ndarray
    delay_ps: np.ndarray
    hosts: int
    _by_channel: dict = field(default_factory=dict, repr=False)
    _positions: dict = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, sim, flows: dict, hosts: int) -> "Decomposition":
        """Route `flows` (columns as `sample_flows` gives them) on the built
        engine simulation `sim` of the whole fabric."""
        src, dst, ids = (np.asarray(flows[c], dtype=np.uint32) for c in ("src", "dst", "flow_id"))
        size = np.asarray(flows["size_bytes"], dtype=np.uint64)
        offsets, ports = sim.flow_ports(src.tolist(), dst.tolist(), ids.tolist())
        ideal = sim.flow_ideals(src.tolist(), dst.tolist(), ids.tolist(), size.tolist())
        links = sim.links()
        return cls(ids, np.asarray(flows["start_ps"], dtype=np.uint64), src, dst, size,
                   np.asarray(ideal, dtype=np.uint64), np.asarray(offsets, dtype=np.int64),
                   np.asarray(ports, dtype=np.int64), *(np.asarray(links[c]) for c in ("node", "peer", "rate_bps",
                                                                                        "delay_ps")), hosts)

    def path(self, i: int) -> np.ndarray:
        return self.ports[self.offsets[i]:self.offsets[i + 1]]

    def channels(self) -> dict[int, np.ndarray]:
        """Every busy channel (output port) and the flows that cross it (flow
        indices, in start order)."""
        if not self._by_channel:
            flow_of = np.repeat(np.arange(len(self.flow_id)), np.diff(self.offsets))
            self._by_channel.update({c: flow_of[p] for c, p in self.channel_positions().items()})
        return self._by_channel

    def channel_positions(self) -> dict[int, np.ndarray]:
        """Every channel's places in `ports` (the flows' paths laid end to
        end), in the order of `channels()`'s flows."""
        if not self._positions:
            order = np.argsort(self.ports, kind="stable")
            cuts = np.flatnonzero(np.diff(self.ports[order])) + 1
            self._positions.update({int(self.ports[o[0]]): o for o in np.split(order, cuts) if len(o)})
        return self._positions

    def path_shapes(self) -> tuple[list[tuple], np.ndarray]:
        """The distinct paths as (rate, delay) hops, and each flow's index
        among them (flows grouped by path length, their hops' kinds
        compared as rows: a few shapes among millions of flows)."""
        kind_of = {}
        port_kind = np.fromiter((kind_of.setdefault(k, len(kind_of)) for k in
                                 zip(self.rate_bps.tolist(), self.delay_ps.tolist())), dtype=np.int64,
                                count=len(self.rate_bps))
        kinds = list(kind_of)
        lengths = np.diff(self.offsets)
        shapes: list[tuple] = []
        which = np.empty(len(lengths), dtype=np.int64)
        for n in np.unique(lengths):
            flows = np.flatnonzero(lengths == n)
            rows = port_kind[self.ports[self.offsets[flows][:, None] + np.arange(n)]]
            uniq, inv = np.unique(rows, axis=0, return_inverse=True)
            which[flows] = len(shapes) + inv.ravel()
            shapes += [tuple(kinds[k] for k in row) for row in uniq.tolist()]
        return shapes, which

    def link_fabric(self, channel: int, caps: dict | None = None) -> tuple[dict, list, list]:
        """The channel's own fabric (the engine's `graph` topology), its
        flows as a trace `(start_ps, src, dst, size)` on it, in the order of
        `channels()[channel]`, and each flow's path there as (rate, delay)
        hops. `caps` (flow index -> rate): those flows reach the channel
        through a link of their own at that rate (after it, at a NIC),
        standing for what the rest of their path lets them send."""
        caps = caps or {}
        flows = self.channels()[channel]
        rate, delay = int(self.rate_bps[channel]), int(self.delay_ps[channel])
        first = bool(self.node[channel] < self.hosts)  # a NIC: the source link is the channel
        last = bool(self.peer[channel] < self.hosts)   # the link into a host: no fast link after it
        sources: dict = {}
        sinks: dict = {}
        src_of, dst_of = {}, {}
        for i in flows:
            p = self.path(i)
            j = int(np.flatnonzero(p == channel)[0])
            up, down = p[:j], p[j + 1:]
            cap = caps.get(int(i))
            s_key = int(self.src[i]) if cap is None or first else ("flow", int(i))
            d_key = int(self.dst[i]) if cap is None or not first else ("flow", int(i))
            src_of[int(i)], dst_of[int(i)] = s_key, d_key
            if first:
                sources.setdefault(s_key, (rate, delay))
            else:
                sources.setdefault(s_key, (int(cap) if cap is not None else int(self.rate_bps[p[0]]),
                                           int(self.delay_ps[up].sum())))
            if len(down):
                sinks.setdefault(d_key, (int(cap) if cap is not None and first else
                                         FAT * int(self.rate_bps[down].min()), int(self.delay_ps[down].sum())))
            else:
                sinks.setdefault(d_key, (rate, delay))
        src_ids = {h: k for k, h in enumerate(sources)}
        dst_ids = {h: len(src_ids) + k for k, h in enumerate(sinks)}
        hosts = len(src_ids) + len(dst_ids)
        u, v = hosts, hosts + (0 if first else 1)  # the channel's two switches (one, at a NIC or into a host)
        links = []
        if first:
            [h] = sources
            links.append((src_ids[h], v, rate, delay))
        else:
            links += [(src_ids[h], u, r, d) for h, (r, d) in sources.items()]
        if last:
            [h] = sinks
            links.append((dst_ids[h], u, rate, delay))
        else:
            if not first:
                links.append((u, v, rate, delay))
            links += [(dst_ids[h], v, r, d) for h, (r, d) in sinks.items()]
        switches = 1 if (first or last) else 2
        topology = {"kind": "graph", "hosts": hosts, "switches": switches, "links": [list(x) for x in links]}
        trace = [[int(self.start_ps[i]), src_ids[src_of[int(i)]], dst_ids[dst_of[int(i)]], int(self.size[i])]
                 for i in flows]
        hops = []
        for i in flows:
            up, down = sources[src_of[int(i)]], sinks[dst_of[int(i)]]
            hops.append((up, down) if first or last else (up, (rate, delay), down))
        return topology, trace, hops
