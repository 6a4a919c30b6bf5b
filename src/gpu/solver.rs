//! The GPU solver: owns the cloth's buffers and pipelines on a caller's device and records
//! frames into the caller's encoder. Nothing is created, read back or waited on per frame.
//!
//! Particle state: `positions` holds x and is the vertex buffer; `velocities` holds v between
//! substeps and, from predict to finalize, the substep's displacement q = p − x, with the inverse
//! mass in w. The projections accumulate their corrections in q, so the velocity v = q/h that
//! finalize derives never goes through a difference of metre-scale coordinates, whose rounding
//! would otherwise reach the velocity divided by h every substep.

#[cfg(not(target_arch = "wasm32"))]
mod blocking_reads;

use super::buffers::{
    collider_list_bytes, constraint_records, grow, hash_table_bytes, schedule_words, Allocator, Buffers,
    COLLIDER_LIST_HEAD, STORAGE,
};
use super::device::{check_buffer_size, check_device_limits, is_cpu_adapter};
use super::fields::FieldAtlas;
use super::pipelines::{Block, BlockSizes, DataGroup, Layouts, Pipelines};
use super::plan::{
    auto_layout, frame_plan, workgroups_for, Dispatch, DispatchStrategy, FramePlan, PlanContext, WorkgroupSizes,
    CPU_LOOP_BUDGET,
};
use super::readback::{
    decode_overflows, decode_particles, encode_overflow_copy, encode_particle_copies, particle_bytes, readback_buffer,
    readback_bytes, BackgroundMap,
};
use super::records::{
    DispatchInfo, GpuCollider, GpuColliderListHead, GpuParams, GpuSpatialHashHead, JacobiLayout, DISPATCH_ENTRY_STRIDE,
    WORKGROUP_SIZE,
};
use crate::collision::{Collider, ColliderSet, ContactMaterial, MovingCollider, Pose};
use crate::constraints::UnitType;
use crate::error::{Error, ParamError};
use crate::mesh::ClothMesh;
use crate::metrics::ClothMetrics;
use crate::model::{ClothModel, JacobiPlan};
use crate::params::{SolverMode, SolverParams, MAX_SUBSTEPS};
use crate::passes::area_limits::TriangleAreas;
use crate::passes::self_collision::hash_table_size;
use crate::passes::springs::SpringNetwork;
use crate::passes::tethers::{PinnedTethers, MAX_ANCHORS};
use crate::pins::{PinRecord, Pins};
use bytemuck::{Pod, Zeroable};
use glam::Vec3;
use std::mem::{offset_of, size_of};

/// The bind groups, one per layout ([`Layouts`]).
struct BindGroups {
    frame: wgpu::BindGroup,
    integrate: wgpu::BindGroup,
    solve: wgpu::BindGroup,
    positions: wgpu::BindGroup,
    gauss_seidel: wgpu::BindGroup,
    jacobi: Option<wgpu::BindGroup>,
    normals: wgpu::BindGroup,
    tethers: wgpu::BindGroup,
    areas: wgpu::BindGroup,
    aerodynamics: wgpu::BindGroup,
    rigid_damping: wgpu::BindGroup,
    springs: wgpu::BindGroup,
    self_collision: wgpu::BindGroup,
}

/// A cloth simulated on the GPU. Create it with [`GpuSolver::new`] from your own device and
/// queue, then each frame either call [`GpuSolver::step`] or record [`GpuSolver::encode_step`]
/// into your encoder and draw [`GpuSolver::positions_buffer`] and [`GpuSolver::normals_buffer`].
pub struct GpuSolver {
    device: wgpu::Device,
    queue: wgpu::Queue,
    model: ClothModel,
    params: SolverParams,
    colliders: ColliderSet,
    /// Whether the collider list on the GPU still moves the colliders as the last frame did (the
    /// next frame must be uploaded its own motion first).
    colliders_moved: bool,
    pins: Pins,
    /// The layout asked for, and the one in use (`Auto` resolved).
    requested_layout: DispatchStrategy,
    layout: DispatchStrategy,
    workgroup_sizes: WorkgroupSizes,
    blocks: BlockSizes,
    /// Where each phase's stripe entries, and the unit table, start in the schedule buffer.
    stripe_entries: [u32; 2],
    unit_table: u32,
    jacobi: Option<JacobiPlan>,
    /// The springs, once mass-spring mode is used.
    springs: Option<SpringNetwork>,
    /// The coloured triangles, once area limits are used.
    areas: Option<TriangleAreas>,
    tethers: PinnedTethers,
    plan: Vec<Dispatch>,
    buffers: Buffers,
    layouts: Layouts,
    bind_groups: BindGroups,
    pipelines: Pipelines,
    /// The blocking reads' buffer ([`blocking_reads`]).
    #[cfg(not(target_arch = "wasm32"))]
    readback: Option<wgpu::Buffer>,
    /// Positions and velocities of [`GpuSolver::request_metrics`], with the colliders of the
    /// moment they were requested.
    metrics_read: Option<(BackgroundMap, Vec<Collider>)>,
    /// Positions of [`GpuSolver::request_positions`].
    positions_read: Option<BackgroundMap>,
    allocated_bytes: u64,
}

