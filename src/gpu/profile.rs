//! Where a frame's GPU time goes, pass by pass ([`crate::GpuSolver::set_profiling`]). A profiled
//! frame records each run of one pass's consecutive dispatches as a compute pass of its own, with
//! timestamps written at its beginning and end (`TIMESTAMP_QUERY` alone, the one timestamp
//! feature WebGPU has), resolves them, and reads them back in the background like the metrics:
//! nothing waits inside a step. The dispatches and their order are the unprofiled frame's, so the
//! results are too, bit for bit; only the compute pass boundaries are added.

use super::readback::{readback_buffer, BackgroundMap};
use crate::error::{Error, ParamError};
use std::ops::Range;

/// Most timestamps one query set holds (wgpu's `QUERY_SET_MAX_QUERIES`).
const MAX_QUERIES: usize = 4096;
/// Bytes of one resolved timestamp.
const TIMESTAMP_BYTES: u64 = 8;

/// What a profiled frame times as one ([`crate::GpuSolver::set_profile_by`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProfileBy {
    /// Each pass, its kernels together.
    #[default]
    Pass,
    /// Each kernel, by its WGSL entry point: which of a pass's kernels costs. An entry point's
    /// builds, and a kernel two passes share (rigid damping's `sum_moments`, which
    /// self-collision runs too), are timed together.
    Kernel,
}

/// The GPU time of one pass (or kernel, [`ProfileBy::Kernel`]) in a frame.
#[derive(Debug, Clone, PartialEq)]
pub struct PassTime {
    /// The pass (its module in `src/passes/`), or a fused kernel where two passes share a
    /// dispatch (`finalize_and_predict`: a substep's finalize with the next one's predict); the
    /// kernel's name when profiled by kernel.
    pub pass: &'static str,
    /// Its dispatches per frame.
    pub dispatches: usize,
    /// Its GPU milliseconds in the frame, summed over its runs.
    pub ms: f64,
}

/// The GPU time of each pass of one frame, in the order each first runs.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FrameProfile {
    #[allow(missing_docs)]
    pub passes: Vec<PassTime>,
}

impl FrameProfile {
    /// The passes' milliseconds together: the frame's GPU time without the gaps between passes.
    pub fn total_ms(&self) -> f64 {
        self.passes.iter().map(|p| p.ms).sum()
    }
}

/// Who a dispatch belongs to: its pass and its kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DispatchName {
    pub pass: &'static str,
    pub kernel: &'static str,
}

impl DispatchName {
    /// The name a profile times the dispatch under.
    pub fn timed_as(self, by: ProfileBy) -> &'static str {
        match by {
            ProfileBy::Pass => self.pass,
            ProfileBy::Kernel => self.kernel,
        }
    }
}

/// A run of consecutive dispatches of one pass: one compute pass of a profiled frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Segment {
    pub pass: &'static str,
    pub dispatches: Range<usize>,
}

/// The runs of equal consecutive names in `passes` (each dispatch's pass, in frame order).
pub(crate) fn segments(passes: impl IntoIterator<Item = &'static str>) -> Vec<Segment> {
    let mut segments: Vec<Segment> = Vec::new();
    for (i, pass) in passes.into_iter().enumerate() {
        match segments.last_mut() {
            Some(last) if last.pass == pass => last.dispatches.end = i + 1,
            _ => segments.push(Segment { pass, dispatches: i..i + 1 }),
        }
    }
    segments
}

/// Sums the segments' durations (`ticks`: a beginning and an end per segment) by pass, in order
/// of first appearance.
pub(crate) fn profile_of(segments: &[Segment], ticks: &[u64], nanoseconds_per_tick: f64) -> FrameProfile {
    let mut profile = FrameProfile::default();
    for (segment, pair) in segments.iter().zip(ticks.chunks_exact(2)) {
        let ms = pair[1].saturating_sub(pair[0]) as f64 * nanoseconds_per_tick * 1e-6;
        let dispatches = segment.dispatches.len();
        match profile.passes.iter_mut().find(|p| p.pass == segment.pass) {
            Some(time) => {
                time.ms += ms;
                time.dispatches += dispatches;
            }
            None => profile.passes.push(PassTime { pass: segment.pass, dispatches, ms }),
        }
    }
    profile
}

/// The timestamps of a profiled frame and their background readback.
pub(crate) struct Profiler {
    queries: wgpu::QuerySet,
    resolved: wgpu::Buffer,
    readback: BackgroundMap,
    segments: Vec<Segment>,
    nanoseconds_per_tick: f64,
    /// Whether the last recorded frame copied its timestamps into the readback buffer (its map
    /// starts once that frame is submitted).
    copy_recorded: bool,
}

