//! Reading GPU buffers back to the host, outside the step: a blocking read that waits for the
//! GPU (`read_mapped`, for native tools and tests), and a background read ([`BackgroundMap`]) that a
//! renderer polls once per frame without ever waiting, so showing statistics does not stall it.

use crate::collision::GpuColliderListHead;
use crate::error::Error;
use crate::metrics::Overflows;
use crate::passes::self_collision::GpuSpatialHashHead;
use glam::Vec3;
use std::mem::size_of;
use std::ops::Range;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

/// Bytes per particle of the particle buffers (positions, velocities, normals: one `vec4`).
const PARTICLE_BYTES: u64 = 16;
const _: () = assert!(
    size_of::<GpuColliderListHead>() + size_of::<GpuSpatialHashHead>() + size_of::<u32>() == OVERFLOW_BYTES as usize
);

/// Maps all of `buffer` (already filled by a submitted copy), waits for the GPU, hands its
/// bytes to `read` and unmaps. Only for explicit readbacks, never inside a step. On error a map
/// may still be pending, so the caller should not reuse the buffer. Native only: a browser
/// cannot wait for the GPU.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn read_mapped<T>(
    device: &wgpu::Device,
    buffer: &wgpu::Buffer,
    read: impl FnOnce(&[u8]) -> T,
) -> Result<T, Error> {
    let slice = buffer.slice(..);
    let (sender, receiver) = std::sync::mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |result| {
        let _ = sender.send(result);
    });
    device.poll(wgpu::PollType::wait_indefinitely()).map_err(|e| Error::Readback(e.to_string()))?;
    receiver.recv().map_err(|e| Error::Readback(e.to_string()))?.map_err(|e| Error::Readback(e.to_string()))?;
    let value = slice.get_mapped_range().map(|bytes| read(&bytes));
    buffer.unmap();
    value.map_err(|e| Error::Readback(e.to_string()))
}

/// Particle buffers one readback buffer holds (positions and velocities for metrics).
pub(crate) const READBACK_SLOTS: usize = 2;

/// Bytes of the overflow counts after the particle slots of a readback buffer: the collider
/// list's head, the self-collision hash table's, then the bodies' count of invocations cut short.
const OVERFLOW_BYTES: u64 = 36;

/// Bytes of a readback buffer with room for READBACK_SLOTS particle buffers of `particle_count`
/// particles and the overflow counts.
pub(crate) fn readback_bytes(particle_count: usize) -> u64 {
    READBACK_SLOTS as u64 * particle_bytes(particle_count) + OVERFLOW_BYTES
}

/// Bytes of one particle buffer: a readback buffer for it alone.
pub(crate) fn particle_bytes(particle_count: usize) -> u64 {
    PARTICLE_BYTES * particle_count as u64
}

