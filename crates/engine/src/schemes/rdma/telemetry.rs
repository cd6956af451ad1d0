//! HPCC's in-band telemetry (Li et al., SIGCOMM'19; the HPCC simulator's
//! `IntHeader`): what a switch port stamps on a data packet as it leaves
//! (when, the bytes the port sent before it, the bytes queued behind it,
//! the link's rate), carried back to the sender by the packet's ACK.

use crate::config::{Config, HpccConfig, RdmaCc, RdmaConfig, TransportConfig};
use crate::packet::PacketId;
use crate::time::Time;

/// One hop's telemetry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IntHop {
    pub ts: Time,
    pub tx_bytes: u64,
    pub qlen: u64,
    pub rate_bps: u64,
}

/// Hops a packet's telemetry holds (the simulator's `IntHeader::maxHop`).
pub const MAX_INT_HOPS: usize = 5;

/// A packet's telemetry, in a side table of the packet pool: an ACK reuses
/// its data packet's slot, so it carries the data packet's telemetry back.
#[derive(Clone, Copy, Debug, Default)]
pub struct IntStack {
    pub n: u8,
    pub hops: [IntHop; MAX_INT_HOPS],
}

impl IntStack {
    pub fn push(&mut self, hop: IntHop) {
        if (self.n as usize) < MAX_INT_HOPS {
            self.hops[self.n as usize] = hop;
            self.n += 1;
        }
    }

    pub fn hops(&self) -> &[IntHop] {
        &self.hops[..self.n as usize]
    }
}

/// Bytes of HPCC's telemetry header on each packet (none for the others).
pub fn header_bytes(cfg: &RdmaConfig) -> u32 {
    match &cfg.cc {
        RdmaCc::Hpcc(h) => h.int_header_bytes,
        _ => 0,
    }
}

/// The telemetry of every packet in flight, by packet id (the per-node
/// seam: NICs clear it as they send a data packet, shared-buffer switch
/// ports stamp it as the packet leaves, the sender reads it off the ACK),
/// and the units of the counters (the simulator's 128 and 80 bytes times
/// its `INT_MULTI`).
#[derive(Debug)]
pub struct Stamps {
    stacks: Vec<IntStack>,
    bytes_unit: u64,
    qlen_unit: u64,
}

impl Stamps {
    /// Stamps for a run whose switches stamp telemetry (HPCC's).
    pub fn of(cfg: &TransportConfig) -> Option<Stamps> {
        let TransportConfig::Rdma(RdmaConfig { cc: RdmaCc::Hpcc(HpccConfig { int_bytes_unit, int_qlen_unit, .. }), .. }) = cfg
        else {
            return None;
        };
        Some(Stamps { stacks: Vec::new(), bytes_unit: *int_bytes_unit, qlen_unit: *int_qlen_unit })
    }

    /// A NIC sends data packet `id`: no hops yet.
    pub fn clear(&mut self, id: PacketId) {
        if self.stacks.len() <= id as usize {
            self.stacks.resize(id as usize + 1, IntStack::default());
        }
        self.stacks[id as usize].n = 0;
    }

    /// Data packet `id` leaves a switch port (the simulator's `PushHop` at
    /// dequeue): the time, the bytes the port sent before it, the bytes
    /// queued behind it, its rate; the counters in the simulator's units.
    pub fn stamp(&mut self, id: PacketId, ts: Time, tx_bytes: u64, qlen: u64, rate_bps: u64) {
        let hop = IntHop {
            ts,
            tx_bytes: tx_bytes / self.bytes_unit * self.bytes_unit,
            qlen: qlen / self.qlen_unit * self.qlen_unit,
            rate_bps,
        };
        self.stacks[id as usize].push(hop);
    }

    /// The hops packet `id` carries.
    #[inline]
    pub fn hops(&self, id: PacketId) -> &[IntHop] {
        self.stacks.get(id as usize).map_or(&[], IntStack::hops)
    }
}

/// Telemetry is stamped as packets leave a switch's shared buffer.
pub fn check(cfg: &Config) -> Result<(), String> {
    if Stamps::of(&cfg.transport).is_some() && cfg.shared_buffer.is_none() {
        return Err("HPCC's telemetry is stamped by switches with a shared buffer: set shared_buffer".into());
    }
    Ok(())
}
