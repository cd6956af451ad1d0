//! Homa's receivers (`HomaTransport.cc`'s `ReceiveScheduler`): state of
//! the hosts spanning messages. Each host keeps the messages arriving to
//! it that still have bytes to grant; after every data packet it takes, it
//! decides again which of them get grants (`schedule`) and sends them.

use super::HomaFlow;
use crate::config::HomaConfig;
use crate::flows::FlowTable;
use crate::packet::{Kind, Packet};
use crate::time::Time;

/// A message a receiver may grant to, as `schedule` sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub slot: u32,
    pub flow: u32,
    pub src: u32,
    pub to_grant: u64,
}

/// The receiver's choice (`HomaTransport.cc`'s `ReceiveScheduler`): each
/// sender is represented by its message with the fewest bytes left to
/// grant (ties: the earlier message); the `overcommit` senders with the
/// fewest are granted, the `i`-th of `n` at level `levels - n + i` (a lone
/// message gets the lowest level; more messages push the shortest ones
/// up), or, once fewer than RTT bytes are left to grant, at the better of
/// that and the unscheduled level of what is left (`boostTailBytesPrio`).
/// Sorts `cands`; returns the granted ones with their levels.
pub fn schedule<'a>(cands: &'a mut [Candidate], cfg: &'a HomaConfig) -> impl Iterator<Item = (Candidate, u8)> + 'a {
    cands.sort_unstable_by_key(|c| (c.to_grant, c.flow));
    let mut picked = 0;
    for i in 0..cands.len() {
        // (the picked ones are the prefix: a sender already there is skipped)
        if picked < cfg.overcommit as usize && !cands[..picked].iter().any(|c| c.src == cands[i].src) {
            cands.swap(picked, i);
            picked += 1;
        }
    }
    // the swaps keep the picked ones in ranked order
    let n = picked as u8;
    let rtt = cfg.rtt_packets() as u64 * cfg.mss_bytes as u64;
    cands[..picked].iter().enumerate().map(move |(i, &c)| {
        let mut level = cfg.levels - n + i as u8;
        if c.to_grant < rtt {
            level = level.min(cfg.level_of(c.to_grant));
        }
        (c, level)
    })
}


/// A message's endpoints as Homa's receivers reach them in the flow table.
pub trait AsHoma {
    fn homa(&mut self) -> Option<&mut HomaFlow>;
}

/// The receivers of every host: the messages each may grant to, and
/// scratch lists kept between calls (this runs at every data packet).
#[derive(Debug)]
pub struct Receivers {
    listed: Vec<Vec<(u32, u32)>>,
    cands: Vec<Candidate>,
    granted: Vec<(Candidate, u8, u32)>,
}

impl Receivers {
    pub fn new(hosts: u32) -> Receivers {
        Receivers { listed: vec![Vec::new(); hosts as usize], cands: Vec::new(), granted: Vec::new() }
    }

    /// A data packet of message `id` (in `slot`) reached its receiver
    /// `host`: list the message if it has bytes to grant, and decide the
    /// host's grants again; the grant packets go into `out`.
    pub fn on_data<E: AsHoma>(
        &mut self,
        host: u32,
        slot: u32,
        id: u32,
        flows: &mut FlowTable<E>,
        cfg: &HomaConfig,
        now: Time,
        out: &mut Vec<Packet>,
    ) {
        if let Some(f) = flows.get(slot, id).and_then(|f| f.ep.homa()) {
            if !f.listed && f.needs_grants() {
                f.listed = true;
                self.listed[host as usize].push((slot, id));
            }
        }
        self.grant(host, flows, cfg, now, out);
    }

    fn grant<E: AsHoma>(&mut self, host: u32, flows: &mut FlowTable<E>, cfg: &HomaConfig, now: Time, out: &mut Vec<Packet>) {
        let (cands, granted) = (&mut self.cands, &mut self.granted);
        cands.clear();
        granted.clear();
        self.listed[host as usize].retain(|&(slot, id)| {
            let Some(f) = flows.get(slot, id) else { return false };
            let src = f.spec.src;
            let t = f.ep.homa().expect("Homa's flows");
            if !t.needs_grants() {
                return false;
            }
            cands.push(Candidate { slot, flow: id, src, to_grant: t.to_grant(cfg) });
            true
        });
        for (c, level) in schedule(cands, cfg) {
            let t = flows.get(c.slot, c.flow).and_then(|f| f.ep.homa()).expect("listed");
            if let Some(upto) = t.grant_upto(cfg) {
                t.allow(upto);
                granted.push((c, level, upto));
            }
        }
        let size = cfg.grant_bytes as u16;
        out.extend(granted.iter().map(|&(c, level, upto)| Packet {
            flow: c.flow,
            slot: c.slot,
            seq: upto,
            sack_lo: level as u32,
            sack_hi: 0,
            // grants go first (the simulator sends them at level 0)
            prio: 0,
            ts: now,
            src: host as u16,
            dst: c.src as u16,
            size,
            kind: Kind::Grant,
            flags: 0,
            ingress: 0,
        }));
    }
}
