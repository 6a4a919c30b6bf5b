//! Rigid bodies in the substeps, coupled both ways with the cloth (PBD §4.2; the XPBD
//! rigid-body notes, Müller et al. 2020, Alg. 2 and §3.3–3.5; [`crate::bodies`] has the body's
//! own math).
//!
//! Two passes:
//! - **body_predict**, after the cloth's predict: each body's prediction under gravity
//!   ([`BodyState::predict`]). One thread per body.
//! - **bodies**, after the cloth's constraints and self-collision, before finalize:
//!   - each particle meets each body it was counted against ([`body_contact`]): an XPBD
//!     contact keeping the particle the collision margin off the body's surface, moving the
//!     particle by `w_p λ` and giving the body the opposite impulse at the particle (its
//!     generalised inverse mass
//!     `1/m + (r × n)ᵀ I⁻¹ (r × n)`), then positional Coulomb friction on their relative slide,
//!     up to the body's friction times the push (§3.5);
//!   - the contacts of one substep all see the body where the substep's solve left it, so each
//!     takes a share of the body's mass: its inverse mass times the particles touching it,
//!     counted first (mass splitting, Tonge et al. 2012), the turning part weighted by how far
//!     their moments added up in the last substep ([`BodyState::split_inverse_mass_at`]).
//!     Equal pushes then close the gap where every contact pushing the whole body would throw
//!     it by that many times;
//!   - each workgroup sums its particles' impulses on each body in a fixed tree, and one
//!     workgroup per body sums the workgroups' in a fixed order ([`sum_shares`]): no float
//!     atomics, the same bits on every run. The counts are integer sums (workgroup atomics,
//!     whose sum no order of arrival changes); a workgroup that counted no particle touching
//!     the body (most, for a body smaller than the cloth) writes zero and skips its tree;
//!   - that workgroup moves its body by the sums ([`BodyState::apply_impulses`]) and meets the
//!     colliders ([`collide_body`]);
//!   - then one workgroup holds the bodies by their ropes ([`ropes`]), meets the bodies with
//!     each other ([`pairs`]: their pushes, then each body pushed meets the colliders again,
//!     then their friction), updates their velocities from the substep's displacement and
//!     turn ([`BodyState::update_velocities`]) and sets the normal speeds of the contacts with
//!     the colliders and with each other, by restitution ([`velocities`], XPBD §3.6).
//!
//! Particles attached to a body's point ([`attachments`]) are pulled to it in the same dispatch,
//! in place of their contact with that body, and count among its contacts.
//!
//! The particle's impulse and the body's are opposite and act along one line through the
//! particle, so the contacts keep linear momentum, and angular momentum but for the moments'
//! arms moving within the substep (between substeps `Σ m x × v` takes them at its start). The
//! bodies fall under the parameters' gravity alone (the external acceleration pushes the
//! particles only), and each meets the cloth and the colliders with its own friction
//! ([`crate::RigidBody::friction`]), whatever the cloth's or the colliders' materials. A body
//! meets the colliders at the corners of its rounded box (a ball at its centre, a capsule at its
//! axis's ends, a box at its eight corners), each grown by its radius, and at the cores of the
//! round-edged ones pressing between those corners (a ball's centre, a bar's axis, a box
//! collider's edges: [`core_contact`]); a mesh's bump pressed into a box's face between its
//! corners is not met.
//!
//! Six dispatches per substep while the solver has bodies (predict; count the contacts, sum
//! the counts; meet them, solve; the pairs and the velocities), none without. On a CPU adapter
//! the last is split by its phases over up to [`FINISH_PHASES`] dispatches, as many as keep a
//! pile's pairs within llvmpipe's loop limit ([`push_finish_phases`]); an invocation the limit
//! cuts short anyway is counted ([`crate::Overflows::bodies`]). WGSL twin:
//! `shaders/passes/bodies.wgsl` and `shaders/passes/body_pairs.wgsl`.

pub mod attachments;
pub mod pairs;
pub mod ropes;
pub mod velocities;

use super::plan::{workgroups_for, DispatchInfo, FramePlan, WORKGROUP_SIZE};
use super::{BodyCount, CpuFrame, Kernel, LayoutRefused, Part, Pass, Setup, Shader, Stage, Uploads};
use crate::bodies::{BodyState, GpuBody, MAX_BODIES};
use crate::collision::{
    self, box_point, rotate, Collider, GpuCollider, GpuColliderListHead, Motion, MovingCollider, SurfacePoint,
};
use crate::error::Error;
use crate::math::{DENOMINATOR_EPSILON, GEOMETRY_EPSILON};
use crate::struct_layout;
use crate::wgsl::{Binding, BindingTable, Constant, StructLayout};
use crate::wgsl_file;
use attachments::{attachment_pull, BodyAttachments, GpuBodyAttachment};
use bytemuck::{Pod, Zeroable};
use glam::Vec3;
use ropes::GpuBodyRope;
use std::mem::size_of;
use std::ops::Add;

