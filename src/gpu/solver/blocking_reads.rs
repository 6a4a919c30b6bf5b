//! The solver's blocking reads: copy, submit and wait for the GPU. Native only — a browser
//! cannot wait for the GPU, and reads in the background instead
//! ([`GpuSolver::request_metrics`], [`GpuSolver::request_positions`]).

use super::super::readback::{
    decode_overflows, decode_particles, encode_overflow_copy, encode_particle_copies, read_mapped, readback_bytes,
    READBACK_SLOTS,
};
use super::{counted_readback_buffer, GpuSolver};
use crate::bodies::{BodyState, GpuBody};
use crate::error::Error;
use crate::metrics::{ClothMetrics, Overflows};
use crate::passes::attachments;
use crate::passes::bodies::attachments::body_attachments_within;
use glam::Vec3;
use std::mem::size_of;

/// Particles a blocking read copies per submit and wait: 256 KiB per particle buffer.
const READ_CHUNK: usize = 1 << 14;

enum Which {
    Positions,
    Velocities,
    Normals,
}

impl GpuSolver {
    /// Reads the positions back (waits for the GPU; native only, see
    /// [`GpuSolver::request_positions`]).
    pub fn read_positions(&mut self) -> Result<Vec<Vec3>, Error> {
        let [positions] = self.read_vectors([Which::Positions])?;
        Ok(positions)
    }

    /// Attaches every free particle within `distance` (m) of collider `collider`'s surface
    /// where the collider is now (inside it too), each where it is ([`GpuSolver::attach`]), and
    /// returns them. Reads the positions back (waits for the GPU; native only: a browser reads
    /// them with [`GpuSolver::request_positions`] and attaches each). Errors: a collider that is
    /// not the solver's, a negative or non-finite distance.
    pub fn attach_within(&mut self, collider: u32, distance: f32) -> Result<Vec<u32>, Error> {
        let positions = self.read_positions()?;
        let near = attachments::attachments_within(&self.pins, &self.colliders, collider, distance, &positions)?;
        self.attach_many(&near)?;
        Ok(near.iter().map(|a| a.particle).collect())
    }

    /// Attaches every free particle within `distance` (m) of body `body`'s surface where the
    /// body is now (inside it too), each at its point in the body's frame
    /// ([`GpuSolver::attach_to_bodies`]), and returns them. Reads the positions and the bodies
    /// back (waits for the GPU; native only: a browser reads them in the background and
    /// attaches each). Errors: a body that is not the solver's, a negative or non-finite
    /// distance.
    pub fn attach_within_body(&mut self, body: u32, distance: f32) -> Result<Vec<u32>, Error> {
        let (positions, bodies) = (self.read_positions()?, self.read_bodies()?);
        let near = body_attachments_within(&self.pins, &bodies, body, distance, &positions)?;
        self.attach_to_bodies(&near)?;
        Ok(near.iter().map(|a| a.particle).collect())
    }