impl GpuSolver {
    /// Uploads the model (at rest in its rest state) and builds the pipelines, with the
    /// [`DispatchStrategy::Auto`] layout. Fails on invalid parameters or colliders, on a device
    /// created with lower limits than [`crate::required_limits`], or when a buffer exceeds the
    /// device's limits.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        model: &ClothModel,
        params: SolverParams,
        colliders: &[Collider],
    ) -> Result<Self, Error> {
        params.validate()?;
        let colliders = ColliderSet::new(colliders)?;
        let workgroup_sizes = WorkgroupSizes::for_adapter(is_cpu_adapter(device));
        check_device_limits(device, workgroup_sizes)?;
        check_buffer_size(device, "colliders", collider_list_bytes(colliders.shapes().len()))?;
        let blocks = block_sizes(device, model);
        let (schedule, stripe_entries, unit_table) = schedule_words(model, blocks.stripe.is_some());
        let pins = Pins::new(model);
        let fields = FieldAtlas::new(device, queue, colliders.shapes())?;
        let mut allocator = Allocator { device, allocated_bytes: fields.bytes() };
        let buffers = create_buffers(&mut allocator, model, &pins, &schedule, fields)?;
        let layouts = Layouts::new(device);
        let unit_types: Vec<UnitType> = UnitType::ALL.into_iter().filter(|&t| !model.units(t).is_empty()).collect();
        let pipelines = Pipelines::new(device, &layouts, workgroup_sizes, blocks, &unit_types);
        let bind_groups = bind_groups(device, &layouts, &buffers);
        let mut solver = Self {
            device: device.clone(),
            queue: queue.clone(),
            model: model.clone(),
            params,
            colliders,
            colliders_moved: false,
            pins,
            requested_layout: DispatchStrategy::Auto,
            layout: DispatchStrategy::Auto,
            workgroup_sizes,
            blocks,
            stripe_entries,
            unit_table,
            jacobi: None,
            springs: None,
            areas: None,
            tethers: PinnedTethers::default(),
            plan: Vec::new(),
            buffers,
            layouts,
            bind_groups,
            pipelines,
            #[cfg(not(target_arch = "wasm32"))]
            readback: None,
            metrics_read: None,
            positions_read: None,
            allocated_bytes: allocator.allocated_bytes,
        };
        solver.fit_colliders();
        solver.zero_overflows();
        solver.apply(params, DispatchStrategy::Auto)?;
        Ok(solver)
    }

    /// Changes the parameters for the next frames. Validated (mass-spring's springs also for
    /// stability at the substep) and planned first: on error the solver keeps its previous
    /// parameters. Nothing is rebuilt except Jacobi's or the springs' buffers (created the first
    /// time their mode is used) and the dispatch table when it must grow.
    pub fn set_params(&mut self, params: SolverParams) -> Result<(), Error> {
        params.validate()?;
        self.apply(params, self.requested_layout)
    }

    /// Chooses how frames are spread over dispatches (an execution choice: every layout gives the
    /// same result). Refuses a single-workgroup or striped layout that cannot stay within
    /// llvmpipe's loop limit on a CPU adapter, whose results would be silently wrong.
    pub fn set_dispatch(&mut self, layout: DispatchStrategy) -> Result<(), Error> {
        self.apply(self.params, layout)
    }

    /// Replaces the colliders for the next frames (validated; any number, as long as their list
    /// fits in one storage binding), each resting at the identity pose, and zeroes the
    /// overflow counts.
    pub fn set_colliders(&mut self, colliders: &[Collider]) -> Result<(), Error> {
        let set = ColliderSet::new(colliders)?;
        check_buffer_size(&self.device, "colliders", collider_list_bytes(colliders.len()))?;
        if !self.buffers.fields.holds(set.shapes()) {
            let fields = FieldAtlas::new(&self.device, &self.queue, set.shapes())?;
            self.allocated_bytes = self.allocated_bytes + fields.bytes() - self.buffers.fields.bytes();
            self.buffers.fields = fields;
            self.bind_groups.integrate = integrate_bind_group(&self.device, &self.layouts, &self.buffers);
        }
        self.colliders = set;
        self.colliders_moved = false;
        self.fit_colliders();
        self.zero_overflows();
        self.write_colliders();
        Ok(())
    }

    /// The poses the colliders reach by the end of the next frame, one per collider (validated;
    /// a pose turns the shape as given about the origin, then moves it). The frame moves each
    /// collider there from where it is, a step per substep, and its surface carries what it
    /// touches: static and dynamic friction and restitution act on the cloth's motion relative
    /// to the surface, and continuous collision follows the relative path. Only the collider
    /// records are uploaded; colliders not moved again rest where they arrived. Uploads happen
    /// at the next submit, so submit each frame recorded by [`GpuSolver::encode_step`] before
    /// recording the next or calling a setter (this one, or any that changes the parameters).
    pub fn set_collider_poses(&mut self, poses: &[Pose]) -> Result<(), Error> {
        self.colliders.set_poses(poses)?;
        self.write_colliders();
        Ok(())
    }

    /// Puts the colliders at `poses` (validated) at once, at rest, like new shapes: nothing
    /// carries the cloth with them (for placing colliders while paused, or a cut).
    pub fn place_colliders(&mut self, poses: &[Pose]) -> Result<(), Error> {
        self.colliders.place(poses)?;
        self.colliders_moved = false;
        self.write_colliders();
        Ok(())
    }

    /// Pins a particle to `target` (it gets there by the end of the next frame). A new pin
    /// rebuilds the tethers before the next frame.
    pub fn pin(&mut self, index: u32, target: Vec3) -> Result<(), Error> {
        self.pins.pin(index, target)?;
        self.write_inverse_mass(index);
        self.write_pins();
        self.apply(self.params, self.requested_layout)
    }

    /// Moves a pinned particle's kinematic target.
    pub fn set_pin_target(&mut self, index: u32, target: Vec3) -> Result<(), Error> {
        self.pins.set_target(index, target)?;
        self.write_pins();
        Ok(())
    }

    /// Releases a pinned particle (the tethers are rebuilt before the next frame).
    pub fn unpin(&mut self, index: u32) -> Result<(), Error> {
        self.pins.unpin(index)?;
        self.write_inverse_mass(index);
        self.write_pins();
        self.apply(self.params, self.requested_layout)
    }

    /// Puts the cloth back where it started: rest positions, zero velocities, the model's pins
    /// (targets at rest), rest normals, time zero (for gusts) and no overflows. Parameters and
    /// colliders stay;
    /// no pipeline or cloth buffer is rebuilt. An uncollected [`GpuSolver::request_metrics`] or
    /// [`GpuSolver::request_positions`] is dropped (it read the cloth before), with its readback
    /// buffer if the map was still pending.
    pub fn reset(&mut self) {
        if self.metrics_read.as_ref().is_some_and(|(map, _)| !map.is_idle()) {
            self.drop_metrics_read();
        }
        if self.positions_read.as_ref().is_some_and(|map| !map.is_idle()) {
            self.drop_positions_read();
        }
        self.pins = Pins::new(&self.model);
        let rest = &self.model.mesh().positions;
        let write = |buffer: &wgpu::Buffer, data: &[[f32; 4]]| {
            self.queue.write_buffer(buffer, 0, bytemuck::cast_slice(data));
        };
        write(&self.buffers.positions, &vectors(rest, |_| 1.0));
        write(&self.buffers.velocities, &vectors(&vec![Vec3::ZERO; rest.len()], |i| self.pins.inverse_masses()[i]));
        write(&self.buffers.normals, &vectors(&self.model.vertex_normals(rest), |_| 0.0));
        self.zero(&self.buffers.air_accelerations);
        self.zero(&self.buffers.clock);
        self.fit_colliders();
        self.zero_overflows();
        self.write_pins();
        self.apply(self.params, self.requested_layout)
            .expect("the parameters and layout in use were planned before, and tethers fit by construction");
    }

    /// Overwrites every particle's position, keeping pins as they are.
    pub fn set_positions(&mut self, positions: &[Vec3]) -> Result<(), Error> {
        self.check_particle_values(positions)?;
        self.queue.write_buffer(&self.buffers.positions, 0, bytemuck::cast_slice(&vectors(positions, |_| 1.0)));
        Ok(())
    }

    /// Overwrites every particle's velocity (m/s).
    pub fn set_velocities(&mut self, velocities: &[Vec3]) -> Result<(), Error> {
        self.check_particle_values(velocities)?;
        let data = vectors(velocities, |i| self.pins.inverse_masses()[i]);
        self.queue.write_buffer(&self.buffers.velocities, 0, bytemuck::cast_slice(&data));
        Ok(())
    }

    fn check_particle_values(&self, values: &[Vec3]) -> Result<(), Error> {
        if values.len() != self.model.particle_count() || values.iter().any(|v| !v.is_finite()) {
            return Err(Error::Param(ParamError {
                name: "particle values",
                value: format!("{} values", values.len()),
                expected: "one finite vector per particle",
            }));
        }
        Ok(())
    }

    /// Records one frame (all substeps, then normals) into `encoder`, in one compute pass.
    /// Submitting it is the caller's business; nothing is read back or waited on. Colliders that
    /// moved in the last frame have their records uploaded first (they rest from now on, or
    /// take their new poses).
    pub fn encode_step(&mut self, encoder: &mut wgpu::CommandEncoder) {
        if self.colliders_moved {
            self.write_colliders();
        }
        self.colliders_moved = self.colliders.end_frame();
        let mut pass = encoder
            .begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("drape frame"), timestamp_writes: None });
        let groups = &self.bind_groups;
        let mut current = None;
        for dispatch in &self.plan {
            if current != Some(dispatch.kernel) {
                pass.set_pipeline(self.pipelines.get(dispatch.kernel));
                // Every kernel but integration solves on the particles with a data group.
                let data = match Pipelines::data_group(dispatch.kernel) {
                    DataGroup::Integrate => None,
                    DataGroup::GaussSeidel => Some(&groups.gauss_seidel),
                    DataGroup::Jacobi => Some(groups.jacobi.as_ref().expect("built with the Jacobi plan")),
                    DataGroup::Tethers => Some(&groups.tethers),
                    DataGroup::Areas => Some(&groups.areas),
                    DataGroup::Aerodynamics => Some(&groups.aerodynamics),
                    DataGroup::RigidDamping => Some(&groups.rigid_damping),
                    DataGroup::Springs => Some(&groups.springs),
                    DataGroup::SelfCollision => Some(&groups.self_collision),
                };
                match data {
                    Some(data) => {
                        pass.set_bind_group(1, &groups.solve, &[]);
                        pass.set_bind_group(2, data, &[]);
                    }
                    None => pass.set_bind_group(1, &groups.integrate, &[]),
                }
                current = Some(dispatch.kernel);
            }
            let offset = (u64::from(dispatch.table_entry) * DISPATCH_ENTRY_STRIDE) as u32;
            pass.set_bind_group(0, &groups.frame, &[offset]);
            pass.dispatch_workgroups(dispatch.workgroups[0], dispatch.workgroups[1], 1);
        }
        pass.set_pipeline(&self.pipelines.normals);
        pass.set_bind_group(0, &groups.frame, &[0]);
        pass.set_bind_group(1, &groups.positions, &[]);
        pass.set_bind_group(2, &groups.normals, &[]);
        let [x, y] = workgroups_for(self.model.particle_count() as u32);
        pass.dispatch_workgroups(x, y, 1);
    }

    /// Records and submits one frame.
    pub fn step(&mut self) {
        let mut encoder =
            self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("drape step") });
        self.encode_step(&mut encoder);
        self.queue.submit([encoder.finish()]);
    }

    /// Compute dispatches recorded per frame (normals included).
    pub fn dispatches_per_frame(&self) -> usize {
        self.plan.len() + 1
    }

    /// The dispatch layout in use (`Auto` resolved).
    pub fn dispatch_strategy(&self) -> DispatchStrategy {
        self.layout
    }

    /// Whether the striped kernel works on a copy of each stripe in workgroup memory (the
    /// model's stripes fit the device's `max_compute_workgroup_storage_size`).
    pub fn stripes_in_workgroup(&self) -> bool {
        self.blocks.stripe.is_some()
    }

    /// Bytes of GPU buffers and textures this solver has allocated.
    pub fn allocated_bytes(&self) -> u64 {
        self.allocated_bytes
    }

    /// Current positions: `vec4<f32>` per particle (xyz in metres, w = 1), stride 16 bytes.
    /// Usable as a vertex buffer (`Float32x3` at offset 0, or `Float32x4`).
    pub fn positions_buffer(&self) -> &wgpu::Buffer {
        &self.buffers.positions
    }

    /// Unit vertex normals: `vec4<f32>` per particle (xyz, w = 0), updated at the end of each
    /// frame. Usable as a vertex buffer.
    pub fn normals_buffer(&self) -> &wgpu::Buffer {
        &self.buffers.normals
    }

    /// The cloth's triangles as a `u32` index buffer (`IndexFormat::Uint32`, three per
    /// triangle, counter-clockwise in the rest state); draw [`GpuSolver::index_count`] indices.
    pub fn index_buffer(&self) -> &wgpu::Buffer {
        &self.buffers.triangles
    }

    /// Number of indices in [`GpuSolver::index_buffer`].
    pub fn index_count(&self) -> u32 {
        3 * self.model.mesh().triangles.len() as u32
    }

    /// The springs of mass-spring mode, once it has been used.
    pub fn spring_network(&self) -> Option<&SpringNetwork> {
        self.springs.as_ref()
    }

    /// The model being simulated (rest data, schedule, rest-state UVs).
    pub fn model(&self) -> &ClothModel {
        &self.model
    }

    /// The current parameters.
    pub fn params(&self) -> &SolverParams {
        &self.params
    }

    /// Each collider's contact material, one per collider (validated): its own margin,
    /// friction and restitution, or `None` to take the parameters' (`collision_margin`,
    /// `static_friction`, `dynamic_friction`, `restitution`, which then keep applying as they
    /// change). Colliders start with `None`; [`GpuSolver::set_colliders`] resets them.
    pub fn set_collider_materials(&mut self, materials: &[Option<ContactMaterial>]) -> Result<(), Error> {
        self.colliders.set_materials(materials)?;
        self.write_colliders();
        Ok(())
    }

    /// The colliders at the poses they reach by the end of the next frame (where they are,
    /// unless poses were set since the last frame; plane normals normalised).
    pub fn colliders(&self) -> Vec<Collider> {
        self.colliders.placed()
    }

    /// The poses the colliders reach by the end of the next frame.
    pub fn collider_poses(&self) -> Vec<Pose> {
        self.colliders.poses()
    }

    /// The current pins.
    pub fn pins(&self) -> &Pins {
        &self.pins
    }

    /// Starts measuring the cloth as the frames submitted so far leave it, without waiting:
    /// positions and velocities are copied in a submit of their own and mapped in the
    /// background. Collect the result with [`GpuSolver::poll_metrics`]; frames submitted in the
    /// meantime do not change it. Returns `false`, and starts nothing, while an earlier request
    /// has not been collected.
    pub fn request_metrics(&mut self) -> bool {
        let n = self.model.particle_count();
        let (map, colliders) = self.metrics_read.get_or_insert_with(|| {
            let buffer = counted_readback_buffer(&self.device, readback_bytes(n), &mut self.allocated_bytes);
            (BackgroundMap::new(buffer), Vec::new())
        });
        if !map.is_idle() {
            return false;
        }
        let buffers = &self.buffers;
        map.copy_and_start(&self.device, &self.queue, "drape metrics", |encoder, readback| {
            encode_particle_copies(encoder, &[&buffers.positions, &buffers.velocities], readback, n);
            encode_overflow_copy(encoder, [&buffers.colliders, &buffers.hash_table], readback, n);
        });
        *colliders = self.colliders.placed_at_start();
        true
    }

    /// Starts reading the positions back as the frames submitted so far leave them, without
    /// waiting: the readback a browser can do (the blocking `GpuSolver::read_positions` is
    /// native only). They are copied in a submit of their own and mapped in the background;
    /// collect them with [`GpuSolver::poll_positions`]. Returns `false`, and starts nothing,
    /// while an earlier request has not been collected.
    pub fn request_positions(&mut self) -> bool {
        let n = self.model.particle_count();
        let map = self.positions_read.get_or_insert_with(|| {
            BackgroundMap::new(counted_readback_buffer(&self.device, particle_bytes(n), &mut self.allocated_bytes))
        });
        if !map.is_idle() {
            return false;
        }
        let positions = &self.buffers.positions;
        map.copy_and_start(&self.device, &self.queue, "drape positions", |encoder, readback| {
            encode_particle_copies(encoder, &[positions], readback, n);
        });
        true
    }

    /// The positions of the last [`GpuSolver::request_positions`] once the GPU has delivered
    /// them. Checks once without waiting: `Ok(None)` while they are on their way, and when there
    /// is nothing to collect. After an error (the map failed) the request is gone and the next
    /// one starts afresh. In a browser the map arrives only once control has gone back to it:
    /// poll on a later frame, not in a loop.
    pub fn poll_positions(&mut self) -> Result<Option<Vec<Vec3>>, Error> {
        let Some(map) = &self.positions_read else {
            return Ok(None);
        };
        let n = self.model.particle_count();
        let positions = map.try_read(&self.device, |bytes| {
            let [positions] = decode_particles(bytes, n);
            positions
        });
        if positions.is_err() {
            // A failed map leaves its buffer unusable: the next request makes a new one.
            self.drop_positions_read();
        }
        positions
    }

    /// The metrics of the last [`GpuSolver::request_metrics`] once the GPU has delivered them,
    /// measured against the colliders of the request. Checks once without waiting: `Ok(None)`
    /// while they are on their way, and when there is nothing to collect. After an error (the
    /// map failed) the request is gone and the next one starts afresh. In a browser the map
    /// arrives only once control has gone back to it: poll on a later frame, not in a loop.
    pub fn poll_metrics(&mut self) -> Result<Option<ClothMetrics>, Error> {
        let Some((map, colliders)) = &self.metrics_read else {
            return Ok(None);
        };
        let metrics = map.try_read(&self.device, |bytes| {
            let n = self.model.particle_count();
            let [positions, velocities] = decode_particles(bytes, n);
            ClothMetrics::measure(&self.model, &positions, &velocities, colliders, decode_overflows(bytes, n))
        });
        if metrics.is_err() {
            // A failed map leaves its buffer unusable: the next request makes a new one.
            self.drop_metrics_read();
        }
        metrics
    }

    fn drop_metrics_read(&mut self) {
        if let Some((map, _)) = self.metrics_read.take() {
            self.allocated_bytes -= map.buffer().size();
        }
    }

    fn drop_positions_read(&mut self) {
        if let Some(map) = self.positions_read.take() {
            self.allocated_bytes -= map.buffer().size();
        }
    }

    /// Writes particle `index`'s inverse mass into the w lane of its velocity.
    fn write_inverse_mass(&self, index: u32) {
        let w = self.pins.inverse_masses()[index as usize];
        self.queue.write_buffer(&self.buffers.velocities, 16 * u64::from(index) + 12, bytemuck::bytes_of(&w));
    }

    /// Uploads the pin list, growing its buffer (and rebinding) when it must — only when pins
    /// are added, never per frame.
    fn write_pins(&mut self) {
        let records = self.pins.records();
        let bytes: &[u8] = bytemuck::cast_slice(&records);
        let size = (bytes.len() as u64).next_power_of_two();
        if grow(&self.device, &mut self.buffers.pins, "drape pins", size, STORAGE, &mut self.allocated_bytes) {
            self.bind_groups.integrate = integrate_bind_group(&self.device, &self.layouts, &self.buffers);
        }
        if !bytes.is_empty() {
            self.queue.write_buffer(&self.buffers.pins, 0, bytes);
        }
        self.write_params();
    }

    /// Uploads the parameters.
    fn write_params(&self) {
        let pins = self.pins.records().len();
        let gpu = GpuParams::new(
            &self.params,
            &self.model,
            pins,
            self.jacobi.as_ref(),
            self.unit_table,
            self.tethers.tethers().particle_count(),
        );
        self.queue.write_buffer(&self.buffers.params, 0, bytemuck::bytes_of(&gpu));
    }

    /// Uploads the colliders' count and records over the coming frame (not the overflow count).
    fn write_colliders(&self) {
        let fields = &self.buffers.fields;
        let record = |c: &MovingCollider| GpuCollider::new(c, fields.first_layer(&c.shape));
        let records: Vec<GpuCollider> =
            self.colliders.this_frame(self.params.contact_material()).iter().map(record).collect();
        let count = records.len() as u32;
        let count_offset = offset_of!(GpuColliderListHead, count) as u64;
        self.queue.write_buffer(&self.buffers.colliders, count_offset, bytemuck::bytes_of(&count));
        if !records.is_empty() {
            self.queue.write_buffer(&self.buffers.colliders, COLLIDER_LIST_HEAD, bytemuck::cast_slice(&records));
        }
    }

    /// Grows the collider list to hold the colliders (rebinding it when it grew). Their exact
    /// size was checked against the device's limits; the list takes room for the next power of
    /// two of colliders where the limits allow, so that adding colliders rarely grows it.
    fn fit_colliders(&mut self) {
        let count = self.colliders.shapes().len();
        let limits = self.device.limits();
        let limit = limits.max_buffer_size.min(limits.max_storage_buffer_binding_size);
        let size = collider_list_bytes(count.max(1).next_power_of_two()).min(limit).max(collider_list_bytes(count));
        let (device, buffers, bytes) = (&self.device, &mut self.buffers, &mut self.allocated_bytes);
        if grow(device, &mut buffers.colliders, "drape colliders", size, STORAGE, bytes) {
            self.bind_groups.integrate = integrate_bind_group(&self.device, &self.layouts, &self.buffers);
        }
    }

    /// Zeroes the overflow counts: the heads of the collider list (its count follows with
    /// [`GpuSolver::write_colliders`]) and of the hash table (whose buckets are zero between
    /// substeps).
    fn zero_overflows(&self) {
        let colliders = GpuColliderListHead::zeroed();
        self.queue.write_buffer(&self.buffers.colliders, 0, bytemuck::bytes_of(&colliders));
        let hash = GpuSpatialHashHead::zeroed();
        self.queue.write_buffer(&self.buffers.hash_table, 0, bytemuck::bytes_of(&hash));
    }

    /// Plans the frame for `params` and `layout` and, only if that succeeds, makes them current:
    /// uploads them, the plan's dispatch table, the tethers when they were switched or the pins
    /// changed, and (first use of what needs them) Jacobi's buffers, the springs' or the coloured
    /// triangles.
    fn apply(&mut self, params: SolverParams, layout: DispatchStrategy) -> Result<(), Error> {
        if params.active_area_limits().is_some() && self.areas.is_none() {
            self.upload_areas()?;
        }
        if params.self_collision.is_some() {
            self.prepare_self_collision()?;
        }
        match params.mode {
            SolverMode::Jacobi { .. } if self.jacobi.is_none() => self.create_jacobi_buffers()?,
            SolverMode::MassSpring(springs) => {
                let network = self.springs.get_or_insert_with(|| SpringNetwork::new(&self.model));
                network.check_stability(&springs, params.time_step, params.substeps, MAX_SUBSTEPS)?;
                self.upload_springs()?;
            }
            _ => {}
        }
        let rebuilt = self.tethers.rebuilt(&self.model, params.tethers_active(), self.pins.inverse_masses());
        let tether_particles = rebuilt.as_ref().unwrap_or(&self.tethers).tethers().particle_count() as u32;
        let (resolved, plan) = self.plan_frame(&params, layout, tether_particles)?;
        if let Some(tethers) = rebuilt {
            self.upload_tethers(tethers);
        }
        self.prepare_optional_buffers(&params);
        self.params = params;
        self.requested_layout = layout;
        self.layout = resolved;
        self.write_params();
        // Colliders without a material of their own follow the parameters'.
        self.write_colliders();
        self.upload_dispatch_table(&plan.table);
        self.plan = plan.dispatches;
        Ok(())
    }

    /// The air's and the rigid damping's per-particle buffers, grown (and rebound) the first
    /// time `params` use them: until then a cloth pays one placeholder entry for each. Air
    /// switched off leaves zero accelerations behind, since predict reads them either way.
    fn prepare_optional_buffers(&mut self, params: &SolverParams) {
        let n = self.model.particle_count() as u64;
        let (device, buffers, bytes) = (&self.device, &mut self.buffers, &mut self.allocated_bytes);
        if params.aerodynamics.is_some()
            && grow(device, &mut buffers.air_accelerations, "drape air accelerations", 16 * n, STORAGE, bytes)
        {
            self.bind_groups.integrate = integrate_bind_group(&self.device, &self.layouts, &self.buffers);
            self.bind_groups.aerodynamics = aerodynamics_bind_group(&self.device, &self.layouts, &self.buffers);
        } else if params.aerodynamics.is_none() && self.params.aerodynamics.is_some() {
            self.zero(&self.buffers.air_accelerations);
        }
        let (device, buffers, bytes) = (&self.device, &mut self.buffers, &mut self.allocated_bytes);
        // Four vec4 of moments per workgroup of particles.
        let moment_bytes = 64 * n.div_ceil(u64::from(WORKGROUP_SIZE));
        if params.rigid_damping > 0.0
            && grow(device, &mut buffers.partial_moments, "drape partial moments", moment_bytes, STORAGE, bytes)
        {
            self.bind_groups.rigid_damping = rigid_damping_bind_group(&self.device, &self.layouts, &self.buffers);
        }
        // Predict reads the springs' accelerations in every mode.
        if params.mode.projects() && !self.params.mode.projects() {
            self.zero(&self.buffers.spring_accelerations);
        }
    }

    /// Self-collision's buffers, the first time it is used: the hash table (zeroed), the hashed
    /// particles, the corrections and the rest shape (rest positions, then triangles).
    fn prepare_self_collision(&mut self) -> Result<(), Error> {
        let n = self.model.particle_count();
        let table_bytes = hash_table_bytes(n);
        if self.buffers.hash_table.size() >= table_bytes {
            return Ok(());
        }
        check_buffer_size(&self.device, "self-collision hash table", table_bytes)?;
        let particle_bytes = 16 * n as u64;
        check_buffer_size(&self.device, "self-collision hashed particles", 2 * particle_bytes)?;
        let shape = rest_shape(self.model.mesh());
        let shape_bytes: &[u8] = bytemuck::cast_slice(&shape);
        check_buffer_size(&self.device, "self-collision rest shape", shape_bytes.len() as u64)?;
        let (device, buffers, bytes) = (&self.device, &mut self.buffers, &mut self.allocated_bytes);
        grow(device, &mut buffers.hash_table, "drape hash table", table_bytes, STORAGE, bytes);
        grow(device, &mut buffers.hashed, "drape hashed particles", 2 * particle_bytes, STORAGE, bytes);
        grow(device, &mut buffers.self_corrections, "drape self-contact corrections", particle_bytes, STORAGE, bytes);
        grow(device, &mut buffers.rest_shape, "drape rest shape", shape_bytes.len() as u64, STORAGE, bytes);
        self.zero(&self.buffers.hash_table);
        self.queue.write_buffer(&self.buffers.rest_shape, 0, shape_bytes);
        self.bind_groups.self_collision = self_collision_bind_group(&self.device, &self.layouts, &self.buffers);
        Ok(())
    }

    /// The area limits' coloured triangles on the GPU, the first time they are used.
    fn upload_areas(&mut self) -> Result<(), Error> {
        let areas = TriangleAreas::new(&self.model);
        let words = areas.words();
        let bytes: &[u8] = bytemuck::cast_slice(&words);
        check_buffer_size(&self.device, "area limits", bytes.len() as u64)?;
        let (device, buffers, allocated) = (&self.device, &mut self.buffers, &mut self.allocated_bytes);
        grow(device, &mut buffers.area_triangles, "drape area limits", bytes.len() as u64, STORAGE, allocated);
        self.queue.write_buffer(&self.buffers.area_triangles, 0, bytes);
        self.bind_groups.areas = areas_bind_group(&self.device, &self.layouts, &self.buffers);
        self.areas = Some(areas);
        Ok(())
    }

    /// The springs' words and accelerations on the GPU, the first time mass-spring mode is used
    /// (after that the buffers are big enough and already hold the words).
    fn upload_springs(&mut self) -> Result<(), Error> {
        let network = self.springs.as_ref().expect("built before its upload");
        if self.buffers.springs.size() >= network.word_count() as u64 * 4 {
            return Ok(());
        }
        let words = network.words();
        let bytes: &[u8] = bytemuck::cast_slice(&words);
        let accelerations = 16 * self.model.particle_count() as u64;
        check_buffer_size(&self.device, "springs", bytes.len() as u64)?;
        let (device, buffers, allocated) = (&self.device, &mut self.buffers, &mut self.allocated_bytes);
        grow(device, &mut buffers.springs, "drape springs", bytes.len() as u64, STORAGE, allocated);
        grow(
            device,
            &mut buffers.spring_accelerations,
            "drape spring accelerations",
            accelerations,
            STORAGE,
            allocated,
        );
        self.queue.write_buffer(&self.buffers.springs, 0, bytes);
        self.bind_groups.integrate = integrate_bind_group(&self.device, &self.layouts, &self.buffers);
        self.bind_groups.springs = springs_bind_group(&self.device, &self.layouts, &self.buffers);
        Ok(())
    }

    /// Writes zeros over all of `buffer`.
    fn zero(&self, buffer: &wgpu::Buffer) {
        self.queue.write_buffer(buffer, 0, &vec![0; buffer.size() as usize]);
    }

    /// Makes `tethers` current: uploads their words, growing the buffer (and rebinding) when it
    /// must — only when the pins or the tether switch change, never per frame.
    fn upload_tethers(&mut self, tethers: PinnedTethers) {
        let words = tethers.tethers().words();
        let bytes: &[u8] = bytemuck::cast_slice(&words);
        let size = bytes.len() as u64;
        if grow(&self.device, &mut self.buffers.tethers, "drape tethers", size, STORAGE, &mut self.allocated_bytes) {
            self.bind_groups.tethers = tethers_bind_group(&self.device, &self.layouts, &self.buffers);
        }
        if !bytes.is_empty() {
            self.queue.write_buffer(&self.buffers.tethers, 0, bytes);
        }
        self.tethers = tethers;
    }

    /// Builds Jacobi's plan, its buffers and bind group.
    fn create_jacobi_buffers(&mut self) -> Result<(), Error> {
        let plan = self.model.jacobi_plan();
        let words = JacobiLayout::words(&self.model, &plan);
        let slots = 16 * u64::from(plan.slot_count.max(1));
        check_buffer_size(&self.device, "Jacobi correction slots", slots)?;
        check_buffer_size(&self.device, "Jacobi gather lists", 4 * words.len() as u64)?;
        let mut allocator = Allocator { device: &self.device, allocated_bytes: 0 };
        let corrections = allocator.empty("drape jacobi corrections", slots, wgpu::BufferUsages::STORAGE);
        let lists = allocator.init("drape jacobi plan", bytemuck::cast_slice(&words), 4, STORAGE);
        self.allocated_bytes += allocator.allocated_bytes;
        self.buffers.jacobi = Some([corrections, lists]);
        self.jacobi = Some(plan);
        self.bind_groups.jacobi = Some(jacobi_bind_group(&self.device, &self.layouts, &self.buffers));
        Ok(())
    }

    /// Resolves `Auto` and plans the frame.
    fn plan_frame(
        &self,
        params: &SolverParams,
        layout: DispatchStrategy,
        tether_particles: u32,
    ) -> Result<(DispatchStrategy, FramePlan), Error> {
        let cpu = is_cpu_adapter(&self.device);
        let jacobi = matches!(params.mode, SolverMode::Jacobi { .. });
        let context = PlanContext {
            sizes: self.workgroup_sizes,
            loop_budget: cpu.then_some(CPU_LOOP_BUDGET),
            stripe_entries: self.stripe_entries,
            stripes_in_workgroup: self.blocks.stripe.is_some(),
            cloth_in_workgroup: self.blocks.cloth.is_some(),
            jacobi: self.jacobi.as_ref(),
            tether_particles,
            area_colours: match (params.active_area_limits(), &self.areas) {
                (Some(_), Some(areas)) => areas.colours(),
                _ => &[],
            },
            hash_buckets: params.self_collision.map(|_| hash_table_size(self.model.particle_count())),
        };
        let plan = |layout| {
            // Jacobi has no stripes: its striped layout is the per-colour one.
            let layout =
                if jacobi && layout == DispatchStrategy::Striped { DispatchStrategy::PerColour } else { layout };
            frame_plan(params, layout, &self.model, &context).map(|plan| (layout, plan))
        };
        let per_colour = || plan(DispatchStrategy::PerColour).expect("the per-colour layout has no loop budget");
        match layout {
            DispatchStrategy::Auto => {
                let preferred = auto_layout(cpu, params, &self.model);
                Ok(plan(preferred).or_else(|| plan(DispatchStrategy::Striped)).unwrap_or_else(per_colour))
            }
            DispatchStrategy::PerColour => Ok(per_colour()),
            layout => plan(layout).ok_or_else(|| {
                Error::Param(ParamError {
                    name: "dispatch",
                    value: format!("{layout:?}"),
                    expected: "Auto or PerColour for a cloth this large on a CPU adapter (llvmpipe's loop limit)",
                })
            }),
        }
    }

    /// Writes the dispatch table, growing its buffer (and rebinding) when the plan needs more
    /// entries than it holds — only when parameters change, never per frame.
    fn upload_dispatch_table(&mut self, table: &[DispatchInfo]) {
        let bytes = strided(table, DISPATCH_ENTRY_STRIDE);
        let usage = wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST;
        let (table, size) = (&mut self.buffers.dispatch_table, bytes.len() as u64);
        if grow(&self.device, table, "drape dispatch table", size, usage, &mut self.allocated_bytes) {
            self.bind_groups.frame = frame_bind_group(&self.device, &self.layouts, &self.buffers);
        }
        self.queue.write_buffer(&self.buffers.dispatch_table, 0, &bytes);
    }
}

