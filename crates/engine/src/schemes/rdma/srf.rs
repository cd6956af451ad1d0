//! BFC-SRF's and IdealSRF's header (BFC NSDI'22 App. A.2): every data
//! packet a NIC sends carries what is left of its flow at that packet
//! (itself included), and ports that serve the shortest remaining first
//! order by it. Kept beside the packets, by packet id (the per-node seam:
//! written as a NIC sends, read as a packet enters a switch port).

use crate::config::{Config, QueueConfig, RdmaConfig, TransportConfig};
use crate::packet::PacketId;

#[derive(Debug, Default)]
pub struct Srf {
    tags: Vec<u64>,
    mss: u64,
}

impl Srf {
    pub fn new(mss: u64) -> Srf {
        Srf { tags: Vec::new(), mss }
    }

    /// A NIC sends packet `seq` of a flow of `size` bytes as packet `id`.
    pub fn tag(&mut self, id: PacketId, size: u64, seq: u32) {
        if self.tags.len() <= id as usize {
            self.tags.resize(id as usize + 1, 0);
        }
        self.tags[id as usize] = size.saturating_sub(seq as u64 * self.mss).max(1);
    }

    /// Packet `id`'s header (0: none written).
    #[inline]
    pub fn get(&self, id: PacketId) -> u64 {
        self.tags.get(id as usize).copied().unwrap_or(0)
    }
}

/// The ports that order by the header and the hosts that write it go
/// together (`ports`: each link's port).
pub fn check(cfg: &Config, ports: &[&QueueConfig]) -> Result<(), String> {
    let tagged = matches!(cfg.transport, TransportConfig::Rdma(RdmaConfig { srf: true, .. }));
    let ordered = ports.iter().any(|q| q.discipline.orders_by_remaining_size());
    if !tagged && ordered {
        return Err("srf switch ports need hosts that write the remaining size (transport srf)".into());
    }
    if tagged && !ordered {
        return Err("transport srf writes a remaining size that no port orders by (a bfc or fq discipline with srf)".into());
    }
    Ok(())
}