    /// Reads the rigid bodies back, between frames (waits for the GPU; native only: a browser
    /// reads them with [`GpuSolver::request_bodies`]).
    pub fn read_bodies(&mut self) -> Result<Vec<BodyState>, Error> {
        let count = self.bodies.len();
        if count == 0 {
            return Ok(Vec::new());
        }
        let bytes = (count * size_of::<GpuBody>()) as u64;
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("drape bodies readback"),
            size: bytes,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder =
            self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("drape bodies read") });
        encoder.copy_buffer_to_buffer(self.resources.buffer("bodies"), 0, &staging, 0, bytes);
        self.queue.submit([encoder.finish()]);
        read_mapped(&self.device, &staging, |bytes| {
            bytemuck::pod_collect_to_vec::<u8, GpuBody>(bytes).iter().map(GpuBody::state).collect()
        })
    }

    /// Reads the velocities back (waits for the GPU; native only).
    pub fn read_velocities(&mut self) -> Result<Vec<Vec3>, Error> {
        let [velocities] = self.read_vectors([Which::Velocities])?;
        Ok(velocities)
    }

    /// Reads the normals back (waits for the GPU; native only).
    pub fn read_normals(&mut self) -> Result<Vec<Vec3>, Error> {
        let [normals] = self.read_vectors([Which::Normals])?;
        Ok(normals)
    }

    /// Reads positions and velocities back in one copy and wait, and measures the cloth
    /// against the current colliders (native only, see [`GpuSolver::request_metrics`]).
    pub fn metrics(&mut self) -> Result<ClothMetrics, Error> {
        let ([positions, velocities], overflows) = self.read_back([Which::Positions, Which::Velocities])?;
        Ok(ClothMetrics::measure(&self.model, &positions, &velocities, &self.colliders.placed_at_start(), overflows))
    }

    /// What fixed capacities left out since the solver was made, reset or its colliders set
    /// (waits for the GPU; native only).
    pub fn overflows(&mut self) -> Result<Overflows, Error> {
        Ok(self.read_back([])?.1)
    }

    /// Copies up to two particle buffers into the readback buffer, one submit, one wait.
    fn read_vectors<const N: usize>(&mut self, which: [Which; N]) -> Result<[Vec<Vec3>; N], Error> {
        Ok(self.read_back(which)?.0)
    }

    /// Copies up to two particle buffers and the overflow counts back, [`READ_CHUNK`] particles
    /// per submit and wait, through one readback buffer of at most that many particles: the reads
    /// of a large cloth need no buffer the size of the cloth's state.
    fn read_back<const N: usize>(&mut self, which: [Which; N]) -> Result<([Vec<Vec3>; N], Overflows), Error> {
        const { assert!(N <= READBACK_SLOTS, "more particle buffers than the readback buffer holds") };
        let n = self.model.particle_count();
        let chunk = n.min(READ_CHUNK);
        let (device, resources) = (&self.device, &mut self.resources);
        self.readback.get_or_insert_with(|| counted_readback_buffer(device, readback_bytes(chunk), resources));
        let mut vectors: [Vec<Vec3>; N] = std::array::from_fn(|_| Vec::with_capacity(n));
        let mut overflows = Overflows::default();
        // Reading the overflow counts alone takes one round.
        let rounds = if N == 0 { 1 } else { n.div_ceil(chunk) };
        for start in (0..rounds).map(|round| round * chunk) {
            let particles = start..(start + chunk).min(n);
            let (read, chunk_overflows) = self.read_chunk(&which, particles)?;
            for (all, part) in vectors.iter_mut().zip(read) {
                all.extend(part);
            }
            overflows = chunk_overflows;
        }
        Ok((vectors, overflows))
    }

    /// Copies `particles` of the buffers `which` and the overflow counts into the readback
    /// buffer, one submit, one wait.
    fn read_chunk<const N: usize>(
        &mut self,
        which: &[Which; N],
        particles: std::ops::Range<usize>,
    ) -> Result<([Vec<Vec3>; N], Overflows), Error> {
        let len = particles.len();
        let readback = self.readback.as_ref().expect("made by read_back");
        let sources = which.each_ref().map(|which| {
            self.resources.buffer(match which {
                Which::Positions => "positions",
                Which::Velocities => "velocities",
                Which::Normals => "normals",
            })
        });
        let mut encoder =
            self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("drape readback") });
        encode_particle_copies(&mut encoder, &sources, readback, particles);
        let heads = ["collider_list", "hash_table", "body_pairs"].map(|name| self.resources.buffer(name));
        encode_overflow_copy(&mut encoder, heads, readback, len);
        self.queue.submit([encoder.finish()]);
        let mapped =
            read_mapped(&self.device, readback, |bytes| (decode_particles(bytes, len), decode_overflows(bytes, len)));
        if mapped.is_err() {
            // A map may still be pending: start from a fresh buffer next time.
            if let Some(buffer) = self.readback.take() {
                self.resources.count_dropped(&buffer);
            }
        }
        mapped
    }
}
