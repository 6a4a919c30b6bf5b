//! Rigid bodies as XPBD integrates them (Müller et al. 2020, "Detailed Rigid Body Simulation
//! with XPBD", the seeds' rigid-body notes §3.2–3.3): a body's shape and mass give its mass and
//! principal moments of inertia; each substep predicts its pose (Alg. 2: gravity, the
//! gyroscopic term, the quaternion step), the constraints move it by positional impulses at
//! points of it (§3.3: `x += p/m`, `q += ½[I⁻¹(r × p), 0]q`, with the generalised inverse mass
//! `w = 1/m + (r × n)ᵀ I⁻¹ (r × n)`), and its velocities come from the pose's change.
//!
//! These are the host's definitions of a body: the math the solvers' body passes share
//! ([`crate::passes::bodies`]), and the record the GPU keeps of each body ([`GpuBody`]).

use crate::collision::{normalized_quaternion, quaternion_product, rotate, turn_rate, Pose};
use crate::error::{Error, ParamError};
use crate::struct_layout;
use crate::wgsl::StructLayout;
use bytemuck::{Pod, Zeroable};
use glam::{Mat3, Quat, Vec3};

/// The most bodies one solver simulates (one workgroup each solves them: a dispatch's row).
pub const MAX_BODIES: usize = 4096;

/// Friction of a body made by [`RigidBody::new`].
pub const DEFAULT_BODY_FRICTION: f32 = 0.5;

/// Restitution of a body made by [`RigidBody::new`]: none, its contacts stop it.
pub const DEFAULT_BODY_RESTITUTION: f32 = 0.0;

/// A body's shape, in its own frame: centred on its centre of mass, its principal axes along
/// the frame's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BodyShape {
    /// A ball of radius `radius` (m).
    Sphere {
        /// Radius (m).
        radius: f32,
    },
    /// A capsule along the frame's y: the points within `radius` of the segment from
    /// `−half_length` to `half_length` on y (m).
    Capsule {
        /// Radius (m).
        radius: f32,
        /// Half the length of its axis segment (m, ≥ 0).
        half_length: f32,
    },
    /// A box of half extents `half_extents` (m) along the frame's axes.
    Box {
        /// Half extents (m).
        half_extents: Vec3,
    },
}

impl BodyShape {
    /// Its volume (m³).
    pub fn volume(&self) -> f32 {
        use std::f32::consts::PI;
        match *self {
            Self::Sphere { radius } => 4.0 / 3.0 * PI * radius.powi(3),
            Self::Capsule { radius, half_length } => PI * radius * radius * (2.0 * half_length + 4.0 / 3.0 * radius),
            Self::Box { half_extents: h } => 8.0 * h.x * h.y * h.z,
        }
    }

    /// Its principal moments of inertia per unit mass (m²), about its frame's axes.
    ///
    /// A sphere `2r²/5`; a box `(b² + c²)/3` for half extents `b, c` across the axis; a capsule
    /// as its cylinder of length `L` and its two hemispheres (a ball of mass `m_h`), each by its
    /// share of the volume: about its axis `m_c r²/2 + 2m_h r²/5`, across it
    /// `m_c(L²/12 + r²/4) + m_h(2r²/5 + L²/4 + 3Lr/8)`.
    pub fn unit_inertia(&self) -> Vec3 {
        use std::f32::consts::PI;
        match *self {
            Self::Sphere { radius } => Vec3::splat(0.4 * radius * radius),
            Self::Capsule { radius: r, half_length } => {
                let length = 2.0 * half_length;
                let (cylinder, ball) = (PI * r * r * length, 4.0 / 3.0 * PI * r.powi(3));
                let (m_c, m_h) = (cylinder / (cylinder + ball), ball / (cylinder + ball));
                let along = m_c * r * r / 2.0 + m_h * 0.4 * r * r;
                let across = m_c * (length * length / 12.0 + r * r / 4.0)
                    + m_h * (0.4 * r * r + length * length / 4.0 + 3.0 * length * r / 8.0);
                Vec3::new(across, along, across)
            }
            Self::Box { half_extents: h } => {
                let s = h * h;
                Vec3::new(s.y + s.z, s.x + s.z, s.x + s.y) / 3.0
            }
        }
    }

