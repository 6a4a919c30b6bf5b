//! Solver parameters: one `Copy` struct, every field with its unit, default and advice.

use crate::collision::{ContactMaterial, ContactResponse};
use crate::constraints::stretch::StrainLimits;
use crate::constraints::{Response, Responses};
use crate::error::ParamError;
use glam::Vec3;

/// How stiff a constraint kind is, in one of the two forms drape supports.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Stiffness {
    /// PBD stiffness `k ∈ [0, 1]`: the fraction of the error removed per frame time step, as
    /// PBD §3.3 defines it whatever the substep and iteration counts. With `S` substeps, each
    /// removes `k_s = k/(k + S²(1 − k))` (the fraction that gives the same effective compliance
    /// `α ∝ Δt²(1 − k)/k` at substep `Δt/S`, so the material does not change with `S`), spread
    /// over `n` iterations as `k' = 1 − (1 − k_s)^(1/n)` (PBD §3.3). Still depends on the frame
    /// time step and the masses, as PBD does; prefer compliance for a physical material.
    Pbd(f32),
    /// XPBD compliance `α ≥ 0` (inverse stiffness; m/N for distances, rad/(N·m) for bending).
    /// `α = 0` is infinitely stiff. With a Lagrange multiplier per constraint (XPBD eq. 18) the
    /// stiffness does not depend on the time step or the iteration count.
    Compliance(f32),
}

impl Stiffness {
    /// The per-projection factors `(k, α̃)` used by every constraint of this kind with
    /// `substeps` substeps of `substep_dt` and `iterations` iterations:
    /// `Δλ = k·(−C − α̃λ)/(Σ w|∇C|² + α̃)`. PBD: `k = k'`, `α̃ = 0`; XPBD: `k = 1`, `α̃ = α/h²`.
    pub fn response(self, substeps: u32, iterations: u32, substep_dt: f32) -> Response {
        match self {
            Self::Pbd(k) => {
                let squared = (substeps as f32).powi(2);
                let per_substep = k / (k + squared * (1.0 - k));
                // 1 − (1 − k_s)^(1/n), accurate for small k_s.
                [-((-per_substep).ln_1p() / iterations as f32).exp_m1(), 0.0]
            }
            Self::Compliance(alpha) => [1.0, alpha / (substep_dt * substep_dt)],
        }
    }

    fn validate(self, name: &'static str) -> Result<(), ParamError> {
        match self {
            Self::Pbd(k) if !(0.0..=1.0).contains(&k) => {
                Err(ParamError { name, value: format!("Pbd({k})"), expected: "a PBD stiffness in [0, 1]" })
            }
            Self::Compliance(a) if !(a.is_finite() && a >= 0.0) => {
                Err(ParamError { name, value: format!("Compliance({a})"), expected: "a finite compliance ≥ 0" })
            }
            _ => Ok(()),
        }
    }
}

/// How the cloth's internal forces are resolved: by projecting its constraints (two modes), or
/// by springs (the mass-spring baseline).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SolverMode {
    /// Coloured Gauss-Seidel (PBD §3.2): constraints of one colour share no particle, so they
    /// are projected in parallel; colours run one after the other. Converges fastest.
    GaussSeidel,
    /// Jacobi: every constraint reads the same positions; each particle sums the corrections of
    /// its constraints and applies `relaxation / n_i` of the sum. Order-independent and
    /// deterministic, slower to converge.
    Jacobi {
        /// Over-relaxation `ω ∈ (0, 2]`; 1.5 is a good start, lower it if the cloth jitters.
        relaxation: f32,
    },
    /// The mass-spring cloth ([`crate::passes::springs`]): structural, shear and flexion springs with
    /// damping, integrated by semi-implicit Euler, a baseline to compare the position-based modes
    /// with. Nothing is projected: `iterations`, `stretch`, `compression`, `bending`, `tethers`,
    /// `strain_limits` and `area_limits` do not apply. The substep must be short enough for the springs: the
    /// solvers reject springs that semi-implicit Euler cannot keep stable at `substeps` and say
    /// how many substeps would ([`crate::passes::springs::SpringNetwork::check_stability`]).
    MassSpring(MassSpringParams),
}

impl SolverMode {
    /// Whether this mode projects constraints (and tethers): every mode but mass-spring.
    pub fn projects(&self) -> bool {
        !matches!(self, Self::MassSpring(_))
    }
}

