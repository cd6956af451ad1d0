//! Thin PyO3 bindings: build a simulation from the JSON configuration the
//! Python layer resolves, run it in slices (releasing the GIL), and hand
//! back finished-flow records as columns. No simulation logic lives here.

use dcsim_engine::workload::FlowSpec;
use dcsim_engine::{config_from_json, Simulation, Status};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The engine's memory comes from mimalloc, not the C library's malloc: its
/// segments sit on transparent huge pages, so a large fabric's ports, rings
/// and packets (tens of MB on 6,144 hosts) do not miss the TLB at every
/// packet-hop (docs/performance.md, "At datacenter scale"). Python's own
/// objects keep Python's allocator.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// One dict entry per record field: `columns!(dict, records, "name" => field, ...)`
/// sets `dict["name"]` to the list of every record's `field`.
macro_rules! columns {
    ($d:expr, $recs:expr, $($name:literal => $field:ident),* $(,)?) => {
        $( $d.set_item($name, $recs.iter().map(|r| r.$field).collect::<Vec<_>>())?; )*
    };
}

#[pyclass(module = "dcsim._core")]
struct Sim {
    inner: Simulation,
}

fn status_name(s: Status) -> &'static str {
    match s {
        Status::Running => "running",
        Status::Done => "done",
        Status::Stopped => "stopped",
        Status::Stalled => "stalled",
        Status::Deadlock => "deadlock",
        Status::Collapse => "collapse",
    }
}

#[pymethods]
impl Sim {
    #[new]
    fn new(config_json: &str) -> PyResult<Self> {
        let cfg = config_from_json(config_json).map_err(PyValueError::new_err)?;
        let inner = Simulation::new(cfg).map_err(PyValueError::new_err)?;
        Ok(Sim { inner })
    }

    /// Run at most `max_events` events; returns "running", "done",
    /// "stopped" or "stalled".
    fn run(&mut self, py: Python<'_>, max_events: u64) -> &'static str {
        let inner = &mut self.inner;
        status_name(py.allow_threads(|| inner.run(max_events)))
    }

    /// (simulated seconds, flows finished, total flows, events processed)
    fn progress(&self) -> (f64, u64, u64, u64) {
        let c = self.inner.counters();
        (dcsim_engine::time::to_secs(self.inner.now()), c.flows_finished, self.inner.total_flows(), c.events)
    }

    /// Records of flows finished since the last call, as a dict of columns
    /// (times in picoseconds).
    fn drain<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let recs = self.inner.drain_records();
        let d = PyDict::new(py);
        columns!(d, recs, "flow_id" => id, "src" => src, "dst" => dst, "size_bytes" => size, "start_ps" => start,
                 "finish_ps" => finish, "ideal_ps" => ideal, "retransmits" => retx, "timeouts" => timeouts,
                 "deadline_ps" => deadline, "delivered_bytes" => delivered, "fault_losses" => fault_losses);
        Ok(d)
    }

