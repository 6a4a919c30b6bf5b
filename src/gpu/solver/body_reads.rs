//! The bodies read back in the background, as a browser must (the blocking
//! [`GpuSolver::read_bodies`] is native only): a program picking bodies under the cursor reads
//! their poses this way.

use super::super::readback::BackgroundMap;
use super::{counted_readback_buffer, GpuSolver};
use crate::bodies::{BodyState, GpuBody};
use crate::error::Error;
use std::mem::size_of;

impl GpuSolver {
    /// Starts reading the bodies back as the frames submitted so far leave them, without
    /// waiting; collect them with [`GpuSolver::poll_bodies`]. Returns `false`, and starts
    /// nothing, while an earlier request has not been collected or there are no bodies.
    pub fn request_bodies(&mut self) -> bool {
        let count = self.bodies.len();
        let bytes = (count * size_of::<GpuBody>()) as u64;
        if count == 0 || self.bodies_read.as_ref().is_some_and(|(map, _)| !map.is_idle()) {
            return false;
        }
        if self.bodies_read.as_ref().is_some_and(|(map, _)| map.buffer().size() < bytes) {
            self.drop_bodies_read();
        }
        let (device, resources) = (&self.device, &mut self.resources);
        let (map, requested) = self.bodies_read.get_or_insert_with(|| {
            (BackgroundMap::new(counted_readback_buffer(device, bytes.next_power_of_two(), resources)), 0)
        });
        *requested = count;
        let bodies = self.resources.buffer("bodies");
        map.copy_and_start(&self.device, &self.queue, "drape bodies", |encoder, readback| {
            encoder.copy_buffer_to_buffer(bodies, 0, readback, 0, bytes);
        });
        true
    }

    /// The bodies of the last [`GpuSolver::request_bodies`] (as many as there were then) once
    /// the GPU has delivered them. Checks once without waiting: `Ok(None)` while they are on
    /// their way, and when there is nothing to collect. After an error (the map failed) the
    /// request is gone and the next one starts afresh. In a browser the map arrives only once
    /// control has gone back to it: poll on a later frame, not in a loop.
    pub fn poll_bodies(&mut self) -> Result<Option<Vec<BodyState>>, Error> {
        let Some((map, count)) = &self.bodies_read else {
            return Ok(None);
        };
        let bytes = *count * size_of::<GpuBody>();
        let bodies = map.try_read(&self.device, |read| {
            bytemuck::pod_collect_to_vec::<u8, GpuBody>(&read[..bytes]).iter().map(GpuBody::state).collect()
        });
        if bodies.is_err() {
            // A failed map leaves its buffer unusable: the next request makes a new one.
            self.drop_bodies_read();
        }
        bodies
    }

    pub(super) fn drop_bodies_read(&mut self) {
        if let Some((map, _)) = self.bodies_read.take() {
            self.resources.count_dropped(map.buffer());
        }
    }
}
