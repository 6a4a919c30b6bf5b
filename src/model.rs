//! The cloth model: fixed topology and rest data derived once from a mesh — lumped masses,
//! the constraints of every kind, and their Gauss-Seidel schedule. Everything is built by
//! [`ClothModel::new`] and read through accessors, so its invariants hold by construction.

use crate::constraints::bending::BendingConstraints;
use crate::constraints::curvature::CurvatureConstraints;
use crate::constraints::isometric::{self, IsometricConstraints};
use crate::constraints::membrane::{MembraneConstraints, Moduli, MAX_MATERIALS};
use crate::constraints::shell;
use crate::constraints::stretch::StretchConstraints;
use crate::constraints::{
    jacobi_shares, BendingModel, Constraints, JacobiScales, Kind, Responses, StretchModel, UnitType,
};
use crate::error::{Error, MeshError, ParamError};
use crate::fabric::{hinge_stiffness, BendingRigidity, Fabric};
use crate::graph::{starts, Csr};
use crate::math::{normalize_or_up, weighted_face_normal};
use crate::mesh::{ClothMesh, MeshEdge};
use crate::params::{SelfCollision, SolverParams, Stiffness};
use crate::schedule::Schedule;
use glam::Vec3;
use std::ops::Range;

/// How many particles a stripe touches at most, where the mesh allows: the striped kernel keeps
/// a stripe in workgroup memory, two `vec4<f32>` per particle (position with inverse mass,
/// displacement), so 1024 particles take 32 KiB, what lavapipe and desktop GPUs offer. A stripe
/// is at least two breadth-first levels of hinges wide (four rows of a grid), so wide cloths get
/// wider stripes: the kernel then keeps only their displacements (16 KiB per 1024 particles), or
/// projects them in place where even those do not fit.
pub const STRIPE_PARTICLES: usize = 1024;

/// Default surface density of the cloth, kg/m² (a medium cotton).
pub const DEFAULT_DENSITY: f32 = 0.2;

/// Cloth topology and rest data, shared by the GPU solver and the CPU reference.
#[derive(Debug, Clone, PartialEq)]
pub struct ClothModel {
    mesh: ClothMesh,
    masses: Vec<f32>,
    inverse_masses: Vec<f32>,
    constraints: Constraints,
    bending_model: BendingModel,
    bending_rigidity: Option<BendingRigidity>,
    /// The mesh's edges and their rest lengths, whatever resists stretch (what stretch is
    /// measured on).
    edges: StretchConstraints,
    schedule: Schedule,
    /// Each unit type's range of unit indices, in [`UnitType::ALL`] order.
    units: Vec<Range<u32>>,
    vertex_triangles: Csr,
    cloths: Vec<Cloth>,
    /// The frictions set between pairs of cloths ([`ClothModel::with_pair_friction`]).
    pair_frictions: Vec<PairFriction>,
}

/// One cloth of a model: its particles and its triangles, ranges of the model's
/// ([`ClothModel::joined`]), and its own thickness and friction in self-collision.
#[derive(Debug, Clone, PartialEq)]
pub struct Cloth {
    /// Its particles (the mesh's vertices).
    pub particles: Range<u32>,
    /// Its triangles (the mesh's).
    pub triangles: Range<u32>,
    /// Its own thickness and friction in self-collision ([`ClothModel::with_contact`]), or
    /// `None` for the solver's ([`SolverParams::self_collision`]).
    pub contact: Option<SelfCollision>,
}

/// The friction between two cloths of a model, in place of the mean of theirs
/// ([`ClothModel::with_pair_friction`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairFriction {
    /// The two cloths, the lower index first (the same cloth twice: the cloth on itself).
    pub cloths: [u32; 2],
    /// Coulomb friction between them (≥ 0, [`SelfCollision::friction`]).
    pub friction: f32,
}

impl Cloth {
    /// Its particles as indices of the model's particle arrays.
    pub fn indices(&self) -> Range<usize> {
        self.particles.start as usize..self.particles.end as usize
    }
}

impl ClothModel {
    /// Derives the model from a validated mesh. `density` is in kg/m²; `pins` are the vertices
    /// held in place (inverse mass 0) — they can move as kinematic targets later.
    pub fn new(mesh: ClothMesh, density: f32, pins: &[u32]) -> Result<Self, Error> {
        let edges = mesh.validated_edges()?;
        if !(density.is_finite() && density > 0.0) {
            return Err(ParamError { name: "density", value: density.to_string(), expected: "finite and > 0" }.into());
        }
        let n = mesh.positions.len();
        if let Some(&index) = pins.iter().find(|&&p| p as usize >= n) {
            return Err(MeshError::PinOutOfRange { index, vertex_count: n }.into());
        }
        let masses = mesh.vertex_masses(density);
        let mut inverse_masses: Vec<f32> = masses.iter().map(|m| 1.0 / m).collect();
        if masses.iter().zip(&inverse_masses).any(|(m, w)| !(m.is_finite() && w.is_finite() && *m > 0.0)) {
            return Err(ParamError {
                name: "density",
                value: density.to_string(),
                expected: "a density that gives every vertex a finite, non-zero mass",
            }
            .into());
        }
        for &p in pins {
            inverse_masses[p as usize] = 0.0;
        }
        let (constraints, schedule, units) =
            scheduled_constraints(&mesh, &edges, StretchModel::Edges, BendingModel::Dihedral);
        Ok(Self {
            vertex_triangles: vertex_triangles(&mesh),
            cloths: vec![Cloth { particles: 0..n as u32, triangles: 0..mesh.triangles.len() as u32, contact: None }],
            pair_frictions: Vec::new(),
            edges: constraints.stretch.clone(),
            mesh,
            masses,
            inverse_masses,
            constraints,
            bending_model: BendingModel::Dihedral,
            bending_rigidity: None,
            schedule,
            units,
        })
    }

