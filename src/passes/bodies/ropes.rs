//! Bodies hung from fixed points of the world by ropes: a one-sided distance limit between a
//! point of the body and an anchor, `|p − a| ≤ L`, solved each substep once the body has met
//! the particles and the colliders, before the bodies meet each other. A taut rope pulls the
//! body's point back to its length along the rope, `λ = C/w_b(r, n)` with `C = |p − a| − L`
//! and the body's generalised inverse mass `w_b` at its point (the XPBD rigid-body notes, §3.3,
//! with zero compliance: a rope does not stretch); a slack one does nothing.
//!
//! Of length zero it is a ball joint: the body turns about a point held where the anchor is (a
//! pendulum's pivot, or the mouse dragging it), and the joint pushes whichever way closes the
//! gap `g`, by the impulse `−K⁻¹g` for the point's inverse mass matrix
//! `K = 𝟙/m − [r]× I⁻¹ [r]×`. Solved along the gap alone, as a rope is, the point would slip
//! sideways by a share of the gap: a spinning ball held at its surface drifted 0.14 mm off its
//! anchor.
//!
//! A swing on a rope loses about `(ωh)²` of its energy each substep, as any position-based
//! constraint's does (velocities are taken from the projected positions): first order in the
//! substep, 4.3 % of a 1 m pendulum's amplitude in three periods at 10 substeps of a 60 Hz
//! frame; a ball spinning at 15 rad/s held at its surface loses 6.9 % of its angular momentum
//! about the anchor's vertical in a second. WGSL twin: `shaders/passes/body_ropes.wgsl`.

use crate::bodies::BodyState;
use crate::error::{Error, ParamError};
use crate::math::{DENOMINATOR_EPSILON, GEOMETRY_EPSILON};
use crate::struct_layout;
use crate::wgsl::StructLayout;
use bytemuck::{Pod, Zeroable};
use glam::Vec3;

/// The most ropes a solver holds: one thread solves them all, in order.
pub const MAX_ROPES: usize = 4096;

/// A rope from a fixed point of the world to a point of a body.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BodyRope {
    /// The body (an index into the solver's bodies).
    pub body: u32,
    /// The point it holds, in the body's own frame (m): `Pose::to_local` of a world point where
    /// the body was set.
    pub point: Vec3,
    /// Where the rope is tied, in the world (m).
    pub anchor: Vec3,
    /// Its length (m): the farthest the point gets from the anchor; zero holds the point there.
    pub length: f32,
}

/// A rope as the GPU reads it (`BodyRope` in `shaders/passes/body_ropes.wgsl`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuBodyRope {
    /// The point in the body's frame (m).
    pub point: [f32; 3],
    /// The body.
    pub body: u32,
    /// The anchor in the world (m).
    pub anchor: [f32; 3],
    /// The rope's length (m).
    pub length: f32,
}

impl GpuBodyRope {
    /// The layout its WGSL twin must have.
    pub const LAYOUT: StructLayout = struct_layout!(GpuBodyRope as "BodyRope", point, body, anchor, length);

    /// The record of `rope`.
    pub fn new(rope: &BodyRope) -> Self {
        Self { point: rope.point.to_array(), body: rope.body, anchor: rope.anchor.to_array(), length: rope.length }
    }
}

/// Checks `ropes` against a solver of `bodies` bodies: at most [`MAX_ROPES`], each to one of its
/// bodies, with finite points and a finite length of at least zero.
pub(crate) fn validate_ropes(ropes: &[BodyRope], bodies: usize) -> Result<(), Error> {
    let refuse = |name, value: String, expected| Err(ParamError { name, value, expected }.into());
    if ropes.len() > MAX_ROPES {
        return refuse("body_ropes", ropes.len().to_string(), "at most MAX_ROPES (4096)");
    }
    for rope in ropes {
        if rope.body as usize >= bodies {
            return refuse("body_rope.body", rope.body.to_string(), "one of the solver's bodies");
        }
        if !rope.point.is_finite() {
            return refuse("body_rope.point", rope.point.to_string(), "finite");
        }
        if !rope.anchor.is_finite() {
            return refuse("body_rope.anchor", rope.anchor.to_string(), "finite");
        }
        if !(rope.length.is_finite() && rope.length >= 0.0) {
            return refuse("body_rope.length", rope.length.to_string(), "finite and at least 0");
        }
    }
    Ok(())
}

/// `body` held by `rope` where the substep left it: a taut rope pulls its point back to the
/// rope's length, `λ = C/w_b(r, n)` along the rope at the point's arm `r`.
pub fn hold_by_rope(body: &mut BodyState, rope: &BodyRope) {
    let pose = body.pose();
    let p = pose.to_world(rope.point);
    let reach = p - rope.anchor;
    let distance = reach.length();
    let stretch = distance - rope.length;
    if distance <= GEOMETRY_EPSILON || stretch <= 0.0 {
        return;
    }
    let r = p - pose.translation;
    if rope.length == 0.0 {
        body.apply_impulse(joint_impulse(body, r, reach), r);
        return;
    }
    let n = reach / distance;
    let lambda = stretch / body.inverse_mass_at(r, n).max(DENOMINATOR_EPSILON);
    body.apply_impulse(-n * lambda, r);
}

/// The impulse at `body`'s point at arm `r` that moves the point by `−gap` (to first order):
/// `−K⁻¹ gap`. `K` is taken as `m K = 𝟙 − m [r]× I⁻¹ [r]×`, whose eigenvalues are at least 1
/// (its determinant cannot vanish or underflow), inverted by its columns' cross products.
pub fn joint_impulse(body: &BodyState, r: Vec3, gap: Vec3) -> Vec3 {
    let (rotation, mass) = (body.pose().rotation, 1.0 / body.inverse_mass);
    let column = |e: Vec3| e - r.cross(body.inverse_inertia_times(rotation, r.cross(e))) * mass;
    let (k0, k1, k2) = (column(Vec3::X), column(Vec3::Y), column(Vec3::Z));
    let (c0, c1, c2) = (k1.cross(k2), k2.cross(k0), k0.cross(k1));
    let determinant = k0.dot(c0);
    if determinant.is_nan() || determinant <= 0.0 {
        return Vec3::ZERO;
    }
    -Vec3::new(c0.dot(gap), c1.dot(gap), c2.dot(gap)) * (mass / determinant)
}

/// Every body of `bodies` held by its ropes, rope by rope in order (Gauss-Seidel).
pub fn hold_by_ropes(bodies: &mut [BodyState], ropes: &[BodyRope]) {
    for rope in ropes {
        if let Some(body) = bodies.get_mut(rope.body as usize) {
            hold_by_rope(body, rope);
        }
    }
}