    /// The shape as a rounded box, in its own frame: the points within `radius` of the box of
    /// these half extents (a sphere's box is a point, a capsule's its axis segment). One signed
    /// distance then serves every shape (`box_point` in `src/collision/shapes.rs`).
    pub fn rounded_box(&self) -> (Vec3, f32) {
        match *self {
            Self::Sphere { radius } => (Vec3::ZERO, radius),
            Self::Capsule { radius, half_length } => (Vec3::new(0.0, half_length, 0.0), radius),
            Self::Box { half_extents } => (half_extents, 0.0),
        }
    }

    /// The radius of the smallest ball about its centre that holds it (m).
    pub fn bounding_radius(&self) -> f32 {
        let (half_extents, radius) = self.rounded_box();
        half_extents.length() + radius
    }

    /// Checks its sizes: finite, a radius and half extents > 0, a half length ≥ 0.
    pub fn validate(&self) -> Result<(), Error> {
        let (name, sizes, ok) = match *self {
            Self::Sphere { radius } => ("body.radius", vec![radius], radius > 0.0),
            Self::Capsule { radius, half_length } => {
                ("body.capsule", vec![radius, half_length], radius > 0.0 && half_length >= 0.0)
            }
            Self::Box { half_extents } => {
                ("body.half_extents", half_extents.to_array().to_vec(), half_extents.min_element() > 0.0)
            }
        };
        if ok && sizes.iter().all(|s| s.is_finite()) {
            return Ok(());
        }
        let expected = "finite, radii and half extents > 0, a half length ≥ 0";
        Err(ParamError { name, value: format!("{sizes:?}"), expected }.into())
    }
}

/// How heavy a body is: a density of its volume, or its mass.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BodyMass {
    /// kg/m³.
    Density(f32),
    /// kg.
    Mass(f32),
}

/// A rigid body as given: its shape, its mass, where it is and how it moves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RigidBody {
    /// Its shape in its own frame.
    pub shape: BodyShape,
    /// Its density or mass.
    pub mass: BodyMass,
    /// Where its frame is (its centre of mass at the translation).
    pub pose: Pose,
    /// Its centre of mass's velocity (m/s).
    pub velocity: Vec3,
    /// Its angular velocity, in the world (rad/s).
    pub angular_velocity: Vec3,
    /// Its Coulomb friction (≥ 0), static and dynamic, against the cloth and the colliders.
    pub friction: f32,
    /// Its coefficient of restitution in [0, 1] against the colliders and other bodies (a
    /// pair's is their mean): the normal speed it leaves a contact with, over the one it met it
    /// with (`crate::passes::bodies::velocities`).
    pub restitution: f32,
}

impl RigidBody {
    /// A body of `shape` and `mass` at rest at `pose`, with friction [`DEFAULT_BODY_FRICTION`]
    /// and restitution [`DEFAULT_BODY_RESTITUTION`].
    pub fn new(shape: BodyShape, mass: BodyMass, pose: Pose) -> Self {
        let (velocity, angular_velocity) = (Vec3::ZERO, Vec3::ZERO);
        let (friction, restitution) = (DEFAULT_BODY_FRICTION, DEFAULT_BODY_RESTITUTION);
        Self { shape, mass, pose, velocity, angular_velocity, friction, restitution }
    }

    /// Its mass (kg).
    pub fn mass(&self) -> f32 {
        match self.mass {
            BodyMass::Density(density) => density * self.shape.volume(),
            BodyMass::Mass(mass) => mass,
        }
    }

    /// Checks it: its shape, a finite mass or density > 0 whose inverse and principal moments
    /// are finite and > 0 (no degenerate inertia), a valid pose, finite velocities, a finite
    /// friction ≥ 0, a restitution in [0, 1].
    pub fn validate(&self) -> Result<(), Error> {
        self.shape.validate()?;
        let mass = self.mass();
        let inertia = self.shape.unit_inertia() * mass;
        let heavy = mass.is_finite() && mass > 0.0 && (1.0 / mass).is_finite();
        let turns = inertia.is_finite() && inertia.min_element() > 0.0 && (Vec3::ONE / inertia).is_finite();
        if !(heavy && turns) {
            let expected = "a finite mass or density > 0, whose inertia is finite and > 0";
            return Err(ParamError { name: "body.mass", value: format!("{:?}", self.mass), expected }.into());
        }
        if self.pose.validate().is_err() {
            let value = format!("{:?}", self.pose);
            return Err(
                ParamError { name: "body.pose", value, expected: "finite, its rotation a unit quaternion" }.into()
            );
        }
        if !(self.velocity.is_finite() && self.angular_velocity.is_finite()) {
            let value = format!("{} and {}", self.velocity, self.angular_velocity);
            return Err(ParamError { name: "body.velocity", value, expected: "finite" }.into());
        }
        if !(self.friction.is_finite() && self.friction >= 0.0) {
            let value = self.friction.to_string();
            return Err(ParamError { name: "body.friction", value, expected: "finite and ≥ 0" }.into());
        }
        if !(0.0..=1.0).contains(&self.restitution) {
            let value = self.restitution.to_string();
            return Err(ParamError { name: "body.restitution", value, expected: "in [0, 1]" }.into());
        }
        Ok(())
    }
}