    /// Several cloths in one model, cloth after cloth in one particle array
    /// ([`ClothModel::cloths`]), each keeping its own masses, pins, constraints and stiffness
    /// maps, and its material: a fabric of its own ([`ClothModel::from_fabric`]), or a stiffness
    /// of its own as a map ([`ClothModel::with_stiffness_scales`]). The cloths share colours,
    /// stripes and dispatches ([`Schedule::merged`]: in each phase, a unit type has the colours
    /// of the cloth with the most there), and each keeps its projection order, so a cloth that
    /// touches no other moves as it would in a solver of its own (within the rounding of
    /// self-collision's shared hash, [`crate::passes::self_collision`]). They must resist stretch
    /// and bend by the same models (edges or a membrane, the bending model, a bending rigidity
    /// or none), whatever their materials; set those on each cloth first: a joined model refuses
    /// to change them ([`ClothModel::with_membrane`], [`ClothModel::with_bending_model`],
    /// [`ClothModel::with_bending_rigidity`]). The joined model's
    /// [`ClothModel::stretch_model`] and [`ClothModel::bending_rigidity`] are the first cloth's.
    /// The constraints are numbered colour by colour, the cloths' interleaved: make a stiffness
    /// map set after joining from a per-particle one ([`ClothModel::constraint_means`]).
    pub fn joined(cloths: &[ClothModel]) -> Result<Self, Error> {
        let Some(first) = cloths.first() else {
            return Err(ParamError { name: "cloths", value: "none".into(), expected: "at least one cloth" }.into());
        };
        if let Some(c) = cloths.iter().position(|cloth| !cloth.resists_as(first)) {
            let expected = "the stretch model, bending model and kind of bending stiffness of cloth 0";
            return Err(ParamError { name: "cloths", value: format!("cloth {c}"), expected }.into());
        }
        let meshes: Vec<ClothMesh> = cloths.iter().map(|cloth| cloth.mesh.clone()).collect();
        let mesh = ClothMesh::joined(&meshes)?;
        let offsets = starts(cloths.iter().map(|cloth| cloth.particle_count() as u32));
        let first_triangles = starts(cloths.iter().map(|cloth| cloth.mesh.triangles.len() as u32));
        let bases: Vec<u32> =
            (0..UnitType::ALL.len()).map(|t| cloths.iter().map(|cloth| cloth.units[t].start).sum()).collect();
        let schedules: Vec<&Schedule> = cloths.iter().map(|cloth| &cloth.schedule).collect();
        let (schedule, sources) = Schedule::merged(&schedules, &bases, &offsets);
        let units: Vec<Range<u32>> = bases.iter().zip(&sources).map(|(&b, s)| b..b + s.len() as u32).collect();
        let constraints = gathered_constraints(cloths, &units, &sources, &offsets);
        let materials = constraints.membrane.materials().len().max(constraints.curvature.materials().len());
        if materials > MAX_MATERIALS {
            let expected = "at most MAX_MATERIALS (16) distinct fabrics";
            return Err(ParamError { name: "cloths", value: format!("{materials} fabrics"), expected }.into());
        }
        let every_edge: Vec<(usize, u32)> = cloths
            .iter()
            .enumerate()
            .flat_map(|(c, cloth)| (0..cloth.edges.len() as u32).map(move |k| (c, k)))
            .collect();
        let edge_parts: Vec<&StretchConstraints> = cloths.iter().map(|cloth| &cloth.edges).collect();
        let moved = |range: &Range<u32>, by: u32| range.start + by..range.end + by;
        let parts = cloths.iter().zip(offsets.iter().zip(&first_triangles));
        let first_cloths = starts(cloths.iter().map(|cloth| cloth.cloths.len() as u32));
        Ok(Self {
            vertex_triangles: vertex_triangles(&mesh),
            cloths: parts
                .flat_map(|(cloth, (&p, &t))| {
                    cloth.cloths.iter().map(move |own| Cloth {
                        particles: moved(&own.particles, p),
                        triangles: moved(&own.triangles, t),
                        contact: own.contact,
                    })
                })
                .collect(),
            pair_frictions: (cloths.iter().zip(first_cloths))
                .flat_map(|(cloth, first)| {
                    cloth
                        .pair_frictions
                        .iter()
                        .map(move |pair| PairFriction { cloths: pair.cloths.map(|c| c + first), ..*pair })
                })
                .collect(),
            edges: StretchConstraints::gathered(&edge_parts, &every_edge, &offsets),
            mesh,
            masses: cloths.iter().flat_map(|cloth| cloth.masses.iter().copied()).collect(),
            inverse_masses: cloths.iter().flat_map(|cloth| cloth.inverse_masses.iter().copied()).collect(),
            constraints,
            bending_model: first.bending_model,
            bending_rigidity: first.bending_rigidity,
            schedule,
            units,
        })
    }

    /// Refuses to change the materials of a joined model (`name` the setting that asked): each
    /// cloth's are set before joining.
    fn single_cloth(&self, name: &'static str) -> Result<(), Error> {
        if self.cloths.len() == 1 {
            return Ok(());
        }
        let expected = "a single cloth (set each cloth's materials before joining them)";
        Err(ParamError { name, value: format!("{} joined cloths", self.cloths.len()), expected }.into())
    }