/// `vec4` per particle: the vector in xyz, `w(i)` in w.
fn vectors(values: &[Vec3], w: impl Fn(usize) -> f32) -> Vec<[f32; 4]> {
    values.iter().enumerate().map(|(i, v)| v.extend(w(i)).to_array()).collect()
}

/// What each workgroup-memory kernel keeps, where it fits the device.
fn block_sizes(device: &wgpu::Device, model: &ClothModel) -> BlockSizes {
    let bytes = device.limits().max_compute_workgroup_storage_size;
    BlockSizes {
        stripe: Block::fitting(model.schedule().widest_stripe(), bytes),
        cloth: Block::fitting(model.particle_count(), bytes),
    }
}

/// Creates every buffer of the cloth (Jacobi's come later), after checking their sizes.
fn create_buffers(
    allocator: &mut Allocator,
    model: &ClothModel,
    pins: &Pins,
    schedule: &[u32],
    fields: FieldAtlas,
) -> Result<Buffers, Error> {
    let device = allocator.device;
    let n = model.particle_count();
    let records = constraint_records(model.constraints());
    let triangles: Vec<u32> = model.mesh().triangles.iter().flatten().copied().collect();
    let vertex_triangles = model.vertex_triangles().words();
    for (what, bytes) in [
        ("particles", 16 * n as u64),
        ("constraint records", 4 * records.len() as u64),
        ("schedule", 4 * schedule.len() as u64),
        ("triangles", 4 * triangles.len() as u64),
        ("vertex triangle lists", 4 * vertex_triangles.len() as u64),
        ("tethers", tether_capacity(n)),
    ] {
        check_buffer_size(device, what, bytes)?;
    }
    let uniform = wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST;
    let vertex = STORAGE | wgpu::BufferUsages::VERTEX;
    let rest = &model.mesh().positions;
    let pin_records = pins.records();
    Ok(Buffers {
        params: allocator.init("drape params", &[0; size_of::<GpuParams>()], 0, uniform),
        dispatch_table: allocator.init("drape dispatch table", &[0; DISPATCH_ENTRY_STRIDE as usize], 0, uniform),
        positions: allocator.init("drape positions", bytemuck::cast_slice(&vectors(rest, |_| 1.0)), 16, vertex),
        velocities: allocator.init(
            "drape velocities",
            bytemuck::cast_slice(&vectors(&vec![Vec3::ZERO; n], |i| pins.inverse_masses()[i])),
            16,
            STORAGE,
        ),
        pins: allocator.init("drape pins", bytemuck::cast_slice(&pin_records), size_of::<PinRecord>(), STORAGE),
        colliders: allocator.init("drape colliders", &[], collider_list_bytes(0) as usize, STORAGE),
        fields,
        normals: allocator.init(
            "drape normals",
            bytemuck::cast_slice(&vectors(&model.vertex_normals(rest), |_| 0.0)),
            16,
            vertex,
        ),
        triangles: allocator.init(
            "drape triangles",
            bytemuck::cast_slice(&triangles),
            4,
            STORAGE | wgpu::BufferUsages::INDEX,
        ),
        vertex_triangles: allocator.init("drape vertex triangles", bytemuck::cast_slice(&vertex_triangles), 4, STORAGE),
        constraint_records: allocator.init("drape constraint records", bytemuck::cast_slice(&records), 4, STORAGE),
        schedule: allocator.init("drape schedule", bytemuck::cast_slice(schedule), 4, STORAGE),
        tethers: allocator.empty("drape tethers", 4, STORAGE),
        area_triangles: allocator.empty("drape area limits", 16, STORAGE),
        // One placeholder entry each until the air or rigid damping is used
        // (`GpuSolver::prepare_optional_buffers`).
        air_accelerations: allocator.empty("drape air accelerations", 16, STORAGE),
        clock: allocator.empty("drape clock", 16, STORAGE),
        partial_moments: allocator.empty("drape partial moments", 64, STORAGE),
        springs: allocator.empty("drape springs", 4, STORAGE),
        spring_accelerations: allocator.empty("drape spring accelerations", 16, STORAGE),
        rigid_motion: allocator.empty("drape rigid motion", 48, STORAGE),
        jacobi: None,
        hash_table: allocator.init("drape hash table", &[], size_of::<GpuSpatialHashHead>() + 4, STORAGE),
        hashed: allocator.empty("drape hashed particles", 16, STORAGE),
        self_corrections: allocator.empty("drape self-contact corrections", 16, STORAGE),
        rest_shape: allocator.empty("drape rest shape", 16, STORAGE),
    })
}

