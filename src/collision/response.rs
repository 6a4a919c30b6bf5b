//! The collision response of a free particle over a substep (PBD Alg. 1 lines 8, 12–16): the
//! colliders near it ([`near_colliders`], at most [`MAX_NEAR_COLLIDERS`]), static friction on
//! positions ([`stick`], [`contacts_static_friction`]), dynamic friction and restitution on the
//! velocity ([`contact_velocity`]) and all of it together ([`respond_to_colliders`]). WGSL twin:
//! the response section of `shaders/collision.wgsl` (`stick`, `NearColliders`, `near_colliders`,
//! `contacts_renumbered`, `contacts_static_friction`, `contact_velocity`, `Response`,
//! `respond_to_colliders`).

use super::contacts::{resolve_contacts, Contacts, HalfSpace};
use super::motion::MovingCollider;
use crate::math::{DENOMINATOR_EPSILON, GEOMETRY_EPSILON};
use glam::Vec3;

/// The most colliders one particle meets in one substep: those whose surface lies within its
/// reach ([`near_colliders`]). A solver takes any number of colliders; a particle near more
/// takes the first ones in list order and the substep is counted as an overflow
/// ([`crate::metrics::Overflows::colliders`]).
pub const MAX_NEAR_COLLIDERS: usize = 8;

/// Static friction on positions (XPBD rigid bodies §3.5): the particle's motion over the
/// substep `q` along the contacts' common tangent space (the plane of one contact, the line of
/// two, nothing for three) is undone when it is shorter than `μ_s` times the normal push — the
/// friction impulse it needs is within `μ_s` times the normal one. What it removes is orthogonal
/// to every contact normal, so the particle stays in every active half-space.
pub fn stick(q: Vec3, contacts: &Contacts, static_friction: f32) -> Vec3 {
    let n = contacts.normals;
    let tangential = match contacts.count {
        0 => return q,
        1 => q - n[0] * q.dot(n[0]),
        2 => {
            let axis = n[0].cross(n[1]);
            let t = axis / axis.length().max(GEOMETRY_EPSILON);
            t * q.dot(t)
        }
        _ => Vec3::ZERO,
    };
    if tangential.length() < static_friction * contacts.displacement().length() {
        q - tangential
    } else {
        q
    }
}

/// Velocity response of a particle in contact (PBD Alg. 1 line 16): dynamic Coulomb friction
/// removes up to `friction·depth/h` of the tangential speed (the normal push `depth` over `h`
/// is the normal impulse per unit mass, XPBD rigid bodies §3.6), and the normal speed becomes
/// `max(−e·v̄_n, 0)` of the approach speed `v̄_n` (the velocity before the contact response),
/// with `e = 0` when `|v̄_n| ≤ threshold` (`2|g|h`, against jitter).
#[allow(clippy::too_many_arguments)]
pub fn contact_velocity(
    v: Vec3,
    v_before: Vec3,
    normal: Vec3,
    depth: f32,
    h: f32,
    friction: f32,
    restitution: f32,
    restitution_threshold: f32,
) -> Vec3 {
    let vn = v.dot(normal);
    let vt = v - normal * vn;
    let vt_length = vt.length();
    let vt = if vt_length > GEOMETRY_EPSILON {
        vt * (1.0 - friction * depth / (h * vt_length)).max(0.0)
    } else {
        Vec3::ZERO
    };
    let vn_before = v_before.dot(normal);
    let e = if vn_before.abs() > restitution_threshold { restitution } else { 0.0 };
    vt + normal * (-e * vn_before).max(0.0)
}

/// What the collision response needs of the parameters besides the colliders' materials
/// ([`crate::SolverParams::contact_response`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactResponse {
    /// Substep length (s).
    pub h: f32,
    /// The normal speed below which restitution is off: `2|g|h`.
    pub restitution_threshold: f32,
}

/// The half-spaces of the colliders near one particle in one substep, in list order, with the
/// index of the collider each came from.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct NearColliders {
    /// Their half-spaces; the first `count` are in use.
    pub spaces: [HalfSpace; MAX_NEAR_COLLIDERS],
    /// The collider each came from.
    pub ids: [usize; MAX_NEAR_COLLIDERS],
    /// How many are in use.
    pub count: usize,
    /// Whether more colliders were near than fit (those after the first
    /// [`MAX_NEAR_COLLIDERS`] were left out).
    pub overflow: bool,
}