    /// Whether it resists stretch and bending by the models `other` does (of any material): edges
    /// or a membrane, the same bending model, a bending rigidity or none, and its triangles in the
    /// same unit type (shells or not).
    fn resists_as(&self, other: &ClothModel) -> bool {
        let membrane = |model: &ClothModel| matches!(model.stretch_model(), StretchModel::Membrane(_));
        let shells = |model: &ClothModel| !model.units(UnitType::Shell).is_empty();
        membrane(self) == membrane(other)
            && self.bending_model == other.bending_model
            && self.bending_rigidity.is_some() == other.bending_rigidity.is_some()
            && shells(self) == shells(other)
    }

    /// Its cloths, in particle order: one, unless it was [joined](ClothModel::joined).
    pub fn cloths(&self) -> &[Cloth] {
        &self.cloths
    }

    /// Cloth `c`'s rest mesh on its own (its vertices and triangles numbered from 0).
    ///
    /// # Panics
    /// If `c` is not one of its cloths.
    pub fn cloth_mesh(&self, c: usize) -> ClothMesh {
        let cloth = &self.cloths[c];
        let (vertices, first) = (cloth.indices(), cloth.particles.start);
        let triangles = self.mesh.triangles[cloth.triangles.start as usize..cloth.triangles.end as usize]
            .iter()
            .map(|t| t.map(|i| i - first))
            .collect();
        ClothMesh {
            positions: self.mesh.positions[vertices.clone()].to_vec(),
            triangles,
            uvs: self.mesh.uvs[vertices].to_vec(),
        }
    }

    /// The model with cloth `cloth`'s own thickness and friction in self-collision: against
    /// itself, its own; against another cloth, the mean of the two thicknesses (each cloth's
    /// surface is half its thickness from its particles) and of the two frictions, unless the
    /// pair has its own ([`ClothModel::with_pair_friction`]). A cloth without its own takes
    /// [`SolverParams::self_collision`]'s, which also turns self-collision on and off.
    pub fn with_contact(mut self, cloth: usize, contact: SelfCollision) -> Result<Self, Error> {
        self.cloth_index("contact", cloth)?;
        contact.validate()?;
        self.cloths[cloth].contact = Some(contact);
        Ok(self)
    }

    /// The model with the friction between cloths `a` and `b` set to `friction` (finite and
    /// ≥ 0), in place of the mean of theirs: silk on leather, say, apart from silk on silk.
    /// `a == b` sets a cloth's friction on itself alone.
    pub fn with_pair_friction(mut self, a: usize, b: usize, friction: f32) -> Result<Self, Error> {
        self.cloth_index("pair_friction", a)?;
        self.cloth_index("pair_friction", b)?;
        if !(friction.is_finite() && friction >= 0.0) {
            return Err(ParamError {
                name: "pair_friction", value: friction.to_string(), expected: "finite and ≥ 0"
            }
            .into());
        }
        let cloths = [a.min(b) as u32, a.max(b) as u32];
        self.pair_frictions.retain(|pair| pair.cloths != cloths);
        self.pair_frictions.push(PairFriction { cloths, friction });
        Ok(self)
    }

    /// Whether a cloth keeps a contact of its own or a pair a friction of its own
    /// ([`ClothModel::with_contact`], [`ClothModel::with_pair_friction`]); if not, every cloth
    /// collides as [`SolverParams::self_collision`] says.
    pub fn has_own_contacts(&self) -> bool {
        self.cloths.iter().any(|cloth| cloth.contact.is_some()) || !self.pair_frictions.is_empty()
    }

    /// The frictions set between pairs of its cloths ([`ClothModel::with_pair_friction`]).
    pub fn pair_frictions(&self) -> &[PairFriction] {
        &self.pair_frictions
    }

    /// Refuses `cloth` unless it is one of the model's (`name` the setting that asked).
    fn cloth_index(&self, name: &'static str, cloth: usize) -> Result<(), Error> {
        if cloth < self.cloths.len() {
            return Ok(());
        }
        let expected = "one of the model's cloths";
        Err(ParamError { name, value: format!("cloth {cloth} of {}", self.cloths.len()), expected }.into())
    }

    /// A cloth of `fabric` ([`crate::fabric::FABRICS`]): its areal density, a membrane of its
    /// moduli ([`ClothModel::with_membrane`]) and its bending rigidity
    /// ([`ClothModel::with_bending_rigidity`]) in each triangle's curvature
    /// ([`BendingModel::Curvature`]), the warp along the texture's `u`.
    pub fn from_fabric(mesh: ClothMesh, fabric: &Fabric, pins: &[u32]) -> Result<Self, Error> {
        fabric.validate()?;
        Self::new(mesh, fabric.density, pins)?
            .with_membrane(fabric.moduli)?
            .with_bending_rigidity(fabric.bending)?
            .with_bending_model(BendingModel::Curvature)
    }

