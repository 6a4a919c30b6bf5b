//! The collision constraints and their projection (PBD §3.4): the [`HalfSpace`] a particle must
//! end in outside each collider grown by its margin (exact for a plane or sphere, found by sphere
//! tracing for the other shapes: [`Collider::half_space`]), and the closest point inside every
//! half-space at once ([`resolve_contacts`]), with the [`Contacts`] that acted. WGSL twin: the
//! half-space sections of `shaders/collision.wgsl` (`HalfSpace`, `Contacts`, `plane_half_space`,
//! `sphere_half_space`, then `traced_half_space`, `passes_through`, `half_space`) and its
//! contact section (`contacts_*`, `contacts_solve`, `resolve_contacts`).

use super::shapes::Collider;
use crate::math::{DENOMINATOR_EPSILON, GEOMETRY_EPSILON};
use glam::Vec3;

/// A linear collision constraint `normal·p ≥ offset` (PBD §3.4, `C(p) = n·p − d ≥ 0`): a
/// half-space outside a collider grown by the margin, so that every position in it keeps at
/// least the margin from the collider's surface.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct HalfSpace {
    /// Unit normal, out of the collider.
    pub normal: Vec3,
    /// `normal·p` on the boundary (m).
    pub offset: f32,
}

/// The plane's own half-space, moved out by `margin`.
pub fn plane_half_space(normal: Vec3, offset: f32, margin: f32) -> HalfSpace {
    HalfSpace { normal, offset: offset + margin }
}

/// The half-space behind the plane tangent to the sphere grown by `margin` (radius
/// `r = radius + margin`) where the particle meets it (PBD §3.4): at the entry point of the
/// segment `x → x + q` when `x` starts outside and the segment enters (continuous collision: a
/// fast particle cannot pass through), otherwise at the surface point closest to `x + q`. The
/// sphere is convex, so the half-space lies outside it.
///
/// The entry is the smaller root of `|x − c + s·q|² = r²`, computed as
/// `s = c₀/(√(b² − a·c₀) − b)` with `a = |q|²`, `b = (x − c)·q`, `c₀ = |x − c|² − r²`: the
/// stable form of the quadratic formula, without cancellation when `x` lies on the surface
/// (`c₀ ≈ 0`). The displacement `q` is given rather than the end point so that nothing
/// recomputes it as a difference of metre-scale coordinates.
pub fn sphere_half_space(x: Vec3, q: Vec3, center: Vec3, radius: f32, margin: f32) -> HalfSpace {
    let r = radius + margin;
    let relative = x - center;
    let outside = relative.length_squared() - r * r;
    let along = relative.dot(q);
    let discriminant = along * along - q.length_squared() * outside;
    let entry = outside / (discriminant.max(0.0).sqrt() - along).max(DENOMINATOR_EPSILON);
    let enters = outside >= 0.0 && along < 0.0 && discriminant >= 0.0 && entry <= 1.0;
    let touch = if enters { relative + q * entry } else { relative + q };
    let length = touch.length();
    let normal = if length > GEOMETRY_EPSILON { touch / length } else { Vec3::Y };
    HalfSpace { normal, offset: normal.dot(center) + r }
}

/// Steps of the continuous collision search along a particle's path ([`traced_half_space`]).
pub const TRACE_STEPS: u32 = 16;

/// A path point within this of the grown surface counts as the entry (m).
pub const TRACE_TOLERANCE: f32 = 1e-5;

/// The half-space tangent to a capsule or box grown by `margin` where the particle meets it
/// (PBD §3.4): at the entry point of `x → x + q` when `x` starts outside and the path enters
/// (continuous collision), otherwise at the surface point closest to `x + q`. The entry is
/// found by sphere tracing: from `s = 0`, step `s += d(x + s·q)/|q|`, where `d` is the exact
/// distance to the grown surface, so no step crosses it; at most [`TRACE_STEPS`] steps, a hit
/// once `d ≤` [`TRACE_TOLERANCE`]. A path straight at a face stops in one step; one at a
/// glancing angle closes in more slowly, and if it has not arrived by the last step but ends
/// inside, or passes through the shape and out (`passes_through`), the last point traced,
/// short of the surface on the near side, is the contact. The plane through the grown surface
/// point nearest the contact point, with its normal, supports the convex shape, so it lies
/// outside it.
pub fn traced_half_space(collider: &Collider, x: Vec3, q: Vec3, margin: f32) -> HalfSpace {
    let length = q.length();
    let start = collider.closest(x);
    let end = collider.closest(x + q);
    let (mut contact, mut point) = (end, x + q);
    if start.distance - margin >= 0.0 && length > GEOMETRY_EPSILON {
        let mut s = 0.0;
        let mut here = start;
        let mut arrived = false;
        for _ in 0..TRACE_STEPS {
            arrived = here.distance - margin <= TRACE_TOLERANCE;
            if arrived {
                break;
            }
            s += (here.distance - margin) / (length * collider.trace_slope());
            if s > 1.0 {
                break;
            }
            here = collider.closest(x + q * s);
        }
        if arrived || (s <= 1.0 && (end.distance - margin < 0.0 || passes_through(collider, x, q, s, margin))) {
            (contact, point) = (here, x + q * s);
        }
    }
    HalfSpace { normal: contact.normal, offset: contact.normal.dot(point) - (contact.distance - margin) }
}