/// The kernels of the `bodies` module.
pub(crate) const PREDICT_BODIES: &str = "predict_bodies";
pub(crate) const COUNT_BODY_CONTACTS: &str = "count_body_contacts";
pub(crate) const SUM_BODY_CONTACTS: &str = "sum_body_contacts";
pub(crate) const BODY_CONTACTS: &str = "body_contacts";
pub(crate) const SOLVE_BODIES: &str = "solve_bodies";
pub(crate) const FINISH_BODIES: &str = "finish_bodies";

/// What a body receives from the particles of a substep (`BodyShare` in WGSL, two vec4 kept
/// on the GPU alone: linear, angular; the counting pass sums its contacts in the first's w).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BodyShare {
    /// The impulses' sum (kg·m).
    pub linear: Vec3,
    /// The impulses' moments about its centre of mass (kg·m²).
    pub angular: Vec3,
    /// The moments' lengths summed (kg·m²).
    pub moments: f32,
}

impl Add for BodyShare {
    type Output = Self;

    fn add(self, other: Self) -> Self {
        Self {
            linear: self.linear + other.linear,
            angular: self.angular + other.angular,
            moments: self.moments + other.moments,
        }
    }
}

/// A particle at `x + q` (its substep's start and displacement so far) of inverse mass `w`
/// meeting `body` where the substep left it, kept `margin` off its surface: the particle's move
/// and the body's share ([`BodyShare`], zero without contact). Normal: `λ = d/(w + w_s)` for
/// the depth `d` and the body's split generalised inverse mass `w_s` at the arm `r = x + q − c`
/// ([`BodyState::split_inverse_mass_at`]); the particle moves `w λ n`, the body takes `−λ n` at
/// `r`, on the same line. Friction: the particle's slide relative to the body's point under it,
/// `λ_t = min(|slide|/(w + s·w_b(r, t)), μ λ)` against it.
pub fn body_contact(body: &BodyState, x: Vec3, q: Vec3, w: f32, margin: f32) -> (Vec3, BodyShare) {
    let surface = body_surface(body, x + q, margin);
    let depth = margin - surface.distance;
    if depth.is_nan() || depth <= 0.0 {
        return (Vec3::ZERO, BodyShare::default());
    }
    let n = surface.normal;
    let r = (x + q) - body.pose().translation;
    let lambda = depth / (w + body.split_inverse_mass_at(r, n)).max(DENOMINATOR_EPSILON);
    let mut moved = n * (w * lambda);
    let mut impulse = -n * lambda;
    let relative = (q + moved) - body.point_displacement(x + q);
    let slide = relative - n * relative.dot(n);
    let length = slide.length();
    if length > GEOMETRY_EPSILON {
        let t = slide / length;
        let resisted = length / (w + body.split_inverse_mass_at(r, t)).max(DENOMINATOR_EPSILON);
        let friction = resisted.min(body.friction * lambda);
        moved -= t * (w * friction);
        impulse += t * friction;
    }
    let angular = r.cross(impulse);
    (moved, BodyShare { linear: impulse, angular, moments: angular.length() })
}

/// `p`'s signed distance to `body`'s surface where the substep left it, and the outward normal
/// there; `f32::MAX` beyond `margin` of the ball that holds it.
pub(crate) fn body_surface(body: &BodyState, p: Vec3, margin: f32) -> SurfacePoint {
    let pose = body.pose();
    if (p - pose.translation).length() > body.shape.bounding_radius() + margin {
        return SurfacePoint { distance: f32::MAX, normal: Vec3::Y };
    }
    let (half_extents, radius) = body.shape.rounded_box();
    box_point(p, pose.translation, half_extents, pose.rotation, radius)
}

/// Whether a particle at `p` touches `body` (nearer its surface than `margin`).
pub(crate) fn touches(body: &BodyState, p: Vec3, margin: f32) -> bool {
    margin - body_surface(body, p, margin).distance > 0.0
}

/// Whether particle `i` at `p` (where it is before the bodies pass moves it) meets body `b` in
/// the pass: attached to it, or touching it. Only those are counted, and only those meet the
/// body: one pushed against it by another body in the same pass waits for the next substep.
fn meets(b: usize, body: &BodyState, i: usize, p: Vec3, attached: &BodyAttachments, margin: f32) -> bool {
    matches!(attached.of(i), Some((to, _)) if to as usize == b) || touches(body, p, margin)
}

/// How far moments summing to `angular` of summed lengths `moments` add up, in [0, 1]
/// ([`BodyState::coherence`]; 1 without moments).
pub fn coherence(angular: Vec3, moments: f32) -> f32 {
    if moments > 0.0 {
        (angular.length() / moments).min(1.0)
    } else {
        1.0
    }
}