/// Long-range attachments ([`crate::passes::tethers`]): each free particle is held within
/// `scale` times its geodesic rest distance from its nearest pinned particles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TetherParams {
    /// Whether tethers are on (default true). A cloth without pins has none; with pins, they
    /// keep a hanging cloth from over-stretching at few iterations. Turn them off for a cloth
    /// that should stretch freely away from its pins.
    pub enabled: bool,
    /// Each tether's length limit as a multiple of its geodesic rest distance (default
    /// 1.0, finite and ≥ 1): 1.0 lets no particle get farther from a pin than the cloth
    /// reaches at rest; 1.01–1.05 leaves the edge constraints some give.
    pub scale: f32,
    /// How hard a stretched tether pulls back (default `Compliance(0)`, a hard limit, held
    /// exactly by one tether alone and nearly where several pull at once). Tethers are
    /// projected in a few sweeps once per substep, so PBD stiffness counts substeps only.
    pub stiffness: Stiffness,
}

impl Default for TetherParams {
    fn default() -> Self {
        Self { enabled: true, scale: 1.0, stiffness: Stiffness::Compliance(0.0) }
    }
}

/// The directional strain limit ([`crate::SolverParams::directional`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DirectionalLimit {
    /// How far past its rest length a limited edge may stay, as a fraction (in [0, 1]; 0.01:
    /// 1 %; default 0.01). Keep it above the stretch the solver leaves in the cloth at rest
    /// (the hanging scene's: 0.01 % at 20 substeps of one iteration), so that the limit does
    /// not act on a cloth at rest.
    pub slack: f32,
}

impl Default for DirectionalLimit {
    fn default() -> Self {
        Self { slack: 0.01 }
    }
}

