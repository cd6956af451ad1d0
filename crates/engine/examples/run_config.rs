//! Run one resolved configuration (the JSON the Python layer produces, e.g.
//! `python -c "from dcsim.bench import scenario; from dcsim.spec import
//! engine_config_json; print(engine_config_json(scenario()))" > cfg.json`)
//! without Python, for profiling: `cargo run --release --example run_config cfg.json`.
//! With `RATE_EVERY=N` it also prints the packet-hop rate of every N chunks
//! of 2^20 events (does the cost per packet-hop grow along a run?); with
//! `CAL_STATS=1`, what the calendar did (events per wheel slot, events
//! through its heaps).

use dcsim_engine::{config_from_json, Simulation};
use std::time::Instant;

/// The allocator the Python extension uses (crates/pybind), so timings match.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let path = std::env::args().nth(1).expect("usage: run_config CONFIG.json");
    let text = std::fs::read_to_string(&path).expect("readable config");
    let cfg = config_from_json(&text).expect("valid config");
    let mut sim = Simulation::new(cfg).expect("valid simulation");
    let t0 = Instant::now();
    let mut flows = 0usize;
    // A digest of the results, to check that an optimization changed nothing.
    let mut digest = 0xcbf2_9ce4_8422_2325u64;
    // RATE_EVERY=N: print the packet-hop rate of every N chunks of 2^20 events
    let every: u64 = std::env::var("RATE_EVERY").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
    let (mut chunk, mut last_t, mut last_hops) = (0u64, Instant::now(), 0u64);
    loop {
        let status = sim.run(1 << 20);
        chunk += 1;
        if every > 0 && chunk % every == 0 {
            let hops = sim.counters().packet_hops;
            let dt = last_t.elapsed().as_secs_f64();
            eprintln!(
                "{:.1} ms simulated: {:.2} M packet-hops/s, {:.3} events a packet-hop, {} flows active",
                sim.now() as f64 / 1e9,
                (hops - last_hops) as f64 / dt / 1e6,
                (every << 20) as f64 / (hops - last_hops).max(1) as f64,
                sim.active_flows()
            );
            (last_t, last_hops) = (Instant::now(), hops);
        }
        for r in sim.drain_records() {
            flows += 1;
            for x in [r.id as u64, r.finish, r.retx as u64, r.timeouts as u64] {
                digest = (digest ^ x).wrapping_mul(0x100_0000_01b3);
            }
        }
        if status != dcsim_engine::Status::Running {
            break;
        }
    }
    let wall = t0.elapsed().as_secs_f64();
    if std::env::var("CAL_STATS").is_ok_and(|v| v == "1") {
        let s = sim.calendar_stats();
        let events = sim.counters().events.max(1) as f64;
        eprintln!(
            "calendar: {} slots served, {:.2} events each sorted, {:.3}% of events put into the slot being served; \
             through the heaps: {} port events the wheel could not take ({:.3}%), {} others (arrivals, timers, \
             samples: {:.3}%), {} spilled from full slots ({:.3}%)",
            s.slots,
            s.slot_events as f64 / s.slots.max(1) as f64,
            100.0 * s.in_place as f64 / events,
            s.far_port,
            100.0 * s.far_port as f64 / events,
            s.far_other,
            100.0 * s.far_other as f64 / events,
            s.spilled,
            100.0 * s.spilled as f64 / events
        );
    }
    let c = sim.final_counters();
    println!(
        "{flows} flows, {:.3} ms simulated, {} events ({:.2} M/s), {} packet-hops ({:.2} M/s), {} flows active at most, {:.2} s, conservation {}, digest {:016x}",
        sim.now() as f64 / 1e9,
        c.events,
        c.events as f64 / wall / 1e6,
        c.packet_hops,
        c.packet_hops as f64 / wall / 1e6,
        c.max_active_flows,
        wall,
        sim.conservation().holds(),
        digest
    );
}