impl Profiler {
    /// Timestamps for a frame of `segments`. Errors: a device without `TIMESTAMP_QUERY`, or more
    /// segments than a query set can time.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue, segments: Vec<Segment>) -> Result<Self, Error> {
        if !device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
            return Err(refused("on", "a device created with TIMESTAMP_QUERY (HeadlessOptions::timestamps)"));
        }
        let queries = 2 * segments.len();
        if queries > MAX_QUERIES {
            return Err(refused(
                &format!("on, for {} runs of passes per frame", segments.len()),
                "on for at most 2048 runs of passes per frame: fewer substeps",
            ));
        }
        let bytes = TIMESTAMP_BYTES * queries as u64;
        Ok(Self {
            queries: device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("drape pass timestamps"),
                ty: wgpu::QueryType::Timestamp,
                count: queries as u32,
            }),
            resolved: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("drape pass timestamps"),
                size: bytes,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
            readback: BackgroundMap::new(readback_buffer(device, bytes)),
            segments,
            nanoseconds_per_tick: f64::from(queue.get_timestamp_period()),
            copy_recorded: false,
        })
    }

    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// The timestamp writes of segment `index`'s compute pass.
    pub fn writes(&self, index: usize) -> wgpu::ComputePassTimestampWrites<'_> {
        wgpu::ComputePassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: Some(2 * index as u32),
            end_of_pass_write_index: Some(2 * index as u32 + 1),
        }
    }

    /// Resolves the frame's timestamps and, when the readback is idle, copies them into it.
    pub fn finish_frame(&mut self, encoder: &mut wgpu::CommandEncoder) {
        let queries = 2 * self.segments.len() as u32;
        encoder.resolve_query_set(&self.queries, 0..queries, &self.resolved, 0);
        if self.readback.is_idle() && !self.copy_recorded {
            encoder.copy_buffer_to_buffer(&self.resolved, 0, self.readback.buffer(), 0, self.resolved.size());
            self.copy_recorded = true;
        }
    }

    /// Starts mapping the copy the last recorded frame made (call after submitting it), and
    /// returns the profile once a map has arrived; never waits.
    pub fn poll(&mut self, device: &wgpu::Device) -> Result<Option<FrameProfile>, Error> {
        if std::mem::take(&mut self.copy_recorded) {
            self.readback.start();
        }
        let (segments, nanoseconds_per_tick) = (&self.segments, self.nanoseconds_per_tick);
        let profile = self
            .readback
            .try_read(device, |bytes| profile_of(segments, bytemuck::cast_slice(bytes), nanoseconds_per_tick));
        if profile.is_err() {
            // A failed map leaves its buffer unusable: make a new one.
            self.readback = BackgroundMap::new(readback_buffer(device, self.resolved.size()));
        }
        profile
    }

    /// Bytes of its buffers.
    pub fn bytes(&self) -> u64 {
        2 * self.resolved.size()
    }
}

fn refused(value: &str, expected: &'static str) -> Error {
    Error::Param(ParamError { name: "profiling", value: value.into(), expected })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_are_the_runs_of_one_pass() {
        let runs = segments(["predict", "iterations", "iterations", "tethers", "finalize_and_predict", "iterations"]);
        let expected = [
            ("predict", 0..1),
            ("iterations", 1..3),
            ("tethers", 3..4),
            ("finalize_and_predict", 4..5),
            ("iterations", 5..6),
        ];
        assert_eq!(runs, expected.map(|(pass, dispatches)| Segment { pass, dispatches }));
    }

    #[test]
    fn a_profile_sums_each_pass_over_its_runs() {
        let runs = segments(["predict", "iterations", "iterations", "tethers", "iterations"]);
        // 2 ns per tick: iterations take 10 + 30 ticks over three dispatches.
        let ticks = [0, 5, 5, 15, 20, 21, 100, 130];
        let profile = profile_of(&runs, &ticks, 2.0);
        let expected = [("predict", 1, 10e-6), ("iterations", 3, 80e-6), ("tethers", 1, 2e-6)];
        assert_eq!(profile.passes.len(), expected.len());
        for (time, (pass, dispatches, ms)) in profile.passes.iter().zip(expected) {
            assert_eq!((time.pass, time.dispatches), (pass, dispatches));
            assert!((time.ms - ms).abs() < 1e-15, "{}: {} ms", time.pass, time.ms);
        }
        assert!((profile.total_ms() - 92e-6).abs() < 1e-15);
    }
}