/// Everything that controls a step. Change it between frames with
/// [`crate::GpuSolver::set_params`]; [`SolverParams::validate`] says what is allowed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SolverParams {
    /// Frame time step in seconds (default 1/60). Each frame runs `substeps` substeps of
    /// `time_step / substeps`. Must be > 0 and ≤ 1. Use the display's frame time; for a longer
    /// step, raise `substeps` so that the substep stays near 1–2 ms.
    pub time_step: f32,
    /// Substeps per frame (default 10, 1..=128). More substeps make stiff cloth converge better
    /// than more iterations do (XPBD "small steps"). Positions are f32: once `g·h²` nears the
    /// rounding step of the coordinates (h ≲ 1e-4 s for a cloth ~10 m from the origin),
    /// further substeps stop adding accuracy.
    pub substeps: u32,
    /// Constraint iterations per substep (default 4, 1..=100, a count). Each costs a full sweep
    /// over the constraints; prefer substeps, and use a few iterations (2–10) where a stiff cloth
    /// still stretches under its own weight.
    pub iterations: u32,
    /// Gravity in m/s² (default `(0, −9.81, 0)`, finite). Keep it physical; pushes that vary
    /// over time belong in `external_acceleration`.
    pub gravity: Vec3,
    /// Extra acceleration applied to every free particle, m/s² (default zero): wind-like pushes,
    /// or the frame acceleration of a moving reference frame.
    pub external_acceleration: Vec3,
    /// Velocity damping in 1/s (default 0.1, ≥ 0): `v ← v·max(0, 1 − damping·h)` every substep.
    /// Zero conserves momentum exactly; 0.05–1 calms a cloth that swings too long.
    pub damping: f32,
    /// Damping of the free particles' motion relative to their rigid motion, in 1/s (default 0,
    /// off; finite and ≥ 0; [`crate::passes::rigid_damping`], PBD §3.5): once per frame, each free
    /// particle's velocity moves `1 − e^(−rigid_damping·dt)` of the way to the velocity its
    /// cloth's rigid motion (centre-of-mass velocity and angular velocity) gives it there. Each
    /// cloth's momentum and angular momentum are kept while wrinkles and flutter calm down; 1–20
    /// suits most uses. Three more dispatches per frame.
    pub rigid_damping: f32,
    /// Stiffness of distance constraints that are longer than rest (default `Compliance(0)`,
    /// inextensible). Woven cloth barely stretches: keep its compliance at 0 or below ~1e-6,
    /// and give stretchy knits a compliance of ~1e-4–1e-3.
    pub stretch: Stiffness,
    /// Stiffness of distance constraints shorter than rest (default `Compliance(1e-4)`): softer
    /// than `stretch` lets cloth buckle into wrinkles instead of locking.
    pub compression: Stiffness,
    /// Stiffness of dihedral bending constraints (default `Compliance(1.0)`, soft). Lower
    /// compliance (or higher PBD `k`) gives stiffer, leather-like cloth.
    pub bending: Stiffness,
    /// Static Coulomb friction against colliders without a [`ContactMaterial`] of their own
    /// (default 0.5, ≥ 0; the same for the three fields below): a particle in contact does
    /// not slide while its tangential motion needs less than `static_friction` times the normal
    /// impulse, so cloth rests on a slope up to `atan(static_friction)` (0.5: 27°).
    pub static_friction: f32,
    /// Dynamic (kinetic) Coulomb friction against colliders (default 0.4, ≥ 0), acting on a
    /// sliding particle: 0.2–0.6 covers cloth on most surfaces; 0 lets cloth slide off a sphere.
    /// Usually at most `static_friction`.
    pub dynamic_friction: f32,
    /// Restitution of collider contacts (default 0, in [0, 1]); off for normal speeds below
    /// `2|g|h` to avoid jitter.
    pub restitution: f32,
    /// Project the collider contacts inside the iterations (default off; the projecting modes,
    /// on a cloth with colliders; [`crate::passes::contacts`]): after predict each particle keeps
    /// the half-spaces its path meets and every iteration ends in them (PBD Alg. 1 line 10),
    /// and friction reads the normal impulse that stopped the particle's predicted motion. Off,
    /// the contacts act once per substep, in finalize, with friction from the solved motion
    /// (restitution reverses the velocity from before the solve either way). One more
    /// dispatch per iteration and per substep, and 48 bytes per particle; on the benchmark
    /// scene it changes no stretch statistic (BENCHMARKS.md says why).
    pub contacts_in_iterations: bool,
    /// The most speed a depenetration may give a particle, in m/s (default 0.5, ≥ 0; infinity:
    /// unbounded; [`crate::passes::depenetration`]). A particle that starts a frame inside a
    /// collider (one placed or set onto the cloth, or positions set inside one) is still pushed
    /// out within the frame, but in that frame no free particle ends a substep faster than it
    /// started the frame by more than this and what gravity and the external acceleration add,
    /// so the stretched cloth around the push does not launch (as PhysX's
    /// `maxDepenetrationVelocity`). Frames with no particle inside a collider are untouched.
    pub max_depenetration_speed: f32,
    /// Distance in metres kept between particles and collider surfaces (default 0.005, ≥ 0).
    /// Around the cloth's thickness; larger hides the triangles cutting into a curved collider
    /// between particles.
    pub collision_margin: f32,
    /// Tethers to the pinned particles (default on, scale 1, hard; the projecting modes only).
    pub tethers: TetherParams,
    /// Strain limits on the stretch constraints (default `None`, off): every projection of an
    /// edge ends with its length within `[min, max]` times its rest length, however soft
    /// `stretch` and `compression` are (GAMES103 strain limiting). Gives a stretchy material
    /// (a compliant `stretch`) a hard limit, e.g. a knit that gives 10 % and no more.
    pub strain_limits: Option<StrainLimits>,
    /// Area limits on the triangles (default `None`, off; the projecting modes only;
    /// [`crate::passes::area_limits`]): once per substep, after the iterations, each triangle
    /// whose area is outside `[min, max]` times its rest area is scaled about its centre of mass
    /// back to the nearest bound, triangle by triangle. Bounds how much a soft material grows
    /// or shrinks as a whole without stiffening its shear or bending. One dispatch per colour of
    /// triangles per substep (about eight on a grid).
    pub area_limits: Option<StrainLimits>,
    /// The directional strain limit (default `None`, off; the projecting modes only, on a cloth
    /// with pins; [`crate::passes::directional`]): once per frame, after the last substep's
    /// iterations and before its collision response, the edges of a spanning forest grown from
    /// the pins are shortened, pins first and level by level, to at most `1 + slack` times
    /// their rest length, moving only the particle farther from the pins and keeping the move
    /// out of its velocity (Ozgen & Kallmann 2011, as a one-sided limit). Removes the stretch
    /// that the weight below leaves in a cloth hung along a pinned edge at few iterations; idle
    /// on edges within the slack, so a cloth at rest is untouched. Between separate pins (two
    /// corners) the stretch gathers where their trees meet instead, and a large cloth can blow
    /// up: use it for cloth hung along an edge. One slack for every edge, whatever its material
    /// map's stiffness scale. One dispatch per frame.
    pub directional: Option<DirectionalLimit>,
    /// The air (default `None`, a vacuum): drag and lift on every triangle from the wind
    /// relative to it, with gusts ([`crate::passes::air`]). Costs one more dispatch per
    /// substep, and the finalize and next predict of a substep become two.
    pub aerodynamics: Option<Aerodynamics>,
    /// Self-collision (default `None`, off; [`crate::passes::self_collision`]): the cloth keeps a
    /// thickness between its own particles and between its particles and triangles, its layers
    /// and separate pieces alike, and the cloths of a joined model between each other. Its
    /// thickness and friction are those of every cloth without its own
    /// ([`crate::ClothModel::with_contact`]). Costs
    /// ten dispatches per substep (eleven on a CPU adapter), and limits how far each particle departs from its cloth's
    /// rigid motion to half the thickness per substep (a rigid motion, however fast, is not
    /// limited; what the limit takes goes back to the whole cloth, so its momentum is kept).
    pub self_collision: Option<SelfCollision>,
    /// Solver mode (default coloured Gauss-Seidel). Gauss-Seidel converges in fewer
    /// iterations; Jacobi needs no colouring order and parallelises fully, and wants
    /// over-relaxation ω ≈ 1.5; mass-spring is the explicit baseline.
    pub mode: SolverMode,
}

