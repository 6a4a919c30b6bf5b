//! The collision response of a free particle over a substep (PBD Alg. 1 lines 8, 12–16): the
//! colliders near it ([`near_colliders`], at most [`MAX_NEAR_COLLIDERS`]), static friction on
//! positions ([`stick`], [`contacts_static_friction`]), dynamic friction and restitution on the
//! velocity ([`contact_velocity`]) and all of it together ([`respond_to_colliders`]). WGSL twin:
//! the response section of `shaders/collision.wgsl` (`stick`, `NearColliders`, `near_colliders`,
//! `contacts_renumbered`, `contacts_static_friction`, `contact_velocity`, `Response`,
//! `respond_to_colliders`).

use super::contacts::{resolve_contacts, Contacts, HalfSpace};
use super::motion::{Motion, MovingCollider};
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

/// Contacts a particle keeps during a substep's iterations: the half-spaces its predicted path
/// meets (PBD Alg. 1 line 10 projects the collision constraints with the others, inside the
/// loop), at most this many, the most violated at the predicted position first. Finalize still
/// resolves every collider near the particle's final path.
pub const ITERATION_CONTACTS: usize = 2;
// `substep_contacts` and its WGSL twin keep the two best by insertion.
const _: () = assert!(ITERATION_CONTACTS == 2);

/// An unused slot of [`SubstepContacts`]; colliders from this index on are left to finalize
/// (a slot's collider takes 16 bits on the GPU).
pub const NO_COLLIDER: u32 = 0xffff;

/// One particle's contacts in the iterations of a substep ([`substep_contacts`]), which
/// finalize's friction reads ([`respond_to_colliders`]). `SubstepContacts` on the GPU, whose
/// record also carries the particle's predicted displacement (the CPU reference keeps it in
/// [`crate::constraints::SolveState::predicted`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SubstepContacts {
    /// The half-spaces, slots in use first.
    pub spaces: [HalfSpace; ITERATION_CONTACTS],
    /// The collider of each slot, [`NO_COLLIDER`] where unused.
    pub colliders: [u32; ITERATION_CONTACTS],
}

impl Default for SubstepContacts {
    fn default() -> Self {
        Self { spaces: [HalfSpace::default(); ITERATION_CONTACTS], colliders: [NO_COLLIDER; ITERATION_CONTACTS] }
    }
}

impl SubstepContacts {
    /// Slots in use.
    pub fn count(&self) -> usize {
        self.colliders.iter().take_while(|&&c| c != NO_COLLIDER).count()
    }

    /// What each slot's contact took from the motion `predicted` from `x`, as
    /// [`Contacts::with_pushes`] takes it: how deep the predicted position lay in its half-space
    /// (the normal impulse that stopped the particle's own motion, gravity's included), for the
    /// used slots of colliders in a list of `collider_count`.
    fn predicted_pushes(
        &self,
        x: Vec3,
        predicted: Vec3,
        collider_count: usize,
    ) -> impl Iterator<Item = (Vec3, f32, usize)> + '_ {
        (0..self.count()).filter_map(move |s| {
            let space = self.spaces[s];
            let depth = space.offset - space.normal.dot(x + predicted);
            let usable = (self.colliders[s] as usize) < collider_count && depth > 0.0;
            usable.then_some((space.normal, depth, self.colliders[s] as usize))
        })
    }
}

/// The contacts of a free particle that starts the substep at `x` with the predicted
/// displacement `q`: of the colliders near its path ([`near_colliders`]) before
/// [`NO_COLLIDER`], the [`ITERATION_CONTACTS`] whose half-spaces the predicted position
/// violates most (the least clear, where none is violated; ties in list order).
pub fn substep_contacts(x: Vec3, q: Vec3, colliders: &[MovingCollider]) -> SubstepContacts {
    let near = near_colliders(x, q, colliders);
    let mut found = SubstepContacts::default();
    let violation = |space: HalfSpace| space.offset - space.normal.dot(x + q);
    for k in 0..near.count {
        let (space, id) = (near.spaces[k], near.ids[k] as u32);
        if id >= NO_COLLIDER {
            continue;
        }
        let beats = [0, 1].map(|s| found.colliders[s] == NO_COLLIDER || violation(space) > violation(found.spaces[s]));
        if beats[0] {
            (found.spaces[1], found.colliders[1]) = (found.spaces[0], found.colliders[0]);
            (found.spaces[0], found.colliders[0]) = (space, id);
        } else if beats[1] {
            (found.spaces[1], found.colliders[1]) = (space, id);
        }
    }
    found
}