/// Pieces the rest of a glancing path is cut into by `passes_through`.
pub const PASS_PIECES: u32 = 2 * TRACE_STEPS;

/// Whether the rest of the path, `x + q·s` for `s` from `from` to 1, may dip inside the shape
/// grown by `margin`, for a glancing path whose trace ran out of steps and whose end is outside
/// again. The path is cut into [`PASS_PIECES`] pieces; a piece stays out when its ends' heights
/// above the grown surface, `f(a) + f(b)`, exceed what the distance can fall and rise again along
/// it, `slope·|q|·(b − a)` (the distance changes by at most the collider's trace slope per
/// metre), and the path may dip in where a piece cannot be shown out. Conservative for every
/// shape: a search for the least distance assumes one minimum, which a torus's distance along a
/// line across its hole does not have (one over each side of the tube).
fn passes_through(collider: &Collider, x: Vec3, q: Vec3, from: f32, margin: f32) -> bool {
    let height = |s: f32| collider.closest(x + q * s).distance - margin;
    let piece = (1.0 - from) / PASS_PIECES as f32;
    let fall = collider.trace_slope() * q.length() * piece;
    let mut before = height(from);
    for k in 1..=PASS_PIECES {
        let after = height(from + piece * k as f32);
        // A NaN height may dip in too.
        let shown_out = before + after > fall;
        if !shown_out {
            return true;
        }
        before = after;
    }
    false
}

impl Collider {
    /// The half-space a particle that starts the substep at `x` and moves by `q` must end in,
    /// outside this collider grown by `margin` ([`plane_half_space`], [`sphere_half_space`],
    /// [`traced_half_space`]).
    pub fn half_space(&self, x: Vec3, q: Vec3, margin: f32) -> HalfSpace {
        match *self {
            Self::Plane { normal, offset } => plane_half_space(normal, offset, margin),
            Self::Sphere { center, radius } => sphere_half_space(x, q, center, radius, margin),
            _ => traced_half_space(self, x, q, margin),
        }
    }
}

/// Most contacts resolved at once: in three dimensions three independent half-spaces already
/// fix a point.
pub const MAX_CONTACTS: usize = 3;

/// Below this `det` of the contact normals' Gram matrix (`1 − cos²` for two normals, about
/// 0.6° apart) the newest contact alone is kept: nearly parallel half-spaces cannot be solved
/// together, and the newest, the most violated, is the stricter one.
pub const PARALLEL_EPSILON: f32 = 1e-4;

/// The contacts that acted on one particle: the normals of their half-spaces and how far the
/// particle was pushed along each (the contact's normal impulse times `h`, per unit mass).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Contacts {
    /// Unit normals, out of the colliders; the first `count` are in use.
    pub normals: [Vec3; MAX_CONTACTS],
    /// Pushes along the normals (m, ≥ 0).
    pub depths: [f32; MAX_CONTACTS],
    /// How many contacts acted (0 to [`MAX_CONTACTS`]).
    pub count: usize,
    /// The residuals `b_i − n_i·p` of the active half-spaces at the projected point `p`.
    residuals: [f32; MAX_CONTACTS],
    /// Which half-space each contact came from.
    sources: [usize; MAX_CONTACTS],
}

impl Contacts {
    /// The total push `Σ depth_i·normal_i` (m).
    pub fn displacement(&self) -> Vec3 {
        let mut sum = Vec3::ZERO;
        for k in 0..self.count {
            sum += self.normals[k] * self.depths[k];
        }
        sum
    }

    fn push(&mut self, space: HalfSpace, residual: f32, source: usize) {
        let k = self.count;
        (self.normals[k], self.residuals[k], self.sources[k], self.depths[k]) = (space.normal, residual, source, 0.0);
        self.count += 1;
    }

    fn remove(&mut self, k: usize) {
        for i in k..self.count - 1 {
            self.normals[i] = self.normals[i + 1];
            self.residuals[i] = self.residuals[i + 1];
            self.sources[i] = self.sources[i + 1];
        }
        self.count -= 1;
    }

    /// The index of the half-space (the collider) contact `k` came from.
    pub fn source(&self, k: usize) -> usize {
        self.sources[k]
    }