/// The most bytes the tethers of `particles` particles take (every particle tethered to
/// [`MAX_ANCHORS`] anchors): checked against the device when the solver is created, so that
/// rebuilding them later cannot fail.
fn tether_capacity(particles: usize) -> u64 {
    4 * (2 * particles as u64 + 1 + 2 * MAX_ANCHORS as u64 * particles as u64)
}

/// Entries laid out `stride` bytes apart (dynamic uniform offsets need aligned entries).
fn strided<T: Pod>(entries: &[T], stride: u64) -> Vec<u8> {
    let mut bytes = vec![0u8; entries.len().max(1) * stride as usize];
    for (i, entry) in entries.iter().enumerate() {
        let start = i * stride as usize;
        bytes[start..start + size_of::<T>()].copy_from_slice(bytemuck::bytes_of(entry));
    }
    bytes
}

/// A readback buffer of `size` bytes ([`readback_buffer`]), counted in `allocated_bytes`.
fn counted_readback_buffer(device: &wgpu::Device, size: u64, allocated_bytes: &mut u64) -> wgpu::Buffer {
    let buffer = readback_buffer(device, size);
    *allocated_bytes += buffer.size();
    buffer
}

/// Binds whole buffers at the given bindings.
fn bind_group(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    entries: &[(u32, &wgpu::Buffer)],
) -> wgpu::BindGroup {
    let entries: Vec<wgpu::BindGroupEntry> = entries
        .iter()
        .map(|&(binding, buffer)| wgpu::BindGroupEntry { binding, resource: buffer.as_entire_binding() })
        .collect();
    device.create_bind_group(&wgpu::BindGroupDescriptor { label: Some(label), layout, entries: &entries })
}