    /// The same mesh and pins as a cloth of `fabric` ([`ClothModel::from_fabric`]): its masses,
    /// membrane and bending all of the fabric, whatever this model's were.
    /// Each cloth of a joined model is refitted on its own, and the cloths joined again; their
    /// contacts ([`ClothModel::with_contact`], [`ClothModel::with_pair_friction`]) are kept.
    pub fn refit_to(&self, fabric: &Fabric) -> Result<Self, Error> {
        let pins = self.pins();
        let refitted: Result<Vec<Self>, Error> = (0..self.cloths.len())
            .map(|c| {
                let cloth = &self.cloths[c];
                let own: Vec<u32> =
                    pins.iter().filter(|i| cloth.particles.contains(i)).map(|&i| i - cloth.particles.start).collect();
                let mut refitted = Self::from_fabric(self.cloth_mesh(c), fabric, &own)?;
                refitted.cloths[0].contact = cloth.contact;
                Ok(refitted)
            })
            .collect();
        let joined = match refitted?.as_slice() {
            [one] => one.clone(),
            several => Self::joined(several)?,
        };
        Ok(Self { pair_frictions: self.pair_frictions.clone(), ..joined })
    }

    /// The model with a membrane of `moduli` instead of stretch constraints on its edges
    /// ([`crate::constraints::membrane`]): warp, weft and shear per triangle, the warp along
    /// the texture's `u` (or the world's `x` without texture coordinates), each strain's
    /// compliance `1/(E·A)` from the triangle's rest area. `SolverParams::stretch`,
    /// `compression` and `strain_limits` then do not apply. Its constraints and schedule are
    /// built again (the bending model and rigidity are kept), so set stiffness maps after it:
    /// a model with one refuses.
    pub fn with_membrane(self, moduli: Moduli) -> Result<Self, Error> {
        moduli.validate()?;
        self.with_stretch_model(StretchModel::Membrane(moduli))
    }

    /// The model with `stretch_model`, constraints and schedule built again.
    fn with_stretch_model(self, stretch_model: StretchModel) -> Result<Self, Error> {
        let bending_model = self.bending_model;
        self.rebuilt(stretch_model, bending_model, "stretch_model")
    }

    /// The model with its constraints and schedule built again for `stretch_model` and
    /// `bending_model`, keeping its bending rigidity; `name` is the setting that asked (for the
    /// errors). A model with stiffness maps refuses: they belong to the constraints it had.
    fn rebuilt(
        mut self,
        stretch_model: StretchModel,
        bending_model: BendingModel,
        name: &'static str,
    ) -> Result<Self, Error> {
        self.single_cloth(name)?;
        if Kind::ALL.iter().any(|&k| self.constraints.of(k).stiffness_scales().iter().any(|&s| s != 1.0)) {
            let expected = "a model without stiffness maps (set them after the membrane and the bending model)";
            return Err(ParamError { name, value: "a mapped model".into(), expected }.into());
        }
        let built = match bending_model {
            BendingModel::Curvature => BendingModel::Curvature,
            _ => BendingModel::Dihedral,
        };
        let edges = self.mesh.validated_edges()?;
        let (constraints, schedule, units) = scheduled_constraints(&self.mesh, &edges, stretch_model, built);
        let triangles = self.mesh.triangles.len();
        if let StretchModel::Membrane(_) = stretch_model {
            if constraints.membrane.len() != triangles {
                let expected = "triangles whose rest shape gives a material frame";
                return Err(ParamError { name, value: "membrane".into(), expected }.into());
            }
        }
        if built == BendingModel::Curvature && constraints.curvature.len() != triangles {
            let expected = "triangles whose rest shape gives a material frame";
            return Err(ParamError { name, value: "curvature".into(), expected }.into());
        }
        let rigidity = self.bending_rigidity;
        self.constraints = constraints;
        self.schedule = schedule;
        self.units = units;
        self.bending_model = built;
        self.bending_rigidity = None;
        let mut model = if bending_model == built { self } else { self.with_bending_model(bending_model)? };
        if let Some(rigidity) = rigidity {
            model = model.with_bending_rigidity(rigidity)?;
        }
        Ok(model)
    }

    /// The model bending by rigidity `rigidity` (N·m per direction): each hinge's compliance
    /// follows from its rest geometry ([`hinge_stiffness`]), or each triangle's curvature
    /// from its area ([`BendingModel::Curvature`]), so the same rigidity bends alike at any
    /// resolution, and `SolverParams::bending` no longer applies. Kept through
    /// [`ClothModel::with_bending_model`]; a stiffness map multiplies it. A joined model
    /// refuses: set each cloth's before joining.
    pub fn with_bending_rigidity(mut self, rigidity: BendingRigidity) -> Result<Self, Error> {
        rigidity.validate()?;
        self.single_cloth("bending_rigidity")?;
        if self.bending_model == BendingModel::Curvature {
            self.constraints.curvature.set_rigidities([rigidity.warp, rigidity.weft, rigidity.twist()]);
            self.bending_rigidity = Some(rigidity);
            return Ok(self);
        }
        let mesh = &self.mesh;
        let kind = hinge_kind(self.bending_model);
        let hinges: Vec<[u32; 4]> = (0..self.constraints.of(kind).constraint_count())
            .map(|c| self.constraints.of(kind).constraint_particles(c).try_into().expect("four particles a hinge"))
            .collect();
        let stiffnesses: Option<Vec<f32>> = hinges
            .iter()
            .map(|h| {
                let stiffness = hinge_stiffness(
                    self.bending_model,
                    &rigidity,
                    h.map(|i| mesh.positions[i as usize]),
                    h.map(|i| mesh.uvs[i as usize]),
                );
                stiffness.filter(|k| k.is_finite() && *k > 0.0)
            })
            .collect();
        let Some(stiffnesses) = stiffnesses else {
            let expected = "hinges whose rest triangles give a finite stiffness";
            return Err(ParamError { name: "bending_rigidity", value: format!("{rigidity:?}"), expected }.into());
        };
        match self.bending_model {
            BendingModel::Dihedral => self.constraints.bending.set_stiffnesses(stiffnesses),
            BendingModel::Isometric => self.constraints.isometric.set_stiffnesses(stiffnesses),
            BendingModel::Curvature => unreachable!("the curvature takes its rigidity above"),
        }
        self.bending_rigidity = Some(rigidity);
        Ok(self)
    }