/// A body as the substeps integrate it. Between [`BodyState::predict`] and
/// [`BodyState::update_velocities`] it keeps the substep's displacement and turn apart from
/// where the substep started (as the cloth keeps its displacements): its velocities come from
/// them, not from differences of metre-scale positions, so their rounding is relative to the
/// motion.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BodyState {
    /// Its centre of mass at the substep's start (m).
    pub position: Vec3,
    /// Its orientation at the substep's start (unit quaternion).
    pub rotation: Quat,
    /// Its centre of mass's velocity (m/s).
    pub velocity: Vec3,
    /// Its angular velocity in the world (rad/s).
    pub angular_velocity: Vec3,
    /// `1/m` (1/kg).
    pub inverse_mass: f32,
    /// Its principal moments of inertia (kg·m²), about its own axes.
    pub inertia: Vec3,
    /// The substep's displacement of its centre of mass so far (m).
    pub displacement: Vec3,
    /// The substep's turn so far (unit quaternion, applied after `rotation`).
    pub turn: Quat,
    /// Its shape.
    pub shape: BodyShape,
    /// Its Coulomb friction.
    pub friction: f32,
    /// Its coefficient of restitution.
    pub restitution: f32,
    /// The particles touching it in the substep's contacts: they split its mass among them
    /// (`crate::passes::bodies`).
    pub contacts: u32,
    /// How far the moments of its last substep's contact impulses added up rather than
    /// cancelled, in [0, 1]: their sum's length over the sum of their lengths (1 with none).
    pub coherence: f32,
}

impl BodyState {
    /// The state of `body` (validated).
    pub fn new(body: &RigidBody) -> Result<Self, Error> {
        body.validate()?;
        let mass = body.mass();
        Ok(Self {
            position: body.pose.translation,
            rotation: body.pose.rotation.normalize(),
            velocity: body.velocity,
            angular_velocity: body.angular_velocity,
            inverse_mass: 1.0 / mass,
            inertia: body.shape.unit_inertia() * mass,
            displacement: Vec3::ZERO,
            turn: Quat::IDENTITY,
            shape: body.shape,
            friction: body.friction,
            restitution: body.restitution,
            contacts: 0,
            coherence: 1.0,
        })
    }

    /// Where its frame is now: the substep's start moved by its displacement and turn.
    pub fn pose(&self) -> Pose {
        let rotation = normalized_quaternion(quaternion_product(self.turn, self.rotation));
        Pose { translation: self.position + self.displacement, rotation }
    }

    /// How far its point now at `p` moved in the substep so far: `p` less where that point was
    /// at the substep's start, `x₀ + Δq⁻¹(p − x)` for its centre `x` now and turn `Δq`, taken as
    /// `Δx + r − Δq⁻¹r` with `r = p − x`, so that no metre-scale positions are subtracted.
    pub fn point_displacement(&self, p: Vec3) -> Vec3 {
        let r = p - (self.position + self.displacement);
        self.displacement + (r - rotate(self.turn.conjugate(), r))
    }

    /// Its inverse inertia in the world as it is turned now, `R I⁻¹ Rᵀ`.
    pub fn world_inverse_inertia(&self) -> Mat3 {
        let rotation = Mat3::from_quat(self.pose().rotation);
        rotation * Mat3::from_diagonal(Vec3::ONE / self.inertia) * rotation.transpose()
    }

    /// `R I⁻¹ Rᵀ v` for its rotation now `rotation`, turned into its own frame and back (the
    /// GPU's order of operations: `inverse_inertia_times` in `shaders/passes/bodies.wgsl`).
    pub fn inverse_inertia_times(&self, rotation: Quat, v: Vec3) -> Vec3 {
        rotate(rotation, rotate(rotation.conjugate(), v) / self.inertia)
    }

