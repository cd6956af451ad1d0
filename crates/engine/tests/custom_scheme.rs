//! A scheme defined only here, outside the engine, run through the seam
//! (docs/extending.md): a fixed-window sender with go-back-N on a timeout,
//! and a receiver that acknowledges every in-order packet cumulatively.
//! Nothing of the engine names it: the configuration says `custom`, the
//! simulation gets its factory (`Simulation::with_transport`). If adding
//! a scheme ever needs an edit inside the engine, this test stops
//! compiling or running.

use dcsim_engine::config::CustomConfig;
use dcsim_engine::packet::{Kind, Packet};
use dcsim_engine::time::{serialization, Time};
use dcsim_engine::transport::{CustomEndpoint, Cx, Endpoint, Factory, NewFlow, Segment};
use dcsim_engine::{config_from_json, Simulation, Status};

/// Both ends of a flow of the fixed-window scheme.
struct FixedWindow {
    n_pkts: u32,
    last_payload: u32,
    window: u32,
    rto: Time,
    // sender
    snd_una: u32,
    snd_nxt: u32,
    deadline: Option<Time>,
    retx: u32,
    timeouts: u32,
    // receiver
    expected: u32,
}

impl FixedWindow {
    fn wire(&self, seq: u32, c: &CustomConfig) -> u16 {
        let payload = if seq + 1 == self.n_pkts { self.last_payload } else { c.mss_bytes };
        (payload + c.header_bytes) as u16
    }

    /// Send what the window allows, and keep the timer armed while
    /// anything is out.
    fn fill(&mut self, cx: &mut Cx<CustomConfig>) {
        while self.snd_nxt < self.n_pkts && self.snd_nxt < self.snd_una + self.window {
            let seq = self.snd_nxt;
            cx.out.push(Segment { seq, size: self.wire(seq, cx.cfg), flags: 0, prio: 0, kind: Kind::Data });
            self.snd_nxt += 1;
        }
        if self.snd_una < self.snd_nxt && self.deadline.is_none() {
            self.deadline = Some(cx.now + self.rto);
        }
    }
}

impl Endpoint for FixedWindow {
    type Config = CustomConfig;

    fn start(&mut self, cx: &mut Cx<CustomConfig>) {
        self.fill(cx);
    }

    fn on_ack(&mut self, cx: &mut Cx<CustomConfig>, ack: &Packet) {
        if ack.seq > self.snd_una {
            self.snd_una = ack.seq;
            self.snd_nxt = self.snd_nxt.max(self.snd_una);
            self.deadline = None;
        }
        self.fill(cx);
    }

    fn on_data(&mut self, cx: &mut Cx<CustomConfig>, data: &Packet) -> Option<Packet> {
        if data.seq == self.expected {
            self.expected += 1;
        }
        Some(Packet { seq: self.expected, src: data.dst, dst: data.src, size: cx.cfg.ack_bytes as u16, kind: Kind::Ack, ..*data })
    }

    fn timer_kinds(&self) -> u8 {
        1
    }

    fn deadline(&self, _kind: u8) -> Option<Time> {
        self.deadline
    }

    /// Go back to the first unacknowledged packet.
    fn on_timer(&mut self, cx: &mut Cx<CustomConfig>, _kind: u8) {
        self.timeouts += 1;
        self.retx += self.snd_nxt - self.snd_una;
        self.snd_nxt = self.snd_una;
        self.deadline = None;
        self.fill(cx);
    }

    fn receiver_complete(&self) -> bool {
        self.expected >= self.n_pkts
    }

    fn sender_done(&self) -> bool {
        self.snd_una >= self.n_pkts
    }

    fn delivered_bytes(&self, c: &CustomConfig) -> u64 {
        if self.expected >= self.n_pkts {
            (self.n_pkts as u64 - 1) * c.mss_bytes as u64 + self.last_payload as u64
        } else {
            self.expected as u64 * c.mss_bytes as u64
        }
    }

    fn retransmits(&self) -> u32 {
        self.retx
    }

    fn timeouts(&self) -> u32 {
        self.timeouts
    }
}

/// Makes the scheme's flows; its window and timeout come from the
/// configuration's `params`.
struct Make;