    /// How the cloth resists in-plane strain: its membrane's moduli where it has one.
    pub fn stretch_model(&self) -> StretchModel {
        self.constraints.membrane.moduli().map_or(StretchModel::Edges, StretchModel::Membrane)
    }

    /// The cloth's bending rigidity, `None` where `SolverParams::bending` stiffens its hinges.
    pub fn bending_rigidity(&self) -> Option<BendingRigidity> {
        self.bending_rigidity
    }

    /// The responses `[k, α̃]` of one substep of `params` for every kind of this cloth:
    /// `params`' own ([`SolverParams::responses`]), except that hinges with a bending rigidity
    /// respond per unit of their own stiffness.
    pub fn responses(&self, params: &SolverParams) -> Responses {
        let mut responses = params.responses();
        if self.bending_rigidity.is_some() {
            responses.bending =
                Stiffness::Compliance(1.0).response(params.substeps, params.iterations, params.substep_dt());
        }
        responses
    }

    /// The mesh's edges with their rest lengths, whatever resists stretch (the stretch
    /// constraints' own edges in the same order for a cloth that has them; a joined model's are
    /// its cloths' in turn).
    pub fn edges(&self) -> &StretchConstraints {
        &self.edges
    }

    /// The model with its hinges bending by `bending_model` (dihedral by default; [`BendingModel`]
    /// and [`crate::constraints::isometric`] say when each fits), the constraints built at the
    /// rest state for the same hinges in the same order, each keeping its stiffness scale.
    /// The isometric model refuses a curved rest mesh ([`Error::CurvedRestHinge`]). The
    /// curvature model, whose units are triangles rather than hinges, builds the constraints
    /// and schedule again (a model with stiffness maps then refuses), and needs a bending
    /// rigidity. A joined model refuses another model: set each cloth's before joining.
    pub fn with_bending_model(mut self, bending_model: BendingModel) -> Result<Self, Error> {
        if bending_model == BendingModel::Curvature && self.bending_rigidity.is_none() {
            let expected = "a model with a bending rigidity (ClothModel::with_bending_rigidity)";
            return Err(ParamError { name: "bending_model", value: bending_model.name().into(), expected }.into());
        }
        if bending_model == self.bending_model {
            return Ok(self);
        }
        self.single_cloth("bending_model")?;
        if BendingModel::Curvature == bending_model || BendingModel::Curvature == self.bending_model {
            let stretch_model = self.stretch_model();
            return self.rebuilt(stretch_model, bending_model, "bending_model");
        }
        let (from, to) = (
            UnitType::hinge(self.bending_model, self.stretch_model()),
            UnitType::hinge(bending_model, self.stretch_model()),
        );
        let hinges = match self.bending_model {
            BendingModel::Isometric => self.constraints.isometric.hinges().to_vec(),
            _ => self.constraints.bending.hinges().to_vec(),
        };
        let scales = self.constraints.of(hinge_kind(self.bending_model)).stiffness_scales().to_vec();
        let positions = &self.mesh.positions;
        let (dihedral, isometric, kept) = match bending_model {
            BendingModel::Dihedral => {
                let (dihedral, kept) = BendingConstraints::at_rest(&hinges, positions);
                (dihedral, IsometricConstraints::default(), kept)
            }
            _ => {
                let (isometric, kept) = IsometricConstraints::at_rest(&hinges, positions);
                (BendingConstraints::default(), isometric, kept)
            }
        };
        if kept.contains(&false) {
            let expected = "hinges whose rest triangles suit the model";
            return Err(ParamError { name: "bending_model", value: bending_model.name().into(), expected }.into());
        }
        check_flat_rest(&isometric, positions)?;
        self.constraints.bending = dihedral;
        self.constraints.isometric = isometric;
        self.constraints.of_mut(hinge_kind(bending_model)).stiffness_scales_mut().copy_from_slice(&scales);
        // The same units and colours, now of the other hinge type.
        let (from, to) = (from.id() as usize, to.id() as usize);
        self.units.swap(from, to);
        self.schedule.order.swap(from, to);
        for colour in self.schedule.colours.iter_mut().filter(|c| c.unit_type == from) {
            colour.unit_type = to;
        }
        self.bending_model = bending_model;
        match self.bending_rigidity {
            Some(rigidity) => self.with_bending_rigidity(rigidity),
            None => Ok(self),
        }
    }

    /// How the cloth's hinges bend.
    pub fn bending_model(&self) -> BendingModel {
        self.bending_model
    }

    /// The model with particle `i`'s mass multiplied by `scales[i]`: a material map (a heavy
    /// hem, a light middle). Pinned particles stay pinned. One scale per particle, each finite
    /// and > 0, and the scaled masses finite; otherwise an error and nothing changes.
    pub fn with_mass_scales(mut self, scales: &[f32]) -> Result<Self, Error> {
        check_scales("mass_scales", scales, self.particle_count())?;
        let masses: Vec<f32> = self.masses.iter().zip(scales).map(|(m, s)| m * s).collect();
        let usable = |m: f32| m.is_finite() && m > 0.0 && (1.0 / m).is_finite();
        if let Some(m) = masses.iter().find(|&&m| !usable(m)) {
            let expected = "scales that keep every mass finite and its inverse finite";
            return Err(ParamError { name: "mass_scales", value: m.to_string(), expected }.into());
        }
        // Pinned particles keep their zero inverse mass.
        for (w, m) in self.inverse_masses.iter_mut().zip(&masses) {
            if *w != 0.0 {
                *w = 1.0 / m;
            }
        }
        self.masses = masses;
        Ok(self)
    }

