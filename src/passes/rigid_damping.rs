//! Damping that spares rigid motion (PBD §3.5): each free particle's velocity moves a fraction
//! `k` of the way to its cloth's rigid motion, `v ← v + k (v_cm + ω × (x − x_cm) − v)`, so each
//! cloth's linear and angular momentum stay as they are while its internal motion decays.
//! Pure f32 functions shared by the CPU reference and mirrored, with the same names, in
//! `shaders/passes/rigid_damping.wgsl`. Once per frame, before the first substep, in three
//! dispatches (the moments per workgroup, the rigid motion, the damping).
//!
//! A cloth's rigid motion comes from one set of sums over its free particles, [`Moments`], taken
//! about a reference point (its first particle's position, so that the sums stay well
//! conditioned in f32 wherever the cloth is): mass, first moment, momentum, angular momentum and second moment.
//! The GPU adds them in a fixed tree (deterministic, no atomics), each cloth's from a workgroup
//! of its own (so the tree is the one the cloth alone would have); the CPU in index order.
//! From them: `x_cm = x_ref + Σm r / M`, `v_cm = Σm v / M`, the angular momentum and the
//! inertia tensor about the centre of mass by the parallel-axis shift (PBD §3.5 steps 3–4), and
//! `ω = I⁻¹ L`.

use super::plan::WORKGROUP_SIZE;
use super::plan::{workgroups_for, DispatchInfo, FramePlan};
use super::{Build, CpuFrame, Kernel, LayoutRefused, Part, Pass, Setup, Shader, Stage, Uploads, SOLVE};
use crate::error::Error;
use crate::graph::starts;
use crate::model::{Cloth, ClothModel};
use crate::struct_layout;
use crate::wgsl::{Binding, BindingTable, Constant, StructLayout, WgslFile};
use crate::wgsl_file;
use bytemuck::{Pod, Zeroable};
use glam::Vec3;
use std::mem::size_of;

/// The sums over the free particles from which their rigid motion follows, `r` being a
/// position relative to the reference point. Four `vec4`s on the GPU, in this order.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Moments {
    /// `[Σm, Σm r]`.
    pub mass: [f32; 4],
    /// `[Σm v, Σm r_x r_y]`.
    pub momentum: [f32; 4],
    /// `[Σm r × v, Σm r_x r_z]`.
    pub angular_momentum: [f32; 4],
    /// `[Σm r_x², Σm r_y², Σm r_z², Σm r_y r_z]`.
    pub second_moment: [f32; 4],
}

fn add4(a: [f32; 4], b: [f32; 4]) -> [f32; 4] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]]
}

impl Moments {
    /// One particle of mass `m` at `r` from the reference point moving at `v`.
    pub fn of_particle(m: f32, r: Vec3, v: Vec3) -> Self {
        let mr = m * r;
        let mv = m * v;
        let l = r.cross(mv);
        Self {
            mass: [m, mr.x, mr.y, mr.z],
            momentum: [mv.x, mv.y, mv.z, mr.x * r.y],
            angular_momentum: [l.x, l.y, l.z, mr.x * r.z],
            second_moment: [mr.x * r.x, mr.y * r.y, mr.z * r.z, mr.y * r.z],
        }
    }
}

/// The sums of two sets of particles.
impl std::ops::Add for Moments {
    type Output = Self;

    fn add(self, other: Self) -> Self {
        Self {
            mass: add4(self.mass, other.mass),
            momentum: add4(self.momentum, other.momentum),
            angular_momentum: add4(self.angular_momentum, other.angular_momentum),
            second_moment: add4(self.second_moment, other.second_moment),
        }
    }
}

/// A rigid motion: the centre of mass (relative to the reference point), its velocity and the
/// angular velocity about it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RigidMotion {
    /// `x_cm − x_ref` (m).
    pub centre: Vec3,
    /// `v_cm` (m/s).
    pub velocity: Vec3,
    /// `ω` (rad/s).
    pub angular_velocity: Vec3,
}

