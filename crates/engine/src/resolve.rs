//! The engine's configuration, validated and resolved once, before the
//! engine is built: the fabric (`topology`, `routing`) is laid out, the
//! combinations of disciplines, buffers and transports are checked, and
//! what the configuration leaves to the network is filled in by each
//! scheme (`schemes::resolve`: HPCC's T and W, Homa's levels). The engine
//! takes the result as it is and never rewrites it.

use crate::config::{Config, QueueConfig};
use crate::routing::Routes;
use crate::schemes;
use crate::topology::Network;
use crate::time::{serialization, Time};

/// A configuration ready for the engine, with the fabric it runs on.
pub struct Resolved {
    pub cfg: Config,
    pub net: Network,
    pub routes: Routes,
}

/// Lay out `cfg`'s fabric, check the configuration and resolve it.
pub fn resolve(mut cfg: Config) -> Result<Resolved, String> {
    let t = &cfg.transport;
    if t.mss_bytes() == 0 || t.mss_bytes() + t.header_bytes() > u16::MAX as u32 || t.ack_bytes() == 0 {
        return Err("mss_bytes + header_bytes must be in 1..65535 and ack_bytes > 0".into());
    }
    let net = Network::build(&cfg.topology)?;
    if net.hosts > u16::MAX as u32 {
        return Err(format!("at most 65535 hosts are supported, got {}", net.hosts));
    }
    let mut routes = Routes::build(&net, cfg.routing.load_balancing, cfg.seed);
    if cfg.routing.symmetric {
        routes = routes.symmetric(&net);
    }
    let rtt = longest_rtt(&net, &routes, cfg.transport.mss_bytes() as u64);
    schemes::resolve(&mut cfg.transport, &net, rtt)?;
    check(&cfg, &net)?;
    Ok(Resolved { cfg, net, routes })
}

/// The discipline of the port of each link (by link index), as the
/// engine builds them: the hosts', the switches', or the upper tiers'.
pub fn port_configs<'a>(cfg: &'a Config, net: &Network) -> Vec<&'a QueueConfig> {
    net.links
        .iter()
        .map(|l| {
            if net.is_host(l.node) {
                &cfg.port.host
            } else if net.nodes[l.node as usize].tier >= 2 {
                cfg.port.upper_tiers.as_ref().unwrap_or(&cfg.port.switch)
            } else {
                &cfg.port.switch
            }
        })
        .collect()
}

/// The combinations the engine does not run.
fn check(cfg: &Config, net: &Network) -> Result<(), String> {
    let ports = port_configs(cfg, net);
    let at_host = |i: usize| net.is_host(net.links[i].node);
    let hosts = || ports.iter().enumerate().filter(move |&(i, _)| at_host(i)).map(|(_, q)| &q.discipline);
    let switches = || ports.iter().enumerate().filter(move |&(i, _)| !at_host(i)).map(|(_, q)| &q.discipline);
    let classes = cfg.traffic_classes.max(1);
    if classes > 8 {
        return Err(format!("at most 8 traffic classes (PFC's priorities), got {classes}"));
    }
    if classes > 1 && !ports.iter().all(|q| q.discipline.has_classes()) {
        return Err("traffic classes need the pfc or bfc discipline on every port".into());
    }
    if cfg.transport.pulled() && !hosts().all(|d| d.is_pfc()) {
        return Err("a transport the NIC pulls needs the pfc discipline on every host NIC".into());
    }
    // switch ports whose departures are decided at departure time without
    // a shared buffer: those that choose by priority
    let lazy = |d: &crate::config::Discipline| {
        !(cfg.port.fifo_fast_path && d.is_fifo()) && !d.in_shared_buffer() && !d.self_timed()
    };
    if cfg.queueing_delay && cfg.shared_buffer.is_none() && switches().any(|d| !lazy(d)) {
        return Err("queueing delays are kept at switches with a shared buffer, or whose ports choose by priority \
                    (pfabric, pias, homa): set shared_buffer"
            .into());
    }
    schemes::check(cfg, net, &ports)?;
    if let Some(b) = &cfg.shared_buffer {
        if !switches().all(|d| d.in_shared_buffer()) || (b.pfc && !hosts().all(|d| d.in_shared_buffer())) {
            return Err("a shared buffer needs the pfc, bfc or fq discipline on every switch port (and, with PFC, on every \
                        host NIC)"
                .into());
        }
    } else if switches().any(|d| d.needs_shared_buffer()) {
        // their flow tables and queues are released as packets leave a
        // switch's buffer
        return Err("the bfc and fq disciplines need a shared buffer: set shared_buffer".into());
    }
    if cfg.sampler.as_ref().is_some_and(|s| s.interval_ps == 0) {
        return Err("the sampler's interval must be positive".into());
    }
    Ok(())
}

/// The longest base RTT from host 0 to any host: both ways' propagation
/// plus one `payload`'s serialization per hop of the way there (the HPCC
/// simulator's `maxRtt`; its fabrics are symmetric, as dcsim's are).
pub fn longest_rtt(net: &Network, routes: &Routes, payload: u64) -> Time {
    (1..net.hosts).map(|dst| pair_rtt(net, routes, 0, dst, payload)).max().unwrap_or(0)
}

/// The base RTT from `src` to `dst`, as `longest_rtt` counts it (the HPCC
/// simulator's `pairRtt`).
pub fn pair_rtt(net: &Network, routes: &Routes, src: u32, dst: u32, payload: u64) -> Time {
    let (mut node, mut t) = (src, 0);
    while node != dst {
        let l = &net.links[routes.group(node, dst)[0] as usize];
        t += 2 * l.delay_ps + serialization(payload, l.rate_bps);
        node = l.peer;
    }
    t
}
