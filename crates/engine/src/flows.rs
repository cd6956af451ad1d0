//! The active flows: both endpoints of each in one slot of a slab, with
//! what the simulation keeps beside them. Slots are reused after a flow
//! ends, so memory follows the flows in flight, not the total. Generic in
//! the endpoints' type (`schemes::Transport` in a run), so that a scheme's
//! node-level code can look into the table without the table knowing the
//! schemes.

use crate::nic::NicState;
use crate::time::Time;
use crate::workload::FlowSpec;

/// State of one active flow: both endpoints live in the same slot.
pub struct Flow<E> {
    pub spec: FlowSpec,
    /// Its FCT alone on the idle network.
    pub ideal: Time,
    /// Absolute deadline (0: none).
    pub deadline: Time,
    pub ep: E,
    pub recorded: bool,
    /// Timer kinds with an entry in the calendar (one bit each).
    pub timers_pending: u8,
    /// A pulled flow's place with its NIC, and whether its NIC queue is
    /// paused (BFC's backpressure).
    pub nic: NicState,
    pub nic_paused: bool,
}

/// No flow in a `FlowTable` slot.
pub const NO_FLOW: u32 = u32::MAX;

pub struct FlowTable<E> {
    pub slots: Vec<Option<Flow<E>>>,
    /// The id of the flow in each slot (`NO_FLOW`: none), apart from the
    /// flows: a packet's flow is looked up by slot and checked by id at
    /// every host it reaches (a late packet of an ended flow must not
    /// reach the slot's next flow), and this dense column (4 bytes a
    /// slot) stays in cache where the flows' first lines (528 bytes apart)
    /// do not; the check touches no line of the flow (on 6,144 hosts, 4-5%
    /// faster: docs/performance.md).
    ids: Vec<u32>,
    free: Vec<u32>,
    pub active: u64,
}

impl<E> Default for FlowTable<E> {
    fn default() -> Self {
        FlowTable { slots: Vec::new(), ids: Vec::new(), free: Vec::new(), active: 0 }
    }
}

impl<E> FlowTable<E> {
    pub fn insert(&mut self, f: Flow<E>) -> u32 {
        assert!(f.spec.id != NO_FLOW, "flow ids stop below {NO_FLOW}");
        self.active += 1;
        let id = f.spec.id;
        let s = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = Some(f);
                s
            }
            None => {
                self.slots.push(Some(f));
                self.ids.push(NO_FLOW);
                (self.slots.len() - 1) as u32
            }
        };
        self.ids[s as usize] = id;
        s
    }

    /// The flow in `slot` if it is still flow `id`.
    #[inline]
    pub fn get(&mut self, slot: u32, id: u32) -> Option<&mut Flow<E>> {
        // (`NO_FLOW` marks an empty slot: no flow has that id)
        if self.ids.get(slot as usize) != Some(&id) || id == NO_FLOW {
            return None;
        }
        let f = self.slots[slot as usize].as_mut();
        debug_assert!(f.as_ref().is_some_and(|f| f.spec.id == id));
        f
    }

    /// `get`, read-only.
    pub fn peek(&self, slot: u32, id: u32) -> Option<&Flow<E>> {
        if self.ids.get(slot as usize) != Some(&id) || id == NO_FLOW {
            return None;
        }
        self.slots[slot as usize].as_ref()
    }

    pub fn remove(&mut self, slot: u32) {
        self.slots[slot as usize] = None;
        self.ids[slot as usize] = NO_FLOW;
        self.free.push(slot);
        self.active -= 1;
    }

    /// Every active flow.
    pub fn iter(&self) -> impl Iterator<Item = &Flow<E>> {
        self.slots.iter().flatten()
    }
}
