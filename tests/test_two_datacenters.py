"""BFC's cross-datacenter set-up (App. A.9, Fig. 26) and the options it
needs: the two-datacenter fabric, rack-local flows on any fabric, long
flows between host pairs, a switch's own buffer size, link reports and
HPCC's per-pair base RTT."""

import numpy as np
import pytest

import dcsim
from dcsim.errors import SpecError
from dcsim.figures.bfc import two_dc
from dcsim.spec import Spec, engine_config
from dcsim.topology_file import read_hpcc
from conftest import run_checked


def test_the_shipped_fabric_is_the_generated_one():
    path = two_dc.topology_path()
    assert open(path).read() == two_dc.two_datacenters_text()
    f = read_hpcc(path)
    assert (f.hosts, f.switches, len(f.links)) == (128, 26, 209)
    long = [(a, b, r, d) for a, b, r, d in f.links if r == 200e9]
    assert len(long) == 1 and set(long[0][:2]) == set(two_dc.GATEWAYS) and long[0][3] == 200_000_000
    # each gateway reaches its datacenter's 8 spines; 4 ToRs x 8 uplinks per datacenter
    for g in two_dc.GATEWAYS:
        assert sum(g in (a, b) for a, b, *_ in f.links) == 9
    assert f.core_capacity_bps() == 2 * 4 * 8 * 100e9
    # the long flows: ten each way, every host at most once
    ends = [h for pair in two_dc.INTER_DC for h in pair]
    assert len(two_dc.INTER_DC) == 20 and len(set(ends)) == 40
    assert sum(s < 64 <= d for s, d in two_dc.INTER_DC) == 10


def small(**over):
    spec = {"topology": {"kind": "file", "path": two_dc.topology_path()}, "routing": {"load_balancing": "ecmp"},
            "scheme": {"name": "hpcc"}, "buffer": {"size_mb_at": {140: 64.0, 153: 64.0}},
            "workload": {"cdf": "fb_hadoop", "load": 0.3, "load_basis": "core", "flows": 300, "matrix": "rack_local",
                         "rack_hosts": 64, "local_share": 1.0}}
    for k, v in over.items():
        spec[k] = {**spec.get(k, {}), **v}
    return Spec.model_validate(spec)


def test_flows_stay_in_their_datacenter_and_long_flows_cross():
    spec = small(workload={"long_flows": {"pairs": [[0, 100], [70, 5]], "bytes": 2_000_000}})
    df = run_checked(spec)
    long = df[df.size_bytes == 2_000_000].sort_values("flow_id")
    assert [tuple(x) for x in long[["src", "dst"]].to_numpy()] == [(0, 100), (70, 5)]
    intra = df.drop(long.index)
    assert ((intra.src // 64) == (intra.dst // 64)).all()
    with pytest.raises(SpecError, match="not a host"):
        engine_config(small(workload={"long_flows": {"pairs": [[0, 300]]}}))
    with pytest.raises(ValueError, match="same host"):
        small(workload={"long_flows": {"pairs": [[3, 3]]}})


def test_a_gateway_may_hold_more_and_links_are_reported():
    cfg = engine_config(small(buffer={"size_mb_at": {140: 64.0}}))
    assert [tuple(x) for x in cfg["shared_buffer"]["bytes_at"]] == [(140, 64 << 20)]
    # PFC's headroom for the 200 us link (15 MB) does not fit 12 MB
    with pytest.raises(SpecError, match="switch 140's shared buffer"):
        dcsim.run(small(buffer={"size_mb_at": {}}))
    with pytest.raises(SpecError, match="node 3 is a host; switches are numbered from 128"):
        dcsim.run(small(buffer={"size_mb_at": {3: 64.0, 140: 64.0, 153: 64.0}}))
    with pytest.raises(SpecError, match="is not a switch"):
        dcsim.run(small(buffer={"size_mb_at": {999: 64.0, 140: 64.0, 153: 64.0}}))
    spec = small(run={"report_links": [[140, 153]], "stop_time_s": 0.002}, workload={"long_flows": {"pairs": [[0, 100]]}})
    df = run_checked(spec)
    links = df.attrs["summary"]["links"]
    assert [(w["from"], w["to"]) for w in links] == [(140, 153), (153, 140)]
    # one long flow at the host's 100 Gb/s fills half the 200 Gb/s link
    t = df.attrs["summary"]["sim_time_s"]
    assert links[0]["utilization"] == pytest.approx(links[0]["tx_bytes"] * 8 / (200e9 * t))
    assert 0.4 < links[0]["utilization"] < 0.5
    with pytest.raises(SpecError, match="share no link"):
        dcsim.run(small(run={"report_links": [[140, 141]]}))


def test_hpcc_may_take_each_pair_s_base_rtt():
    assert engine_config(small(scheme={"global_rtt": False}))["transport"]["pair_rtt"] is True
    assert engine_config(small())["transport"]["pair_rtt"] is False
    # one T for all pairs of a star: the same run either way
    star = {"topology": {"kind": "star", "hosts": 8, "rate_gbps": 100, "link_delay_us": 1.0},
            "scheme": {"name": "hpcc"}, "workload": {"cdf": "fb_hadoop", "load": 0.5, "flows": 200}}
    a = dcsim.run(Spec.model_validate(star))
    b = dcsim.run(Spec.model_validate({**star, "scheme": {"name": "hpcc", "global_rtt": False}}))
    assert a.equals(b)
    # across the datacenters' 400 us link, intra-datacenter flows with
    # their own T (8 us, not 400) react to their queues: a different run
    base = small(workload={"load": 0.6})
    own = dcsim.run(small(workload={"load": 0.6}, scheme={"global_rtt": False}))
    assert not np.array_equal(dcsim.run(base).fct_s.to_numpy(), own.fct_s.to_numpy())


def test_per_pair_rtt_and_switch_buffers_are_refused_where_they_mean_nothing():
    base = {"topology": {"kind": "leaf_spine"}, "workload": {"flows": 10}}
    with pytest.raises(SpecError, match="global_rtt"):
        engine_config(Spec.model_validate({**base, "scheme": {"name": "dctcp_rdma", "global_rtt": False}}))
    with pytest.raises(SpecError, match="per-port buffers"):
        engine_config(Spec.model_validate({**base, "scheme": {"name": "pfabric"}, "buffer": {"size_mb_at": {150: 64}}}))