/// The corners of a rounded box of `half_extents` in its frame, each once (one per axis of
/// zero extent: a ball's centre, a capsule's two ends, a box's eight corners).
pub fn body_corners(half_extents: Vec3) -> impl Iterator<Item = Vec3> {
    (0..8u32).filter_map(move |k| {
        let signs = Vec3::new(
            if k & 1 == 0 { 1.0 } else { -1.0 },
            if k & 2 == 0 { 1.0 } else { -1.0 },
            if k & 4 == 0 { 1.0 } else { -1.0 },
        );
        let doubled = (k & 1 != 0 && half_extents.x == 0.0)
            || (k & 2 != 0 && half_extents.y == 0.0)
            || (k & 4 != 0 && half_extents.z == 0.0);
        (!doubled).then_some(signs * half_extents)
    })
}

/// Sweeps of a body's pushes out of one collider before their friction ([`collide_body`]). One
/// sweep, corner after corner, leaves the body tilted by the order of its pushes (the first
/// corner's push lifts and turns it, the next finds less to push), and the tilt slides its
/// corners sideways, which the friction then takes for a slide over the collider: a box bearing
/// a stack of two turned about the vertical at 1.6e-3 rad/s. A second sweep levels it
/// (3e-4 rad/s); more change nothing measurable.
pub const COLLIDER_SWEEPS: u32 = 2;

/// `body` against `colliders` in substep `substep` of `substeps` of `h` seconds, collider by
/// collider: [`COLLIDER_SWEEPS`] sweeps of pushes, each of the corners ([`body_corners`]) grown
/// by the shape's radius, along their paths in the substep relative to the collider's motion
/// (`Motion::half_space`), pushed out by `λ = d/w_b(r, n)` at their deepest points, then of the
/// collider's cores where they press between the corners ([`core_contact`]: a ball's centre, a
/// bar's axis, a box's edges); then, once all are out, positional friction on each pushed
/// point's slide over the collider's surface, up to the body's friction times the pushes it
/// took in all the sweeps. Gauss-Seidel, corner by corner. Friction waits for every push: each
/// push tilts the body and slides its other corners, and a corner's friction taken before the
/// next corner's push left a box on the ground drifting at 3 mm/s.
pub fn collide_body(body: &mut BodyState, colliders: &[MovingCollider], substep: u32, substeps: u32, h: f32) {
    let half_extents = body.shape.rounded_box().0;
    for collider in colliders {
        let motion = collider.motion.substep(substep, substeps);
        let (cores, core_radius) = collider_cores(&collider.shape, &motion);
        let mut pushes = [ColliderPush::default(); 8 + MAX_CORES];
        for _ in 0..COLLIDER_SWEEPS {
            for (k, corner) in body_corners(half_extents).enumerate() {
                if let Some(contact) = corner_on_collider(body, corner, &collider.shape, &motion) {
                    pushes[k].push(body, contact);
                }
            }
            for (k, &[a, b]) in cores.iter().enumerate() {
                if let Some(contact) = core_contact(body, a, b, core_radius) {
                    pushes[8 + k].push(body, contact);
                }
            }
        }
        for push in pushes.iter().filter(|push| push.lambda > 0.0) {
            let point = body.pose().to_world(push.local);
            collider_friction(body, point, push.normal, push.lambda, &motion, h);
        }
    }
}

/// One contact of a body with a collider over [`collide_body`]'s sweeps: where the last sweep
/// met it, in the body's frame, its normal, and the pushes it took.
#[derive(Debug, Clone, Copy, Default)]
struct ColliderPush {
    local: Vec3,
    normal: Vec3,
    lambda: f32,
}

impl ColliderPush {
    /// `body` pushed out along the contact's normal `n` at its point by its depth `d`,
    /// `λ = d/w_b(r, n)`.
    fn push(&mut self, body: &mut BodyState, (point, n, depth): (Vec3, Vec3, f32)) {
        let r = point - body.pose().translation;
        let lambda = depth / body.inverse_mass_at(r, n).max(DENOMINATOR_EPSILON);
        self.local = body.pose().to_local(point);
        body.apply_impulse(n * lambda, r);
        (self.normal, self.lambda) = (n, self.lambda + lambda);
    }
}

/// `body`'s corner `corner` (in its frame), grown by the shape's radius, against `collider`
/// moving by `motion`, along the corner's path in the substep relative to it
/// (`Motion::half_space`): the contact's point on the body's surface, the normal pushing the
/// body off and the depth, where it is inside.
pub(crate) fn corner_on_collider(
    body: &BodyState,
    corner: Vec3,
    collider: &Collider,
    motion: &Motion,
) -> Option<(Vec3, Vec3, f32)> {
    let radius = body.shape.rounded_box().1;
    let start = body.position + rotate(body.rotation, corner);
    let now = body.pose().to_world(corner);
    let space = motion.half_space(collider, start, now - start, radius);
    let depth = space.offset - space.normal.dot(now);
    (depth > 0.0).then_some((now - space.normal * radius, space.normal, depth))
}