/// One iteration's contact projection of a free particle at `x + q`: the closest point inside
/// its substep contacts' half-spaces ([`resolve_contacts`]). Returns the new displacement.
pub fn project_substep_contacts(x: Vec3, q: Vec3, contacts: &SubstepContacts) -> Vec3 {
    q + resolve_contacts(x + q, &contacts.spaces[..contacts.count()]).displacement()
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

/// The end of a substep for a free particle that started it at `x`, was predicted to move by
/// `predicted` and moved by `q` (PBD Alg. 1 lines 8, 12–16), against `colliders` over the
/// substep (after the iterations projected its substep contacts `earlier`, when they did): the
/// contact projection against the half-spaces of the colliders near it ([`near_colliders`]),
/// each grown by its margin ([`resolve_contacts`]), static friction on the motion relative to
/// the surfaces touched (their mean displacement at the particle, their coefficients weighted by
/// push; [`stick`]) and the projection again (static friction only undoes motion along the
/// contacts, but a third collider may lie in the way), then `v = q/h` with each contact's
/// dynamic friction and restitution on the velocity relative to its surface. With `earlier`,
/// friction reads the normal impulse that stopped the particle's own predicted motion (the
/// iterations took it out before this push) and this push ([`Contacts::with_pushes`]): the
/// particle's weight and impact, and the pull of the passes after the iterations. Not the sum of
/// the iterations' pushes, which grows with the iterations where constraints and contacts trade
/// the same millimetres back and forth on a curved collider (at 10 iterations it held the
/// benchmark cloth stuck to its sphere). Restitution reverses the normal velocity from before the
/// solve, `predicted / h` (XPBD §3.6): what the constraints add to a particle's motion into a
/// contact does not bounce it. At rest, every surface velocity is zero and this is the static
/// response.
///
/// A particle that starts outside every collider (as every substep leaves it) ends outside
/// every collider near it, by at least the margin: each half-space lies outside its convex
/// collider. A particle near more than [`MAX_NEAR_COLLIDERS`] colliders (an overflow, counted)
/// ignores those after the first ones in list order.
/// One that starts inside (a collider was moved onto it) is pushed to the surface point closest
/// to where it went; where two colliders overlap it may take a few substeps to get out.
pub fn respond_to_colliders(
    x: Vec3,
    q: Vec3,
    predicted: Vec3,
    earlier: Option<&SubstepContacts>,
    colliders: &[MovingCollider],
    response: &ContactResponse,
) -> Response {
    let near = near_colliders(x, q, colliders);
    let spaces = &near.spaces[..near.count];
    let last = resolve_contacts(x + q, spaces).renumbered(&near.ids);
    let pushed = q + last.displacement();
    let contacts = match earlier {
        Some(earlier) => last.with_pushes(earlier.predicted_pushes(x, predicted, colliders.len())),
        None => last,
    };
    let mut surface = Vec3::ZERO;
    for k in 0..contacts.count {
        surface += colliders[contacts.source(k)].motion.velocity(x + pushed, response.h) * response.h;
    }
    let surface = surface / contacts.count.max(1) as f32;
    let stuck = surface + stick(pushed - surface, &contacts, contacts_static_friction(&contacts, colliders));
    let settled = stuck + resolve_contacts(x + stuck, spaces).displacement();
    let approach = predicted / response.h;
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

/// Whether a free particle at `x` starts the frame inside one of `colliders` at its pose at the
/// frame's start: deeper than its margin behind the half-space of the collider's surface point
/// closest to `x` (the half-space of a particle that does not move). A particle resting on a
/// collider lies on the half-space's boundary, the margin outside the surface.
pub fn starts_inside(x: Vec3, colliders: &[MovingCollider]) -> bool {
    colliders.iter().any(|collider| {
        let margin = collider.material.collision_margin;
        let space = Motion::still(collider.motion.start).half_space(&collider.shape, x, Vec3::ZERO, margin);
        space.offset - space.normal.dot(x) > margin
    })
}

/// The most speed a free particle may end substep `substep` (of substep length `h`) with in a
/// frame in which a particle started inside a collider: its speed at the frame's start
/// `start_speed`, plus `max_speed` ([`crate::SolverParams::max_depenetration_speed`]), plus
/// what an acceleration of `acceleration` (m/s², gravity and the external one) adds by then.
pub fn depenetration_speed_limit(start_speed: f32, max_speed: f32, acceleration: f32, h: f32, substep: u32) -> f32 {
    start_speed + max_speed + acceleration * h * (substep + 1) as f32
}

/// `v` shortened to at most `limit` long (as it is for an infinite limit, or a NaN `v`).
pub fn limit_speed(v: Vec3, limit: f32) -> Vec3 {
    let speed = v.length();
    if speed > limit {
        v * (limit / speed)
    } else {
        v
    }
}