    /// The model with constraint `c` of `kind` `scales[c]` times as stiff as its kind's response
    /// (`SolverParams::stretch` and `compression`, or `bending`: compliance `α/s`, PBD factor
    /// `1 − (1 − k)^s`, [`crate::constraints::scaled_response`]; a membrane's `E·A`, and a
    /// hinge's stiffness from its bending rigidity, are multiplied by it):
    /// a material map (a stiff hem, a soft panel), constraints indexed as in
    /// [`ClothModel::constraints`] ([`ClothModel::constraint_means`] turns a per-particle map
    /// into one). One scale per constraint, each finite and > 0.
    pub fn with_stiffness_scales(mut self, kind: Kind, scales: &[f32]) -> Result<Self, Error> {
        let constraints = self.constraints.of_mut(kind);
        check_scales("stiffness_scales", scales, constraints.constraint_count())?;
        constraints.stiffness_scales_mut().copy_from_slice(scales);
        Ok(self)
    }

    /// Per constraint of `kind`, the mean of `per_particle` over its particles: a map painted on
    /// the vertices made a per-constraint one. `per_particle` has one value per particle.
    pub fn constraint_means(&self, kind: Kind, per_particle: &[f32]) -> Result<Vec<f32>, Error> {
        if per_particle.len() != self.particle_count() {
            return Err(ParamError {
                name: "per_particle",
                value: format!("{} values", per_particle.len()),
                expected: "one value per particle",
            }
            .into());
        }
        let constraints = self.constraints.of(kind);
        Ok((0..constraints.constraint_count())
            .map(|c| {
                let particles = constraints.constraint_particles(c);
                particles.iter().map(|&p| per_particle[p as usize]).sum::<f32>() / particles.len() as f32
            })
            .collect())
    }

    /// The rest-state mesh.
    pub fn mesh(&self) -> &ClothMesh {
        &self.mesh
    }

    /// Lumped particle masses in kg (PBD §4.1).
    pub fn masses(&self) -> &[f32] {
        &self.masses
    }

    /// The particles it pins (inverse mass 0), ascending.
    pub fn pins(&self) -> Vec<u32> {
        (0..self.particle_count() as u32).filter(|&i| self.inverse_masses[i as usize] == 0.0).collect()
    }

    /// `1/m`, or 0 for the model's pinned particles (PBD §3.6).
    pub fn inverse_masses(&self) -> &[f32] {
        &self.inverse_masses
    }

    /// The constraints of every kind, in schedule order.
    pub fn constraints(&self) -> &Constraints {
        &self.constraints
    }

    /// The Gauss-Seidel schedule.
    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// The unit indices of one unit type: free edges are the stretch constraints after the
    /// hinges; hinge `u` is stretch and bending constraint `u`.
    pub fn units(&self, unit_type: UnitType) -> Range<u32> {
        self.units[unit_type.id() as usize].clone()
    }

    /// Colours of one unit type, over both phases.
    pub fn colour_count(&self, unit_type: UnitType) -> usize {
        self.schedule.colours.iter().filter(|c| c.unit_type == unit_type.id() as usize).count()
    }

    /// Units of all types.
    pub fn unit_count(&self) -> usize {
        self.units.iter().map(|r| r.len()).sum()
    }

    /// Normal gather lists: vertex → adjacent triangles.
    pub fn vertex_triangles(&self) -> &Csr {
        &self.vertex_triangles
    }

    /// Number of particles (mesh vertices).
    pub fn particle_count(&self) -> usize {
        self.mesh.positions.len()
    }

    /// Whether every stripe touches at most `capacity` particles, so that a workgroup can keep
    /// its particles in its memory.
    pub fn stripes_fit(&self, capacity: usize) -> bool {
        self.schedule.widest_stripe() <= capacity
    }

    /// What Jacobi needs beside the constraints: each constraint's share and each particle's
    /// correction slots. Built on demand (only Jacobi mode uses it).
    pub fn jacobi_plan(&self) -> JacobiPlan {
        JacobiPlan::new(self)
    }

    /// Area-weighted unit vertex normals of `positions`: each vertex sums
    /// [`weighted_face_normal`] over its triangles in gather-list order (the order the normals
    /// kernel uses) and normalises.
    ///
    /// # Panics
    /// If `positions` has fewer entries than the model has particles.
    pub fn vertex_normals(&self, positions: &[Vec3]) -> Vec<Vec3> {
        (0..self.particle_count())
            .map(|i| {
                let sum = self.vertex_triangles.row(i).iter().fold(Vec3::ZERO, |s, &t| {
                    let [a, b, c] = self.mesh.triangles[t as usize].map(|v| positions[v as usize]);
                    s + weighted_face_normal(a, b, c)
                });
                normalize_or_up(sum)
            })
            .collect()
    }
}