/// The most cores a collider has ([`collider_cores`]): a box's edges.
pub const MAX_CORES: usize = 12;

/// The segments a collider is round about, in the world at the end of `motion`, and their
/// radius: a sphere's centre (a segment of no length), a capsule's axis, a box's twelve edges
/// (its rounding their radius). Where a box's edge or corner, a bar or a ball presses into a
/// body's face between the body's corners, it is met at these ([`core_contact`]). None for
/// planes (whose deepest point into a convex body is one of its corners) and meshes.
pub fn collider_cores(shape: &Collider, motion: &Motion) -> (Vec<[Vec3; 2]>, f32) {
    let world = |p: Vec3| motion.end.to_world(p);
    match *shape {
        Collider::Sphere { center, radius } => (vec![[world(center), world(center)]], radius),
        Collider::Capsule { a, b, radius } => (vec![[world(a), world(b)]], radius),
        Collider::Box { center, half_extents, rotation, rounding } => {
            let end_at = |k: u32, end: f32| world(center + rotate(rotation, box_edge_end(half_extents, k, end)));
            ((0..MAX_CORES as u32).map(|k| [end_at(k, -1.0), end_at(k, 1.0)]).collect(), rounding)
        }
        _ => (Vec::new(), 0.0),
    }
}

/// An end of edge `k` of a box of `half_extents` in its frame (`end` ±1): edges 0–3 run along x,
/// 4–7 along y, 8–11 along z, the other two axes (in cyclic order) at the signs of `k`'s two
/// low bits.
fn box_edge_end(half_extents: Vec3, k: u32, end: f32) -> Vec3 {
    let h = half_extents;
    let first = if k & 1 == 0 { 1.0 } else { -1.0 };
    let second = if k & 2 == 0 { 1.0 } else { -1.0 };
    match k / 4 {
        0 => Vec3::new(end * h.x, first * h.y, second * h.z),
        1 => Vec3::new(second * h.x, end * h.y, first * h.z),
        _ => Vec3::new(first * h.x, second * h.y, end * h.z),
    }
}

/// Positional Coulomb friction on `body`'s point now at `point`, pushed by `lambda` along `n`
/// off a collider moving by `motion` over `h` seconds: the point's slide over the collider's
/// surface in the substep, resisted up to the body's friction times the push.
fn collider_friction(body: &mut BodyState, point: Vec3, n: Vec3, lambda: f32, motion: &Motion, h: f32) {
    let relative = body.point_displacement(point) - motion.velocity(point, h) * h;
    let slide = relative - n * relative.dot(n);
    let length = slide.length();
    if length > GEOMETRY_EPSILON {
        let t = slide / length;
        let arm = point - body.pose().translation;
        let resisted = length / body.inverse_mass_at(arm, t).max(DENOMINATOR_EPSILON);
        body.apply_impulse(-t * resisted.min(body.friction * lambda), arm);
    }
}

/// Steps of the golden-section search along a round collider's core ([`core_contact`]): the
/// bracket shrinks to `0.618²⁴ ≈ 1e-5` of the core's length.
const CORE_SEARCH_STEPS: u32 = 24;

/// `1/φ`, the golden section's ratio.
const INVERSE_GOLDEN_RATIO: f32 = 0.618_034;

/// The points within `radius` of the segment `a`–`b` (a collider's core, [`collider_cores`])
/// pressed into `body` where the substep left it, between its corners: the body's surface
/// point nearest the core, the direction that pushes the body off it and the depth. A face or
/// an edge of a box lying on a ball, across a bar or across a box's edge is met there, where
/// its corners miss it. The core's point nearest the body is found by a golden-section search
/// (the distance to a convex shape is convex along a segment); `None` where they do not touch.
pub fn core_contact(body: &BodyState, a: Vec3, b: Vec3, radius: f32) -> Option<(Vec3, Vec3, f32)> {
    let pose = body.pose();
    let (half_extents, rounding) = body.shape.rounded_box();
    let reach = 0.5 * (b - a).length() + half_extents.length() + rounding + radius;
    if (0.5 * (a + b)).distance(pose.translation) > reach {
        return None;
    }
    let distance =
        |t: f32| box_point(a + (b - a) * t, pose.translation, half_extents, pose.rotation, rounding).distance;
    let (mut low, mut high) = (0.0f32, 1.0f32);
    for _ in 0..CORE_SEARCH_STEPS {
        let span = (high - low) * INVERSE_GOLDEN_RATIO;
        let (first, second) = (high - span, low + span);
        if distance(first) < distance(second) {
            high = second;
        } else {
            low = first;
        }
    }
    let deepest = 0.5 * (low + high);
    let clearance = distance(deepest);
    if clearance.is_nan() || clearance >= radius {
        return None;
    }
    let t = 0.5 * (pressed_from(&distance, radius, deepest, 0.0) + pressed_from(&distance, radius, deepest, 1.0));
    let core = a + (b - a) * t;
    let nearest = box_point(core, pose.translation, half_extents, pose.rotation, rounding);
    let depth = radius - nearest.distance;
    if depth.is_nan() || depth <= 0.0 {
        return None;
    }
    Some((core - nearest.normal * nearest.distance, -nearest.normal, depth))
}

