//! Connections that flows reuse, per ordered host pair (the pFabric and
//! PIAS ns-2 scripts' agent pools): state of the TCP family at the hosts,
//! spanning flows. A pair starts with `connections_per_pair` connections,
//! open before any flow; a flow takes the one idle longest, or opens
//! another if all are busy, and gives it back when its sender is done. So
//! a flow never waits for another (but one that opens a connection may
//! handshake).

use super::Conn;
use std::collections::{HashMap, VecDeque};

#[derive(Debug)]
pub struct ConnPools {
    per_pair: u32,
    /// The idle connections of each pair, in the order they went idle
    /// (None: open, never used).
    idle: HashMap<u64, VecDeque<Option<Conn>>>,
}

impl ConnPools {
    pub fn new(per_pair: u32) -> ConnPools {
        ConnPools { per_pair, idle: HashMap::new() }
    }

    /// The connection for a new flow of `src` to `dst`: what a reused one
    /// kept (None: a new one), and whether it is opened now.
    pub fn take(&mut self, src: u32, dst: u32) -> (Option<Conn>, bool) {
        let n = self.per_pair as usize;
        let pool = self.idle.entry((src as u64) << 32 | dst as u64).or_insert_with(|| vec![None; n].into());
        match pool.pop_front() {
            Some(conn) => (conn, false),
            None => (None, true),
        }
    }

    pub fn give_back(&mut self, src: u32, dst: u32, conn: Conn) {
        self.idle.get_mut(&((src as u64) << 32 | dst as u64)).expect("taken from this pool").push_back(Some(conn));
    }
}