/// The colliders a particle that starts the substep at `x` and moves by `q` may meet, with their
/// half-spaces ([`Motion::half_space`]): those whose swept bounding sphere the path passes
/// within `reach` of, and whose half-space boundary lies within `reach` of `x + q` or beyond,
/// with `reach = |q| + margin`. Further surfaces cannot take part in the projection of a
/// particle that moved by `q` (the broad phase also spares a far box or capsule its sphere
/// tracing). More than [`MAX_NEAR_COLLIDERS`] sets [`NearColliders::overflow`].
///
/// [`Motion::half_space`]: crate::collision::Motion::half_space
pub fn near_colliders(x: Vec3, q: Vec3, colliders: &[MovingCollider]) -> NearColliders {
    let mut near = NearColliders::default();
    let travel = q.length();
    for (id, collider) in colliders.iter().enumerate() {
        let margin = collider.material.collision_margin;
        let reach = travel + margin;
        if collider.bounds.is_some_and(|bounds| !bounds.meets_path(x, q, reach)) {
            continue;
        }
        let space = collider.motion.half_space(&collider.shape, x, q, margin);
        if space.offset - space.normal.dot(x + q) <= -reach {
            continue;
        }
        if near.count == MAX_NEAR_COLLIDERS {
            near.overflow = true;
            break;
        }
        (near.spaces[near.count], near.ids[near.count]) = (space, id);
        near.count += 1;
    }
    near
}

/// The static friction of the active contacts together: each contact's coefficient weighted by
/// its push (so the friction they can hold is the sum of what each can), exactly the common
/// coefficient when they share one. The contacts' sources index `colliders`.
pub fn contacts_static_friction(contacts: &Contacts, colliders: &[MovingCollider]) -> f32 {
    let friction = |k: usize| colliders[contacts.source(k)].material.static_friction;
    let mut weighted = 0.0;
    let mut pushes = 0.0;
    let mut shared = true;
    for k in 0..contacts.count {
        weighted += friction(k) * contacts.depths[k];
        pushes += contacts.depths[k];
        shared &= friction(k) == friction(0);
    }
    match contacts.count {
        0 => 0.0,
        _ if shared => friction(0),
        _ => weighted / pushes.max(DENOMINATOR_EPSILON),
    }
}

/// A free particle's collision response over a substep.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Response {
    /// Its displacement over the substep (m).
    pub q: Vec3,
    /// Its velocity at the end of the substep (m/s).
    pub v: Vec3,
    /// Whether more colliders were near it than [`MAX_NEAR_COLLIDERS`].
    pub overflow: bool,
}

/// The end of a substep for a free particle that started it at `x` and moved by `q` (PBD Alg. 1
/// lines 8, 12–16), against `colliders` over the substep: the contact projection against the
/// half-spaces of the colliders near it ([`near_colliders`]), each grown by its margin
/// ([`resolve_contacts`]), static friction on the motion relative to the surfaces touched
/// (their mean displacement at the particle, their coefficients weighted by push; [`stick`])
/// and the projection again (static friction only undoes motion along the contacts, but a
/// third collider may lie in the way), then `v = q/h` with each contact's dynamic friction and
/// restitution on the velocity relative to its surface. At rest, every surface velocity is zero
/// and this is the static response.
///
/// A particle that starts outside every collider (as every substep leaves it) ends outside
/// every collider near it, by at least the margin: each half-space lies outside its convex
/// collider. A particle near more than [`MAX_NEAR_COLLIDERS`] colliders (an overflow, counted)
/// ignores those after the first ones in list order.
/// One that starts inside (a collider was moved onto it) is pushed to the surface point closest
/// to where it went; where two colliders overlap it may take a few substeps to get out.
pub fn respond_to_colliders(x: Vec3, q: Vec3, colliders: &[MovingCollider], response: &ContactResponse) -> Response {
    let near = near_colliders(x, q, colliders);
    let spaces = &near.spaces[..near.count];
    let contacts = resolve_contacts(x + q, spaces).renumbered(&near.ids);
    let pushed = q + contacts.displacement();
    let mut surface = Vec3::ZERO;
    for k in 0..contacts.count {
        surface += colliders[contacts.source(k)].motion.velocity(x + pushed, response.h) * response.h;
    }
    let surface = surface / contacts.count.max(1) as f32;
    let stuck = surface + stick(pushed - surface, &contacts, contacts_static_friction(&contacts, colliders));
    let settled = stuck + resolve_contacts(x + stuck, spaces).displacement();
    let approach = q / response.h;
    let mut v = settled / response.h;
    for k in 0..contacts.count {
        let MovingCollider { motion, material, .. } = &colliders[contacts.source(k)];
        let carried = motion.velocity(x + settled, response.h);
        v = carried
            + contact_velocity(
                v - carried,
                approach - carried,
                contacts.normals[k],
                contacts.depths[k],
                response.h,
                material.dynamic_friction,
                material.restitution,
                response.restitution_threshold,
            );
    }
    Response { q: settled, v, overflow: near.overflow }
}