    /// One substep's prediction (Alg. 2, lines 3–8) under `gravity` over `h` seconds: the
    /// velocity, the displacement `h·v`, the angular velocity by the gyroscopic term
    /// `ω += h I⁻¹(−ω × Iω)` in the body's frame, and the turn by the angle `|ω|h` about `ω`
    /// (exactly, where Alg. 2 takes `1 + ½h[ω, 0]` normalised, whose angle `2·atan(|ω|h/2)`
    /// falls short: a free spin then slowed by 0.5 % a second at 5 rad/s and 600 substeps).
    /// Starts the substep: call it after the last substep's [`BodyState::update_velocities`].
    pub fn predict(&mut self, gravity: Vec3, h: f32) {
        self.velocity += gravity * h;
        self.displacement = self.velocity * h;
        let own = rotate(self.rotation.conjugate(), self.angular_velocity);
        let gyroscopic = -own.cross(self.inertia * own) / self.inertia;
        self.angular_velocity = rotate(self.rotation, own + gyroscopic * h);
        self.turn = Quat::from_scaled_axis(self.angular_velocity * h);
    }

    /// The velocities after the substep's solve (Alg. 2, lines 10–13), `v = Δx/h` and `ω` the
    /// substep's turn as axis times angle over `h` ([`turn_rate`]; Alg. 2's `2 vec(Δq)/h` is its
    /// first order), from the substep's displacement and turn, which then become its new start.
    pub fn update_velocities(&mut self, h: f32) {
        self.velocity = self.displacement / h;
        self.angular_velocity = turn_rate(self.turn, h);
        let pose = self.pose();
        (self.position, self.rotation) = (pose.translation, pose.rotation);
        (self.displacement, self.turn) = (Vec3::ZERO, Quat::IDENTITY);
    }

    /// The generalised inverse mass of its point at `r` from its centre of mass along the unit
    /// direction `n` (§3.3): `1/m + (r × n)ᵀ I⁻¹ (r × n)`.
    pub fn inverse_mass_at(&self, r: Vec3, n: Vec3) -> f32 {
        let arm = r.cross(n);
        self.inverse_mass + arm.dot(self.inverse_inertia_times(self.pose().rotation, arm))
    }

    /// The share of it one of its contacts at arm `r` along `n` moves against, when its `s`
    /// contacts all push at once (mass splitting): `s(1/m + c (r × n)ᵀ I⁻¹ (r × n))`
    /// for their moments' coherence `c`. Their pushes move it as a whole `s` times as far as one
    /// does; their moments turn it `s` times as far only where they add up (`c` = 1), as a
    /// ball's pushed from one side do, and hardly at all where they cancel, as those under a box
    /// lying flat do. Splitting the turn too would leave such a box two thirds of each substep's
    /// slide, a creep of `2ah` down a slope it should grip.
    pub fn split_inverse_mass_at(&self, r: Vec3, n: Vec3) -> f32 {
        let arm = r.cross(n);
        let turning = arm.dot(self.inverse_inertia_times(self.pose().rotation, arm));
        self.contacts.max(1) as f32 * (self.inverse_mass + self.coherence * turning)
    }

    /// Moves it by the positional impulse `p` (kg·m) at its point `r` from its centre of mass
    /// (§3.3): `x += p/m`, `q += ½[I⁻¹(r × p), 0]q`, normalised.
    pub fn apply_impulse(&mut self, p: Vec3, r: Vec3) {
        self.apply_impulses(p, r.cross(p));
    }

    /// Moves it by impulses summing to `linear` (kg·m) with moments `angular` about its centre
    /// of mass (kg·m²): `x += Σp/m`, `q += ½[I⁻¹ Σ(r × p), 0]q`, normalised.
    pub fn apply_impulses(&mut self, linear: Vec3, angular: Vec3) {
        self.displacement += linear * self.inverse_mass;
        self.turn = turned(self.turn, self.inverse_inertia_times(self.pose().rotation, angular));
    }

    /// The velocity of its point now at `p` (m/s): `v + ω × (p − x)` about its centre now.
    pub fn point_velocity(&self, p: Vec3) -> Vec3 {
        self.velocity + self.angular_velocity.cross(p - self.pose().translation)
    }

    /// Changes its velocities by the impulse `p` (kg·m/s) at its point `r` from its centre of
    /// mass (§3.6): `v += p/m`, `ω += I⁻¹(r × p)`.
    pub fn apply_velocity_impulse(&mut self, p: Vec3, r: Vec3) {
        self.velocity += p * self.inverse_mass;
        self.angular_velocity += self.inverse_inertia_times(self.pose().rotation, r.cross(p));
    }

    /// Its linear momentum (kg·m/s).
    pub fn momentum(&self) -> Vec3 {
        self.velocity / self.inverse_mass
    }