/// Where, from the core's point `inside` (nearer the body than `radius`) towards its end
/// `end`, the core stops pressing into the body: `end` if it presses there too, else found by
/// bisection. The core presses along an interval (a face lying along a bar touches it along a
/// line), and the contact takes its middle: the deepest point alone is anywhere along a flat
/// stretch, as rounding picks it, and would turn the body.
fn pressed_from(distance: &impl Fn(f32) -> f32, radius: f32, inside: f32, end: f32) -> f32 {
    if distance(end) < radius {
        return end;
    }
    let (mut pressed, mut free) = (inside, end);
    for _ in 0..CORE_SEARCH_STEPS {
        let middle = 0.5 * (pressed + free);
        if distance(middle) < radius {
            pressed = middle;
        } else {
            free = middle;
        }
    }
    pressed
}

/// `shares` summed as a workgroup of [`WORKGROUP_SIZE`] threads sums them in workgroup memory:
/// thread `k` adds elements `k, k + WORKGROUP_SIZE, …` in order, then the threads' sums meet
/// in a tree of halving strides (`shares_tree` in WGSL). The GPU's order, so the same bits.
pub fn sum_shares(shares: &[BodyShare]) -> BodyShare {
    let size = WORKGROUP_SIZE as usize;
    let mut threads = vec![BodyShare::default(); size];
    for (k, share) in shares.iter().enumerate() {
        threads[k % size] = threads[k % size] + *share;
    }
    let mut stride = size / 2;
    while stride > 0 {
        for k in 0..stride {
            threads[k] = threads[k] + threads[k + stride];
        }
        stride /= 2;
    }
    threads[0]
}

/// The number of workgroups of the particles' dispatch: the partial sums each body gets.
fn partial_count(particles: usize) -> u32 {
    let [x, y] = workgroups_for(particles as u32);
    x * y
}

/// The particles against the bodies, as the GPU's workgroups do it: each particle meets, in
/// order, every body it was counted against ([`meets`]), each workgroup's shares summed in a
/// tree; then each body's partial sums.
fn meet_particles(setup: &Setup, frame: &mut CpuFrame) -> Vec<BodyShare> {
    let (solve, bodies) = (&mut *frame.solve, &*frame.bodies);
    let (n, count) = (frame.positions.len(), bodies.len());
    let margin = setup.params.collision_margin;
    let size = WORKGROUP_SIZE as usize;
    let groups = partial_count(n) as usize;
    let mut partials = vec![BodyShare::default(); count * groups];
    for group in 0..groups {
        let mut shares = vec![vec![BodyShare::default(); size]; count];
        for (local, i) in (group * size..(group + 1) * size).enumerate().filter(|&(_, i)| i < n) {
            let (x, w, start) = (frame.positions[i], solve.inverse_masses[i], solve.displacements[i]);
            for (b, body) in bodies.iter().enumerate() {
                if !meets(b, body, i, x + start, frame.body_attachments, margin) {
                    continue;
                }
                let q = solve.displacements[i];
                let (moved, share) = match frame.body_attachments.of(i) {
                    Some((to, point)) if to as usize == b => attachment_pull(body, point, x, q, w),
                    _ => body_contact(body, x, q, w, margin),
                };
                solve.displacements[i] += moved;
                shares[b][local] = share;
            }
        }
        for (b, shares) in shares.iter().enumerate() {
            partials[b * groups + group] = sum_shares(shares);
        }
    }
    (0..count).map(|b| sum_shares(&partials[b * groups..(b + 1) * groups])).collect()
}

/// The bodies' prediction pass.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct BodyPredictPass;

