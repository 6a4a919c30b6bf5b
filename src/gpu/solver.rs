//! The GPU solver: owns the cloth's buffers and pipelines on a caller's device and records
//! frames into the caller's encoder. Nothing is created, read back or waited on per frame.
//!
//! What runs is the passes' ([`crate::passes`]): their modules become the pipelines
//! ([`Kernels`]), their binding tables the bind groups ([`BindGroups`]), their uploads the
//! buffers ([`Resources`]), and walking them in frame order gives the frame plan, which every
//! frame replays. This module keeps the cloth's own state: particles, pins, colliders.
//!
//! Particle state: `positions` holds x and is the vertex buffer; `velocities` holds v between
//! substeps and, from predict to finalize, the substep's displacement q = p − x, with the inverse
//! mass in w. The projections accumulate their corrections in q, so the velocity v = q/h that
//! finalize derives never goes through a difference of metre-scale coordinates, whose rounding
//! would otherwise reach the velocity divided by h every substep.

#[cfg(not(target_arch = "wasm32"))]
mod blocking_reads;
mod body_reads;

use super::device::{check_buffer_size, check_device_limits, is_cpu_adapter, kernel_layouts};
use super::fields::FieldAtlas;
use super::pipelines::Kernels;
use super::profile::{segments, DispatchName, FrameProfile, ProfileBy, Profiler};
use super::readback::{
    decode_overflows, decode_particles, encode_overflow_copy, encode_particle_copies, particle_bytes, readback_buffer,
    readback_bytes, BackgroundMap,
};
use super::resources::{BindGroups, Resources, STORAGE, UNIFORM};
use crate::bodies::{body_states, body_states_fit, BodyState, GpuBody, RigidBody};
use crate::collision::{
    Collider, ColliderSet, ContactMaterial, GpuCollider, GpuColliderListHead, MovingCollider, Pose,
};
use crate::constraints::UnitType;
use crate::error::{Error, ParamError};
use crate::metrics::ClothMetrics;
use crate::model::ClothModel;
use crate::params::SolverParams;
use crate::passes::attachments::{self, Attachment};
use crate::passes::bodies::attachments::{BodyAttachment, BodyAttachments};
use crate::passes::bodies::ropes::{validate_ropes, BodyRope, GpuBodyRope};
use crate::passes::plan::{
    auto_layout, BlockSizes, DispatchStrategy, FramePlan, GpuFacts, WorkgroupSizes, DISPATCH_ENTRY_STRIDE,
};
use crate::passes::self_collision::GpuSpatialHashHead;
use crate::passes::springs::{SpringNetwork, SpringsPass};
use crate::passes::{
    frame_order, passes, shaders, BodyCount, Build, GpuParams, ParamsLayout, Pass, Setup, Uploads, FRAME,
};
use crate::pins::{PinRecord, Pins};
use bytemuck::{Pod, Zeroable};
use glam::Vec3;
use std::mem::{offset_of, size_of};

