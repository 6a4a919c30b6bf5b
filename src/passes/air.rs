//! Aerodynamics: drag and lift on every triangle from the wind relative to it, gathered onto the
//! triangle's vertices, with optional gusts. Pure f32 functions shared by the CPU reference and
//! mirrored, with the same names, in `shaders/passes/air.wgsl`. The pass runs at the start of every
//! substep, before predict, which adds the accelerations; one dispatch per substep.
//!
//! A triangle of area `A` and unit normal `n` moving at `v̄` (the mean of its vertices'
//! velocities) through wind `w` meets the air at `u = v̄ − w`. With `u_n = n·u`:
//! - drag `F_D = −½ρ C_D A |u_n| u`: the pressure drag of a flat plate, `½ρ C_D A_⊥ |u|²` on the
//!   area `A_⊥ = A |n·û|` the triangle shows the flow, against the flow;
//! - lift `F_L = −½ρ C_L A u_n (|u| n − u_n û)`: perpendicular to the flow, of magnitude
//!   `½ρ C_L A |u|² cos θ sin θ` (θ between `n` and `u`), zero face-on and edge-on.
//!
//! Both are even in `n`, so the winding of a triangle does not matter. Each vertex receives a
//! third of each of its triangles' forces, summed in the fixed order of its triangle list (a
//! gather: deterministic, no atomics), divided by its mass.
//!
//! The forces are explicit, so a light cloth in strong wind could overshoot within one substep:
//! a vertex's change of velocity per substep is capped at the largest relative speed `|u|` of
//! its triangles (the air cannot turn a triangle's motion relative to it around in one
//! substep). A physical cloth never reaches the cap (1 m² of 0.2 kg/m² cotton falling at
//! terminal speed changes its velocity by 1 % of it per 1.7 ms substep).
//!
//! Gusts scale the wind by `max(0, 1 + strength·noise(s))` with smooth value noise of the phase
//! `s = frequency·(t − x·ŵ/|w|)`: gusts of about `1/frequency` seconds, frozen in the air and
//! carried downwind at the wind's speed (Taylor's hypothesis), so a flag feels each one arrive
//! from its pole to its tip.

use super::plan::{workgroups_for, DispatchInfo, FramePlan};
use super::{Build, CpuFrame, Kernel, LayoutRefused, Part, Pass, Setup, Shader, Stage, Uploads, SOLVE};
use crate::error::Error;
use crate::graph::Csr;
use crate::math::{weighted_face_normal, GEOMETRY_EPSILON};
use crate::params::Aerodynamics;
use crate::struct_layout;
use crate::wgsl::{Binding, BindingTable, Constant, StructLayout};
use crate::wgsl_file;
use bytemuck::{Pod, Zeroable};
use glam::Vec3;

/// Below this relative speed (m/s) the air exerts no force (its direction is undefined).
pub const SPEED_EPSILON: f32 = 1e-6;
/// Gust phases are clamped to this magnitude so that their lattice cell fits an `i32`.
pub const PHASE_LIMIT: f32 = 1e9;
/// The simulated time is wrapped to `[0, CLOCK_PERIOD)` seconds (4.5 hours), where f32 still
/// resolves a 1/600 s substep; the gusts jump once per period.
pub const CLOCK_PERIOD: f32 = 16384.0;

/// The clock after a frame of `dt` seconds, wrapped every [`CLOCK_PERIOD`] (`advanced_clock` in
/// `shaders/passes/finalize.wgsl`).
pub fn advanced_clock(time: f32, dt: f32) -> f32 {
    let next = time + dt;
    if next >= CLOCK_PERIOD {
        next - CLOCK_PERIOD
    } else {
        next
    }
}

/// lowbias32 (C. Wellons): a 32-bit integer hash with good avalanche, the same on every device.
fn hash(x: u32) -> u32 {
    let mut x = x;
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^ (x >> 16)
}

/// A value in [−1, 1) for the integer lattice point `cell` (24 bits of its hash, exact in f32).
fn lattice_value(cell: i32) -> f32 {
    (hash(cell as u32) >> 8) as f32 * (2.0 / 16_777_216.0) - 1.0
}