impl Pass for BodyPredictPass {
    fn name(&self) -> &'static str {
        "body_predict"
    }

    fn stage(&self) -> Stage {
        Stage::Substep
    }

    fn shaders(&self, _build: &super::Build) -> Vec<Shader> {
        vec![bodies_shader()]
    }

    /// The block the three kernels read.
    fn prepare(&mut self, setup: &Setup, uploads: &mut Uploads) -> Result<(), Error> {
        let count = setup.bodies.bodies;
        if count > 0 {
            let partial_stride = partial_count(setup.model.particle_count());
            let bytes = u64::from(partial_stride) * count as u64 * size_of::<[[f32; 4]; 2]>() as u64;
            uploads.reserve("body_partials", bytes);
            uploads.reserve("body_snapshots", (4 * count * size_of::<GpuBody>()) as u64);
            uploads.reserve("body_pairs", BODY_PAIRS_BYTES);
        }
        uploads.block("bodies", || GpuBodiesBlock {
            gravity: setup.params.gravity.to_array(),
            count: count as u32,
            margin: setup.params.collision_margin,
            partial_stride: partial_count(setup.model.particle_count()),
            attached: setup.bodies.attached as u32,
            ropes: setup.bodies.ropes as u32,
            probe_passes: 2,
            _pad: [0; 3],
        });
        Ok(())
    }

    fn dispatch(&self, setup: &Setup, plan: &mut FramePlan, substep: u32) -> Result<(), LayoutRefused> {
        let count = setup.bodies.bodies as u32;
        if count > 0 {
            plan.push(PREDICT_BODIES, DispatchInfo::substep(substep), workgroups_for(count));
        }
        Ok(())
    }

    fn run_cpu(&mut self, setup: &Setup, frame: &mut CpuFrame, _substep: u32) {
        let h = setup.params.substep_dt();
        for body in frame.bodies.iter_mut() {
            body.predict(setup.params.gravity, h);
        }
    }
}

/// The contacts between the particles and the bodies, and the bodies' solve.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct BodiesPass;

impl Pass for BodiesPass {
    fn name(&self) -> &'static str {
        "bodies"
    }

    fn stage(&self) -> Stage {
        Stage::Substep
    }

    /// Counting the contacts and meeting them: one thread per particle, then one workgroup per
    /// body, twice.
    fn dispatch(&self, setup: &Setup, plan: &mut FramePlan, substep: u32) -> Result<(), LayoutRefused> {
        let count = setup.bodies.bodies as u32;
        if count > 0 {
            let (info, particles) = (DispatchInfo::substep(substep), setup.model.particle_count() as u32);
            plan.push(COUNT_BODY_CONTACTS, info, workgroups_for(particles));
            plan.push(SUM_BODY_CONTACTS, info, [count, 1]);
            plan.push(BODY_CONTACTS, info, workgroups_for(particles));
            plan.push(SOLVE_BODIES, info, [count, 1]);
            push_finish_phases(plan, info, setup.bodies);
        }
        Ok(())
    }

    fn run_cpu(&mut self, setup: &Setup, frame: &mut CpuFrame, substep: u32) {
        if frame.bodies.is_empty() {
            return;
        }
        let margin = setup.params.collision_margin;
        let (positions, solve, attached) = (&*frame.positions, &*frame.solve, frame.body_attachments);
        for (b, body) in frame.bodies.iter_mut().enumerate() {
            let counted = |i: usize| meets(b, body, i, positions[i] + solve.displacements[i], attached, margin);
            body.contacts = (0..positions.len()).filter(|&i| counted(i)).count() as u32;
        }
        let sums = meet_particles(setup, frame);
        let (h, substeps) = (setup.params.substep_dt(), setup.params.substeps);
        let mut met = Vec::with_capacity(frame.bodies.len());
        for (body, sum) in frame.bodies.iter_mut().zip(sums) {
            body.apply_impulses(sum.linear, sum.angular);
            body.coherence = coherence(sum.angular, sum.moments);
            met.push(*body);
            collide_body(body, frame.colliders, substep, substeps, h);
        }
        ropes::hold_by_ropes(frame.bodies, frame.body_ropes);
        let paired = frame.bodies.to_vec();
        let (colliders, mut again) = (frame.colliders, vec![None; frame.bodies.len()]);
        pairs::collide_pairs(frame.bodies, |k, body| {
            again[k] = Some(*body);
            collide_body(body, colliders, substep, substeps, h);
        });
        for body in frame.bodies.iter_mut() {
            body.update_velocities(h);
        }
        let threshold = setup.params.restitution_threshold();
        velocities::settle_contacts(frame.bodies, &met, &again, &paired, colliders, substep, substeps, h, threshold);
    }
}

/// The phases of `finish_bodies` (`PUSH_PHASE` … in WGSL), in order: the pairs' pushes; the
/// bodies they pushed meeting the colliders again; the pairs' friction and the velocities'
/// update; then the [`velocities::VELOCITY_SWEEPS`] sweeps at the velocity level.
pub(crate) const FINISH_PHASES: u32 = 3 + velocities::VELOCITY_SWEEPS;

/// Loop passes a pair in reach with a box can cost thread 0 in a phase of `finish_bodies`: its
/// turn in the walk over the pairs, two boxes' eight corners (each loop a pass more to leave),
/// then up to sixteen pushes or contacts.
const BOX_PAIR_LOOP_PASSES: u64 = 1 + 2 * 9 + 17;