fn frame_bind_group(device: &wgpu::Device, layouts: &Layouts, b: &Buffers) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("drape frame"),
        layout: &layouts.frame,
        entries: &[
            wgpu::BindGroupEntry { binding: 0, resource: b.params.as_entire_binding() },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: &b.dispatch_table,
                    offset: 0,
                    size: wgpu::BufferSize::new(size_of::<DispatchInfo>() as u64),
                }),
            },
        ],
    })
}

fn integrate_bind_group(device: &wgpu::Device, layouts: &Layouts, b: &Buffers) -> wgpu::BindGroup {
    let buffers =
        [&b.positions, &b.velocities, &b.pins, &b.air_accelerations, &b.clock, &b.spring_accelerations, &b.colliders];
    let mut entries: Vec<wgpu::BindGroupEntry> = (0..)
        .zip(buffers)
        .map(|(binding, buffer)| wgpu::BindGroupEntry { binding, resource: buffer.as_entire_binding() })
        .collect();
    entries.push(wgpu::BindGroupEntry { binding: 7, resource: wgpu::BindingResource::TextureView(&b.fields.view) });
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("drape particles (integrate)"),
        layout: &layouts.integrate,
        entries: &entries,
    })
}

fn springs_bind_group(device: &wgpu::Device, layouts: &Layouts, b: &Buffers) -> wgpu::BindGroup {
    bind_group(device, "drape springs data", &layouts.springs, &[(0, &b.springs), (1, &b.spring_accelerations)])
}