/// Jacobi's data: every unit writes its particles' corrections into slots of its own, and each
/// particle then sums its slots in a fixed order (deterministic, no float atomics).
#[derive(Debug, Clone, PartialEq)]
pub struct JacobiPlan {
    /// Each constraint's share of its correction.
    pub scales: JacobiScales,
    /// The first slot of each unit type, in [`UnitType::ALL`] order: unit `u` of type `t` owns
    /// `arity(t)` slots from `slot_bases[t] + (u − first unit of t)·arity(t)`.
    pub slot_bases: Vec<u32>,
    /// Number of slots.
    pub slot_count: u32,
    /// Particle → its slots, ordered by unit type, unit and place in the unit.
    pub gather: Csr,
}

impl JacobiPlan {
    fn new(model: &ClothModel) -> Self {
        let constraints = &model.constraints;
        let mut slot_bases = Vec::with_capacity(UnitType::ALL.len());
        let mut pairs = Vec::new();
        let mut next = 0u32;
        for t in UnitType::ALL {
            slot_bases.push(next);
            for u in model.units(t) {
                for &p in t.particles(constraints, u as usize) {
                    pairs.push((p, next));
                    next += 1;
                }
            }
        }
        Self {
            scales: jacobi_shares(constraints, model.particle_count()),
            slot_bases,
            slot_count: next,
            gather: Csr::from_pairs(model.particle_count(), pairs.iter().copied()),
        }
    }
}

/// The constraints of every kind in schedule order, the schedule, and each unit type's unit
/// range. A dihedral bending constraint per interior edge at its rest angle (PBD §4.1) and, by
/// `stretch`, a distance constraint per edge at its rest length, or a membrane constraint per
/// triangle. With edges, an edge with a bending constraint forms a hinge with it
/// ([`crate::constraints::hinge`]); the other edges are free edges (the boundary, and any
/// interior edge next to a triangle too small for a normal). With a membrane, each bending
/// constraint is a unit of its own and each triangle another; with a membrane and curvature,
/// each triangle is one shell ([`crate::constraints::shell`]) where they pair up.
fn scheduled_constraints(
    mesh: &ClothMesh,
    edges: &[MeshEdge],
    stretch: StretchModel,
    bending_model: BendingModel,
) -> (Constraints, Schedule, Vec<Range<u32>>) {
    let wing = |t: u32, a: u32, b: u32| {
        *mesh.triangles[t as usize].iter().find(|&&v| v != a && v != b).expect("a valid triangle has a third vertex")
    };
    let candidates: Vec<[u32; 4]> = edges
        .iter()
        .filter_map(|e| e.right.map(|right| [e.a, e.b, wing(e.left, e.a, e.b), wing(right, e.a, e.b)]))
        .collect();
    let curvature = bending_model == BendingModel::Curvature;
    let candidates = if curvature { Vec::new() } else { candidates };
    let (bending, kept) = BendingConstraints::at_rest(&candidates, &mesh.positions);
    let free: Vec<[u32; 2]> = match stretch {
        StretchModel::Edges => {
            let mut kept = kept.iter();
            edges
                .iter()
                .filter(|e| curvature || e.right.is_none() || !kept.next().expect("one flag per interior edge"))
                .map(|e| [e.a, e.b])
                .collect()
        }
        StretchModel::Membrane(_) => Vec::new(),
    };
    let membrane = match stretch {
        StretchModel::Membrane(moduli) => membrane_at_rest(mesh, moduli),
        StretchModel::Edges => MembraneConstraints::default(),
    };
    let curvature = match bending_model {
        BendingModel::Curvature => CurvatureConstraints::at_rest(&mesh.triangles, &mesh.positions, &mesh.uvs, edges).0,
        _ => CurvatureConstraints::default(),
    };
    let hinge_count = bending.len() as u32;
    let hinge_type = UnitType::hinge(BendingModel::Dihedral, stretch);
    // A triangle's membrane and curvature in one unit where every triangle has both.
    let (triangle_type, curvature_type) = match shell::pairs_up(&membrane, &curvature) {
        true => (UnitType::Shell, UnitType::Shell),
        false => (UnitType::Triangle, UnitType::Curvature),
    };
    // Each unit type's units (particles) and index range; free edges follow the hinges in the
    // stretch constraints' numbering.
    let unit_set = |t: UnitType| -> (Csr, Range<u32>) {
        match t {
            UnitType::FreeEdge => (Csr::from_rows(&free), hinge_count..hinge_count + free.len() as u32),
            t if t == curvature_type => (Csr::from_rows(curvature.units()), 0..curvature.len() as u32),
            t if t == triangle_type => (Csr::from_rows(membrane.triangles()), 0..membrane.len() as u32),
            t if t == hinge_type => (Csr::from_rows(bending.hinges()), 0..hinge_count),
            _ => (Csr::default(), 0..0),
        }
    };
    let (unit_sets, units): (Vec<Csr>, Vec<Range<u32>>) = UnitType::ALL.iter().map(|&t| unit_set(t)).unzip();
    let bases: Vec<u32> = units.iter().map(|r| r.start).collect();
    let sources = mesh.boundary_sides(edges);
    let set_refs: Vec<&Csr> = unit_sets.iter().collect();
    let schedule = Schedule::new(&set_refs, &bases, mesh.positions.len(), &sources, STRIPE_PARTICLES);
    // Each kind's constraints in schedule order: one part, gathered.
    let in_order =
        |t: UnitType| -> Vec<(usize, u32)> { schedule.order[t.id() as usize].iter().map(|&c| (0, c)).collect() };
    let bending = BendingConstraints::gathered(&[&bending], &in_order(hinge_type), &[0]);
    let membrane = MembraneConstraints::gathered(&[&membrane], &in_order(triangle_type), &[0]);
    let curvature = CurvatureConstraints::gathered(&[&curvature], &in_order(curvature_type), &[0]);
    let stretch = match stretch {
        StretchModel::Edges => {
            let free_order = &schedule.order[UnitType::FreeEdge.id() as usize];
            let stretch_edges = (0..bending.len())
                .map(|u| {
                    let [a, b, _, _] = bending.particles(u);
                    [a, b]
                })
                .chain(free_order.iter().map(|&f| free[f as usize]))
                .collect();
            StretchConstraints::between(stretch_edges, &mesh.positions)
        }
        StretchModel::Membrane(_) => StretchConstraints::default(),
    };
    let constraints = Constraints { stretch, bending, isometric: IsometricConstraints::default(), membrane, curvature };
    (constraints, schedule, units)
}