    /// These contacts with the substep's earlier pushes added, each `(normal, depth, source)`:
    /// its depth joins the contact of the same source, or becomes a contact of its own while
    /// fewer than [`MAX_CONTACTS`] act (where friction and restitution read the whole
    /// substep's normal impulse, not only the last push).
    pub fn with_pushes(&self, pushes: impl IntoIterator<Item = (Vec3, f32, usize)>) -> Contacts {
        let mut with = *self;
        for (normal, depth, source) in pushes {
            if let Some(k) = (0..with.count).find(|&k| with.sources[k] == source) {
                with.depths[k] += depth;
            } else if with.count < MAX_CONTACTS {
                with.push(HalfSpace { normal, offset: 0.0 }, 0.0, source);
                with.depths[with.count - 1] = depth;
            }
        }
        with
    }

    /// These contacts with each source `s` renumbered to `ids[s]` (from a list of half-spaces
    /// to the colliders they came from).
    pub fn renumbered(&self, ids: &[usize]) -> Contacts {
        let mut renumbered = *self;
        for k in 0..self.count {
            renumbered.sources[k] = ids[self.sources[k]];
        }
        renumbered
    }

    fn contains(&self, source: usize) -> bool {
        self.sources[..self.count].contains(&source)
    }

    /// Solves the Gram system `Σ_j (n_i·n_j) λ_j = r_i` of the active contacts for their depths,
    /// dropping the oldest contact while the normals are nearly dependent and the most negative
    /// `λ` (a contact that would pull) until every depth is ≥ 0.
    fn solve(&mut self) {
        while self.count > 0 {
            let (n, r) = (self.normals, self.residuals);
            let (g01, g02, g12) = (n[0].dot(n[1]), n[0].dot(n[2]), n[1].dot(n[2]));
            let lambda = match self.count {
                1 => [r[0], 0.0, 0.0],
                2 => {
                    let det = 1.0 - g01 * g01;
                    if det < PARALLEL_EPSILON {
                        self.remove(0);
                        continue;
                    }
                    [(r[0] - g01 * r[1]) / det, (r[1] - g01 * r[0]) / det, 0.0]
                }
                _ => {
                    // Cramer's rule on the symmetric 3 × 3 Gram matrix (unit diagonal).
                    let c00 = 1.0 - g12 * g12;
                    let c01 = g02 * g12 - g01;
                    let c02 = g01 * g12 - g02;
                    let c11 = 1.0 - g02 * g02;
                    let c12 = g01 * g02 - g12;
                    let c22 = 1.0 - g01 * g01;
                    let det = c00 + g01 * c01 + g02 * c02;
                    if det < PARALLEL_EPSILON {
                        self.remove(0);
                        continue;
                    }
                    [
                        (c00 * r[0] + c01 * r[1] + c02 * r[2]) / det,
                        (c01 * r[0] + c11 * r[1] + c12 * r[2]) / det,
                        (c02 * r[0] + c12 * r[1] + c22 * r[2]) / det,
                    ]
                }
            };
            let mut pulling = MAX_CONTACTS;
            for k in 0..self.count {
                if lambda[k] < 0.0 && (pulling == MAX_CONTACTS || lambda[k] < lambda[pulling]) {
                    pulling = k;
                }
            }
            if pulling == MAX_CONTACTS {
                self.depths = lambda;
                return;
            }
            self.remove(pulling);
        }
    }
}

/// Moves `p` to the closest point inside every half-space, `p + Δ` with the least `|Δ|`
/// subject to `n_i·(p + Δ) ≥ b_i` — PBD §3.4's projection for all colliders together: projecting
/// onto one collider after another can push a particle back into the previous one, and in a
/// narrow crevice (a sphere resting on the ground) alternating projections converge slowly.
///
/// A dual active-set method (Goldfarb and Idnani 1983, for a point): from `p`, the most violated
/// half-space joins the active set, `Δ = Σ λ_i n_i` is solved for equality on the active ones
/// (a Gram system of size 1 to 3), and contacts with `λ_i < 0` leave the set; at most
/// [`MAX_CONTACTS`] + 1 rounds. Returns the active half-spaces as contacts, `depth_i = λ_i`.
pub fn resolve_contacts(p: Vec3, spaces: &[HalfSpace]) -> Contacts {
    let mut contacts = Contacts::default();
    for _ in 0..=MAX_CONTACTS {
        let moved = p + contacts.displacement();
        let mut worst = spaces.len();
        let mut violation = 0.0;
        for (i, space) in spaces.iter().enumerate() {
            let v = space.offset - space.normal.dot(moved);
            if v > violation && !contacts.contains(i) {
                (worst, violation) = (i, v);
            }
        }
        if worst == spaces.len() || contacts.count == MAX_CONTACTS {
            break;
        }
        contacts.push(spaces[worst], spaces[worst].offset - spaces[worst].normal.dot(p), worst);
        contacts.solve();
    }
    contacts
}