    /// Flows that started and did not finish, as a dict of columns (no
    /// finish time; `delivered_bytes` instead).
    fn unfinished<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let recs = self.inner.unfinished();
        let d = PyDict::new(py);
        columns!(d, recs, "flow_id" => id, "src" => src, "dst" => dst, "size_bytes" => size, "start_ps" => start,
                 "ideal_ps" => ideal, "delivered_bytes" => delivered, "retransmits" => retx, "timeouts" => timeouts,
                 "deadline_ps" => deadline, "fault_losses" => fault_losses);
        Ok(d)
    }

    /// Queue samples recorded since the last call, as a dict of columns.
    fn drain_queue_samples<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let recs = self.inner.drain_queue_samples();
        let d = PyDict::new(py);
        columns!(d, recs, "time_ps" => time, "port" => port, "pkts" => pkts, "bytes" => bytes, "flows" => flows);
        Ok(d)
    }

    /// Switch-buffer samples recorded since the last call (shared buffers
    /// only), as a dict of columns.
    fn drain_buffer_samples<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let recs = self.inner.drain_buffer_samples();
        let d = PyDict::new(py);
        columns!(d, recs, "time_ps" => time, "node" => node, "bytes" => bytes);
        Ok(d)
    }

    /// Flow samples recorded since the last call, as a dict of columns.
    fn drain_flow_samples<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let recs = self.inner.drain_flow_samples();
        let d = PyDict::new(py);
        columns!(d, recs, "time_ps" => time, "flow_id" => flow, "delivered_bytes" => delivered);
        Ok(d)
    }

    /// End-of-run accounting as JSON: counters, conservation, per-port stats.
    fn summary_json(&self) -> String {
        let s = &self.inner;
        let cons = s.conservation();
        let ports: Vec<_> = s.port_reports();
        format!(
            "{{\"status\":\"{}\",\"sim_time_ps\":{},\"active_flows\":{},\"counters\":{},\"conservation\":{},\"conservation_holds\":{},\"ports\":{},\"prio_losses\":{},\"queueing_delay\":{},\"scheme_report\":{},\"faults\":{},\"deadlock\":{},\"ideal_check\":{}}}",
            status_name(s.status()),
            s.now(),
            s.active_flows(),
            to_json(&s.final_counters()),
            to_json(&cons),
            cons.holds(),
            to_json(&ports),
            to_json(&s.prio_losses()),
            to_json(&s.queueing_delays()),
            to_json(&s.scheme_report().map(|(key, v)| serde_json::json!({ key: v }))),
            to_json(&s.fault_report()),
            to_json(&s.deadlock().map(|d| serde_json::json!({
                "since_ps": d.since,
                "ports": d.ports.iter().map(|&p| s.port_ends(p)).collect::<Vec<_>>(),
            }))),
            to_json(&s.ideal_report())
        )
    }

    /// The output ports of each flow's path (`Simulation::flow_ports`), as
    /// (offsets, ports): flow i's are ports[offsets[i]..offsets[i + 1]].
    fn flow_ports(&self, src: Vec<u32>, dst: Vec<u32>, ids: Vec<u32>) -> (Vec<u64>, Vec<u32>) {
        let (mut offsets, mut ports) = (vec![0u64], Vec::new());
        for ((s, d), id) in src.into_iter().zip(dst).zip(ids) {
            let spec = FlowSpec { id, start: 0, src: s, dst: d, size: 1, deadline_draw: None };
            ports.extend(self.inner.flow_ports(&spec));
            offsets.push(ports.len() as u64);
        }
        (offsets, ports)
    }

    /// Each flow's ideal FCT in picoseconds (`Simulation::flow_ideal`).
    fn flow_ideals(&self, src: Vec<u32>, dst: Vec<u32>, ids: Vec<u32>, sizes: Vec<u64>) -> Vec<u64> {
        let it = src.into_iter().zip(dst).zip(ids).zip(sizes);
        it.map(|(((s, d), id), size)| {
            self.inner.flow_ideal(&FlowSpec { id, start: 0, src: s, dst: d, size, deadline_draw: None })
        })
        .collect()
    }

    /// Every output port, as a dict of columns: node, peer, rate_bps,
    /// delay_ps (port i is row i).
    fn links<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let links = self.inner.links();
        let d = PyDict::new(py);
        columns!(d, links, "node" => node, "peer" => peer, "rate_bps" => rate_bps, "delay_ps" => delay_ps);
        Ok(d)
    }

    /// The (rate_bps, delay_ps) hops of the path from `src` to `dst`.
    fn path(&self, src: u32, dst: u32) -> Vec<(u64, u64)> {
        self.inner.path(src, dst)
    }
}

fn to_json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("plain data serializes")
}

/// The flows a configuration's workload generates, without simulating
/// them: columns start_ps, src, dst, size_bytes, and deadline_draw_ps (a
/// deadline's draw after the start, before its floor of `min_factor` ideal
/// FCTs; -1 for a flow without one).
#[pyfunction]
fn sample_flows<'py>(py: Python<'py>, config_json: &str) -> PyResult<Bound<'py, PyDict>> {
    let cfg = config_from_json(config_json).map_err(PyValueError::new_err)?;
    let hosts = dcsim_engine::topology::Network::build(&cfg.topology).map_err(PyValueError::new_err)?.hosts;
    let mut gen = dcsim_engine::workload::FlowGen::new(&cfg.workload, hosts, cfg.seed).map_err(PyValueError::new_err)?;
    let flows: Vec<_> = std::iter::from_fn(|| gen.next_flow()).collect();
    let d = PyDict::new(py);
    columns!(d, flows, "flow_id" => id, "start_ps" => start, "src" => src, "dst" => dst, "size_bytes" => size);
    d.set_item("deadline_draw_ps", flows.iter().map(|f| f.deadline_draw.map_or(-1, |t| t as i64)).collect::<Vec<_>>())?;
    Ok(d)
}

/// The traffic class of each flow id when flows are split among `classes`
/// strict-priority classes (the engine's `workload::traffic_class`).
#[pyfunction]
fn traffic_classes(flow_ids: Vec<u32>, classes: u8) -> Vec<u8> {
    flow_ids.into_iter().map(|f| dcsim_engine::workload::traffic_class(f, classes)).collect()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Sim>()?;
    m.add_function(wrap_pyfunction!(sample_flows, m)?)?;
    m.add_function(wrap_pyfunction!(traffic_classes, m)?)?;
    m.add("ENGINE_VERSION", env!("CARGO_PKG_VERSION"))?;
    // How this CPU sorts calendar slots (speed only; results are the same).
    m.add("SLOT_SORT", dcsim_engine::slot::Sorter::detect().name())?;
    Ok(())
}