/// Smooth 1-D value noise in [−1, 1] of `phase`: the lattice values at `⌊s⌋` and `⌊s⌋ + 1` blended by
/// the smoothstep `3f² − 2f³` of the fraction (continuous with a continuous derivative).
pub fn value_noise(phase: f32) -> f32 {
    let s = phase.clamp(-PHASE_LIMIT, PHASE_LIMIT);
    let floor = s.floor();
    let f = s - floor;
    let cell = floor as i32;
    let a = lattice_value(cell);
    let b = lattice_value(cell.wrapping_add(1));
    let blend = f * f * (3.0 - 2.0 * f);
    a + (b - a) * blend
}

/// The wind at `position` and time `time` (s): the mean wind scaled by its gust.
pub fn wind_at(aero: &Aerodynamics, position: Vec3, time: f32) -> Vec3 {
    let speed = aero.wind.length();
    if aero.gusts.strength == 0.0 || speed <= SPEED_EPSILON {
        return aero.wind;
    }
    let downwind = position.dot(aero.wind) / speed;
    let phase = aero.gusts.frequency * (time - downwind / speed);
    aero.wind * (1.0 + aero.gusts.strength * value_noise(phase)).max(0.0)
}

/// Drag plus lift (N) on the triangle `p` moving with vertex velocities `v` through the wind
/// `wind` (module docs). Zero for a degenerate triangle or when it moves with the air.
pub fn triangle_force(aero: &Aerodynamics, p: [Vec3; 3], v: [Vec3; 3], wind: Vec3) -> Vec3 {
    let doubled_area = weighted_face_normal(p[0], p[1], p[2]);
    let length = doubled_area.length();
    let u = (v[0] + v[1] + v[2]) / 3.0 - wind;
    let speed = u.length();
    if length <= GEOMETRY_EPSILON || speed <= SPEED_EPSILON {
        return Vec3::ZERO;
    }
    let n = doubled_area / length;
    let normal_speed = n.dot(u);
    let drag = aero.drag_coefficient * normal_speed.abs() * u;
    let lift = aero.lift_coefficient * normal_speed * (speed * n - (normal_speed / speed) * u);
    -0.25 * aero.air_density * length * (drag + lift)
}

/// The particles' state the air acts on.
pub struct AirState<'a> {
    /// Positions (m).
    pub positions: &'a [Vec3],
    /// Velocities (m/s).
    pub velocities: &'a [Vec3],
    /// Inverse masses (1/kg; 0 = pinned, no acceleration).
    pub inverse_masses: &'a [f32],
    /// Time (s), for gusts.
    pub time: f32,
    /// Substep length (s), for the cap on the change of velocity.
    pub h: f32,
}

/// Particle `i`'s acceleration (m/s²) from the air: a third of the force on each of its
/// triangles (`vertex_triangles` row `i`, in order), times its inverse mass, its change of
/// velocity over `h` capped at its triangles' largest relative speed (module docs).
pub fn air_acceleration(
    aero: &Aerodynamics,
    triangles: &[[u32; 3]],
    vertex_triangles: &Csr,
    state: &AirState,
    i: usize,
) -> Vec3 {
    let w = state.inverse_masses[i];
    if w == 0.0 {
        return Vec3::ZERO;
    }
    let mut force = Vec3::ZERO;
    let mut fastest = 0f32;
    for &t in vertex_triangles.row(i) {
        let corners = triangles[t as usize].map(|c| c as usize);
        let p = corners.map(|c| state.positions[c]);
        let v = corners.map(|c| state.velocities[c]);
        let wind = wind_at(aero, (p[0] + p[1] + p[2]) / 3.0, state.time);
        force += triangle_force(aero, p, v, wind) / 3.0;
        fastest = fastest.max(((v[0] + v[1] + v[2]) / 3.0 - wind).length());
    }
    cap_velocity_change(force * w, fastest, state.h)
}

/// `acceleration` scaled down so that `|acceleration|·h ≤ limit`.
fn cap_velocity_change(acceleration: Vec3, limit: f32, h: f32) -> Vec3 {
    let change = acceleration.length() * h;
    if change > limit {
        acceleration * (limit / change)
    } else {
        acceleration
    }
}

/// The air pass: the particles' accelerations from the air at the start of each substep.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct AirPass {
    /// Whether the air was on when last prepared: switched off, it leaves zero accelerations
    /// behind, since predict reads them either way.
    on: bool,
}