/// One dispatch of the frame as recorded: its kernel, its dispatch table entry, its workgroups.
#[derive(Debug, Clone, Copy)]
struct Recorded {
    kernel: usize,
    table_entry: u32,
    workgroups: [u32; 2],
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
    /// The rigid bodies as [`GpuSolver::set_bodies`] made them, what [`GpuSolver::reset`] puts
    /// back; the GPU's `bodies` buffer holds them as they move.
    bodies: Vec<BodyState>,
    /// The particles attached to bodies.
    body_attachments: BodyAttachments,
    /// The ropes holding bodies.
    body_ropes: Vec<BodyRope>,
    /// The layout asked for, and the one in use (`Auto` resolved).
    requested_layout: DispatchStrategy,
    layout: DispatchStrategy,
    facts: GpuFacts,
    /// The passes, prepared for the parameters and pins in use.
    passes: Vec<Box<dyn Pass>>,
    /// Where the passes' blocks lie in the frame's parameters.
    params_layout: ParamsLayout,
    plan: Vec<Recorded>,
    /// The pass and the kernel of each dispatch of the plan, what a profile times it as.
    plan_names: Vec<DispatchName>,
    /// What a profiled frame times as one.
    profile_by: ProfileBy,
    resources: Resources,
    bind_groups: BindGroups,
    kernels: Kernels,
    /// The blocking reads' buffer ([`blocking_reads`]).
    #[cfg(not(target_arch = "wasm32"))]
    readback: Option<wgpu::Buffer>,
    /// Positions and velocities of [`GpuSolver::request_metrics`], with the colliders of the
    /// moment they were requested.
    metrics_read: Option<(BackgroundMap, Vec<Collider>)>,
    /// Positions of [`GpuSolver::request_positions`].
    positions_read: Option<BackgroundMap>,
    /// The bodies of [`GpuSolver::request_bodies`], with how many there were.
    bodies_read: Option<(BackgroundMap, usize)>,
    /// The pass timestamps, while profiling ([`GpuSolver::set_profiling`]).
    profiler: Option<Profiler>,
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
        let cpu = is_cpu_adapter(device);
        let workgroup_memory = device.limits().max_compute_workgroup_storage_size;
        let facts =
            GpuFacts { cpu, sizes: WorkgroupSizes::for_adapter(cpu), blocks: BlockSizes::of(model, workgroup_memory) };
        let passes = passes();
        let unit_types: Vec<UnitType> = UnitType::ALL.into_iter().filter(|&t| !model.units(t).is_empty()).collect();
        let build = Build { facts: &facts, unit_types: &unit_types, uniform_contacts: !model.has_own_contacts() };
        let shaders = shaders(&passes, &build);
        let layouts = kernel_layouts(&FRAME, &shaders);
        let params_layout = ParamsLayout::new(&shaders);
        check_device_limits(device, facts.sizes, &layouts, params_layout.size())?;
        check_buffer_size(device, "colliders", collider_list_bytes(colliders.shapes().len()))?;
        for (buffer, bytes) in passes.iter().flat_map(|p| p.capacity(model)) {
            check_buffer_size(device, buffer, bytes)?;
        }
        let pins = Pins::new(model);
        let mut resources = Resources::new(device, queue, FieldAtlas::new(device, queue, colliders.shapes())?);
        create_cloth_buffers(device, &mut resources, model, &pins, params_layout.size())?;
        let mut bind_groups = BindGroups::new();
        let kernels = Kernels::new(device, &shaders, &params_layout, &mut bind_groups);
        bind_groups.refresh(device, &mut resources);
        let mut solver = Self {
            device: device.clone(),
            queue: queue.clone(),
            model: model.clone(),
            params,
            colliders,
            colliders_moved: false,
            pins,
            bodies: Vec::new(),
            body_attachments: BodyAttachments::default(),
            body_ropes: Vec::new(),
            requested_layout: DispatchStrategy::Auto,
            layout: DispatchStrategy::Auto,
            facts,
            passes,
            params_layout,
            plan: Vec::new(),
            plan_names: Vec::new(),
            profile_by: ProfileBy::Pass,
            resources,
            bind_groups,
            kernels,
            #[cfg(not(target_arch = "wasm32"))]
            readback: None,
            metrics_read: None,
            positions_read: None,
            bodies_read: None,
            profiler: None,
        };
        solver.fit_colliders();
        solver.zero_overflows();
        solver.apply(params, DispatchStrategy::Auto)?;
        Ok(solver)
    }

    /// Adds `cloth` as a cloth of its own after the model's ([`ClothModel::joined`]), at rest in
    /// its rest state with its own pins, without touching what is there: the cloths' positions,
    /// velocities, normals, pins and targets, the colliders (poses, motions and materials), the
    /// simulated time, the parameters, the layout asked for and profiling carry over, copied on
    /// the GPU (no readback, no wait). The model, its buffers and pipelines are built anew, so
    /// it costs what making a solver costs; overflow counts start from zero, and an uncollected
    /// [`GpuSolver::request_metrics`], [`GpuSolver::request_positions`] or
    /// [`GpuSolver::request_bodies`] is dropped. On error (a cloth the model cannot join, the
    /// device's limits) the solver is left as it was.
    pub fn add_cloth(&mut self, cloth: &ClothModel) -> Result<(), Error> {
        let model = ClothModel::joined(&[self.model.clone(), cloth.clone()])?;
        let mut next = Self::new(&self.device, &self.queue, &model, self.params, &self.colliders())?;
        next.colliders = self.colliders.clone();
        next.write_colliders();
        next.pins = self.pins.appended(cloth);
        next.write_pins();
        next.bodies = self.bodies.clone();
        next.fit_bodies();
        next.body_attachments = self.body_attachments.appended(cloth.particle_count());
        next.write_body_attachments();
        next.body_ropes = self.body_ropes.clone();
        next.write_body_ropes();
        next.requested_layout = self.requested_layout;
        next.apply(self.params, self.requested_layout)?;
        next.profile_by = self.profile_by;
        next.set_profiling(self.profiling())?;
        let mut encoder =
            self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("add cloth") });
        let particle_bytes = 16 * self.model.particle_count() as u64;
        // velocities' w: the inverse masses, of the pins carried over.
        for (buffer, bytes) in [
            ("positions", particle_bytes),
            ("velocities", particle_bytes),
            ("normals", particle_bytes),
            ("frame_start", 4),
            ("bodies", (size_of::<GpuBody>() * self.bodies.len()) as u64),
        ] {
            encoder.copy_buffer_to_buffer(self.resources.buffer(buffer), 0, next.resources.buffer(buffer), 0, bytes);
        }
        self.queue.submit([encoder.finish()]);
        *self = next;
        Ok(())
    }

    /// Changes the parameters for the next frames. Validated (mass-spring's springs also for
    /// stability at the substep) and planned first: on error the solver keeps its previous
    /// parameters. Nothing is rebuilt except the buffers a pass makes the first time its
    /// parameters use it (Jacobi's, the springs', the area limits'…) and the dispatch table when
    /// it must grow.
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
    /// overflow counts. Refused while a particle is attached to a collider
    /// ([`GpuSolver::attach`]; release it first).
    pub fn set_colliders(&mut self, colliders: &[Collider]) -> Result<(), Error> {
        self.pins.check_no_attachments()?;
        let set = ColliderSet::new(colliders)?;
        check_buffer_size(&self.device, "colliders", collider_list_bytes(colliders.len()))?;
        if !self.resources.fields.holds(set.shapes()) {
            self.resources.set_fields(FieldAtlas::new(&self.device, &self.queue, set.shapes())?);
        }
        let planned_for = self.collider_facts();
        let previous = std::mem::replace(&mut self.colliders, set);
        self.fit_colliders();
        if self.collider_facts() != planned_for {
            if let Err(error) = self.apply(self.params, self.requested_layout) {
                self.colliders = previous;
                return Err(error);
            }
        }
        self.colliders_moved = false;
        self.zero_overflows();
        self.write_colliders();
        self.bind_groups.refresh(&self.device, &mut self.resources);
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

    /// Attaches particle `index` to collider `collider` at the collider's point that is at `at`
    /// where the collider is now (usually the particle's position, for no jump): from the next
    /// frame the particle follows that point substep by substep, as the collider moves and
    /// turns ([`crate::passes::attachments`]), until [`GpuSolver::unpin`] releases it with the
    /// point's velocity. [`GpuSolver::place_colliders`] takes it along at once (its velocity
    /// then the jump over a substep). Like a pin it has no mass and rebuilds the tethers before the next
    /// frame. Errors: a particle or collider that is not the solver's, a non-finite point.
    pub fn attach(&mut self, index: u32, collider: u32, at: Vec3) -> Result<(), Error> {
        self.attach_many(&[Attachment { particle: index, collider, at }])
    }

    /// Makes every attachment of `attachments` ([`GpuSolver::attach`]) at once, the pins
    /// uploaded and the frame planned once; on error none.
    pub fn attach_many(&mut self, attachments: &[Attachment]) -> Result<(), Error> {
        attachments::attach_all(&mut self.pins, &self.colliders, attachments)?;
        for attachment in attachments {
            self.write_inverse_mass(attachment.particle);
        }
        self.write_pins();
        self.apply(self.params, self.requested_layout)
    }

    /// Puts the cloth back where it started: rest positions, zero velocities, the model's pins
    /// (targets at rest), rest normals, time zero (for gusts) and no overflows; the bodies
    /// where [`GpuSolver::set_bodies`] started them (their ropes kept), none of the particles
    /// attached to them. Parameters and colliders stay; no pipeline or cloth buffer is rebuilt.
    /// An uncollected [`GpuSolver::request_metrics`], [`GpuSolver::request_positions`] or
    /// [`GpuSolver::request_bodies`] is dropped (it read the cloth before), with its readback
    /// buffer if the map was still pending.
    pub fn reset(&mut self) {
        if self.metrics_read.as_ref().is_some_and(|(map, _)| !map.is_idle()) {
            self.drop_metrics_read();
        }
        if self.positions_read.as_ref().is_some_and(|map| !map.is_idle()) {
            self.drop_positions_read();
        }
        if self.bodies_read.as_ref().is_some_and(|(map, _)| !map.is_idle()) {
            self.drop_bodies_read();
        }
        self.pins = Pins::new(&self.model);
        let rest = &self.model.mesh().positions;
        let inverse_masses = self.pins.inverse_masses();
        let write = |name, data: &[[f32; 4]]| self.resources.write(name, 0, bytemuck::cast_slice(data));
        write("positions", &vectors(rest, |_| 1.0));
        write("velocities", &vectors(&vec![Vec3::ZERO; rest.len()], |i| inverse_masses[i]));
        write("normals", &vectors(&self.model.vertex_normals(rest), |_| 0.0));
        self.resources.zero("frame_start");
        let mut uploads = Uploads::gpu();
        self.passes.iter().for_each(|pass| pass.reset(&mut uploads));
        self.resources.apply(&uploads.into_list(), &self.bind_groups, &self.params_layout);
        self.fit_colliders();
        self.zero_overflows();
        self.write_pins();
        self.write_bodies();
        self.body_attachments = BodyAttachments::default();
        self.apply(self.params, self.requested_layout).expect(
            "the parameters and the layout in use were accepted, and no buffer that the pins change can outgrow the \
             device (Pass::capacity)",
        );
    }

    /// Overwrites every particle's position, keeping pins as they are.
    pub fn set_positions(&mut self, positions: &[Vec3]) -> Result<(), Error> {
        self.check_particle_values(positions)?;
        self.resources.write("positions", 0, bytemuck::cast_slice(&vectors(positions, |_| 1.0)));
        Ok(())
    }

    /// Overwrites every particle's velocity (m/s).
    pub fn set_velocities(&mut self, velocities: &[Vec3]) -> Result<(), Error> {
        self.check_particle_values(velocities)?;
        let data = vectors(velocities, |i| self.pins.inverse_masses()[i]);
        self.resources.write("velocities", 0, bytemuck::cast_slice(&data));
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

    /// Records one frame (all substeps, then normals) into `encoder`, in one compute pass (one
    /// per run of a pass's dispatches while profiling). Submitting it is the caller's business;
    /// nothing is read back or waited on. Colliders that moved in the last frame have their
    /// records uploaded first (they rest from now on, or take their new poses).
    pub fn encode_step(&mut self, encoder: &mut wgpu::CommandEncoder) {
        if self.colliders_moved {
            self.write_colliders();
        }
        self.colliders_moved = self.colliders.end_frame();
        match self.profiler.take() {
            None => {
                let pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("drape frame"),
                    timestamp_writes: None,
                });
                self.record(pass, 0..self.plan.len());
            }
            Some(mut profiler) => {
                for (index, segment) in profiler.segments().iter().enumerate() {
                    let pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                        label: Some(segment.pass),
                        timestamp_writes: Some(profiler.writes(index)),
                    });
                    self.record(pass, segment.dispatches.clone());
                }
                profiler.finish_frame(encoder);
                self.profiler = Some(profiler);
            }
        }
    }

    /// Records the plan's `dispatches` into `pass`.
    fn record(&self, mut pass: wgpu::ComputePass, dispatches: std::ops::Range<usize>) {
        let frame = self.bind_groups.group(self.kernels.frame);
        let mut current = None;
        for dispatch in &self.plan[dispatches] {
            if current != Some(dispatch.kernel) {
                let kernel = &self.kernels.pipelines[dispatch.kernel];
                pass.set_pipeline(&kernel.pipeline);
                for (group, &table) in (1..).zip(&kernel.groups) {
                    pass.set_bind_group(group, self.bind_groups.group(table), &[]);
                }
                current = Some(dispatch.kernel);
            }
            let offset = (u64::from(dispatch.table_entry) * DISPATCH_ENTRY_STRIDE) as u32;
            pass.set_bind_group(0, frame, &[offset]);
            pass.dispatch_workgroups(dispatch.workgroups[0], dispatch.workgroups[1], 1);
        }
    }

    /// Turns the per-pass GPU timing on or off ([`super::profile`]): while on, each frame
    /// records every run of a pass's dispatches as a compute pass of its own between two
    /// timestamps, and [`GpuSolver::poll_profile`] collects the times. The frames compute the
    /// same, bit for bit. Errors: a device without `TIMESTAMP_QUERY`, or a frame of more than
    /// 2048 runs of passes (a query set's 4096 timestamps); profiling stays off.
    pub fn set_profiling(&mut self, on: bool) -> Result<(), Error> {
        self.profiler = if on { Some(self.profiler_for(&self.plan_names)?) } else { None };
        Ok(())
    }

    /// Times each pass (the default) or each kernel in a profiled frame: the same dispatches,
    /// cut into compute passes where the kernel changes rather than the pass. Errors as
    /// [`GpuSolver::set_profiling`]'s, leaving the profiling as it was.
    pub fn set_profile_by(&mut self, by: ProfileBy) -> Result<(), Error> {
        let previous = std::mem::replace(&mut self.profile_by, by);
        if self.profiling() {
            match self.profiler_for(&self.plan_names) {
                Ok(profiler) => self.profiler = Some(profiler),
                Err(e) => {
                    self.profile_by = previous;
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    /// Whether the frames are profiled ([`GpuSolver::set_profiling`]).
    pub fn profiling(&self) -> bool {
        self.profiler.is_some()
    }

    /// The GPU time of each pass in a recent profiled frame, once the GPU has delivered it.
    /// Call after submitting a frame: it starts reading that frame's timestamps back when no
    /// earlier read is under way, and checks once without waiting for one started before:
    /// `Ok(None)` while it is on its way, and while not profiling. In a browser the read
    /// arrives only once control has gone back to it: poll on a later frame, not in a loop.
    pub fn poll_profile(&mut self) -> Result<Option<FrameProfile>, Error> {
        match &mut self.profiler {
            Some(profiler) => profiler.poll(&self.device),
            None => Ok(None),
        }
    }

    /// Timestamps for a frame of dispatches named `names`, in order, timed by pass or kernel.
    fn profiler_for(&self, names: &[DispatchName]) -> Result<Profiler, Error> {
        let by = self.profile_by;
        Profiler::new(&self.device, &self.queue, segments(names.iter().map(|name| name.timed_as(by))))
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
        self.plan.len()
    }

    /// The dispatch layout in use (`Auto` resolved).
    pub fn dispatch_strategy(&self) -> DispatchStrategy {
        self.layout
    }

    /// Whether the striped kernel works on a copy of each stripe in workgroup memory (the
    /// model's stripes fit the device's `max_compute_workgroup_storage_size`).
    pub fn stripes_in_workgroup(&self) -> bool {
        self.facts.blocks.stripe.is_some()
    }

    /// Bytes of GPU buffers and textures this solver has allocated (the profile's timestamps
    /// included while profiling).
    pub fn allocated_bytes(&self) -> u64 {
        self.resources.allocated_bytes() + self.profiler.as_ref().map_or(0, Profiler::bytes)
    }

    /// [`GpuSolver::allocated_bytes`] by buffer: each named buffer of the passes and the cloth,
    /// the distance fields, the readback buffers made so far and the profile's timestamps, the
    /// largest first.
    pub fn allocated_bytes_by_buffer(&self) -> Vec<(&'static str, u64)> {
        let mut sizes = self.resources.sizes();
        #[cfg(not(target_arch = "wasm32"))]
        sizes.extend(self.readback.as_ref().map(|b| ("readback", b.size())));
        sizes.extend(self.metrics_read.as_ref().map(|(map, _)| ("metrics_readback", map.buffer().size())));
        sizes.extend(self.positions_read.as_ref().map(|map| ("positions_readback", map.buffer().size())));
        sizes.extend(self.bodies_read.as_ref().map(|(map, _)| ("bodies_readback", map.buffer().size())));
        sizes.extend(self.profiler.as_ref().map(|p| ("profile_timestamps", p.bytes())));
        sizes.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        sizes
    }

    /// Current positions: `vec4<f32>` per particle (xyz in metres, w = 1), stride 16 bytes.
    /// Usable as a vertex buffer (`Float32x3` at offset 0, or `Float32x4`).
    pub fn positions_buffer(&self) -> &wgpu::Buffer {
        self.resources.buffer("positions")
    }

    /// Unit vertex normals: `vec4<f32>` per particle (xyz, w = 0), updated at the end of each
    /// frame. Usable as a vertex buffer.
    pub fn normals_buffer(&self) -> &wgpu::Buffer {
        self.resources.buffer("normals")
    }

    /// The cloth's triangles as a `u32` index buffer (`IndexFormat::Uint32`, three per
    /// triangle, counter-clockwise in the rest state); draw [`GpuSolver::index_count`] indices.
    pub fn index_buffer(&self) -> &wgpu::Buffer {
        self.resources.buffer("triangles")
    }

    /// Number of indices in [`GpuSolver::index_buffer`].
    pub fn index_count(&self) -> u32 {
        3 * self.model.mesh().triangles.len() as u32
    }

    /// The springs of mass-spring mode, once it has been used.
    pub fn spring_network(&self) -> Option<&SpringNetwork> {
        self.passes.iter().find_map(|p| p.as_any().downcast_ref::<SpringsPass>()).and_then(SpringsPass::network)
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
    /// change). Colliders start with `None`; [`GpuSolver::set_colliders`] resets them. The first
    /// material that bounces (restitution above zero) makes the solver keep each particle's
    /// predicted displacement (48 bytes per particle, kept until the solver is dropped), which
    /// fails like [`GpuSolver::set_params`] where the device cannot hold it.
    pub fn set_collider_materials(&mut self, materials: &[Option<ContactMaterial>]) -> Result<(), Error> {
        let planned_for = self.collider_facts();
        let previous = self.colliders.clone();
        self.colliders.set_materials(materials)?;
        if self.collider_facts() != planned_for {
            if let Err(error) = self.apply(self.params, self.requested_layout) {
                self.colliders = previous;
                return Err(error);
            }
        }
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
        let (device, resources) = (&self.device, &mut self.resources);
        let (map, colliders) = self.metrics_read.get_or_insert_with(|| {
            (BackgroundMap::new(counted_readback_buffer(device, readback_bytes(n), resources)), Vec::new())
        });
        if !map.is_idle() {
            return false;
        }
        let resources = &self.resources;
        map.copy_and_start(&self.device, &self.queue, "drape metrics", |encoder, readback| {
            let particles = [resources.buffer("positions"), resources.buffer("velocities")];
            encode_particle_copies(encoder, &particles, readback, 0..n);
            let heads = ["collider_list", "hash_table", "body_pairs"].map(|name| resources.buffer(name));
            encode_overflow_copy(encoder, heads, readback, n);
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
        let (device, resources) = (&self.device, &mut self.resources);
        let map = self
            .positions_read
            .get_or_insert_with(|| BackgroundMap::new(counted_readback_buffer(device, particle_bytes(n), resources)));
        if !map.is_idle() {
            return false;
        }
        let positions = self.resources.buffer("positions");
        map.copy_and_start(&self.device, &self.queue, "drape positions", |encoder, readback| {
            encode_particle_copies(encoder, &[positions], readback, 0..n);
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
            self.resources.count_dropped(map.buffer());
        }
    }

    fn drop_positions_read(&mut self) {
        if let Some(map) = self.positions_read.take() {
            self.resources.count_dropped(map.buffer());
        }
    }

    /// What the frame plan depends on of the colliders: whether there are any (the
    /// depenetration and the contacts in the iterations run only then), whether one bounces
    /// (restitution then reads the predicted displacements) and whether one is traced (the
    /// collision kernels are built with or without the trace).
    fn collider_facts(&self) -> (bool, bool, bool) {
        let setup = self.setup(&self.params);
        (setup.colliders, setup.bouncing, setup.traced_colliders)
    }

    /// The passes' setup for `params` and the solver's model, pins, colliders and bodies.
    fn setup<'a>(&'a self, params: &'a SolverParams) -> Setup<'a> {
        let bodies = BodyCount::of(&self.bodies, self.body_attachments.count(), self.body_ropes.len());
        Setup::new(&self.model, params, &self.pins, Some(&self.facts), &self.colliders, bodies)
    }

    /// Replaces the rigid bodies for the next frames ([`crate::bodies`]): each validated, at
    /// most [`crate::bodies::MAX_BODIES`], each starting as given. They fall under the
    /// parameters' gravity, push the cloth and are pushed back (keeping the collision margin
    /// off their surfaces), and meet the colliders (at the corners of their rounded boxes: see
    /// `crate::passes::bodies`). The frame plan is made again (six dispatches per substep
    /// with bodies, up to sixteen for a pile on a CPU adapter, none without). Every attachment to a body and every rope is released. On
    /// error (a bad body, a device too small for their sums) nothing changes.
    pub fn set_bodies(&mut self, bodies: &[RigidBody]) -> Result<(), Error> {
        let states = body_states(bodies)?;
        let previous = std::mem::replace(&mut self.bodies, states);
        let attached = std::mem::take(&mut self.body_attachments);
        let ropes = std::mem::take(&mut self.body_ropes);
        if let Err(error) = self.apply(self.params, self.requested_layout) {
            (self.bodies, self.body_attachments, self.body_ropes) = (previous, attached, ropes);
            return Err(error);
        }
        self.fit_bodies();
        self.drop_bodies_read();
        Ok(())
    }

    /// Replaces the ropes holding bodies from fixed points of the world
    /// (`crate::passes::bodies::ropes`): each a one-sided limit on the distance from the anchor
    /// to a point of its body, solved each substep; of length zero, a ball joint. Changing only
    /// their anchors or lengths (a body dragged by the mouse) writes them to the GPU and nothing
    /// else; a new count makes the frame plan again. All, or on error (a missing body, a point,
    /// an anchor or a length that is not finite, a negative length, more than
    /// [`crate::passes::bodies::ropes::MAX_ROPES`]) none. They stay through
    /// [`GpuSolver::reset`] and [`GpuSolver::add_cloth`]; [`GpuSolver::set_bodies`] releases
    /// them.
    pub fn set_body_ropes(&mut self, ropes: &[BodyRope]) -> Result<(), Error> {
        validate_ropes(ropes, self.bodies.len())?;
        let previous = std::mem::replace(&mut self.body_ropes, ropes.to_vec());
        if previous.len() != self.body_ropes.len() {
            if let Err(error) = self.apply(self.params, self.requested_layout) {
                self.body_ropes = previous;
                return Err(error);
            }
        }
        self.write_body_ropes();
        Ok(())
    }

    /// Uploads the ropes, growing their buffer (and rebinding) when it must.
    fn write_body_ropes(&mut self) {
        let records: Vec<GpuBodyRope> = self.body_ropes.iter().map(GpuBodyRope::new).collect();
        let bytes: &[u8] = bytemuck::cast_slice(&records);
        let size = (bytes.len() as u64).max(size_of::<GpuBodyRope>() as u64).next_power_of_two();
        if self.resources.grow("body_ropes", size, STORAGE) {
            self.bind_groups.refresh(&self.device, &mut self.resources);
        }
        self.resources.write("body_ropes", 0, bytes);
    }

    /// Adds `body` to the running bodies, as given, leaving the others as they move: their
    /// records stay on the GPU (copied there when their buffer must grow), and
    /// [`GpuSolver::reset`] puts it back where it was added. On error (a bad body, one past
    /// [`crate::bodies::MAX_BODIES`], a device too small for their sums) nothing changes.
    pub fn add_body(&mut self, body: &RigidBody) -> Result<(), Error> {
        let mut states = self.bodies.clone();
        states.extend(body_states(std::slice::from_ref(body))?);
        body_states_fit(states.len())?;
        let previous = std::mem::replace(&mut self.bodies, states);
        if let Err(error) = self.apply(self.params, self.requested_layout) {
            self.bodies = previous;
            return Err(error);
        }
        let kept = (size_of::<GpuBody>() * previous.len()) as u64;
        let old = self.resources.buffer("bodies").clone();
        let bytes = (size_of::<GpuBody>() * self.bodies.len()) as u64;
        if self.resources.grow("bodies", bytes.next_power_of_two(), STORAGE) {
            let mut encoder =
                self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("drape add body") });
            encoder.copy_buffer_to_buffer(&old, 0, self.resources.buffer("bodies"), 0, kept);
            self.queue.submit([encoder.finish()]);
            self.bind_groups.refresh(&self.device, &mut self.resources);
        }
        let record = GpuBody::new(self.bodies.last().expect("just added"));
        self.resources.write("bodies", kept, bytemuck::bytes_of(&record));
        self.drop_bodies_read();
        Ok(())
    }

    /// Attaches particles to points of bodies, each given in its body's own frame: a
    /// zero-length constraint solved each substep that moves both the particle and the body
    /// (`crate::passes::bodies::attachments`). A pinned particle holds its body where its
    /// target is. All, or on error (a particle or a body that does not exist, a point that is
    /// not finite) none. [`GpuSolver::set_bodies`] and [`GpuSolver::reset`] release them all.
    pub fn attach_to_bodies(&mut self, attachments: &[BodyAttachment]) -> Result<(), Error> {
        let mut next = self.body_attachments.clone();
        next.attach_all(&self.pins, self.bodies.len(), attachments)?;
        self.set_body_attachments(next)
    }

    /// Releases particle `particle` from its body, if attached to one; it keeps its velocity.
    pub fn detach_from_body(&mut self, particle: u32) -> Result<(), Error> {
        let mut next = self.body_attachments.clone();
        next.detach(particle, self.model.particle_count())?;
        self.set_body_attachments(next)
    }

    /// Makes `attachments` the solver's, planned first: on error nothing changes.
    fn set_body_attachments(&mut self, attachments: BodyAttachments) -> Result<(), Error> {
        if attachments == self.body_attachments {
            return Ok(());
        }
        let previous = std::mem::replace(&mut self.body_attachments, attachments);
        if let Err(error) = self.apply(self.params, self.requested_layout) {
            self.body_attachments = previous;
            return Err(error);
        }
        self.write_body_attachments();
        Ok(())
    }

    /// Uploads the attachments to bodies, growing their buffer (and rebinding) when it must.
    fn write_body_attachments(&mut self) {
        let records = self.body_attachments.records();
        let bytes: &[u8] = bytemuck::cast_slice(records);
        if self.resources.grow("body_attachments", (bytes.len() as u64).max(16), STORAGE) {
            self.bind_groups.refresh(&self.device, &mut self.resources);
        }
        self.resources.write("body_attachments", 0, bytes);
    }

    /// Grows the `bodies` buffer to hold the bodies (rebinding it when it grew).
    fn fit_bodies(&mut self) {
        let bytes = (size_of::<GpuBody>() * self.bodies.len().max(1)) as u64;
        if self.resources.grow("bodies", bytes.next_power_of_two(), STORAGE) {
            self.bind_groups.refresh(&self.device, &mut self.resources);
        }
        self.write_bodies();
    }

    /// The bodies' buffer: [`GpuBody`] records, [`GpuSolver::body_count`] of them, which a
    /// renderer may bind as instance data (between frames a body's pose is its `position` and
    /// `rotation`).
    pub fn bodies_buffer(&self) -> &wgpu::Buffer {
        self.resources.buffer("bodies")
    }

    /// The rigid bodies.
    pub fn body_count(&self) -> u32 {
        self.bodies.len() as u32
    }

    /// The particles attached to bodies.
    pub fn body_attachments(&self) -> &BodyAttachments {
        &self.body_attachments
    }

    /// The ropes holding bodies ([`GpuSolver::set_body_ropes`]).
    pub fn body_ropes(&self) -> &[BodyRope] {
        &self.body_ropes
    }

    /// Uploads the bodies as [`GpuSolver::set_bodies`] made them.
    fn write_bodies(&self) {
        let records: Vec<GpuBody> = self.bodies.iter().map(GpuBody::new).collect();
        self.resources.write("bodies", 0, bytemuck::cast_slice(&records));
    }

    /// Writes particle `index`'s inverse mass into the w lane of its velocity.
    fn write_inverse_mass(&self, index: u32) {
        let w = self.pins.inverse_masses()[index as usize];
        self.resources.write("velocities", 16 * u64::from(index) + 12, bytemuck::bytes_of(&w));
    }

    /// Uploads the pin list, growing its buffer (and rebinding) when it must — only when pins
    /// are added, never per frame.
    fn write_pins(&mut self) {
        let records = self.pins.records();
        let bytes: &[u8] = bytemuck::cast_slice(&records);
        let size = (bytes.len() as u64).next_power_of_two();
        if self.resources.grow("pins", size, STORAGE) {
            self.bind_groups.refresh(&self.device, &mut self.resources);
        }
        self.resources.write("pins", 0, bytes);
        self.write_params();
    }

    /// Uploads the frame's parameters.
    fn write_params(&self) {
        let params = GpuParams::new(&self.params, &self.model, self.pins.records().len());
        self.resources.write("params", 0, bytemuck::bytes_of(&params));
    }

    /// Uploads the colliders' count and records over the coming frame (not the overflow count).
    fn write_colliders(&self) {
        let fields = &self.resources.fields;
        let record = |c: &MovingCollider| GpuCollider::new(c, fields.first_layer(&c.shape));
        let records: Vec<GpuCollider> =
            self.colliders.this_frame(self.params.contact_material()).iter().map(record).collect();
        let count = records.len() as u32;
        let count_offset = offset_of!(GpuColliderListHead, count) as u64;
        self.resources.write("collider_list", count_offset, bytemuck::bytes_of(&count));
        self.resources.write("collider_list", COLLIDER_LIST_HEAD, bytemuck::cast_slice(&records));
    }

    /// Grows the collider list to hold the colliders (rebinding it when it grew). Their exact
    /// size was checked against the device's limits; the list takes room for the next power of
    /// two of colliders where the limits allow, so that adding colliders rarely grows it.
    fn fit_colliders(&mut self) {
        let count = self.colliders.shapes().len();
        let limits = self.device.limits();
        let limit = limits.max_buffer_size.min(limits.max_storage_buffer_binding_size);
        let size = collider_list_bytes(count.max(1).next_power_of_two()).min(limit).max(collider_list_bytes(count));
        self.resources.grow("collider_list", size, STORAGE);
    }

    /// Zeroes the overflow counts: the heads of the collider list (its count follows with
    /// [`GpuSolver::write_colliders`]) and of the self-collision hash table (whose buckets are
    /// zero between substeps; a placeholder until self-collision is first used), and the bodies'
    /// count of invocations cut short (a placeholder until the solver has bodies).
    fn zero_overflows(&self) {
        let colliders = GpuColliderListHead::zeroed();
        self.resources.write("collider_list", 0, bytemuck::bytes_of(&colliders));
        let hash = GpuSpatialHashHead::zeroed();
        self.resources.write("hash_table", 0, bytemuck::bytes_of(&hash));
        self.resources.write("body_pairs", 0, bytemuck::bytes_of(&0u32));
    }

    /// Prepares the passes for `params` and the pins, plans the frame for `layout` and, only if
    /// both succeed and their buffers fit the device, makes them current: uploads what the
    /// passes asked for, the frame's parameters, the colliders and the plan's dispatch table.
    fn apply(&mut self, params: SolverParams, layout: DispatchStrategy) -> Result<(), Error> {
        let mut passes: Vec<Box<dyn Pass>> = self.passes.iter().map(|p| p.boxed_clone()).collect();
        let setup = self.setup(&params);
        let mut uploads = Uploads::gpu();
        for pass in &mut passes {
            pass.prepare(&setup, &mut uploads)?;
        }
        let (resolved, plan) = self.plan_frame(&passes, &setup, layout)?;
        for pass in &mut passes {
            pass.prepare_for_plan(&setup, &plan, &mut uploads);
        }
        let plan_names: Vec<DispatchName> =
            plan.dispatches.iter().map(|d| DispatchName { pass: d.pass, kernel: d.kernel }).collect();
        // A profile times the new plan's passes (refused plans leave the old one in place).
        let profiler = match &self.profiler {
            Some(_) if plan_names != self.plan_names => Some(self.profiler_for(&plan_names)?),
            _ => None,
        };
        let uploads = uploads.into_list();
        self.resources.check(&uploads)?;
        self.resources.apply(&uploads, &self.bind_groups, &self.params_layout);
        self.passes = passes;
        self.params = params;
        self.requested_layout = layout;
        self.layout = resolved;
        self.write_params();
        // Colliders without a material of their own follow the parameters'.
        self.write_colliders();
        self.upload_plan(&plan);
        self.plan_names = plan_names;
        if profiler.is_some() {
            self.profiler = profiler;
        }
        self.bind_groups.refresh(&self.device, &mut self.resources);
        Ok(())
    }

    /// Resolves `Auto` and walks the passes in frame order into a plan.
    fn plan_frame(
        &self,
        passes: &[Box<dyn Pass>],
        setup: &Setup,
        layout: DispatchStrategy,
    ) -> Result<(DispatchStrategy, FramePlan), Error> {
        let jacobi = matches!(setup.params.mode, crate::params::SolverMode::Jacobi { .. });
        let plan = |layout| {
            // Jacobi has no stripes: its striped layout is the per-colour one.
            let layout =
                if jacobi && layout == DispatchStrategy::Striped { DispatchStrategy::PerColour } else { layout };
            let mut plan = FramePlan::new(self.facts, layout);
            for (pass, substep) in frame_order(passes, setup.params.substeps) {
                plan.begin_pass(passes[pass].name());
                passes[pass].dispatch(setup, &mut plan, substep).ok()?;
            }
            Some((layout, plan))
        };
        let per_colour = || plan(DispatchStrategy::PerColour).expect("the per-colour layout has no loop budget");
        match layout {
            DispatchStrategy::Auto => {
                let preferred = auto_layout(self.facts.cpu, setup.params, &self.model);
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

    /// Makes `plan` the frame's: its dispatch table written (its buffer grown, and rebound, when
    /// the plan needs more entries than it holds — only when parameters change, never per
    /// frame), its kernels looked up.
    fn upload_plan(&mut self, plan: &FramePlan) {
        let (table, entries) = plan.table();
        self.plan = plan
            .dispatches
            .iter()
            .zip(entries)
            .map(|(d, table_entry)| Recorded {
                kernel: self.kernels.index(d.kernel),
                table_entry,
                workgroups: d.workgroups,
            })
            .collect();
        let bytes = at_stride(&table, DISPATCH_ENTRY_STRIDE);
        self.resources.grow("dispatch", bytes.len() as u64, UNIFORM);
        self.resources.write("dispatch", 0, &bytes);
    }
}

/// Makes the cloth's own buffers (the passes make theirs): its parameters (`params_bytes` with
/// the passes' blocks), the dispatch table,
/// the particles, the pins, the colliders' list, the normals, the triangles with their gather
/// lists, and the clock. Fails when one exceeds the device's limits.
fn create_cloth_buffers(
    device: &wgpu::Device,
    resources: &mut Resources,
    model: &ClothModel,
    pins: &Pins,
    params_bytes: u64,
) -> Result<(), Error> {
    let n = model.particle_count();
    let triangles: Vec<u32> = model.mesh().triangles.iter().flatten().copied().collect();
    let vertex_triangles = model.vertex_triangles().words();
    for (what, bytes) in [
        ("particles", 16 * n as u64),
        ("triangles", 4 * triangles.len() as u64),
        ("vertex triangle lists", 4 * vertex_triangles.len() as u64),
    ] {
        check_buffer_size(device, what, bytes)?;
    }
    let vertex = STORAGE | wgpu::BufferUsages::VERTEX;
    let rest = &model.mesh().positions;
    resources.create("params", &[], params_bytes as usize, UNIFORM);
    resources.create("dispatch", &[0; DISPATCH_ENTRY_STRIDE as usize], 0, UNIFORM);
    resources.create("positions", bytemuck::cast_slice(&vectors(rest, |_| 1.0)), 16, vertex);
    let velocities = vectors(&vec![Vec3::ZERO; n], |i| pins.inverse_masses()[i]);
    resources.create("velocities", bytemuck::cast_slice(&velocities), 16, STORAGE);
    resources.create("pins", bytemuck::cast_slice(&pins.records()), size_of::<PinRecord>(), STORAGE);
    resources.create("collider_list", &[], collider_list_bytes(0) as usize, STORAGE);
    let normals = vectors(&model.vertex_normals(rest), |_| 0.0);
    resources.create("normals", bytemuck::cast_slice(&normals), 16, vertex);
    resources.create("triangles", bytemuck::cast_slice(&triangles), 4, STORAGE | wgpu::BufferUsages::INDEX);
    resources.create("vertex_triangles", bytemuck::cast_slice(&vertex_triangles), 4, STORAGE);
    // The frame's time, then a speed per particle (the depenetration's).
    resources.create("frame_start", &[], 4 * (1 + n), STORAGE);
    // Drawn as instance data too (crate::viewer); grown, it keeps its usage.
    resources.create("bodies", &[], size_of::<GpuBody>(), STORAGE | wgpu::BufferUsages::VERTEX);
    Ok(())
}

/// `vec4` per particle: the vector in xyz, `w(i)` in w.
fn vectors(values: &[Vec3], w: impl Fn(usize) -> f32) -> Vec<[f32; 4]> {
    values.iter().enumerate().map(|(i, v)| v.extend(w(i)).to_array()).collect()
}

/// Where the collider records start in the collider list.
const COLLIDER_LIST_HEAD: u64 = size_of::<GpuColliderListHead>() as u64;

/// Bytes of a collider list with room for `count` colliders (at least one).
fn collider_list_bytes(count: usize) -> u64 {
    COLLIDER_LIST_HEAD + (size_of::<GpuCollider>() * count.max(1)) as u64
}

/// Entries laid out `stride` bytes apart (dynamic uniform offsets need aligned entries).
fn at_stride<T: Pod>(entries: &[T], stride: u64) -> Vec<u8> {
    let mut bytes = vec![0u8; entries.len().max(1) * stride as usize];
    for (i, entry) in entries.iter().enumerate() {
        let start = i * stride as usize;
        bytes[start..start + size_of::<T>()].copy_from_slice(bytemuck::bytes_of(entry));
    }
    bytes
}

/// A readback buffer of `size` bytes ([`readback_buffer`]), counted in the solver's allocated
/// bytes.
fn counted_readback_buffer(device: &wgpu::Device, size: u64, resources: &mut Resources) -> wgpu::Buffer {
    let buffer = readback_buffer(device, size);
    resources.count_added(&buffer);
    buffer
}