/// A mappable buffer of `size` bytes that particle buffers (and the overflow counts) are copied
/// into.
pub(crate) fn readback_buffer(device: &wgpu::Device, size: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("drape readback"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// Records copies of the particles `particles` of the particle buffers `sources` (at most
/// READBACK_SLOTS) into consecutive slots of `readback`, each slot as long as the range.
pub(crate) fn encode_particle_copies(
    encoder: &mut wgpu::CommandEncoder,
    sources: &[&wgpu::Buffer],
    readback: &wgpu::Buffer,
    particles: Range<usize>,
) {
    debug_assert!(sources.len() <= READBACK_SLOTS, "more particle buffers than readback slots");
    let (start, size) = (PARTICLE_BYTES * particles.start as u64, PARTICLE_BYTES * particles.len() as u64);
    for (k, source) in (0..).zip(sources) {
        encoder.copy_buffer_to_buffer(source, start, readback, k * size, size);
    }
}

/// Records copies of the collider list's head and the hash table's, with their overflow counts,
/// and of the bodies' count of invocations cut short, after the particle slots of `readback`.
pub(crate) fn encode_overflow_copy(
    encoder: &mut wgpu::CommandEncoder,
    [colliders, hash_table, body_pairs]: [&wgpu::Buffer; 3],
    readback: &wgpu::Buffer,
    particle_count: usize,
) {
    let offset = READBACK_SLOTS as u64 * PARTICLE_BYTES * particle_count as u64;
    let collider_head = size_of::<GpuColliderListHead>() as u64;
    encoder.copy_buffer_to_buffer(colliders, 0, readback, offset, collider_head);
    let hash_head = size_of::<GpuSpatialHashHead>() as u64;
    encoder.copy_buffer_to_buffer(hash_table, 0, readback, offset + collider_head, hash_head);
    let cut_short = size_of::<u32>() as u64;
    encoder.copy_buffer_to_buffer(body_pairs, 0, readback, offset + collider_head + hash_head, cut_short);
}

/// The overflow counts of mapped readback bytes ([`encode_overflow_copy`]).
pub(crate) fn decode_overflows(bytes: &[u8], particle_count: usize) -> Overflows {
    let offset = READBACK_SLOTS * PARTICLE_BYTES as usize * particle_count;
    let hash_offset = offset + size_of::<GpuColliderListHead>();
    let colliders: GpuColliderListHead = bytemuck::pod_read_unaligned(&bytes[offset..hash_offset]);
    let bodies_offset = hash_offset + size_of::<GpuSpatialHashHead>();
    let hash: GpuSpatialHashHead = bytemuck::pod_read_unaligned(&bytes[hash_offset..bodies_offset]);
    let bodies: u32 = bytemuck::pod_read_unaligned(&bytes[bodies_offset..bodies_offset + size_of::<u32>()]);
    Overflows { colliders: colliders.overflow, self_contacts: hash.overflow, bodies }
}

/// The first `N` particle buffers of mapped readback bytes, as points (w dropped).
pub(crate) fn decode_particles<const N: usize>(bytes: &[u8], particle_count: usize) -> [Vec<Vec3>; N] {
    let size = PARTICLE_BYTES as usize * particle_count;
    std::array::from_fn(|k| {
        bytemuck::cast_slice::<u8, [f32; 4]>(&bytes[k * size..(k + 1) * size])
            .iter()
            .map(|v| Vec3::new(v[0], v[1], v[2]))
            .collect()
    })
}

/// States of a [`BackgroundMap`], shared with its map callback.
const IDLE: u8 = 0;
const MAPPING: u8 = 1;
const MAPPED: u8 = 2;
const FAILED: u8 = 3;

/// A readback buffer mapped in the background: while it is idle, record a copy into it and
/// [`start`](Self::start) mapping after the submit; then [`try_read`](Self::try_read) it once
/// per frame until the bytes arrive. Nothing here waits for the GPU.
pub(crate) struct BackgroundMap {
    buffer: wgpu::Buffer,
    state: Arc<AtomicU8>,
}

impl BackgroundMap {
    pub(crate) fn new(buffer: wgpu::Buffer) -> Self {
        Self { buffer, state: Arc::new(AtomicU8::new(IDLE)) }
    }

    pub(crate) fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    /// Whether a copy may be recorded into the buffer (no map started, unread or failed).
    pub(crate) fn is_idle(&self) -> bool {
        self.state.load(Ordering::Acquire) == IDLE
    }

    /// Records the copies into the buffer (`record` gets the encoder and the buffer), submits
    /// them on their own and starts mapping the buffer; only when idle.
    pub(crate) fn copy_and_start(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        label: &str,
        record: impl FnOnce(&mut wgpu::CommandEncoder, &wgpu::Buffer),
    ) {
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(label) });
        record(&mut encoder, &self.buffer);
        queue.submit([encoder.finish()]);
        self.start();
    }

    /// Starts mapping the buffer; call after submitting the copy into it, and only when idle.
    pub(crate) fn start(&self) {
        debug_assert!(self.is_idle(), "a background map started twice");
        self.state.store(MAPPING, Ordering::Release);
        let state = Arc::clone(&self.state);
        self.buffer.slice(..).map_async(wgpu::MapMode::Read, move |result| {
            state.store(if result.is_ok() { MAPPED } else { FAILED }, Ordering::Release);
        });
    }

    /// Runs the device's finished callbacks without blocking (natively; a browser runs them once
    /// control has gone back to it). Once the map has arrived, hands the bytes to `read`, unmaps
    /// (the buffer is idle again) and returns `read`'s value;
    /// `Ok(None)` while the map is on its way or none was started. A failed map is an error and
    /// leaves the buffer unusable (wgpu keeps its range marked as mapped, and unmapping a buffer
    /// the device never mapped is a validation error): drop this map and make a new one.
    pub(crate) fn try_read<T>(&self, device: &wgpu::Device, read: impl FnOnce(&[u8]) -> T) -> Result<Option<T>, Error> {
        device.poll(wgpu::PollType::Poll).map_err(|e| Error::Readback(e.to_string()))?;
        match self.state.load(Ordering::Acquire) {
            MAPPED => {
                let value = self.buffer.slice(..).get_mapped_range().map(|bytes| read(&bytes));
                self.buffer.unmap();
                self.state.store(IDLE, Ordering::Release);
                value.map(Some).map_err(|e| Error::Readback(e.to_string()))
            }
            FAILED => Err(Error::Readback("mapping the readback buffer failed".into())),
            _ => Ok(None),
        }
    }
}