impl Default for SolverParams {
    fn default() -> Self {
        Self {
            time_step: 1.0 / 60.0,
            substeps: 10,
            iterations: 4,
            gravity: Vec3::new(0.0, -9.81, 0.0),
            external_acceleration: Vec3::ZERO,
            damping: 0.1,
            rigid_damping: 0.0,
            contacts_in_iterations: false,
            max_depenetration_speed: 0.5,
            stretch: Stiffness::Compliance(0.0),
            compression: Stiffness::Compliance(1e-4),
            bending: Stiffness::Compliance(1.0),
            static_friction: 0.5,
            dynamic_friction: 0.4,
            restitution: 0.0,
            collision_margin: 0.005,
            tethers: TetherParams::default(),
            strain_limits: None,
            area_limits: None,
            directional: None,
            aerodynamics: None,
            self_collision: None,
            mode: SolverMode::GaussSeidel,
        }
    }
}

/// Largest accepted substep count (f32 positions gain nothing from more; see `substeps`).
pub const MAX_SUBSTEPS: u32 = 128;
/// Largest accepted iteration count per substep.
pub const MAX_ITERATIONS: u32 = 100;

impl SolverParams {
    /// Substep length `h = time_step / substeps` in seconds.
    pub fn substep_dt(&self) -> f32 {
        self.time_step / self.substeps as f32
    }

