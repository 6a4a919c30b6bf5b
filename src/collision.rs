//! Colliders and the collision response: the shapes the cloth collides with (changed between
//! frames), the contact projection of PBD §3.4 (every collider at once, so that a particle in a
//! crevice between two colliders ends outside both), static friction on positions and the
//! velocity response of PBD Alg. 1 line 16.
//! WGSL twin: `shaders/collide.wgsl` (same names, same argument order, the same operations in
//! the same order, so that the GPU computes the same bits).

use crate::constraints::DENOMINATOR_EPSILON;
use crate::error::Error;
use crate::math::GEOMETRY_EPSILON;
use glam::Vec3;

/// The most colliders a solver takes at once (the GPU keeps them in a uniform array).
pub const MAX_COLLIDERS: usize = 8;

/// A collider shape.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Collider {
    /// The half-space `normal·p ≥ offset` (a ground plane: `normal = +Y`, `offset = height`).
    Plane {
        /// Unit normal pointing out of the solid side.
        normal: Vec3,
        /// Plane height along the normal (m).
        offset: f32,
    },
    /// A solid sphere.
    Sphere {
        /// Centre (m).
        center: Vec3,
        /// Radius (m).
        radius: f32,
    },
}

impl Collider {
    /// The half-space a particle that starts the substep at `x` and moves by `q` must end in,
    /// outside this collider grown by `margin` ([`plane_half_space`], [`sphere_half_space`]).
    pub fn half_space(&self, x: Vec3, q: Vec3, margin: f32) -> HalfSpace {
        match *self {
            Self::Plane { normal, offset } => plane_half_space(normal, offset, margin),
            Self::Sphere { center, radius } => sphere_half_space(x, q, center, radius, margin),
        }
    }

    /// A horizontal ground plane at height `y`.
    pub fn ground(y: f32) -> Self {
        Self::Plane { normal: Vec3::Y, offset: y }
    }

    /// A sphere.
    pub fn sphere(center: Vec3, radius: f32) -> Self {
        Self::Sphere { center, radius }
    }

    /// The same shape with a unit plane normal ([`Collider::validate`] accepts ±1e-3 of length
    /// error; the collision math needs it exact).
    pub fn normalized(&self) -> Self {
        match *self {
            Self::Plane { normal, offset } => Self::Plane { normal: normal.normalize(), offset },
            sphere => sphere,
        }
    }

    /// Signed distance from `p` to the surface (negative inside).
    pub fn signed_distance(&self, p: Vec3) -> f32 {
        match *self {
            Self::Plane { normal, offset } => normal.dot(p) - offset,
            Self::Sphere { center, radius } => p.distance(center) - radius,
        }
    }

    /// Checks the shape is finite, the plane normal is unit length (±1e-3) and the radius > 0.
    pub fn validate(&self) -> Result<(), Error> {
        match *self {
            Self::Plane { normal, offset } if !normal.is_finite() || !offset.is_finite() => {
                Err(Error::Collider("plane normal and offset must be finite".into()))
            }
            Self::Plane { normal, .. } if (normal.length() - 1.0).abs() > 1e-3 => {
                Err(Error::Collider(format!("plane normal {normal} must have unit length")))
            }
            Self::Sphere { center, radius } if !(center.is_finite() && radius.is_finite() && radius > 0.0) => {
                Err(Error::Collider(format!("sphere needs a finite centre and a radius > 0, got {radius}")))
            }
            _ => Ok(()),
        }
    }
}

/// Validates a collider list (each shape, and at most [`MAX_COLLIDERS`]).
pub fn validate_colliders(colliders: &[Collider]) -> Result<(), Error> {
    if colliders.len() > MAX_COLLIDERS {
        return Err(Error::Collider(format!("{} colliders given, at most {MAX_COLLIDERS} supported", colliders.len())));
    }
    colliders.iter().try_for_each(Collider::validate)
}

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

/// What the collision response needs of the parameters ([`crate::SolverParams::contact_response`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactResponse {
    /// Substep length (s).
    pub h: f32,
    /// Distance kept from collider surfaces (m).
    pub margin: f32,
    /// Coulomb coefficients.
    pub static_friction: f32,
    /// Applied to sliding particles.
    pub dynamic_friction: f32,
    /// Restitution coefficient and the normal speed below which it is off.
    pub restitution: f32,
    /// `2|g|h`.
    pub restitution_threshold: f32,
}

/// The end of a substep for a free particle that started it at `x` and moved by `q` (PBD Alg. 1
/// lines 8, 12–16), against at most [`MAX_COLLIDERS`] colliders: the contact projection
/// against every collider's half-space ([`resolve_contacts`]), static friction ([`stick`]) and
/// the projection again (static friction only undoes motion along the contacts, but a third
/// collider may lie in the way), then `v = q/h` with dynamic friction and restitution per
/// contact. Returns the displacement and the velocity.
///
/// A particle that starts outside every collider (as every substep leaves it) ends outside
/// every collider, by at least the margin: each half-space lies outside its convex collider.
/// One that starts inside (a collider was moved onto it) is pushed to the surface point closest
/// to where it went; where two colliders overlap it may take a few substeps to get out.
pub fn respond_to_colliders(x: Vec3, q: Vec3, colliders: &[Collider], response: &ContactResponse) -> (Vec3, Vec3) {
    let mut half_spaces = [HalfSpace::default(); MAX_COLLIDERS];
    for (space, collider) in half_spaces.iter_mut().zip(colliders) {
        *space = collider.half_space(x, q, response.margin);
    }
    let spaces = &half_spaces[..colliders.len()];
    let contacts = resolve_contacts(x + q, spaces);
    let pushed = q + contacts.displacement();
    let stuck = stick(pushed, &contacts, response.static_friction);
    let settled = stuck + resolve_contacts(x + stuck, spaces).displacement();
    let approach = q / response.h;
    let mut v = settled / response.h;
    for k in 0..contacts.count {
        v = contact_velocity(
            v,
            approach,
            contacts.normals[k],
            contacts.depths[k],
            response.h,
            response.dynamic_friction,
            response.restitution,
            response.restitution_threshold,
        );
    }
    (settled, v)
}