/// Loop passes a pair in reach of round bodies (balls, capsules) can cost thread 0 in a phase of
/// `finish_bodies`: its turn in the walk and its one push or contact, with room to spare (48
/// capsules all in reach spent about 49 000 of llvmpipe's budget in the eleven phases).
const ROUND_PAIR_LOOP_PASSES: u64 = 5;

/// Pairs of `n` bodies.
fn pairs_of(n: u64) -> u64 {
    n * n.saturating_sub(1) / 2
}

/// `finish_bodies`' [`FINISH_PHASES`] over `bodies` in dispatches of one workgroup: all in one
/// on a GPU; on a CPU adapter, as many a dispatch as keep thread 0's walks over the pairs within
/// its loop budget should every pair be in reach (llvmpipe ends an invocation's loops silently
/// past it: [`crate::passes::plan::CPU_LOOP_BUDGET`]). A dispatch whose invocation passes it
/// anyway (thousands of pairs in reach, many colliders) is counted ([`crate::Overflows::bodies`]).
pub(crate) fn push_finish_phases(plan: &mut FramePlan, info: DispatchInfo, bodies: BodyCount) {
    let (count, round) = (bodies.bodies as u64, (bodies.bodies - bodies.boxes) as u64);
    let (pairs, round_pairs) = (pairs_of(count), pairs_of(round));
    let phase_cost = count + (pairs - round_pairs) * BOX_PAIR_LOOP_PASSES + round_pairs * ROUND_PAIR_LOOP_PASSES;
    let per_dispatch = match plan.facts.loop_budget() {
        Some(budget) => (budget / phase_cost).clamp(1, u64::from(FINISH_PHASES)) as u32,
        None => FINISH_PHASES,
    };
    for first in (0..FINISH_PHASES).step_by(per_dispatch as usize) {
        let iterations = per_dispatch.min(FINISH_PHASES - first);
        plan.push(FINISH_BODIES, DispatchInfo { first_iteration: first, iterations, ..info }, [1, 1]);
    }
}

/// What `finish_bodies` keeps between its phases (`BodyPairs` in WGSL, before its list of pairs
/// in reach, [`pairs::REACH_CAPACITY`] of them).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuBodyPairsHead {
    /// Invocations of `finish_bodies` a CPU driver's loop limit cut short
    /// ([`crate::Overflows::bodies`]).
    pub cut_short: u32,
    /// The pairs in reach in the substep, listed or not.
    pub listed: u32,
    /// The bodies a pair pushed in the substep, a bit each.
    pub pushed: [u32; PUSHED_WORDS],
}

/// Words of [`GpuBodyPairsHead::pushed`]: a bit per body.
const PUSHED_WORDS: usize = MAX_BODIES / 32;

impl GpuBodyPairsHead {
    /// The layout its WGSL twin (the members before the pairs) must have.
    pub const LAYOUT: StructLayout =
        struct_layout!(GpuBodyPairsHead as "BodyPairs" tail "pairs", cut_short, listed, pushed);
}

/// Bytes of the `body_pairs` buffer: its head and the list of pairs in reach.
const BODY_PAIRS_BYTES: u64 = (size_of::<GpuBodyPairsHead>() + pairs::REACH_CAPACITY as usize * 4) as u64;

/// The `bodies` module: the bodies' prediction, the particles' contacts with them and their
/// solve.
fn bodies_shader() -> Shader {
    Shader {
        label: "bodies",
        constants: [
            collision::wgsl_constants(),
            vec![
                Constant::u32("CORE_SEARCH_STEPS", CORE_SEARCH_STEPS),
                Constant::u32("MAX_CORES", MAX_CORES as u32),
                Constant::u32("COLLIDER_SWEEPS", COLLIDER_SWEEPS),
                Constant::u32("MAX_BODIES", MAX_BODIES as u32),
                Constant::f32("PAIR_CONTACT_SLOP", pairs::PAIR_CONTACT_SLOP),
                Constant::f32("INVERSE_GOLDEN_RATIO", INVERSE_GOLDEN_RATIO),
                Constant::u32("VELOCITY_SWEEPS", velocities::VELOCITY_SWEEPS),
                Constant::u32("REACH_CAPACITY", pairs::REACH_CAPACITY),
                Constant::u32("PUSHED_WORDS", PUSHED_WORDS as u32),
            ],
        ]
        .concat(),
        groups: vec![&BODIES],
        parts: vec![
            Part::File(collision::WGSL),
            Part::File(wgsl_file!("passes/bodies.wgsl")),
            Part::File(wgsl_file!("passes/body_ropes.wgsl")),
            Part::File(wgsl_file!("passes/body_pairs.wgsl")),
        ],
        structs: vec![
            GpuCollider::LAYOUT,
            GpuColliderListHead::LAYOUT,
            GpuBody::LAYOUT,
            GpuBodyAttachment::LAYOUT,
            GpuBodyRope::LAYOUT,
            GpuBodyPairsHead::LAYOUT,
        ],
        block: Some(("bodies", GpuBodiesBlock::LAYOUT)),
        kernels: vec![
            Kernel { uses: Some(&["bodies"]), ..Kernel::plain(PREDICT_BODIES) },
            Kernel { uses: Some(PARTICLE_USES), ..Kernel::plain(COUNT_BODY_CONTACTS) },
            Kernel { uses: Some(&["bodies", "body_partials"]), ..Kernel::plain(SUM_BODY_CONTACTS) },
            Kernel { uses: Some(PARTICLE_USES), ..Kernel::plain(BODY_CONTACTS) },
            Kernel {
                uses: Some(&["bodies", "body_partials", "collider_list", "distance_fields", "body_snapshots"]),
                ..Kernel::plain(SOLVE_BODIES)
            },
            Kernel {
                uses: Some(&[
                    "bodies",
                    "body_ropes",
                    "collider_list",
                    "distance_fields",
                    "body_snapshots",
                    "body_pairs",
                ]),
                ..Kernel::plain(FINISH_BODIES)
            },
        ],
    }
}

