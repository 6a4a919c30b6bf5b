//! The words of the solver's data buffers: the kinds' records (`shaders/passes/iterations/units.wgsl`) and the
//! Gauss-Seidel schedule (`shaders/passes/iterations/schedule.wgsl`) as the kernels read them.

use super::fields::FieldAtlas;
use super::records::{unit_table, GpuCollider, GpuColliderListHead, GpuSpatialHashHead};
use crate::constraints::{Constraints, Kind, UnitType};
use crate::model::ClothModel;
use crate::passes::self_collision::hash_table_size;
use std::mem::size_of;

/// The `schedule` buffer's words, where each phase's stripe entries start and where the unit
/// table starts. With `workgroup_slots`, each unit's particles also get their 16-bit slots in
/// their stripe's particle list (the striped kernel addresses its workgroup copy with them).
pub fn schedule_words(model: &ClothModel, workgroup_slots: bool) -> (Vec<u32>, [u32; 2], u32) {
    let schedule = model.schedule();
    let colour_words = 4 * schedule.colours.len();
    let entry_words: usize = schedule.phases.iter().map(|p| p.stripes.len() * (2 + 2 * p.colours.len())).sum();
    let list_words: usize = schedule.phases.iter().flat_map(|p| &p.stripes).map(|s| s.particles.len()).sum();
    let slots_start = (colour_words + entry_words + list_words) as u32;
    // Colour table, with each colour's first slot word.
    let mut words = Vec::with_capacity(colour_words + entry_words + list_words);
    let mut slot_word = slots_start;
    for colour in &schedule.colours {
        let unit_type = UnitType::ALL[colour.unit_type];
        words.extend([unit_type.id(), colour.units.start, colour.units.len() as u32, slot_word]);
        slot_word += colour.units.len() as u32 * unit_type.arity().div_ceil(2) as u32;
    }
    // Stripe entries, then the particle lists.
    let mut list = (colour_words + entry_words) as u32;
    let mut bases = [0; 2];
    for (base, phase) in bases.iter_mut().zip(&schedule.phases) {
        *base = words.len() as u32;
        for stripe in &phase.stripes {
            let count = stripe.particles.len() as u32;
            words.extend([list, count]);
            list += count;
            for units in &stripe.units {
                words.extend([units.start, units.len() as u32]);
            }
        }
    }
    words.extend(schedule.phases.iter().flat_map(|p| &p.stripes).flat_map(|s| &s.particles));
    if workgroup_slots {
        words.extend(slot_words(model));
    }
    let table = words.len() as u32;
    words.extend(unit_table(model));
    (words, bases, table)
}

/// The `constraint_records` buffer's words: every kind's GPU records, kind after kind in
/// [`Kind::ALL`] order, from the words [`record_bases`] gives.
pub fn constraint_records(constraints: &Constraints) -> Vec<u32> {
    Kind::ALL.iter().flat_map(|&k| constraints.of(k).gpu_records()).collect()
}

/// Each unit's particles' slots in its stripe's particle list, two per word (low half first),
/// colour by colour in unit order.
fn slot_words(model: &ClothModel) -> Vec<u32> {
    let schedule = model.schedule();
    let mut words = Vec::new();
    for phase in &schedule.phases {
        for (j, colour) in schedule.colours[phase.colours.clone()].iter().enumerate() {
            let unit_type = UnitType::ALL[colour.unit_type];
            for stripe in &phase.stripes {
                for u in stripe.units[j].clone() {
                    let slots: Vec<u32> = unit_type
                        .particles(model.constraints(), u as usize)
                        .iter()
                        .map(|p| stripe.particles.binary_search(p).expect("a stripe lists its particles") as u32)
                        .collect();
                    words.extend(slots.chunks(2).map(|pair| pair[0] | pair.get(1).map_or(0, |s| s << 16)));
                }
            }
        }
    }
    words
}