impl Factory for Make {
    fn new_flow(&mut self, f: &NewFlow, c: &CustomConfig) -> CustomEndpoint {
        let mss = c.mss_bytes as u64;
        let n = f.spec.size.div_ceil(mss).max(1);
        Box::new(FixedWindow {
            n_pkts: n as u32,
            last_payload: (f.spec.size - (n - 1) * mss) as u32,
            window: c.params["window"].as_u64().expect("a window") as u32,
            rto: c.params["rto_ps"].as_u64().expect("a timeout"),
            snd_una: 0,
            snd_nxt: 0,
            deadline: None,
            retx: 0,
            timeouts: 0,
            expected: 0,
        })
    }
}

/// A leaf-spine of 8 hosts at 10 Gb/s (40 Gb/s uplinks), drop-tail FIFO
/// ports of `queue` bytes, the custom transport with `window` packets,
/// and `workload`.
fn config(window: u32, queue: u64, workload: &str) -> String {
    format!(
        r#"{{"seed": 5,
        "topology": {{"kind": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 4,
                     "host_rate_bps": 10000000000, "spine_rate_bps": 40000000000,
                     "host_delay_ps": 1000000, "spine_delay_ps": 1000000}},
        "routing": {{"load_balancing": "ecmp"}},
        "port": {{"host": {{"discipline": {{"kind": "fifo"}}, "limit_bytes": {queue}}},
                  "switch": {{"discipline": {{"kind": "fifo"}}, "limit_bytes": {queue}}}}},
        "transport": {{"kind": "custom", "mss_bytes": 1000, "header_bytes": 40, "ack_bytes": 40,
                       "params": {{"window": {window}, "rto_ps": 200000000}}}},
        "fct_at": "sender",
        "workload": {workload}}}"#
    )
}

/// Run to the end, checking conservation every slice; the flow records.
fn run(json: &str) -> (Simulation, Vec<dcsim_engine::FlowRecord>) {
    let mut sim = Simulation::with_transport(config_from_json(json).unwrap(), Box::new(Make)).unwrap();
    let mut records = vec![];
    loop {
        let status = sim.run(50_000);
        records.extend(sim.drain_records());
        assert!(sim.conservation().holds(), "conservation broken mid-run: {:?}", sim.conservation());
        if status != Status::Running {
            assert_eq!(status, Status::Done);
            return (sim, records);
        }
    }
}

#[test]
fn a_scheme_defined_outside_the_engine_runs_and_conserves_packets() {
    let workload = r#"{"kind": "generated", "cdf": [[1000.0, 0.0], [1000.0, 0.5], [200000.0, 1.0]],
                       "size_quantum_bytes": 1, "arrival_rate_per_s": 400000.0,
                       "matrix": {"kind": "all_to_all"}, "flows": 300}"#;
    // small buffers: the windows overflow them, and go-back-N recovers
    let (sim, records) = run(&config(16, 12_000, workload));
    assert_eq!(records.len(), 300);
    let c = sim.final_counters();
    assert!(c.dropped_pkts > 0 && c.timeouts > 0, "12 KB buffers under 16-packet windows drop: {c:?}");
    assert_eq!(c.host_tx_pkts, c.data_pkts + c.ack_pkts);
    assert_eq!(c.retransmitted_pkts, records.iter().map(|r| r.retx as u64).sum::<u64>());
    assert!(records.iter().all(|r| r.finish >= r.start + r.ideal), "no flow beats its ideal FCT");
    // and the same spec gives the same records
    let again = run(&config(16, 12_000, workload)).1;
    let key = |r: &dcsim_engine::FlowRecord| (r.id, r.finish, r.retx);
    assert_eq!(records.iter().map(key).collect::<Vec<_>>(), again.iter().map(key).collect::<Vec<_>>());
}

#[test]
fn a_lone_flow_of_the_custom_scheme_takes_the_time_its_window_allows() {
    // 100 packets from host 0 to host 1 (the same leaf): one window per
    // round trip. With a window of 1 the FCT is 100 round trips of a full
    // packet and its ACK; with a window above the BDP, the ideal FCT.
    let trace = r#"{"kind": "trace", "flows": [[0, 0, 1, 100000]]}"#;
    let hop = |bytes: u64| serialization(bytes, 10_000_000_000) + 1_000_000;
    let rtt = 2 * hop(1040) + 2 * hop(40);
    let (_, one) = run(&config(1, 1_000_000, trace));
    assert_eq!(one[0].finish - one[0].start, 100 * rtt);
    let (_, wide) = run(&config(64, 1_000_000, trace));
    assert_eq!(wide[0].finish - wide[0].start, wide[0].ideal);
}