/// What the particles' kernels bind of [`BODIES`].
const PARTICLE_USES: &[&str] = &["positions", "velocities", "bodies", "body_partials", "body_attachments"];

/// `BodiesBlock` in WGSL: what the kernels read of the bodies.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuBodiesBlock {
    /// The bodies' acceleration (m/s²): the parameters' gravity.
    pub gravity: [f32; 3],
    /// The bodies.
    pub count: u32,
    /// The distance kept between particles and bodies (m): the collision margin.
    pub margin: f32,
    /// The particles' workgroups: each body's partial sums.
    pub partial_stride: u32,
    /// The particles attached to bodies (none: the kernels leave `body_attachments` unread).
    pub attached: u32,
    /// The ropes holding bodies ([`ropes`]).
    pub ropes: u32,
    /// 2: the passes of the loop that tells whether a CPU driver's loop limit cut
    /// `finish_bodies` short (`count_if_cut_short` in WGSL; read here so no compiler unrolls it).
    pub probe_passes: u32,
    /// Pads the block to its WGSL size.
    pub _pad: [u32; 3],
}

impl GpuBodiesBlock {
    /// The layout its WGSL twin must have.
    pub const LAYOUT: StructLayout = struct_layout!(
        GpuBodiesBlock as "BodiesBlock",
        gravity,
        count,
        margin,
        partial_stride,
        attached,
        ropes,
        probe_passes
    );
}

/// Group 1 of the bodies' kernels.
static BODIES: BindingTable = BindingTable {
    label: "bodies",
    bindings: &[
        Binding::read("positions", "array<vec4<f32>>", 16, "x: positions at the start of the substep (w = 1)."),
        Binding::read_write("velocities", "array<vec4<f32>>", 16, super::VELOCITIES),
        Binding::read_write(
            "bodies",
            "array<Body>",
            size_of::<GpuBody>() as u64,
            "The bodies (src/bodies.rs): each one's state, shape and material.",
        ),
        Binding::read_write(
            "body_partials",
            "array<BodyShare>",
            32,
            "Each body's shares of the substep from each workgroup of particles, body after body.",
        ),
        Binding::read(
            "body_attachments",
            "array<BodyAttachment>",
            size_of::<GpuBodyAttachment>() as u64,
            "Each particle's attachment to a body (src/passes/bodies/attachments.rs), read only while\n\
             one is attached.",
        ),
        Binding::read_write(
            "collider_list",
            "ColliderList",
            (size_of::<GpuColliderListHead>() + size_of::<GpuCollider>()) as u64,
            "The colliders over the frame.",
        ),
        super::DISTANCE_FIELDS,
        Binding::read(
            "body_ropes",
            "array<BodyRope>",
            size_of::<GpuBodyRope>() as u64,
            "The ropes holding bodies (src/passes/bodies/ropes.rs).",
        ),
        Binding::read_write(
            "body_snapshots",
            "array<Body>",
            size_of::<GpuBody>() as u64,
            "Each body as the colliders met it in the substep, then each as the pairs met it: where\n\
             their contacts are found again at the velocity level (src/passes/bodies/velocities.rs);\n\
             then the pairs' pass replayed for their friction (src/passes/bodies/pairs.rs); then\n\
             each body a pair pushed as it met the colliders again.",
        ),
        Binding::read_write(
            "body_pairs",
            "BodyPairs",
            BODY_PAIRS_BYTES,
            "What finish_bodies keeps between its phases: the pairs in reach, the bodies they\n\
             pushed, and the invocations a CPU driver's loop limit cut short.",
        ),
    ],
};
