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