    /// Its angular momentum about the world's origin (kg·m²/s), between substeps: its spin
    /// `R I Rᵀ ω` and its centre's `x × p`.
    pub fn angular_momentum(&self) -> Vec3 {
        let own = self.rotation.conjugate() * self.angular_velocity;
        self.rotation * (self.inertia * own) + self.position.cross(self.momentum())
    }
}

/// `q` turned by the small rotation vector `theta` to first order, `q + ½[θ, 0]q`, normalised.
fn turned(q: Quat, theta: Vec3) -> Quat {
    let spin = quaternion_product(Quat::from_xyzw(theta.x, theta.y, theta.z, 0.0), q);
    normalized_quaternion(q + spin * 0.5)
}

/// A body as the GPU keeps it (`Body` in `shaders/passes/bodies.wgsl`): a [`BodyState`], with
/// its shape as a rounded box ([`BodyShape::rounded_box`]).
#[allow(missing_docs)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuBody {
    pub position: [f32; 3],
    pub inverse_mass: f32,
    pub rotation: [f32; 4],
    pub velocity: [f32; 3],
    pub friction: f32,
    pub angular_velocity: [f32; 3],
    pub contacts: u32,
    pub displacement: [f32; 3],
    pub radius: f32,
    pub turn: [f32; 4],
    pub half_extents: [f32; 3],
    /// The shape it was given: 0 sphere, 1 capsule, 2 box (the GPU reads only the rounded box).
    pub kind: u32,
    pub inertia: [f32; 3],
    pub coherence: f32,
    pub restitution: f32,
    /// Pads the record to 144 bytes.
    pub _pad: [f32; 3],
}

impl GpuBody {
    /// The layout its WGSL twin must have.
    pub const LAYOUT: StructLayout = struct_layout!(
        GpuBody as "Body",
        position,
        inverse_mass,
        rotation,
        velocity,
        friction,
        angular_velocity,
        contacts,
        displacement,
        radius,
        turn,
        half_extents,
        kind,
        inertia,
        coherence,
        restitution
    );

    /// The record of `state`.
    pub fn new(state: &BodyState) -> Self {
        let (half_extents, radius) = state.shape.rounded_box();
        let kind = match state.shape {
            BodyShape::Sphere { .. } => 0,
            BodyShape::Capsule { .. } => 1,
            BodyShape::Box { .. } => 2,
        };
        Self {
            position: state.position.to_array(),
            inverse_mass: state.inverse_mass,
            rotation: state.rotation.to_array(),
            velocity: state.velocity.to_array(),
            friction: state.friction,
            angular_velocity: state.angular_velocity.to_array(),
            contacts: state.contacts,
            displacement: state.displacement.to_array(),
            radius,
            turn: state.turn.to_array(),
            half_extents: half_extents.to_array(),
            kind,
            inertia: state.inertia.to_array(),
            coherence: state.coherence,
            restitution: state.restitution,
            _pad: [0.0; 3],
        }
    }

    /// The state it holds.
    pub fn state(&self) -> BodyState {
        let (half_extents, radius) = (Vec3::from_array(self.half_extents), self.radius);
        let shape = match self.kind {
            0 => BodyShape::Sphere { radius },
            1 => BodyShape::Capsule { radius, half_length: half_extents.y },
            _ => BodyShape::Box { half_extents },
        };
        BodyState {
            position: Vec3::from_array(self.position),
            rotation: Quat::from_array(self.rotation),
            velocity: Vec3::from_array(self.velocity),
            angular_velocity: Vec3::from_array(self.angular_velocity),
            inverse_mass: self.inverse_mass,
            inertia: Vec3::from_array(self.inertia),
            displacement: Vec3::from_array(self.displacement),
            turn: Quat::from_array(self.turn),
            shape,
            friction: self.friction,
            restitution: self.restitution,
            contacts: self.contacts,
            coherence: self.coherence,
        }
    }
}

/// The states of `bodies` (each validated), at most [`MAX_BODIES`].
pub(crate) fn body_states(bodies: &[RigidBody]) -> Result<Vec<BodyState>, Error> {
    body_states_fit(bodies.len())?;
    bodies.iter().map(BodyState::new).collect()
}

/// Checks that `count` bodies are at most [`MAX_BODIES`].
pub(crate) fn body_states_fit(count: usize) -> Result<(), Error> {
    if count > MAX_BODIES {
        let value = count.to_string();
        return Err(ParamError { name: "bodies", value, expected: "at most MAX_BODIES (4096)" }.into());
    }
    Ok(())
}
