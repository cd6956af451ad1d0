"""The decomposed estimator (issue 53, docs/estimator.md): the
decomposition routes flows as the run does, a one-link fabric's estimate
is the exact run, and the estimate does not depend on where its links ran."""

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import dcsim
from dcsim._core import sample_flows
from dcsim.errors import SpecError
from dcsim.estimate import estimate
from dcsim.estimate.decompose import Decomposition
from dcsim.simulate import build
from dcsim.spec import engine_config, spec_from_dict

ECMP = {"routing": {"load_balancing": "ecmp"}}


def _decompose(spec):
    sim = build(spec)
    return Decomposition.of(sim, sample_flows(json.dumps(engine_config(spec))), spec.topology.host_count())


EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.mark.parametrize("topology", [{"kind": "leaf_spine"},
                                      # a fabric from a file (BFC's testbed: three switches, five hosts)
                                      {"kind": "file", "path": str(EXAMPLES / "bfc_testbed_topology.txt")}])
def test_each_flows_bytes_reach_every_link_on_its_path_as_the_run_routes_them(topology):
    """Every port's bytes in an exact run without loss are the wire bytes of
    the flows the decomposition puts on it, plus the ACKs of the flows whose
    way back crosses it: the decomposition's paths are the run's."""
    spec = spec_from_dict({**ECMP, "topology": topology, "scheme": {"name": "dctcp", "queue_bytes": 10**9},
                           "workload": {"flows": 400, "load": 0.2, "cdf": "data_mining"}})
    d = _decompose(spec)
    mss, hdr, ack = 1460, 40, 40
    packets = np.maximum(1, -(-d.size.astype(np.int64) // mss))
    expect = np.zeros(len(d.rate_bps), dtype=np.int64)
    sim = build(spec)
    back_offsets, back_ports = sim.flow_ports(d.dst.tolist(), d.src.tolist(), d.flow_id.tolist())
    for i in range(len(d.flow_id)):
        path = d.path(i)
        # a path of ports from the source to the destination
        assert d.node[path[0]] == d.src[i] and d.peer[path[-1]] == d.dst[i]
        assert all(d.peer[a] == d.node[b] for a, b in zip(path, path[1:]))
        expect[path] += int(d.size[i]) + int(packets[i]) * hdr
        expect[back_ports[back_offsets[i]:back_offsets[i + 1]]] += int(packets[i]) * ack
    # every flow is on each of its channels once, and nowhere else
    ch = d.channels()
    assert sum(len(v) for v in ch.values()) == len(d.ports)
    assert all(c in d.path(i) for c, idx in ch.items() for i in idx)
    run = dcsim.run_all(spec)
    c = run.summary["counters"]
    assert c["retransmitted_pkts"] == 0 and run.summary["flows_finished"] == 400
    sent = _port_bytes(spec)
    np.testing.assert_array_equal(sent, expect)
    # and the estimate of it: every flow, none faster than alone
    est = estimate(spec, workers=0).flows
    assert len(est) == 400 and est.fct_s.notna().all() and (est.slowdown >= 1 - 1e-9).all()


def _port_bytes(spec) -> np.ndarray:
    sim = build(spec)
    while sim.run(10_000_000) == "running":
        sim.drain()
    ports = json.loads(sim.summary_json())["ports"]
    out = np.zeros(len(ports), dtype=np.int64)
    for p in ports:
        out[p["port"]] = p["tx_bytes"]
    return out


@pytest.mark.parametrize("scheme", ["tcp", "dctcp", "pfabric"])
def test_a_one_link_fabric_is_estimated_as_it_runs(scheme):
    """Senders on a star, one flow each, into one receiver: the link into
    the receiver's small fabric is the star itself, and the senders' links
    add nothing to a flow alone, so the estimate is the exact run's FCTs."""
    spec = spec_from_dict({**ECMP, "topology": {"kind": "star", "hosts": 25}, "scheme": {"name": scheme},
                           "workload": {"matrix": "incast", "senders": 24, "dst": 0, "flow_bytes": 20 * 1460}})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exact = dcsim.run_all(spec).flows.set_index("flow_id").fct_s
    est = estimate(spec, workers=0, cluster=False).flows.set_index("flow_id").fct_s
    assert len(exact) == 24
    np.testing.assert_allclose(est.loc[exact.index], exact, rtol=1e-12)


def test_the_estimate_does_not_depend_on_the_workers(monkeypatch):
    from dcsim.estimate import combine

    # wide bins, representatives of about 40 flows: most links draw from them
    monkeypatch.setattr(combine, "REP_FLOWS", 40)
    monkeypatch.setattr(combine, "BIN", 4.0)
    spec = spec_from_dict({**ECMP, "scheme": {"name": "dctcp"}, "workload": {"flows": 600, "load": 0.4}})
    inline = estimate(spec, workers=0)
    e = inline.summary["estimate"]
    assert e["links_simulated"] < e["links_shared"] / 2
    assert inline.flows.estimated.all() and len(inline.flows) == 600
    one = estimate(spec, workers=1).flows
    two = estimate(spec, workers=2).flows
    assert inline.flows.equals(one) and inline.flows.equals(two)
    # drawn, the mean stays near the estimate with every link simulated
    every = estimate(spec, workers=0, cluster=False).flows
    assert inline.flows.slowdown.mean() == pytest.approx(every.slowdown.mean(), rel=0.1)
    assert not inline.flows.slowdown.equals(every.slowdown)


@pytest.mark.parametrize("changes, named", [
    ({"routing": {"load_balancing": "spray"}}, "sprays a flow over several paths"),
    ({"scheme": {"name": "bfc"}}, "scheme bfc: its per-hop pauses"),
    ({"scheme": {"name": "homa"}}, "scheme homa: its receivers grant"),
    ({"scheme": {"name": "ideal"}}, "flow-level model"),
    ({"scheme": {"name": "dcqcn"}}, "PFC pauses carry congestion"),
    ({"run": {"stop_time_s": 0.01}}, "run.stop_time_s ask for what only a run of the whole fabric has"),
    ({"run": {"sample_us": 10.0, "sample_flows": True}}, "run.sample_us ask for"),
])
def test_what_is_not_per_link_is_refused_by_name(changes, named):
    spec = spec_from_dict({**ECMP, **changes, "workload": {"flows": 10}})
    with pytest.raises(SpecError, match=f"^dcsim estimate: .*{named}"):
        estimate(spec, workers=0)


def test_dcsim_estimate_writes_a_run_directory_that_show_compare_and_report_read(tmp_path, capsys):
    from typer.testing import CliRunner

    from dcsim.cli import app

    spec = tmp_path / "s.toml"
    spec.write_text('[routing]\nload_balancing = "ecmp"\n[scheme]\nname = "dctcp"\n[workload]\nflows = 300\n')
    r = CliRunner().invoke(app, ["estimate", str(spec), "--out", str(tmp_path / "est"), "--workers", "0", "-q",
                                 "--passes", "2"])
    assert r.exit_code == 0, r.output
    summary = json.loads((tmp_path / "est" / "summary.json").read_text())
    assert summary["estimated"] and summary["model"] == "decomposed" and summary["flows_total"] == 300
    assert summary["estimate"]["passes"] == 2
    assert summary["estimate"]["links_simulated"] <= summary["estimate"]["links_shared"] <= summary["estimate"]["links_used"]
    flows = dcsim.read_flows(tmp_path / "est")
    assert len(flows) == 300 and flows.estimated.all() and (flows.slowdown >= 1 - 1e-9).all()
    shown = CliRunner().invoke(app, ["show", str(tmp_path / "est")])
    assert shown.exit_code == 0 and "estimated (" in shown.output and "(0B, 100KB]" in shown.output
    # beside the exact run of the same spec: the labels tell the estimate apart, the report draws both
    assert CliRunner().invoke(app, ["run", str(spec), "--out", str(tmp_path / "exact"), "-q"]).exit_code == 0
    compared = CliRunner().invoke(app, ["compare", str(tmp_path / "est"), str(tmp_path / "exact")])
    assert compared.exit_code == 0 and "A: model=decomposed" in compared.output, compared.output
    assert "B: model=packet" in compared.output
    r = CliRunner().invoke(app, ["report", str(tmp_path), "-o", str(tmp_path / "r.html")])
    assert r.exit_code == 0, r.output
    page = (tmp_path / "r.html").read_text()
    assert "estimated (" in page and "<summary>estimate</summary>" in page and "links_simulated" in page
    bad = CliRunner().invoke(app, ["estimate", str(spec), "--out", str(tmp_path / "x"), "--set",
                                   "routing.load_balancing=spray"])
    assert bad.exit_code == 2 and "sprays a flow over several paths" in bad.output


def test_batches_cover_every_simulation_once_with_about_equal_work():
    from dcsim.estimate.tasks import batches

    costs = [5, 1, 9, 3, 3, 7, 2, 8, 1, 6]
    out = batches(costs, 3)
    assert sorted(i for b in out for i in b) == list(range(10)) and batches(costs, 3) == out
    work = [sum(costs[i] + 1 for i in b) for b in out]
    assert max(work) - min(work) <= max(costs) + 1
    assert sorted(batches(costs, 50)) == [[i] for i in range(10)]
    assert batches([], 4) == [] and batches([3], 4) == [[0]]


@pytest.mark.parametrize("scheme", ["tcp", "dctcp", "pfabric"])
def test_a_long_flows_alone_overhead_past_the_runs_is_their_line_extended(scheme):
    """Alone flows are run up to `alone.CAP` packets; a 60,000-packet
    flow's overhead, extended from the last two runs, is its own alone run
    within 0.1% of its FCT."""
    from dcsim.estimate import alone
    from dcsim.estimate.tasks import simulate

    spec = spec_from_dict({**ECMP, "scheme": {"name": scheme}, "workload": {"flows": 10}})
    base = {**engine_config(spec), "faults": [], "link_errors": [], "sampler": None, "stop_time_ps": None}
    hops = ((10**10, 10**6), (4 * 10**10, 10**6), (4 * 10**10, 10**6), (10**10, 10**6))
    mss, big = spec.scheme.mss_bytes, 60_000
    runs = alone.grid(np.array([1, 100, big]))
    assert runs.max() == alone.CAP
    fct, ideal = simulate(alone.alone_config({**base, "seed": 1}, hops, runs, mss))
    [got] = alone.overhead(runs, fct, ideal, np.array([big]))
    own_fct, own_ideal = simulate(alone.alone_config({**base, "seed": 1}, hops, np.array([big]), mss))
    assert got == pytest.approx(own_fct[0] - own_ideal[0], abs=1e-3 * own_fct[0])


def test_tcp_over_drop_tail_is_estimated_with_its_measured_caveat():
    # docs/estimator.md "Where the estimate is off": a link's simulation loses
    # only at its link, so drop-tail TCP's estimate runs far over; DCTCP's not flagged
    tcp = spec_from_dict({**ECMP, "scheme": {"name": "tcp"}, "workload": {"flows": 50}})
    [c] = estimate(tcp, workers=0).summary["estimate"]["caveats"]
    assert "scheme tcp" in c and "docs/estimator.md" in c
    ecn = spec_from_dict({**ECMP, "scheme": {"name": "tcp", "ecn": True, "ecn_threshold_bytes": 30000},
                          "workload": {"flows": 50}})
    dctcp = spec_from_dict({**ECMP, "scheme": {"name": "dctcp"}, "workload": {"flows": 50}})
    assert estimate(ecn, workers=0).summary["estimate"]["caveats"] == []
    assert estimate(dctcp, workers=0).summary["estimate"]["caveats"] == []


def test_the_accuracy_grid_appends_each_point_resumes_and_draws(tmp_path, monkeypatch, capsys):
    import pandas as pd

    from dcsim.estimate import accuracy

    monkeypatch.setattr(accuracy, "FABRICS", {"small": {"kind": "leaf_spine", "leaves": 2, "hosts_per_leaf": 4,
                                                        "spines": 2}})
    monkeypatch.setattr(accuracy, "GRID", {"cdf": ("web_search",), "load": (0.3,), "scheme": ("dctcp", "pfabric")})
    out = tmp_path / "grid.csv"
    accuracy.grid(out, ["small"], 300, 1, 0)
    df = pd.read_csv(out)
    assert sorted(set(df.scheme)) == ["dctcp", "pfabric"] and (df.flows_run == 300).all()
    assert df.groupby("scheme").flows.sum().tolist() == [300, 300]
    # the errors are the estimate's against the exact run's, as printed
    assert np.allclose(df.mean_err, df.est_mean / df.exact_mean - 1)
    assert "| small | web_search | dctcp | 0.3 |" in capsys.readouterr().out
    # a second call finds every point done and runs nothing
    monkeypatch.setattr(accuracy, "compare", lambda *a, **k: pytest.fail("a finished point ran again"))
    accuracy.grid(out, ["small"], 300, 1, 0)
    assert pd.read_csv(out).equals(df)
    accuracy.plot(df, tmp_path / "grid.png")
    assert (tmp_path / "grid.png").stat().st_size > 10_000


def test_a_flow_is_capped_at_a_link_by_what_its_other_links_cost_it():
    """`_caps`: flow 0 (100 packets) lost its transmission time again at
    link 1, so at link 0 it is held to half its NIC's rate (2**(-2/2)); at
    link 1 its other link cost it nothing, so it is not capped there; flow
    1 (10 packets) finishes within its first windows and is never capped."""
    from dcsim.estimate import _caps
    from dcsim.estimate.decompose import Decomposition

    wire, rate = 1500, 10**10
    t0 = 100 * wire * 8 / rate * 1e12  # flow 0's transmission time, ps
    a = np.asarray
    d = Decomposition(flow_id=a([0, 1]), start_ps=a([0, 0]), src=a([0, 1]), dst=a([2, 2]), size=a([146000, 14600]),
                      ideal_ps=a([0, 0]), offsets=a([0, 2, 4]), ports=a([0, 1, 0, 1]), node=a([3, 3]),
                      peer=a([4, 4]), rate_bps=a([rate, rate]), delay_ps=a([0, 0]), hosts=3)
    caps = _caps(d, {0: a([0.0, 5e6]), 1: a([t0, 9e9])}, a([100, 10]), wire)
    assert caps == {0: {0: rate // 2}}
    # nothing held back anywhere: no cap
    assert _caps(d, {0: a([0.0, 0.0]), 1: a([0.0, 0.0])}, a([100, 10]), wire) == {}


def test_a_held_flow_reaches_its_link_through_a_link_of_its_own_at_the_held_rate():
    """`link_fabric` with caps: before a switch's link, the held flow has a
    source of its own whose link runs at the held rate; at a NIC, a sink of
    its own after the link; the other flows keep their shared hosts."""
    spec = spec_from_dict({**ECMP, "scheme": {"name": "dctcp"}, "workload": {"flows": 400, "load": 0.5}})
    d = _decompose(spec)
    busy = [c for c, idx in d.channels().items() if len(idx) > 2]
    for c in (next(c for c in busy if d.node[c] >= d.hosts), next(c for c in busy if d.node[c] < d.hosts)):
        flows = d.channels()[c]
        held, rate = int(flows[1]), 1_234_000_000
        plain_topo, plain_trace, plain_hops = d.link_fabric(c)
        topo, trace, hops = d.link_fabric(c, {held: rate})
        at_nic = bool(d.node[c] < d.hosts)
        host = d.dst if at_nic else d.src
        shared = int((host[flows] == host[held]).sum()) > 1
        # one more end, the held flow's own (its host stays if other flows leave from or go to it)
        assert topo["hosts"] == plain_topo["hosts"] + shared
        end = trace[1][2] if at_nic else trace[1][1]
        assert sum(1 for t in trace if (t[2] if at_nic else t[1]) == end) == 1
        assert [x for x in topo["links"] if end in x[:2]] and all(x[2] == rate for x in topo["links"] if end in x[:2])
        assert (hops[1][-1] if at_nic else hops[1][0])[0] == rate
        assert [h for k, h in enumerate(hops) if k != 1] == [h for k, h in enumerate(plain_hops) if k != 1]


def test_later_passes_bring_tcps_estimate_nearer_the_exact_run():
    """Drop-tail TCP's small flows, estimated alone at each link, run far
    over the exact run (docs/estimator.md); limiting each flow at a link to
    what its other links let it send brings them nearer."""
    spec = spec_from_dict({**ECMP, "scheme": {"name": "tcp"}, "workload": {"flows": 3000, "load": 0.5}})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exact = dcsim.run_all(spec).flows.set_index("flow_id")
    small = exact.size_bytes <= 100_000
    err = {}
    for passes in (1, 3):
        e = estimate(spec, workers=0, passes=passes)
        assert e.summary["estimate"]["passes"] == passes
        est = e.flows.set_index("flow_id").slowdown.loc[exact.index]
        err[passes] = est[small].mean() / exact.slowdown[small].mean() - 1
    assert err[1] > 0.2 and abs(err[3]) < err[1] / 2, err
