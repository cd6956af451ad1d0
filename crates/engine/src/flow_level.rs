//! The flow-level models the simulation can run instead of packets: the
//! Ideal scheduler of pFabric §3 (`ideal.rs`, shortest remaining first)
//! and ideal fair sharing (`fair_share.rs`, BFC's Ideal-FQ), behind one
//! interface, so the event loop (`Simulation::run_flows`) knows neither.

use crate::fair_share::FairShare;
use crate::ideal::{Active, Ideal};
use crate::time::Time;

/// The run's flow-level model (`Config::model`).
pub enum FlowLevel {
    Srpt(Ideal),
    Fair(FairShare),
}

impl FlowLevel {
    pub fn len(&self) -> usize {
        self.flows().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn flows(&self) -> &[Active] {
        match self {
            FlowLevel::Srpt(x) => x.flows(),
            FlowLevel::Fair(x) => x.flows(),
        }
    }

    pub fn next_departure(&self) -> Option<Time> {
        match self {
            FlowLevel::Srpt(x) => x.next_departure(),
            FlowLevel::Fair(x) => x.next_departure(),
        }
    }

    pub fn advance(&mut self, elapsed: Time, done: &mut Vec<Active>) {
        match self {
            FlowLevel::Srpt(x) => x.advance(elapsed, done),
            FlowLevel::Fair(x) => x.advance(elapsed, done),
        }
    }

    pub fn schedule(&mut self) {
        match self {
            FlowLevel::Srpt(x) => x.schedule(),
            FlowLevel::Fair(x) => x.schedule(),
        }
    }

    /// Tests: serve the flows added (all present at time 0) to the end;
    /// each flow's id and finish time, by id.
    #[cfg(test)]
    pub fn finish_all(mut self) -> Vec<(u32, Time)> {
        self.schedule();
        let (mut now, mut out, mut done) = (0, vec![], vec![]);
        while let Some(dt) = self.next_departure() {
            now += dt;
            self.advance(dt, &mut done);
            out.extend(done.drain(..).map(|a| (a.spec.id, now)));
            self.schedule();
        }
        out.sort();
        out
    }
}