/// Below this the determinant of the inertia tensor scaled to a trace of 1 counts as singular
/// (a cloth collapsed onto a line or a point): its rotation is then left undamped.
pub const SINGULAR_INERTIA: f32 = 1e-9;

/// The rigid motion of the particles summed in `moments` (PBD §3.5 steps 1–5); at rest without
/// mass.
pub fn rigid_motion(moments: &Moments) -> RigidMotion {
    let [mass, fx, fy, fz] = moments.mass;
    if mass <= 0.0 {
        return RigidMotion::default();
    }
    let c = Vec3::new(fx, fy, fz) / mass;
    let [px, py, pz, qxy] = moments.momentum;
    let [lx, ly, lz, qxz] = moments.angular_momentum;
    let [qxx, qyy, qzz, qyz] = moments.second_moment;
    let velocity = Vec3::new(px, py, pz) / mass;
    // L about the centre: Σm (r − c) × v = Σm r × v − c × Σm v.
    let l = Vec3::new(lx, ly, lz) - c.cross(Vec3::new(px, py, pz));
    // Second moment about the centre, Q − M c cᵀ, then I = tr(Q) E − Q (symmetric).
    let mc = mass * c;
    let (xx, yy, zz) = (qxx - mc.x * c.x, qyy - mc.y * c.y, qzz - mc.z * c.z);
    let (xy, xz, yz) = (qxy - mc.x * c.y, qxz - mc.x * c.z, qyz - mc.y * c.z);
    let trace = xx + yy + zz;
    let columns = [Vec3::new(trace - xx, -xy, -xz), Vec3::new(-xy, trace - yy, -yz), Vec3::new(-xz, -yz, trace - zz)];
    RigidMotion { centre: c, velocity, angular_velocity: solve_symmetric(columns, l) }
}

/// `I⁻¹ l` for the symmetric matrix `I` with `columns`, by the adjugate of `I/s` (rows
/// `b × c`, `c × a`, `a × b` over `det = a · (b × c)`), `s` its trace: `I⁻¹ = adj(I/s)/(s·det)`.
/// Scaled to a trace of 1, a millimetre cloth's determinant stays far from the subnormals that
/// GPUs flush to zero. Zero when `I` is singular relative to its size.
fn solve_symmetric(columns: [Vec3; 3], l: Vec3) -> Vec3 {
    let size = columns[0].x + columns[1].y + columns[2].z;
    if size.is_nan() || size <= 0.0 {
        return Vec3::ZERO;
    }
    let [a, b, c] = columns.map(|column| column / size);
    let (bc, ca, ab) = (b.cross(c), c.cross(a), a.cross(b));
    let det = a.dot(bc);
    if det > SINGULAR_INERTIA {
        Vec3::new(bc.dot(l), ca.dot(l), ab.dot(l)) / (det * size)
    } else {
        Vec3::ZERO
    }
}

/// The moments of the free particles (`inverse_masses` > 0) at `positions` moving at
/// `velocities` (or by displacements), about particle 0's position, summed in index order.
pub fn free_particle_moments(positions: &[Vec3], velocities: &[Vec3], inverse_masses: &[f32]) -> Moments {
    let reference = positions[0];
    (0..positions.len()).filter(|&i| inverse_masses[i] > 0.0).fold(Moments::default(), |sum, i| {
        sum + Moments::of_particle(1.0 / inverse_masses[i], positions[i] - reference, velocities[i])
    })
}

impl RigidMotion {
    /// The rigid motion's velocity (or displacement) at `r` from the reference point:
    /// `v_cm + ω × (r − centre)`.
    pub fn at(&self, r: Vec3) -> Vec3 {
        self.velocity + self.angular_velocity.cross(r - self.centre)
    }
}

/// A particle's velocity `v` at `r` from the reference point moved a fraction `k` of the way to
/// the rigid motion's velocity there.
pub fn damp_to_rigid_motion(v: Vec3, r: Vec3, motion: &RigidMotion, k: f32) -> Vec3 {
    v + k * (motion.at(r) - v)
}