impl Pass for AirPass {
    fn name(&self) -> &'static str {
        "air"
    }

    fn stage(&self) -> Stage {
        Stage::Substep
    }

    fn shaders(&self, _build: &Build) -> Vec<Shader> {
        vec![Shader {
            label: "air",
            constants: vec![Constant::f32("SPEED_EPSILON", SPEED_EPSILON), Constant::f32("PHASE_LIMIT", PHASE_LIMIT)],
            groups: vec![&SOLVE, &AIR],
            parts: vec![Part::File(wgsl_file!("passes/air.wgsl"))],
            structs: Vec::new(),
            block: Some(("air", GpuAir::LAYOUT)),
            kernels: vec![Kernel::plain("apply_aerodynamics")],
        }]
    }

    fn prepare(&mut self, setup: &Setup, uploads: &mut Uploads) -> Result<(), Error> {
        let air = setup.params.aerodynamics;
        match air {
            Some(_) => uploads.reserve("air_accelerations", 16 * setup.model.particle_count() as u64),
            None if self.on => uploads.zero("air_accelerations"),
            None => {}
        }
        uploads.block("air", || GpuAir::new(air.as_ref()));
        self.on = air.is_some();
        Ok(())
    }

    fn dispatch(&self, setup: &Setup, plan: &mut FramePlan, substep: u32) -> Result<(), LayoutRefused> {
        if setup.params.aerodynamics.is_some() {
            let particles = setup.model.particle_count() as u32;
            plan.push("apply_aerodynamics", DispatchInfo::substep(substep), workgroups_for(particles));
        }
        Ok(())
    }

    fn run_cpu(&mut self, setup: &Setup, frame: &mut CpuFrame, substep: u32) {
        let Some(aero) = &setup.params.aerodynamics else {
            return frame.air_accelerations.fill(Vec3::ZERO);
        };
        let h = setup.params.substep_dt();
        let state = AirState {
            positions: frame.positions,
            velocities: frame.velocities,
            inverse_masses: setup.pins.inverse_masses(),
            time: *frame.time + substep as f32 * h,
            h,
        };
        let (triangles, lists) = (&setup.model.mesh().triangles, setup.model.vertex_triangles());
        for (i, a) in frame.air_accelerations.iter_mut().enumerate() {
            *a = air_acceleration(aero, triangles, lists, &state, i);
        }
    }

    fn reset(&self, uploads: &mut Uploads) {
        uploads.zero("air_accelerations");
    }
}

/// Group 2 of the air.
static AIR: BindingTable = BindingTable {
    label: "air",
    bindings: &[
        Binding::read_write(
            "air_accelerations",
            "array<vec4<f32>>",
            16,
            "Each particle's acceleration from the air (m/s²), read by predict.",
        ),
        Binding::read("triangles", "array<u32>", 4, "Three vertex indices per triangle."),
        Binding::read(
            "vertex_triangles",
            "array<u32>",
            4,
            "Each vertex's triangles: particle_count + 1 offsets, then triangle indices.",
        ),
        Binding::read("frame_start", "array<f32>", 16, super::FRAME_START),
    ],
};

/// `Air` in WGSL: the air of [`Aerodynamics`], all zero when it is off.
#[allow(missing_docs)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuAir {
    pub wind: [f32; 4],
    pub density: f32,
    pub drag_coefficient: f32,
    pub lift_coefficient: f32,
    pub gust_strength: f32,
    pub gust_frequency: f32,
    /// Pads the struct to 16 bytes.
    pub _pad: [u32; 3],
}

impl GpuAir {
    /// The layout its WGSL twin must have.
    pub const LAYOUT: StructLayout = struct_layout!(
        GpuAir as "Air",
        wind,
        density,
        drag_coefficient,
        lift_coefficient,
        gust_strength,
        gust_frequency
    );

    fn new(aero: Option<&Aerodynamics>) -> Self {
        let Some(aero) = aero else {
            return Self::zeroed();
        };
        let wind = aero.wind;
        Self {
            wind: [wind.x, wind.y, wind.z, wind.length()],
            density: aero.air_density,
            drag_coefficient: aero.drag_coefficient,
            lift_coefficient: aero.lift_coefficient,
            gust_strength: aero.gusts.strength,
            gust_frequency: aero.gusts.frequency,
            _pad: [0; 3],
        }
    }
}
