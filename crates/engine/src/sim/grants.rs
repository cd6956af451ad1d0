//! Homa's receivers, as the simulation drives them: each host keeps the
//! messages arriving to it that still have bytes to grant, and after every
//! data packet it takes decides again which of them get grants
//! (`transport::homa::schedule`), then sends them.

use super::*;
use crate::config::{HomaConfig, TransportConfig};
use crate::transport::homa::{self, Candidate};
use crate::workload::Cdf;

/// Fill in what Homa's configuration leaves to the network: RTT bytes (the
/// BDP of the longest base RTT, `rtt_ps`, at the NICs' rate), the
/// unscheduled levels for its size distribution, and the overcommitment.
pub(super) fn resolve(h: &mut HomaConfig, net: &Network, rtt_ps: Time) -> Result<(), String> {
    if h.levels < 2 {
        return Err(format!("homa needs at least 2 priority levels, got {}", h.levels));
    }
    let rate = net.links.iter().find(|l| net.is_host(l.node)).map_or(0, |l| l.rate_bps);
    let rtt = *h
        .rtt_bytes
        .get_or_insert((rtt_ps as u128 * rate as u128 / 8 / crate::time::PS_PER_S as u128) as u64);
    let cdf = Cdf::new(&h.size_cdf, h.size_quantum_bytes).map_err(|e| format!("homa size_cdf: {e}"))?;
    if h.unscheduled_levels >= h.levels {
        return Err(format!("homa unscheduled_levels {} leaves none of its {} levels scheduled", h.unscheduled_levels, h.levels));
    }
    let given = (h.unscheduled_levels > 0).then_some(h.unscheduled_levels);
    h.resolved = homa::levels(&cdf, rtt.max(1), h.levels, given);
    let scheduled = h.levels - h.resolved.unscheduled;
    if h.overcommit == 0 {
        h.overcommit = scheduled;
    } else if h.overcommit > scheduled {
        return Err(format!("homa overcommit {} exceeds its {scheduled} scheduled levels", h.overcommit));
    }
    Ok(())
}

impl Simulation {
    /// A data packet of Homa message `id` (in `slot`) reached its receiver
    /// `host`: list the message if it has bytes to grant, and grant.
    #[inline(never)]
    pub(super) fn homa_receive(&mut self, host: u32, slot: u32, id: u32) {
        if let Some(Transport::Homa(f)) = self.flows.get(slot, id).map(|f| &mut f.ep) {
            if !f.listed && f.needs_grants() {
                f.listed = true;
                self.homa_in[host as usize].push((slot, id));
            }
        }
        self.homa_grant(host);
    }

    /// Grant what `host`'s receiver decides to its messages.
    fn homa_grant(&mut self, host: u32) {
        let TransportConfig::Homa(cfg) = &self.cfg.transport else { unreachable!("Homa's receivers") };
        let (flows, list) = (&mut self.flows, &mut self.homa_in[host as usize]);
        // scratch lists kept between calls: this runs at every data packet
        let (mut cands, mut grants) = (std::mem::take(&mut self.homa_cands), std::mem::take(&mut self.homa_grants));
        cands.clear();
        grants.clear();
        list.retain(|&(slot, id)| {
            let Some(f) = flows.get(slot, id) else { return false };
            let Transport::Homa(t) = &f.ep else { unreachable!("Homa's flows") };
            if !t.needs_grants() {
                return false;
            }
            cands.push(Candidate { slot, flow: id, src: f.spec.src, to_grant: t.to_grant(cfg) });
            true
        });
        for (c, level) in homa::schedule(&mut cands, cfg) {
            let Some(Transport::Homa(t)) = flows.get(c.slot, c.flow).map(|f| &mut f.ep) else { unreachable!("listed") };
            if let Some(upto) = t.grant_upto(cfg) {
                t.allow(upto);
                grants.push((c, level, upto));
            }
        }
        let size = cfg.grant_bytes as u16;
        for &(c, level, upto) in &grants {
            let pkt = Packet {
                flow: c.flow,
                slot: c.slot,
                seq: upto,
                sack_lo: level as u32,
                sack_hi: 0,
                // grants go first (the simulator sends them at level 0)
                prio: 0,
                ts: self.now,
                src: host as u16,
                dst: c.src as u16,
                size,
                kind: Kind::Grant,
                flags: 0,
                ingress: 0,
            };
            self.counters.credit_pkts += 1;
            self.inject(host, pkt);
        }
        (self.homa_cands, self.homa_grants) = (cands, grants);
    }
}
