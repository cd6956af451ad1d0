//! dcsim engine: a packet-level discrete-event simulator of datacenter
//! transports. Pure Rust; the Python package drives it through bindings.
//!
//! Modules are named after what they model (docs/design.md, "The parts of
//! the engine", "The scheme seam"): `time`, `packet`, `event` (the
//! calendar), `slot` (a wheel slot and its sort), `topology`, `routing`,
//! `resolve` (the configuration checked and resolved before a run), `port`,
//! `queue` (port disciplines: FIFO, strict priority, PFC, fair queueing),
//! `buffer` (a switch's shared buffer and PFC), `ring`, `nic`, `flows`,
//! `transport` (the per-flow seam: `Endpoint`), `schemes` (one folder per
//! family: tcp, rdma, homa, xpass, bfc, pfabric; and the registry, with the
//! per-node seam), `workload`, `ideal` and `fair_share` (the flow-level
//! models, behind `flow_level`), `metrics`, `prefetch`, and `sim`, which
//! owns all state of one run and names no scheme. Adding a scheme:
//! docs/extending.md.

/// `$body` for whichever arm of an enum whose arms each hold one value
/// (`$e` of type `$Enum` with variants `$V`), the value bound to `$x`:
/// the match that enum dispatch writes for every method, written once.
macro_rules! each_arm {
    ($e:expr, $Enum:ident [$($V:ident),* $(,)?], $x:ident => $body:expr) => {
        match $e {
            $($Enum::$V($x) => $body,)*
        }
    };
}

pub mod bitset;
pub mod buffer;
pub mod config;
pub mod faults;
pub mod event;
pub mod fair_share;
pub mod flow_level;
pub mod flows;
pub mod ideal;
pub mod idle;
pub mod metrics;
pub mod nic;
pub mod packet;
pub mod port;
pub mod prefetch;
pub mod queue;
pub mod resolve;
pub mod ring;
pub mod routing;
pub mod schemes;
pub mod sim;
pub mod slot;
pub mod time;
pub mod topology;
pub mod transport;
pub mod workload;

pub use config::Config;
pub use metrics::{
    BufferSample, Conservation, Counters, FlowRecord, FlowSample, PortReport, PrioLosses, QueueSample,
    UnfinishedRecord,
};
pub use sim::{Simulation, Status};

/// Parse a resolved configuration from JSON (as the Python layer writes it).
pub fn config_from_json(json: &str) -> Result<Config, String> {
    serde_json::from_str(json).map_err(|e| format!("invalid engine configuration: {e}"))
}