/// The fraction of its deviation from the rigid motion a particle loses in one frame of `dt`
/// seconds at `rate` (1/s): `1 − e^(−rate·dt)`, so the deviation decays as `e^(−rate·t)`
/// whatever the frame rate.
pub fn frame_fraction(rate: f32, dt: f32) -> f32 {
    -(-rate * dt).exp_m1()
}

/// Each cloth of `model` as the GPU reads it ([`GpuClothMotion`]), its motion zero: its
/// particles start a workgroup of `sum_moments` of their own, so its moments are summed in the
/// same tree as in a model of its own.
pub(crate) fn cloth_motions(model: &ClothModel) -> Vec<GpuClothMotion> {
    let group_counts: Vec<u32> = model.cloths().iter().map(moment_groups).collect();
    let first_groups = starts(group_counts.iter().copied());
    let records = model.cloths().iter().zip(group_counts).zip(first_groups);
    records
        .map(|((cloth, group_count), first_group)| GpuClothMotion {
            first_particle: cloth.particles.start,
            particle_count: cloth.particles.len() as u32,
            first_group,
            group_count,
            motion: [[0.0; 4]; 3],
            around: [[0.0; 4]; 3],
        })
        .collect()
}

/// Workgroups of `sum_moments` over `cloth`'s particles.
fn moment_groups(cloth: &Cloth) -> u32 {
    (cloth.particles.len() as u32).div_ceil(WORKGROUP_SIZE)
}

/// Workgroups of `sum_moments` over every cloth of `model`.
fn all_moment_groups(model: &ClothModel) -> u32 {
    model.cloths().iter().map(moment_groups).sum()
}

/// The uploads of the cloths' table and the workgroups' moments, for the passes that solve
/// rigid motions (rigid damping, and self-collision's deformation limit).
pub(crate) fn prepare_rigid_motions(model: &ClothModel, uploads: &mut Uploads) {
    uploads.reserve("partial_moments", 64 * u64::from(all_moment_groups(model)));
    uploads.write("cloth_motions", || bytemuck::cast_slice(&cloth_motions(model)).to_vec());
}

/// The two dispatches that solve each cloth's rigid motion from `velocities` (velocities, or
/// the substep's displacements): the moments of each workgroup, then each cloth's motion.
pub(crate) fn push_rigid_motions(model: &ClothModel, plan: &mut FramePlan) {
    let whole = DispatchInfo::zeroed();
    plan.push("sum_moments", whole, workgroups_for(all_moment_groups(model) * WORKGROUP_SIZE));
    plan.push("solve_rigid_motion", whole, workgroups_for(model.cloths().len() as u32 * WORKGROUP_SIZE));
}

/// The rigid damping pass.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct RigidDampingPass;

impl Pass for RigidDampingPass {
    fn name(&self) -> &'static str {
        "rigid_damping"
    }

    fn stage(&self) -> Stage {
        Stage::FrameStart
    }

    fn shaders(&self, _build: &Build) -> Vec<Shader> {
        vec![Shader {
            label: "rigid damping",
            constants: vec![Constant::f32("SINGULAR_INERTIA", SINGULAR_INERTIA)],
            groups: vec![&SOLVE, &RIGID_DAMPING],
            parts: vec![Part::File(CLOTH_MOTION_WGSL), Part::File(wgsl_file!("passes/rigid_damping.wgsl"))],
            structs: vec![GpuClothMotion::LAYOUT],
            block: Some(("rigid_damping", GpuRigidDampingParams::LAYOUT)),
            kernels: ["sum_moments", "solve_rigid_motion", "damp_to_rigid_motion"].map(Kernel::plain).to_vec(),
        }]
    }

    /// The cloths' table and four `vec4` of moments per workgroup, from the first frame that
    /// damps.
    fn prepare(&mut self, setup: &Setup, uploads: &mut Uploads) -> Result<(), Error> {
        let params = setup.params;
        if params.rigid_damping > 0.0 {
            prepare_rigid_motions(setup.model, uploads);
        }
        uploads.block("rigid_damping", || GpuRigidDampingParams {
            fraction: frame_fraction(params.rigid_damping, params.time_step),
            cloth_count: setup.model.cloths().len() as u32,
            _pad: [0; 2],
        });
        Ok(())
    }

    fn dispatch(&self, setup: &Setup, plan: &mut FramePlan, _substep: u32) -> Result<(), LayoutRefused> {
        if setup.params.rigid_damping > 0.0 {
            push_rigid_motions(setup.model, plan);
            let particles = setup.model.particle_count() as u32;
            plan.push("damp_to_rigid_motion", DispatchInfo::zeroed(), workgroups_for(particles));
        }
        Ok(())
    }

    /// Moves each free particle's velocity the frame's fraction of the way to the rigid motion
    /// of its cloth's free particles, about the cloth's first particle.
    fn run_cpu(&mut self, setup: &Setup, frame: &mut CpuFrame, _substep: u32) {
        let params = setup.params;
        if params.rigid_damping <= 0.0 {
            return;
        }
        let k = frame_fraction(params.rigid_damping, params.time_step);
        for cloth in setup.model.cloths() {
            let range = cloth.indices();
            let (positions, w) = (&frame.positions[range.clone()], &setup.pins.inverse_masses()[range.clone()]);
            let velocities = &mut frame.velocities[range];
            let motion = rigid_motion(&free_particle_moments(positions, velocities, w));
            for i in (0..positions.len()).filter(|&i| w[i] > 0.0) {
                velocities[i] = damp_to_rigid_motion(velocities[i], positions[i] - positions[0], &motion, k);
            }
        }
    }
}