    /// Checks every field against its documented range.
    pub fn validate(&self) -> Result<(), ParamError> {
        fn check(ok: bool, name: &'static str, value: String, expected: &'static str) -> Result<(), ParamError> {
            if ok {
                Ok(())
            } else {
                Err(ParamError { name, value, expected })
            }
        }
        let dt = self.time_step;
        check(dt.is_finite() && dt > 0.0 && dt <= 1.0, "time_step", dt.to_string(), "in (0, 1] seconds")?;
        check((1..=MAX_SUBSTEPS).contains(&self.substeps), "substeps", self.substeps.to_string(), "in 1..=128")?;
        check(
            (1..=MAX_ITERATIONS).contains(&self.iterations),
            "iterations",
            self.iterations.to_string(),
            "in 1..=100",
        )?;
        check(self.gravity.is_finite(), "gravity", format!("{:?}", self.gravity), "finite")?;
        check(
            self.external_acceleration.is_finite(),
            "external_acceleration",
            format!("{:?}", self.external_acceleration),
            "finite",
        )?;
        let non_negative = |v: f32| v.is_finite() && v >= 0.0;
        check(non_negative(self.damping), "damping", self.damping.to_string(), "finite and ≥ 0")?;
        check(non_negative(self.rigid_damping), "rigid_damping", self.rigid_damping.to_string(), "finite and ≥ 0")?;
        let speed = self.max_depenetration_speed;
        check(speed >= 0.0, "max_depenetration_speed", speed.to_string(), "≥ 0 (infinity: unbounded)")?;
        self.stretch.validate("stretch")?;
        self.compression.validate("compression")?;
        self.bending.validate("bending")?;
        let scale = self.tethers.scale;
        check(scale.is_finite() && scale >= 1.0, "tethers.scale", scale.to_string(), "finite and ≥ 1")?;
        self.tethers.stiffness.validate("tethers.stiffness")?;
        for (limits, [min_name, max_name]) in [
            (self.strain_limits, ["strain_limits.min", "strain_limits.max"]),
            (self.area_limits, ["area_limits.min", "area_limits.max"]),
        ] {
            if let Some(StrainLimits { min, max }) = limits {
                check((0.0..=1.0).contains(&min), min_name, min.to_string(), "in [0, 1]")?;
                check(max.is_finite() && max >= 1.0, max_name, max.to_string(), "finite and ≥ 1")?;
            }
        }
        if let Some(DirectionalLimit { slack }) = self.directional {
            check((0.0..=1.0).contains(&slack), "directional.slack", slack.to_string(), "in [0, 1]")?;
        }
        if let Some(aero) = &self.aerodynamics {
            aero.validate()?;
        }
        if let Some(self_collision) = &self.self_collision {
            self_collision.validate()?;
        }
        self.contact_material().validate()?;
        let h = self.substep_dt();
        check(h * h > 0.0, "time_step", dt.to_string(), "large enough that (time_step / substeps)² is not zero")?;
        let Responses { stretch, compression, bending, .. } = self.responses();
        let tethers = self.tether_response(1);
        for (name, response) in
            [("stretch", stretch), ("compression", compression), ("bending", bending), ("tethers.stiffness", tethers)]
        {
            check(
                response.iter().all(|r| r.is_finite()),
                name,
                format!("{response:?}"),
                "a compliance whose α/h² is finite",
            )?;
        }
        match self.mode {
            SolverMode::Jacobi { relaxation } => {
                check(relaxation > 0.0 && relaxation <= 2.0, "mode.relaxation", relaxation.to_string(), "in (0, 2]")
            }
            SolverMode::MassSpring(springs) => springs.validate(),
            SolverMode::GaussSeidel => Ok(()),
        }
    }
}

impl SolverParams {
    /// The responses `[k, α̃]` of one substep for every kind.
    pub fn responses(&self) -> Responses {
        let h = self.substep_dt();
        let response = |s: Stiffness| s.response(self.substeps, self.iterations, h);
        Responses {
            stretch: response(self.stretch),
            compression: response(self.compression),
            bending: response(self.bending),
            membrane: response(Stiffness::Compliance(1.0)),
            curvature: response(Stiffness::Compliance(1.0)),
            strain_limits: self.strain_limits,
        }
    }

    /// The area limits when they are projected: switched on, in a mode that projects.
    pub fn active_area_limits(&self) -> Option<StrainLimits> {
        self.area_limits.filter(|_| self.mode.projects())
    }

    /// The directional strain limit when it runs: switched on, in a mode that projects.
    pub fn active_directional(&self) -> Option<DirectionalLimit> {
        self.directional.filter(|_| self.mode.projects())
    }

    /// Whether the tethers are projected: switched on, in a mode that projects.
    pub fn tethers_active(&self) -> bool {
        self.tethers.enabled && self.mode.projects()
    }

    /// The tethers' `[k, α̃]` for `sweeps` projections per substep (the tethers pass's
    /// `TETHER_SWEEPS`).
    pub fn tether_response(&self, sweeps: u32) -> Response {
        self.tethers.stiffness.response(self.substeps, sweeps, self.substep_dt())
    }

    /// Pre-solve normal speed below which restitution is off: `2|g|h` (XPBD rigid bodies §3.6).
    pub fn restitution_threshold(&self) -> f32 {
        2.0 * self.gravity.length() * self.substep_dt()
    }

    /// What the collision response uses of these parameters besides the colliders' materials.
    pub fn contact_response(&self) -> ContactResponse {
        ContactResponse { h: self.substep_dt(), restitution_threshold: self.restitution_threshold() }
    }