/// A membrane constraint per triangle of `mesh` whose rest shape gives a material frame.
fn membrane_at_rest(mesh: &ClothMesh, moduli: Moduli) -> MembraneConstraints {
    MembraneConstraints::at_rest(&mesh.triangles, &mesh.positions, &mesh.uvs, moduli).0
}

/// Checks a material map: `count` scales, each finite and > 0.
fn check_scales(name: &'static str, scales: &[f32], count: usize) -> Result<(), Error> {
    if scales.len() != count {
        let expected = "one scale per particle (mass) or per constraint of the kind (stiffness)";
        return Err(ParamError { name, value: format!("{} scales for {count}", scales.len()), expected }.into());
    }
    match scales.iter().find(|s| !(s.is_finite() && **s > 0.0)) {
        Some(s) => Err(ParamError { name, value: s.to_string(), expected: "finite and > 0" }.into()),
        None => Ok(()),
    }
}

/// Refuses isometric hinges whose rest shape is curved beyond
/// [`isometric::FLAT_REST_TOLERANCE`] (the model would bend them flat), naming the most
/// curved.
fn check_flat_rest(constraints: &IsometricConstraints, positions: &[Vec3]) -> Result<(), Error> {
    let curvature = |c: usize| {
        let rest = constraints.hinges()[c].map(|i| positions[i as usize]);
        isometric::rest_curvature(rest, constraints.weights(c))
    };
    let worst = (0..constraints.len()).map(|c| (c, curvature(c))).max_by(|a, b| a.1.total_cmp(&b.1));
    match worst {
        Some((hinge, curvature)) if curvature.is_nan() || curvature > isometric::FLAT_REST_TOLERANCE => {
            Err(Error::CurvedRestHinge {
                hinge,
                particles: constraints.hinges()[hinge],
                curvature,
                tolerance: isometric::FLAT_REST_TOLERANCE,
            })
        }
        _ => Ok(()),
    }
}

/// The kind of the bending constraints of a cloth bending by `model`.
fn hinge_kind(model: BendingModel) -> Kind {
    match model {
        BendingModel::Dihedral => Kind::Bending,
        BendingModel::Isometric => Kind::Isometric,
        BendingModel::Curvature => Kind::Curvature,
    }
}

/// The triangles around each vertex, in triangle order (the normals' gather lists).
fn vertex_triangles(mesh: &ClothMesh) -> Csr {
    Csr::from_pairs(
        mesh.positions.len(),
        mesh.triangles.iter().enumerate().flat_map(|(t, tri)| tri.iter().map(move |&v| (v, t as u32))),
    )
}

/// The constraints of `cloths` as one model's whose unit type `t` spans `units[t]`, each unit
/// from `sources[t]` ([`Schedule::merged`]): unit `u` of a type is constraint `u` of each kind it
/// projects ([`UnitType::kinds`]), so each kind's constraints are its unit types' units, in
/// index order.
fn gathered_constraints(
    cloths: &[ClothModel],
    units: &[Range<u32>],
    sources: &[Vec<(usize, u32)>],
    offsets: &[u32],
) -> Constraints {
    let picks = |kind: Kind| -> Vec<(usize, u32)> {
        let mut types: Vec<usize> = (0..UnitType::ALL.len())
            .filter(|&t| UnitType::ALL[t].kinds().contains(&kind) && !units[t].is_empty())
            .collect();
        types.sort_by_key(|&t| units[t].start);
        let picks: Vec<(usize, u32)> = types.iter().flat_map(|&t| sources[t].iter().copied()).collect();
        debug_assert_eq!(picks.len(), cloths.iter().map(|c| c.constraints.of(kind).constraint_count()).sum::<usize>());
        picks
    };
    Constraints {
        stretch: StretchConstraints::gathered(&each(cloths, |c| &c.stretch), &picks(Kind::Stretch), offsets),
        bending: BendingConstraints::gathered(&each(cloths, |c| &c.bending), &picks(Kind::Bending), offsets),
        isometric: IsometricConstraints::gathered(&each(cloths, |c| &c.isometric), &picks(Kind::Isometric), offsets),
        membrane: MembraneConstraints::gathered(&each(cloths, |c| &c.membrane), &picks(Kind::Membrane), offsets),
        curvature: CurvatureConstraints::gathered(&each(cloths, |c| &c.curvature), &picks(Kind::Curvature), offsets),
    }
}

/// Each cloth's constraints of one kind, `kind` picking them.
fn each<T>(cloths: &[ClothModel], kind: impl Fn(&Constraints) -> &T) -> Vec<&T> {
    cloths.iter().map(|cloth| kind(&cloth.constraints)).collect()
}
