//! End-to-end runs in a debug build, so that the engine's debug assertions
//! (time never goes backwards, packets delivered to the right host, the
//! packet pool matching what queues and links hold) are checked on real
//! traffic, together with packet and byte conservation.

use dcsim_engine::{config_from_json, Simulation, Status};

fn config(topology: &str, lb: &str, queue: u64, fast_path: bool, ecn: bool) -> String {
    format!(
        r#"{{
        "seed": 7,
        "topology": {topology},
        "routing": {{"load_balancing": "{lb}"}},
        "port": {{"host": {{"discipline": {{"kind": "fifo"}}, "limit_bytes": {queue}}},
                  "switch": {{"discipline": {{"kind": "fifo"}}, "limit_bytes": {queue},
                             "ecn_threshold_bytes": {ecn_k}}},
                  "fifo_fast_path": {fast_path}}},
        "transport": {{"kind": "tcp", "mss_bytes": 1460, "header_bytes": 40, "ack_bytes": 40,
                       "init_cwnd_pkts": 12.0, "max_cwnd_pkts": 149.0,
                       "min_rto_ps": 200000000, "init_rto_ps": 200000000, "max_rto_ps": 2000000000000,
                       "fast_retransmit": {fr}, "dupack_threshold": 3, "ecn": {ecn}}},
        "workload": {{"kind": "generated",
                      "cdf": [[1460.0, 0.0], [1460.0, 0.5], [100000.0, 0.9], [2000000.0, 1.0]],
                      "size_quantum_bytes": 1, "arrival_rate_per_s": 200000.0,
                      "matrix": {{"kind": "all_to_all"}}, "flows": 400}}
    }}"#,
        ecn_k = if ecn { (queue / 4).to_string() } else { "null".to_string() },
        fr = lb == "ecmp",
    )
}

const LEAF_SPINE: &str = r#"{"kind": "leaf_spine", "leaves": 3, "spines": 2, "hosts_per_leaf": 4,
    "host_rate_bps": 10000000000, "spine_rate_bps": 20000000000,
    "host_delay_ps": 2700000, "spine_delay_ps": 200000}"#;
const FAT_TREE: &str = r#"{"kind": "fat_tree", "k": 4, "host_rate_bps": 10000000000,
    "fabric_rate_bps": 10000000000, "host_delay_ps": 1000000, "fabric_delay_ps": 1000000}"#;

fn run(json: &str) -> (Simulation, usize) {
    let mut sim = Simulation::new(config_from_json(json).unwrap()).unwrap();
    let mut flows = 0;
    loop {
        let status = sim.run(100_000);
        flows += sim.drain_records().len();
        let c = sim.conservation();
        assert!(c.holds(), "conservation broken mid-run: {c:?}");
        if status != Status::Running {
            assert_eq!(status, Status::Done);
            break;
        }
    }
    (sim, flows)
}

#[test]
fn invariants_hold_across_topologies_and_paths() {
    for topo in [LEAF_SPINE, FAT_TREE] {
        for lb in ["ecmp", "spray"] {
            for (queue, ecn) in [(15_000, false), (225_000, false), (60_000, true)] {
                for fast in [true, false] {
                    let (sim, flows) = run(&config(topo, lb, queue, fast, ecn));
                    assert_eq!(flows, 400);
                    let c = sim.final_counters();
                    assert_eq!(c.flows_finished, 400);
                    assert_eq!(c.host_tx_pkts, c.data_pkts + c.ack_pkts);
                    if queue == 15_000 {
                        assert!(c.dropped_pkts > 0, "a 10-packet buffer must drop");
                    }
                    if ecn {
                        assert!(c.marked_pkts > 0);
                    }
                }
            }
        }
    }
}