    /// The material of every collider without one of its own: the margin, friction and
    /// restitution here.
    pub fn contact_material(&self) -> ContactMaterial {
        ContactMaterial {
            collision_margin: self.collision_margin,
            static_friction: self.static_friction,
            dynamic_friction: self.dynamic_friction,
            restitution: self.restitution,
        }
    }
}

/// The fastest accepted wind (m/s): far beyond any weather, and small enough that no force
/// overflows f32.
pub const MAX_WIND_SPEED: f32 = 1000.0;
/// The densest accepted air (kg/m³; water is 1000) and the largest accepted coefficient.
pub const MAX_AIR_DENSITY: f32 = 1000.0;
const MAX_COEFFICIENT: f32 = 100.0;

/// The air around the cloth: wind, density and the cloth's aerodynamic coefficients.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aerodynamics {
    /// Wind velocity in m/s (default zero: still air, which still drags a moving cloth), at
    /// most [`MAX_WIND_SPEED`] fast.
    pub wind: Vec3,
    /// Air density in kg/m³ (default 1.225, sea level at 15 °C), in [0, 1000] (water is 1000).
    /// At 0 the air exerts no force, though its dispatches still run: set
    /// `SolverParams::aerodynamics` to `None` to turn it off.
    pub air_density: f32,
    /// Drag coefficient of a triangle face-on to the flow (default 1.2, a thin flat plate; in
    /// [0, 100]). A falling flat cloth of surface density `σ` reaches the terminal speed
    /// `sqrt(2σg / (ρ C_D))`.
    pub drag_coefficient: f32,
    /// Lift coefficient (default 0.3, in [0, 100]): how strongly an inclined triangle deflects
    /// the flow sideways, what makes a flag climb and a falling sheet glide.
    pub lift_coefficient: f32,
    /// Gusts of the wind (default none).
    pub gusts: Gusts,
}

impl Default for Aerodynamics {
    fn default() -> Self {
        Self {
            wind: Vec3::ZERO,
            air_density: 1.225,
            drag_coefficient: 1.2,
            lift_coefficient: 0.3,
            gusts: Gusts::default(),
        }
    }
}

/// Gusts: the wind's speed varying smoothly in time and along its direction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gusts {
    /// Relative strength in [0, 1] (default 0, steady wind): the wind speed varies between
    /// `1 − strength` and `1 + strength` times its mean.
    pub strength: f32,
    /// Gusts per second, finite and > 0 (default 0.5 Hz).
    pub frequency: f32,
}

impl Default for Gusts {
    fn default() -> Self {
        Self { strength: 0.0, frequency: 0.5 }
    }
}

impl Aerodynamics {
    /// Checks every field against its documented range; names are relative to the field
    /// `aerodynamics` of [`crate::SolverParams`].
    pub fn validate(&self) -> Result<(), ParamError> {
        let error = |name, value: String, expected| Err(ParamError { name, value, expected });
        if !(self.wind.is_finite() && self.wind.length() <= MAX_WIND_SPEED) {
            return error("aerodynamics.wind", format!("{:?}", self.wind), "finite and at most 1000 m/s");
        }
        for (name, value, max, expected) in [
            ("aerodynamics.air_density", self.air_density, MAX_AIR_DENSITY, "in [0, 1000] kg/m³"),
            ("aerodynamics.drag_coefficient", self.drag_coefficient, MAX_COEFFICIENT, "in [0, 100]"),
            ("aerodynamics.lift_coefficient", self.lift_coefficient, MAX_COEFFICIENT, "in [0, 100]"),
        ] {
            if !(0.0..=max).contains(&value) {
                return error(name, value.to_string(), expected);
            }
        }
        let Gusts { strength, frequency } = self.gusts;
        if !(0.0..=1.0).contains(&strength) {
            return error("aerodynamics.gusts.strength", strength.to_string(), "in [0, 1]");
        }
        if !(frequency.is_finite() && frequency > 0.0) {
            return error("aerodynamics.gusts.frequency", frequency.to_string(), "finite and > 0");
        }
        Ok(())
    }
}