/// Group 2 of the rigid damping.
static RIGID_DAMPING: BindingTable = BindingTable {
    label: "rigid damping",
    bindings: &[
        Binding::read_write(
            "partial_moments",
            "array<vec4<f32>>",
            64,
            "Four vec4 (Moments) per workgroup of sum_moments.",
        ),
        CLOTH_MOTIONS,
    ],
};

/// The cloths' table with their rigid motions, for the tables of the kernels that read them.
pub(crate) const CLOTH_MOTIONS: Binding = Binding::read_write(
    "cloth_motions",
    "array<ClothMotion>",
    size_of::<GpuClothMotion>() as u64,
    "Each cloth's particles and workgroups, and its rigid motion (written by solve_rigid_motion;\n\
     self-collision keeps the motion its deformation was limited around beside it).",
);

/// `shaders/passes/cloth_motion.wgsl`: the cloths' table, and finding a particle's cloth.
pub(crate) const CLOTH_MOTION_WGSL: WgslFile = wgsl_file!("passes/cloth_motion.wgsl");

/// One cloth as the rigid motions' kernels read it (`ClothMotion` in WGSL): its particles,
/// its workgroups of `sum_moments`, and two [`RigidMotion`]s of three `vec4` (`[centre − its
/// first particle's position, velocity, ω]`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuClothMotion {
    /// Its first particle.
    pub first_particle: u32,
    /// Its particles.
    pub particle_count: u32,
    /// Its first workgroup of `sum_moments`.
    pub first_group: u32,
    /// Its workgroups of `sum_moments`.
    pub group_count: u32,
    /// Its rigid motion, as `solve_rigid_motion` last solved it.
    pub motion: [[f32; 4]; 3],
    /// The motion self-collision limited its deformation around.
    pub around: [[f32; 4]; 3],
}

impl GpuClothMotion {
    /// The layout its WGSL twin must have.
    pub const LAYOUT: StructLayout = struct_layout!(
        GpuClothMotion as "ClothMotion",
        first_particle,
        particle_count,
        first_group,
        group_count,
        motion,
        around
    );
}

/// `RigidDampingParams` in WGSL.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuRigidDampingParams {
    /// [`frame_fraction`] of the rate and the frame time step.
    pub fraction: f32,
    /// The model's cloths (entries of `cloth_motions`).
    pub cloth_count: u32,
    /// Pads the block to 16 bytes.
    pub _pad: [u32; 2],
}

impl GpuRigidDampingParams {
    /// The layout its WGSL twin must have.
    pub const LAYOUT: StructLayout =
        struct_layout!(GpuRigidDampingParams as "RigidDampingParams", fraction, cloth_count);
}
