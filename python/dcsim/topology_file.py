"""Fabrics from files: the HPCC simulator's `topology.txt` format (the
format of the simulator BFC and HPCC ran their fabrics on), so users bring
the fabrics they already have.

    <nodes> <switches> <links>
    <switch id> <switch id> ...
    <a> <b> <rate> <delay> <error rate>      (one line per link)

Rates as ns-3 writes them: `100Gbps`, `400Mbps`, `1Tbps`, `10Kbps` (or
bits per second), `12.5GBps` in bytes per second; delays as `0.001ms`,
`1us`, `500ns`, `1s`. Nodes not listed as switches are hosts;
dcsim numbers hosts 0.. in the file's order of ids and switches after them
(`Fabric.host_id` maps a file id to dcsim's host number). Parallel links
are kept, as equal-cost links the routing spreads flows over (the HPCC
simulator keeps only the last one). Anything else wrong fails with the
file and line: unknown or out-of-range ids, a host with no link or more
than one, a disconnected fabric, a zero or unparsable rate, an unparsable
delay, a link from a node to itself, a non-zero error rate (dcsim models
no random losses)."""

from __future__ import annotations

import math
import re
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from .errors import SpecError

#: ns-3's DataRate units: a bit (b) or byte (B) per second, with a decimal
#: prefix (k or K, M, G, T)
_RATE = {f"{p}{u}": m * b for p, m in (("", 1.0), ("k", 1e3), ("K", 1e3), ("M", 1e6), ("G", 1e9), ("T", 1e12))
         for u, b in (("bps", 1), ("b/s", 1), ("Bps", 8), ("B/s", 8))}
_TIME = {"ms": 1e-3, "us": 1e-6, "ns": 1e-9, "ps": 1e-12, "s": 1.0}


@dataclass
class Fabric:
    """A parsed fabric in dcsim's numbering: hosts `0..hosts`, switches
    after them; links as (a, b, rate_bps, delay_ps)."""

    hosts: int
    switches: int
    links: list = field(default_factory=list)
    #: file id -> dcsim node id
    node_id: dict = field(default_factory=dict)
    #: (a, b, fraction): links that lose a fraction of their packets each
    #: way, for the whole run (the file's error rates; engine `faults.rs`)
    errors: list = field(default_factory=list)
    parallel: int = 0

    def host_id(self, file_id: int) -> int:
        return self.node_id[file_id]

    def engine(self) -> dict:
        return {"kind": "graph", "hosts": self.hosts, "switches": self.switches, "links": self.links}

    def host_rate_bps(self) -> int:
        """The slowest host link's rate."""
        return min(rate for a, b, rate, _ in self.links if a < self.hosts or b < self.hosts)

    def max_link_delay_ps(self) -> int:
        return max(d for *_, d in self.links)

    def core_capacity_bps(self) -> int:
        """What the switches next to hosts send up: the capacity of their
        links to other switches (the HPCC and BFC papers' core)."""
        tors = {max(a, b) for a, b, *_ in self.links if min(a, b) < self.hosts}
        return sum(r * ((a in tors) + (b in tors)) for a, b, r, _ in self.links if min(a, b) >= self.hosts)


def _quantity(text: str, units: dict, what: str, where: str) -> float:
    m = re.fullmatch(r"([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)([A-Za-z/]*)", text)
    unit = m and (m.group(2) or next(u for u in units if units[u] == 1.0))
    if not m or unit not in units:
        raise SpecError(f"{where}: {what} {text!r} is not a number with a unit ({', '.join(units)})")
    value = float(m.group(1)) * units[unit]
    if not math.isfinite(value) or value > 1e18:
        raise SpecError(f"{where}: {what} {text!r} is out of range")
    return value