/// The springs' constants. Each is per spring, so on a regular grid the membrane's stiffness
/// (N/m: force per unit width per unit strain) depends on them and not on the resolution, while
/// the particles' masses shrink with the cells: finer cloths need shorter substeps
/// ([`crate::passes::springs::SpringNetwork::min_stable_substeps`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MassSpringParams {
    /// Stiffness of the springs along the edges, N/m (default 50, finite and ≥ 0): stretch.
    pub structural: f32,
    /// Stiffness of the diagonal springs, N/m (default 10, finite and ≥ 0): shear, and some of
    /// the stretch.
    pub shear: f32,
    /// Stiffness of the flexion springs, N/m (default 1, finite and ≥ 0): folds (not small
    /// bends; see [`crate::passes::springs`]).
    pub flexion: f32,
    /// Damping of every spring along its direction, N·s/m (default 0.001, finite and ≥ 0):
    /// `F = −c·((v_i − v_j)·d̂)·d̂` calms the springs' vibration without slowing rigid motion.
    pub damping: f32,
}

impl Default for MassSpringParams {
    fn default() -> Self {
        Self { structural: 50.0, shear: 10.0, flexion: 1.0, damping: 0.001 }
    }
}

impl MassSpringParams {
    /// Checks every constant is finite and ≥ 0.
    pub fn validate(&self) -> Result<(), ParamError> {
        let fields = [
            ("mode.structural", self.structural),
            ("mode.shear", self.shear),
            ("mode.flexion", self.flexion),
            ("mode.damping", self.damping),
        ];
        match fields.into_iter().find(|(_, v)| !(v.is_finite() && *v >= 0.0)) {
            Some((name, value)) => Err(ParamError { name, value: value.to_string(), expected: "finite and ≥ 0" }),
            None => Ok(()),
        }
    }
}

/// Self-collision parameters ([`crate::SolverParams::self_collision`]), and what one cloth keeps
/// ([`crate::ClothModel::with_contact`]) or one contact between two cloths
/// ([`crate::passes::self_collision::cloth_contacts`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SelfCollision {
    /// Distance in metres kept between particles that are at least this far apart at rest,
    /// and between a particle and a triangle's face (in (0, 1] m). Below the particle spacing
    /// the triangle contacts keep particles from slipping between particles, but two edges can
    /// still cross (there are no edge–edge contacts), and the contacts cost more the more
    /// cells a triangle spans (up to [`crate::passes::self_collision::triangles::MAX_TRIANGLE_COLUMNS`] columns). It also
    /// bounds deformation speed: no particle departs more than `h/2` per substep from the
    /// cloth's rigid motion, so `h = 1 cm` at 60 frames and 10 substeps per second lets parts of
    /// the cloth move at up to 3 m/s relative to its rigid motion (the cloth as a whole, thrown
    /// or spun, is not limited).
    pub thickness: f32,
    /// Coulomb friction between layers (≥ 0): a contact removes its pair's relative
    /// tangential motion up to `friction` times the contact's push ([`crate::passes::self_collision::friction_kept`]). One
    /// coefficient, with no drop from static to kinetic: see [`crate::passes::self_collision::friction_kept`] for why.
    /// A contact shares its correction between both layers; where a collider's friction holds
    /// the lower layer, the collider's response takes that layer's share back, so a sheet on a
    /// sheet lying on a slope keeps only part of its friction and creeps (5 mm/s down 20° with
    /// a friction of 0.6, at 10 substeps of a 60 Hz frame; slower with shorter substeps). On a
    /// pinned layer it holds as Coulomb's law says.
    pub friction: f32,
}

/// 2 cm apart, friction 0.3: the demos' setting, for cloths of a metre or two.
impl Default for SelfCollision {
    fn default() -> Self {
        Self::new(0.02)
    }
}

impl SelfCollision {
    /// A thickness of `thickness` metres with friction 0.3, cloth on cloth.
    pub fn new(thickness: f32) -> Self {
        Self { thickness, friction: 0.3 }
    }

    /// Checks each field against its documented range.
    pub fn validate(&self) -> Result<(), ParamError> {
        let fields = [
            ("self_collision.thickness", self.thickness, self.thickness > 0.0 && self.thickness <= 1.0, "in (0, 1] m"),
            ("self_collision.friction", self.friction, self.friction >= 0.0, "finite and ≥ 0"),
        ];
        for (name, value, ok, expected) in fields {
            if !(ok && value.is_finite()) {
                return Err(ParamError { name, value: value.to_string(), expected });
            }
        }
        Ok(())
    }
}