fn jacobi_bind_group(device: &wgpu::Device, layouts: &Layouts, b: &Buffers) -> wgpu::BindGroup {
    let [corrections, plan] = b.jacobi.as_ref().expect("Jacobi's buffers exist");
    bind_group(device, "drape jacobi data", &layouts.jacobi, &[(0, &b.constraint_records), (2, corrections), (3, plan)])
}

fn tethers_bind_group(device: &wgpu::Device, layouts: &Layouts, b: &Buffers) -> wgpu::BindGroup {
    bind_group(device, "drape tethers", &layouts.tethers, &[(0, &b.tethers)])
}

fn areas_bind_group(device: &wgpu::Device, layouts: &Layouts, b: &Buffers) -> wgpu::BindGroup {
    bind_group(device, "drape area limits", &layouts.areas, &[(0, &b.area_triangles)])
}

fn bind_groups(device: &wgpu::Device, layouts: &Layouts, b: &Buffers) -> BindGroups {
    BindGroups {
        frame: frame_bind_group(device, layouts, b),
        integrate: integrate_bind_group(device, layouts, b),
        solve: bind_group(device, "drape particles (solve)", &layouts.solve, &[(0, &b.positions), (1, &b.velocities)]),
        positions: bind_group(device, "drape positions", &layouts.positions, &[(0, &b.positions)]),
        gauss_seidel: bind_group(
            device,
            "drape gauss-seidel data",
            &layouts.gauss_seidel,
            &[(0, &b.constraint_records), (1, &b.schedule)],
        ),
        jacobi: None,
        normals: bind_group(
            device,
            "drape normals data",
            &layouts.normals,
            &[(0, &b.normals), (1, &b.triangles), (2, &b.vertex_triangles)],
        ),
        tethers: tethers_bind_group(device, layouts, b),
        areas: areas_bind_group(device, layouts, b),
        aerodynamics: aerodynamics_bind_group(device, layouts, b),
        rigid_damping: rigid_damping_bind_group(device, layouts, b),
        springs: springs_bind_group(device, layouts, b),
        self_collision: self_collision_bind_group(device, layouts, b),
    }
}