def read_hpcc(path: str | Path) -> Fabric:
    path = Path(path)
    try:
        lines = path.read_text().splitlines()
    except FileNotFoundError:
        raise SpecError(f"topology file not found: {path}") from None
    except UnicodeDecodeError:
        raise SpecError(f"{path}: not a text file") from None
    rows = [(i + 1, line.split()) for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#")]

    def ints(n: int, what: str) -> list[int]:
        line, words = rows[n]
        try:
            return [int(w) for w in words]
        except ValueError:
            raise SpecError(f"{path}:{line}: {what} must be integers, got {' '.join(words)!r}") from None

    if len(rows) < 2:
        raise SpecError(f"{path}: expected a line 'nodes switches links' and a line of switch ids")
    head = ints(0, "the first line's counts")
    if len(head) != 3 or min(head) < 0:
        raise SpecError(f"{path}:{rows[0][0]}: the first line must be 'nodes switches links', got {' '.join(rows[0][1])!r}")
    nodes, nswitches, nlinks = head
    switch_ids = ints(1, "switch ids") if nswitches else []
    if nswitches == 0:
        rows.insert(1, (rows[1][0], []))
    line2 = rows[1][0]
    if len(switch_ids) != nswitches:
        raise SpecError(f"{path}:{line2}: {nswitches} switches announced, {len(switch_ids)} ids listed")
    for s in switch_ids:
        if not 0 <= s < nodes:
            raise SpecError(f"{path}:{line2}: switch id {s} is out of range (0..{nodes - 1})")
    if len(set(switch_ids)) != len(switch_ids):
        raise SpecError(f"{path}:{line2}: a switch id is listed twice")
    switches = set(switch_ids)
    host_ids = [n for n in range(nodes) if n not in switches]
    if len(host_ids) < 2:
        raise SpecError(f"{path}: a fabric needs at least 2 hosts (nodes not listed as switches), found {len(host_ids)}")
    node_id = {h: i for i, h in enumerate(host_ids)}
    node_id.update({s: len(host_ids) + i for i, s in enumerate(sorted(switches))})
    links, link_lines, seen, host_links, parallel, errors = [], [], set(), {}, 0, []
    for line, words in rows[2:]:
        where = f"{path}:{line}"
        if len(words) != 5:
            raise SpecError(f"{where}: a link is 'a b rate delay error_rate', got {' '.join(words)!r}")
        try:
            a, b = int(words[0]), int(words[1])
        except ValueError:
            raise SpecError(f"{where}: node ids must be integers, got {words[0]!r} {words[1]!r}") from None
        for n in (a, b):
            if not 0 <= n < nodes:
                raise SpecError(f"{where}: node {n} is out of range (0..{nodes - 1})")
        if a == b:
            raise SpecError(f"{where}: a link from node {a} to itself")
        rate = _quantity(words[2], _RATE, "rate", where)
        delay = _quantity(words[3], _TIME, "delay", where)
        if rate <= 0:
            raise SpecError(f"{where}: rate {words[2]!r} must be positive")
        if rate < 1:
            raise SpecError(f"{where}: rate {words[2]!r} is below 1 bps")
        try:
            err = float(words[4])
        except ValueError:
            raise SpecError(f"{where}: error rate {words[4]!r} is not a number") from None
        if not 0 <= err <= 1:
            raise SpecError(f"{where}: error rate {words[4]!r} must be a fraction of packets in [0, 1]")
        if err:
            errors.append((node_id[a], node_id[b], err))
        key = (min(a, b), max(a, b))
        parallel += key in seen
        seen.add(key)
        for h in (a, b):
            if h not in switches:
                if h in host_links:
                    raise SpecError(f"{where}: host {h} has a second link (line {host_links[h]}); a host has one NIC")
                host_links[h] = line
        links.append((node_id[a], node_id[b], round(rate), round(delay * 1e12)))
        link_lines.append(line)
    if len(links) != nlinks:
        raise SpecError(f"{path}:{rows[0][0]}: {nlinks} links announced, {len(links)} link lines found")
    for h in host_ids:
        if h not in host_links:
            # (the line that makes it a host, by leaving it out; with no
            # switches, the first line, which says so)
            line = line2 if nswitches else rows[0][0]
            raise SpecError(f"{path}:{line}: host {h} (a node not listed as a switch) has no link")
    # connected?
    adj = {i: [] for i in range(nodes)}
    for a, b, *_ in links:
        adj[a].append(b)
        adj[b].append(a)
    reached, todo = {0}, deque([0])
    while todo:
        for v in adj[todo.popleft()]:
            if v not in reached:
                reached.add(v)
                todo.append(v)
    if len(reached) != nodes:
        inverse = {v: k for k, v in node_id.items()}
        cut = sorted(inverse[v] for v in range(nodes) if v not in reached)
        # the first link among the nodes cut off, or the switch-id line
        # that lists a switch with no link at all
        line = next((ln for (a, _b, *_), ln in zip(links, link_lines) if a not in reached), line2)
        raise SpecError(f"{path}:{line}: the fabric is not connected: nodes {cut[:10]}{' ...' if len(cut) > 10 else ''} "
                        f"cannot reach node {inverse[0]}")
    return Fabric(hosts=len(host_ids), switches=nswitches, links=links, node_id=node_id, parallel=parallel,
                  errors=errors)