/// pFabric: priority ports everywhere (departures decided lazily, one
/// event per arrival-free stretch), fixed timeouts, probe mode, priorities;
/// the debug build checks that no departure is made after its packet was
/// due at the far end, and conservation holds mid-run.
#[test]
fn invariants_hold_for_pfabric() {
    for topo in [LEAF_SPINE, FAT_TREE] {
        for lb in ["ecmp", "round_robin"] {
            let json = config(topo, lb, 36_000, true, false)
                .replace(r#"{"kind": "fifo"}"#, r#"{"kind": "pfabric", "starvation_prevention": true}"#)
                .replace(r#""ecn": false}"#, r#""ecn": false, "fixed_rto": true, "probe_after": 5,
                           "prio": "remaining_size", "connections_per_pair": 1}"#)
                .replace(r#""min_rto_ps": 200000000"#, r#""min_rto_ps": 45000000"#);
            let (sim, flows) = run(&json);
            assert_eq!(flows, 400);
            let c = sim.final_counters();
            assert!(c.dropped_pkts > 0 && c.timeouts > 0, "a 36 KB pFabric fabric at this load drops: {c:?}");
            assert!(sim.port_reports().iter().all(|p| p.max_queue_bytes <= 36_000));
        }
    }
}

/// ACKs sent ahead at pFabric's ports (`Port::fixes_acks`, on with the
/// fast path) change no result: with remaining-size priorities and SYNs
/// (number 0, so an ACK must wait for them), LAS's (whose first data
/// packets have number 0 too), without starvation prevention, and with
/// 12 KB buffers that are often full.
#[test]
fn acks_sent_ahead_change_nothing() {
    for topo in [LEAF_SPINE, FAT_TREE] {
        for (prio, sp, queue) in
            [("remaining_size", true, 36_000), ("bytes_sent", true, 12_000), ("remaining_size", false, 36_000)]
        {
            let json = |fast: bool| {
                config(topo, "round_robin", queue, fast, false)
                    .replace(r#"{"kind": "fifo"}"#, &format!(r#"{{"kind": "pfabric", "starvation_prevention": {sp}}}"#))
                    .replace(r#""ecn": false}"#, &format!(r#""ecn": false, "fixed_rto": true, "probe_after": 5,
                           "prio": "{prio}", "connections_per_pair": 1}}"#))
                    .replace(r#""min_rto_ps": 200000000"#, r#""min_rto_ps": 45000000"#)
            };
            assert_eq!(outcome(&json(true)), outcome(&json(false)), "{prio} {sp} {queue}");
        }
    }
}

/// `json` with a shared buffer of `bytes` per switch, with or without PFC.
fn with_shared_buffer(json: String, bytes: u64, pfc: bool) -> String {
    json.replace(
        r#""workload""#,
        &format!(
            r#""shared_buffer": {{"bytes": {bytes}, "reserve_bytes": 4096, "resume_offset_bytes": 3072,
               "headroom_bytes": 12000, "pfc": {pfc}, "alpha_shift": 3}},
               "workload""#
        ),
    )
}

/// `json` with its transport (and what follows, up to the workload)
/// replaced by `transport`, which ends with `"workload"`.
fn with_transport(json: String, transport: &str) -> String {
    let start = json.find(r#""transport""#).unwrap();
    let end = json.find(r#""workload""#).unwrap() + r#""workload""#.len();
    format!("{}{}{}", &json[..start], transport, &json[end..])
}

/// Packets dropped at switch ports (not host NICs).
fn switch_drops(sim: &Simulation) -> u64 {
    sim.port_reports().iter().filter(|p| p.tier > 0).map(|p| p.drops).sum()
}

/// A shared buffer per switch with PFC: every port obeys pauses, switch
/// ports send PFC frames upstream. With PFC the fabric is lossless (the
/// headroom holds what arrives before a pause acts) though the buffer is
/// small enough to drop without it; PFC frames count in conservation, and
/// every buffer is empty at the end.
#[test]
fn invariants_hold_with_shared_buffers_and_pfc() {
    for topo in [LEAF_SPINE, FAT_TREE] {
        for pfc in [true, false] {
            let json = config(topo, "ecmp", 1_000_000, false, false)
                .replace(r#"{"kind": "fifo"}"#, r#"{"kind": "pfc", "acks_high_priority": true}"#)
                .replace(r#""max_cwnd_pkts": 149.0"#, r#""max_cwnd_pkts": 400.0"#)
                .replace(r#""init_cwnd_pkts": 12.0"#, r#""init_cwnd_pkts": 100.0"#);
            let (sim, flows) = run(&with_shared_buffer(json, 200_000, pfc));
            assert_eq!(flows, 400);
            let c = sim.final_counters();
            if pfc {
                // the fabric is lossless (host NICs keep their own limit)
                assert_eq!(switch_drops(&sim), 0, "PFC is lossless: {c:?}");
                assert!(c.pfc_frames > 0, "this load pauses: {c:?}");
                assert!(sim.port_reports().iter().any(|p| p.paused_ps > 0));
            } else {
                assert!(switch_drops(&sim) > 0 && c.pfc_frames == 0, "a 200 KB switch drops without PFC: {c:?}");
            }
        }
    }
}

/// The HPCC simulator's DCQCN (Mellanox's timers) and ns3-rdma's.
const DCQCN_MELLANOX: &str = r#"{"kind": "dcqcn", "alpha_interval_ps": 1000000, "decrease_interval_ps": 4000000,
    "increase_interval_ps": 300000000, "g": 0.00390625, "rate_on_first_cnp": 1.0,
    "fast_recovery_times": 1, "ai_bps": 20000000, "hai_bps": 200000000,
    "min_rate_bps": 1000000000, "clamp_target_rate": false}"#;
const DCQCN_NS3: &str = r#"{"kind": "dcqcn_ns3", "cnp_interval_ps": 50000000, "alpha_interval_ps": 55000000,
    "increase_interval_ps": 60000000, "byte_counter_bytes": 150000, "g": 0.00390625,
    "initial_alpha": 0.5, "fast_recovery_times": 5, "ai_bps": 40000000, "hai_bps": 200000000,
    "min_rate_bps": 100000000, "clamp_target_rate": true}"#;

/// RDMA queue pairs with congestion control `cc` over RED-marking PFC
/// ports and 300 KB shared buffers, with or without PFC.
fn rdma_json(topo: &str, cc: &str, pfc: bool) -> String {
    let transport = format!(
        r#""transport": {{"kind": "rdma", "mss_bytes": 1000, "header_bytes": 48,
        "ack_bytes": 60, "line_rate_bps": 10000000000, "nack_interval_ps": 500000000,
        "rto_ps": 2000000000, "cc": {cc}}},
        "workload""#
    );
    let json = with_transport(config(topo, "ecmp", 1_000_000, false, false), &transport)
        .replace(
            r#""switch": {"discipline": {"kind": "fifo"}"#,
            r#""switch": {"discipline": {"kind": "pfc", "acks_high_priority": true,
                         "red": {"kmin_bytes": 20000, "kmax_bytes": 80000, "pmax": 0.2}}"#,
        )
        .replace(r#"{"kind": "fifo"}"#, r#"{"kind": "pfc", "acks_high_priority": true}"#);
    with_shared_buffer(json, 300_000, pfc)
}

/// RDMA queue pairs pulled by their NICs (`nic.rs`), DCQCN marking at
/// dequeue (the HPCC simulator's DCQCN, and ns3-rdma's with its CNPs from
/// the receiver), over shared buffers with PFC (lossless) and without
/// (lossy: go-back-N and the safety timeout bring every flow home).
#[test]
fn invariants_hold_for_rdma_over_shared_buffers() {
    for (topo, cc) in [LEAF_SPINE, FAT_TREE].into_iter().flat_map(|t| [(t, DCQCN_MELLANOX), (t, DCQCN_NS3)]) {
        for pfc in [true, false] {
            let (sim, flows) = run(&rdma_json(topo, cc, pfc));
            assert_eq!(flows, 400);
            let c = sim.final_counters();
            assert!(c.marked_pkts > 0, "{c:?}");
            if pfc {
                let drops: Vec<_> = sim.port_reports().into_iter().filter(|p| p.drops > 0).collect();
                assert_eq!(c.dropped_pkts, 0, "PFC is lossless: {c:?} {drops:?}");
                assert_eq!(c.retransmitted_pkts, 0);
            } else {
                assert!(c.dropped_pkts > 0 && c.retransmitted_pkts > 0, "{c:?}");
            }
        }
    }
}

/// BFC: per-flow queues at every switch port, pause counters by (ingress,
/// upstream queue), pause and resume frames naming queues (and flows at
/// NICs), shared buffers without PFC; line-rate senders with no end-to-end
/// control. Nothing is lost, and every pause is resumed by the end.
/// BFC's switches (8 queues a port) over 2 MB shared buffers without
/// PFC, line-rate RDMA senders.
fn bfc_json(topo: &str) -> String {
    let transport = r#""transport": {"kind": "rdma", "mss_bytes": 1000, "header_bytes": 48,
        "ack_bytes": 60, "line_rate_bps": 10000000000, "nack_interval_ps": 500000000,
        "rto_ps": 2000000000, "cc": {"kind": "none"}},
        "bfc": {},
        "workload""#;
    let json = with_transport(config(topo, "ecmp", 1_000_000, false, false), transport)
        .replace(
            r#""switch": {"discipline": {"kind": "fifo"}"#,
            r#""switch": {"discipline": {"kind": "bfc", "queues": 8, "table_size": 800,
                         "assign": "dynamic", "quantum_bytes": 1048, "sticky_ps": 10000000}"#,
        )
        .replace(r#"{"kind": "fifo"}"#, r#"{"kind": "pfc", "acks_high_priority": true}"#);
    with_shared_buffer(json, 2_000_000, false)
}

#[test]
fn invariants_hold_for_bfc() {
    for topo in [LEAF_SPINE, FAT_TREE] {
        let (sim, flows) = run(&bfc_json(topo));
        assert_eq!(flows, 400);
        let c = sim.final_counters();
        assert_eq!(c.dropped_pkts, 0, "{c:?}");
        assert!(c.pfc_frames > 0 && c.pfc_frames % 2 == 0, "every pause resumed: {c:?}");
    }
}

/// `json` with the links' head-packet hints forced on or off.
fn with_hints(json: &str, on: bool) -> String {
    json.replace(r#""fifo_fast_path":"#, &format!(r#""head_hints": {on}, "fifo_fast_path":"#))
}

/// Every flow record and the final counters of a run, drained as it goes
/// (a run that goes on past 20,000 batches of events fails, not hangs).
fn outcome(json: &str) -> String {
    let mut sim = Simulation::new(config_from_json(json).unwrap()).unwrap();
    let mut records = Vec::new();
    let mut batches = 0;
    while sim.run(50_000) == Status::Running {
        records.extend(sim.drain_records());
        batches += 1;
        assert!(batches < 20_000, "the run does not end");
    }
    records.extend(sim.drain_records());
    assert_eq!(records.len(), 400);
    format!("{records:?} {:?}", sim.final_counters())
}

/// Head-packet hints (`Port::head_hint`: the route a link's head packet
/// takes at the far end, found early with ECMP, and the lines the event
/// loop asks for one event ahead) are on by default only on large fabrics;
/// forced on here, on small ones, they change no result: with ECMP (hints
/// name routes), with spraying and round robin (they do not), on the FIFO
/// fast and general paths, with pFabric's lazy ports, with PFC's shared
/// buffers (which pause here), with RDMA queue pairs pulled by their NICs
/// (DCQCN marking and CNPs) and with BFC's per-flow queues and pauses.
/// Symmetric ECMP (ExpressPass's hashing) is run with TCP; ExpressPass
/// itself is not run here.
#[test]
fn head_hints_change_nothing() {
    let mut cases = Vec::new();
    for topo in [LEAF_SPINE, FAT_TREE] {
        cases.push(config(topo, "round_robin", 60_000, true, true));
        cases.push(config(topo, "ecmp", 60_000, true, true).replace(r#""ecmp"}"#, r#""ecmp", "symmetric": true}"#));
        cases.push(rdma_json(topo, DCQCN_NS3, true));
        cases.push(bfc_json(topo));
        for lb in ["ecmp", "spray"] {
            for fast in [true, false] {
                cases.push(config(topo, lb, 60_000, fast, true));
            }
        }
        cases.push(
            config(topo, "ecmp", 36_000, true, false)
                .replace(r#"{"kind": "fifo"}"#, r#"{"kind": "pfabric", "starvation_prevention": true}"#)
                .replace(r#""ecn": false}"#, r#""ecn": false, "fixed_rto": true, "probe_after": 5,
                           "prio": "remaining_size", "connections_per_pair": 1}"#),
        );
        let pfc = config(topo, "ecmp", 1_000_000, false, false)
            .replace(r#"{"kind": "fifo"}"#, r#"{"kind": "pfc", "acks_high_priority": true}"#)
            .replace(r#""init_cwnd_pkts": 12.0"#, r#""init_cwnd_pkts": 100.0"#);
        cases.push(with_shared_buffer(pfc, 200_000, true));
    }
    for json in cases {
        assert_eq!(outcome(&with_hints(&json, true)), outcome(&with_hints(&json, false)));
    }
}