/// The solver's GPU buffers. Per-frame work only selects among them; they are created once
/// (Jacobi's and the springs' when their mode is first used, the pin list and dispatch table
/// when they must grow).
pub(crate) struct Buffers {
    pub params: wgpu::Buffer,
    pub dispatch_table: wgpu::Buffer,
    /// x (`vec4`, w = 1), also the vertex buffer.
    pub positions: wgpu::Buffer,
    /// v between substeps, q from predict to finalize; w: inverse mass.
    pub velocities: wgpu::Buffer,
    /// The pinned particles ([`crate::pins::PinRecord`]), with room to grow.
    pub pins: wgpu::Buffer,
    /// The collider list: its head ([`GpuColliderListHead`], with the overflow count) and a
    /// [`GpuCollider`] per collider, with room to grow.
    pub colliders: wgpu::Buffer,
    /// The mesh colliders' distance fields (a texture, bound beside the collider list).
    pub fields: FieldAtlas,
    pub normals: wgpu::Buffer,
    pub triangles: wgpu::Buffer,
    pub vertex_triangles: wgpu::Buffer,
    /// [`constraint_records`].
    pub constraint_records: wgpu::Buffer,
    /// [`schedule_words`].
    pub schedule: wgpu::Buffer,
    /// The tethers' words, grown when they must.
    pub tethers: wgpu::Buffer,
    /// The area limits' coloured triangles ([`crate::passes::area_limits::TriangleAreas::words`]),
    /// one placeholder entry until they are first used.
    pub area_triangles: wgpu::Buffer,
    /// Each particle's acceleration from the air (`vec4`), zero while the air is off; one
    /// zero entry until the air is first used.
    pub air_accelerations: wgpu::Buffer,
    /// Mass-spring mode: the springs' words ([`crate::passes::springs::SpringNetwork::words`]) and
    /// each particle's acceleration from them (`vec4`), zero outside that mode; one entry each
    /// until the mode is first used.
    pub springs: wgpu::Buffer,
    pub spring_accelerations: wgpu::Buffer,
    /// The time at the start of the frame (s), advanced on the GPU.
    pub clock: wgpu::Buffer,
    /// Rigid damping: each workgroup's sums of the particles' moments (one entry until it is
    /// first used), and the rigid motion.
    pub partial_moments: wgpu::Buffer,
    pub rigid_motion: wgpu::Buffer,
    /// Jacobi's correction slots and plan words, once Jacobi mode is used.
    pub jacobi: Option<[wgpu::Buffer; 2]>,
    /// Self-collision (`shaders/passes/self_collision.wgsl`): the hash table (its head, with the
    /// overflow count, then the bucket starts and four fixed-point sum words per particle), the
    /// hashed particles (two `vec4<u32>` each), the pair contacts' corrections (`vec4`) and the
    /// rest shape (a `vec4<u32>` per particle and per triangle); placeholders until it is first
    /// used.
    pub hash_table: wgpu::Buffer,
    pub hashed: wgpu::Buffer,
    pub self_corrections: wgpu::Buffer,
    pub rest_shape: wgpu::Buffer,
}

/// Bytes of the self-collision hash table of `particles` particles: its head,
/// [`crate::passes::self_collision::hash_table_size`] + 1 bucket starts and each particle's fixed-point
/// sum of triangle-contact corrections (xyz) and their count.
pub(crate) fn hash_table_bytes(particles: usize) -> u64 {
    (size_of::<GpuSpatialHashHead>() + 4 * (hash_table_size(particles) as usize + 1 + 4 * particles)) as u64
}

/// Where the collider records start in the collider list.
pub(crate) const COLLIDER_LIST_HEAD: u64 = size_of::<GpuColliderListHead>() as u64;

/// Bytes of a collider list with room for `count` colliders (at least one).
pub(crate) fn collider_list_bytes(count: usize) -> u64 {
    COLLIDER_LIST_HEAD + (size_of::<GpuCollider>() * count.max(1)) as u64
}

/// Replaces `buffer` by an uninitialised one of `size` bytes when it is smaller, counting the
/// difference in `allocated_bytes`. Returns whether it did: the buffer's bind groups must then be
/// rebuilt. Only parameter, pin and collider changes grow buffers, never a frame.
pub(crate) fn grow(
    device: &wgpu::Device,
    buffer: &mut wgpu::Buffer,
    label: &str,
    size: u64,
    usage: wgpu::BufferUsages,
    allocated_bytes: &mut u64,
) -> bool {
    if size <= buffer.size() {
        return false;
    }
    *allocated_bytes += size - buffer.size();
    *buffer =
        device.create_buffer(&wgpu::BufferDescriptor { label: Some(label), size, usage, mapped_at_creation: false });
    true
}

/// Creates buffers and counts their bytes.
pub(crate) struct Allocator<'a> {
    pub device: &'a wgpu::Device,
    pub allocated_bytes: u64,
}

/// Storage buffers the host writes into and copies out of.
pub(crate) const STORAGE: wgpu::BufferUsages =
    wgpu::BufferUsages::STORAGE.union(wgpu::BufferUsages::COPY_DST).union(wgpu::BufferUsages::COPY_SRC);

impl Allocator<'_> {
    /// A buffer holding `contents`, at least `minimum` bytes (bindings cannot be empty).
    pub fn init(&mut self, label: &str, contents: &[u8], minimum: usize, usage: wgpu::BufferUsages) -> wgpu::Buffer {
        use wgpu::util::DeviceExt;
        let padded;
        let contents = if contents.len() < minimum {
            padded = [contents, &vec![0u8; minimum - contents.len()]].concat();
            &padded[..]
        } else {
            contents
        };
        self.allocated_bytes += contents.len() as u64;
        self.device.create_buffer_init(&wgpu::util::BufferInitDescriptor { label: Some(label), contents, usage })
    }

    /// An uninitialised buffer of `size` bytes.
    pub fn empty(&mut self, label: &str, size: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
        self.allocated_bytes += size;
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage,
            mapped_at_creation: false,
        })
    }
}
