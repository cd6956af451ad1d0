"""One bottleneck link as a single-server queue of flows (BFC NSDI'22 §2.3,
Fig. 4): flows arrive, each needs its size's worth of the link, and the
link serves them by a policy: fair queueing (processor sharing: every flow
in the system gets an equal share), shortest remaining flow first
(preemptive SRPT) or FIFO. What BFC's argument needs of it is the number of
active flows (flows with data queued) over time, as a time-average
distribution: how often a port would need more than its 32 queues.

    counts = active_flows("ps", arrivals_s, service_s)   # time spent at each n

The models are exact for the job model (no packets): the number in the
system under processor sharing with Poisson arrivals is geometric with mean
rho / (1 - rho) whatever the sizes (§2.3, tested), and the same for FIFO
with exponential sizes.
"""

from __future__ import annotations

import heapq

import numpy as np

POLICIES = ("ps", "srpt", "fifo")


def lognormal_gaps(n: int, mean_s: float, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """`n` lognormal inter-arrival times with mean `mean_s` (the log-mean is
    chosen so: mu = ln(mean) - sigma^2 / 2), as BFC's arrivals (sigma = 2)."""
    return rng.lognormal(np.log(mean_s) - sigma**2 / 2, sigma, n)


def active_flows(policy: str, arrivals_s: np.ndarray, service_s: np.ndarray) -> np.ndarray:
    """Time spent with exactly n flows in the system, for n = 0, 1, ...
    (seconds), from the first arrival to the last (the drain after the
    last arrival, which heavy-tailed sizes make long, is not steady state).
    `arrivals_s` sorted; `service_s[i]` is flow i's size at the link rate."""
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got {policy!r}")
    a = np.asarray(arrivals_s, dtype=float)
    s = np.asarray(service_s, dtype=float)
    if policy == "fifo":
        return _fifo(a, s)
    return _ps(a, s) if policy == "ps" else _srpt(a, s)


def _levels(times: np.ndarray, steps: np.ndarray, until: float) -> np.ndarray:
    """Time at each level, up to `until`, of a count that changes by
    `steps` at `times`."""
    order = np.argsort(times, kind="stable")
    t, d = times[order], steps[order]
    n = np.cumsum(d)
    dur = np.diff(np.minimum(t, until))
    return np.bincount(n[:-1].astype(np.int64), weights=dur)


def _fifo(a: np.ndarray, s: np.ndarray) -> np.ndarray:
    # Lindley: each flow leaves when the one before it has and it is served
    d = np.empty_like(a)
    done = -np.inf
    for i in range(len(a)):
        done = max(done, a[i]) + s[i]
        d[i] = done
    return _levels(np.concatenate([a, d]), np.concatenate([np.ones(len(a)), -np.ones(len(d))]), a[-1])


def _ps(a: np.ndarray, s: np.ndarray, extra: int = 0, steps: list | None = None) -> np.ndarray:
    # Processor sharing by virtual time: every flow in the system has had
    # the same service V since it arrived; V grows at 1/n; a flow arriving
    # at V0 leaves when V reaches V0 + its service. `extra` flows that never
    # leave share the link too (BFC Fig. 3's long-lived flow); `steps`, if
    # given, gets (time, flows in the system) at every arrival and departure.
    out: list[float] = []
    finish: list[float] = []  # heap of the flows' finishing virtual times
    t = v = 0.0
    i, n_flows = 0, len(a)
    while i < n_flows or finish:
        n = len(finish)
        share = n + extra
        next_arrival = a[i] if i < n_flows else np.inf
        next_departure = t + (finish[0] - v) * share if n else np.inf
        t_next = min(next_arrival, next_departure)
        if share:
            v += (t_next - t) / share
        _grow(out, n, min(t_next, a[-1]) - t if (i or n) and t < a[-1] else 0.0)
        t = t_next
        if next_departure <= next_arrival:
            heapq.heappop(finish)
        else:
            heapq.heappush(finish, v + s[i])
            i += 1
        if steps is not None:
            steps.append((t, len(finish)))
    return np.asarray(out)


def fair_share_changes(arrivals_s: np.ndarray, service_s: np.ndarray, intervals_s, samples: int,
                       rng: np.random.Generator) -> np.ndarray:
    """BFC §2.1, Fig. 3: a long-lived flow shares one link, fairly, with
    the flows of `arrivals_s` / `service_s` (processor sharing with one flow
    that never leaves), so its fair-share rate is f(t) = C / N(t), N(t) the
    flows on the link, itself included. Returns, for each interval I, the
    mean over t of |f(t + I) - f(t)| / f(t) = |N(t) / N(t + I) - 1|, with t
    drawn uniformly (`samples` draws) between the first arrival and the
    last arrival less I."""
    steps: list = []
    _ps(np.asarray(arrivals_s, dtype=float), np.asarray(service_s, dtype=float), extra=1, steps=steps)
    t = np.array([x[0] for x in steps])
    n = np.array([x[1] for x in steps]) + 1  # the long-lived flow
    first, last = float(arrivals_s[0]), float(arrivals_s[-1])

    def flows_at(x: np.ndarray) -> np.ndarray:
        return n[np.searchsorted(t, x, side="right") - 1]

    out = []
    for interval in intervals_s:
        x = first + rng.random(samples) * (last - interval - first)
        out.append(float(np.mean(np.abs(flows_at(x) / flows_at(x + interval) - 1))))
    return np.asarray(out)


def _srpt(a: np.ndarray, s: np.ndarray) -> np.ndarray:
    # The flow with the least work left is served; the others wait.
    out: list[float] = []
    left: list[float] = []  # heap of the work left of the flows in the system
    t = 0.0
    i, n_flows = 0, len(a)
    while i < n_flows or left:
        n = len(left)
        next_arrival = a[i] if i < n_flows else np.inf
        next_departure = t + left[0] if n else np.inf
        t_next = min(next_arrival, next_departure)
        if n:
            heapq.heapreplace(left, left[0] - (t_next - t))
        _grow(out, n, min(t_next, a[-1]) - t if (i or n) and t < a[-1] else 0.0)
        t = t_next
        if next_departure <= next_arrival:
            heapq.heappop(left)
        else:
            heapq.heappush(left, s[i])
            i += 1
    return np.asarray(out)


def _grow(out: list, n: int, dt: float) -> None:
    while len(out) <= n:
        out.append(0.0)
    out[n] += dt


def cdf(levels: np.ndarray) -> np.ndarray:
    """P(N <= n) for n = 0, 1, ... from the time at each level."""
    return np.cumsum(levels) / levels.sum()


def quantile(levels: np.ndarray, q: float) -> int:
    """The smallest n with P(N <= n) >= q."""
    return int(np.searchsorted(cdf(levels), q - 1e-12))