/// Self-collision's rest shape (`rest_shape` in `shaders/passes/self_collision.wgsl`): each rest
/// position's bits, then each triangle's corners.
fn rest_shape(mesh: &ClothMesh) -> Vec<[u32; 4]> {
    let positions = vectors(&mesh.positions, |_| 0.0).into_iter().map(bytemuck::cast::<[f32; 4], [u32; 4]>);
    let triangles = mesh.triangles.iter().map(|&[a, b, c]| [a, b, c, 0]);
    positions.chain(triangles).collect()
}

fn self_collision_bind_group(device: &wgpu::Device, layouts: &Layouts, b: &Buffers) -> wgpu::BindGroup {
    bind_group(
        device,
        "drape self-collision data",
        &layouts.self_collision,
        &[(0, &b.hash_table), (1, &b.hashed), (2, &b.self_corrections), (3, &b.rest_shape)],
    )
}

fn aerodynamics_bind_group(device: &wgpu::Device, layouts: &Layouts, b: &Buffers) -> wgpu::BindGroup {
    bind_group(
        device,
        "drape aerodynamics data",
        &layouts.aerodynamics,
        &[(0, &b.air_accelerations), (1, &b.triangles), (2, &b.vertex_triangles), (3, &b.clock)],
    )
}

fn rigid_damping_bind_group(device: &wgpu::Device, layouts: &Layouts, b: &Buffers) -> wgpu::BindGroup {
    bind_group(
        device,
        "drape rigid damping data",
        &layouts.rigid_damping,
        &[(0, &b.partial_moments), (1, &b.rigid_motion)],
    )
}
