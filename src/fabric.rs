//! Fabrics in physical units: areal density, the membrane's warp, weft and shear moduli, and
//! bending rigidity per direction, with the conversions that make each hinge's bending
//! stiffness follow from the rest geometry, so that one fabric bends alike at every mesh
//! resolution.

use crate::constraints::isometric::isometric_weights;
use crate::constraints::membrane::{warp_direction, Moduli};
use crate::constraints::BendingModel;
use crate::error::ParamError;
use glam::{Vec2, Vec3};

/// Bending rigidity per unit width, N·m (the textile industry's `B`, usually quoted in µN·m),
/// per direction: a strip cut along the warp bends its warp threads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BendingRigidity {
    /// Rigidity of a strip cut along the warp (curvature along the warp).
    pub warp: f32,
    /// Rigidity of a strip cut along the weft.
    pub weft: f32,
}

impl BendingRigidity {
    /// Checks both are finite and > 0.
    pub fn validate(&self) -> Result<(), ParamError> {
        for (name, value) in [("bending_rigidity.warp", self.warp), ("bending_rigidity.weft", self.weft)] {
            if !(value.is_finite() && value > 0.0) {
                return Err(ParamError { name, value: value.to_string(), expected: "finite and > 0 N·m" });
            }
        }
        Ok(())
    }

    /// The rigidity against twisting, `√(B_warp B_weft)` (N·m): a sheet twisted bends its
    /// threads of both directions; for an isotropic sheet (`B_warp = B_weft = B`) it is `B`,
    /// the twisting term of a plate without Poisson coupling, `½ B (κ_uu² + κ_vv² + 2κ_uv²)`.
    pub fn twist(&self) -> f32 {
        (self.warp * self.weft).sqrt()
    }

    /// The rigidity across a hinge whose rest edge has direction `edge` in a triangle whose warp
    /// runs along `warp` (both in the triangle's plane): the hinge bends the threads crossing
    /// it, so `B = B_warp (ê·v̂)² + B_weft (ê·û)²` with `û` the warp and `v̂` the weft (an edge
    /// along the weft bends the warp).
    pub fn across(&self, edge: Vec3, warp: Vec3) -> f32 {
        let (e, u) = (edge.normalize_or_zero(), warp.normalize_or_zero());
        let along_warp = e.dot(u).powi(2).min(1.0);
        self.warp * (1.0 - along_warp) + self.weft * along_warp
    }
}

impl Moduli {
    /// Checks each modulus is finite and > 0.
    pub fn validate(&self) -> Result<(), ParamError> {
        for (name, value) in [("moduli.warp", self.warp), ("moduli.weft", self.weft), ("moduli.shear", self.shear)] {
            if !(value.is_finite() && value > 0.0) {
                return Err(ParamError { name, value: value.to_string(), expected: "finite and > 0 N/m" });
            }
        }
        Ok(())
    }
}

/// The bending stiffness of hinge `[a, b, c, d]` (edge `a`–`b`, wings `c`, `d`) at rest, in the
/// units its model's constraint wants, so that the hinge's energy `½ k C²` sums over a bent
/// sheet to the plate energy `½ B κ²` per unit area:
/// - dihedral (`C` the angle): `k = B |e|²/(A₁ + A₂)`, the discrete-shells scaling (Grinspun
///   et al. 2003). On a sheet rolled into a cylinder of curvature `κ` across rows of hinges
///   `s` apart, each hinge turns by `κ s` and owns the area `(A₁ + A₂)/2 = |e| s`… whose
///   energy `½ k κ² s²` is `½ B κ² |e| s` exactly when `k = B |e|²/(A₁ + A₂)`, on right and on
///   equilateral triangles alike;
/// - isometric (`C` already normalised by the area, [`crate::constraints::isometric`]): `k = B`.
///
/// `B` is the rigidity across the edge ([`BendingRigidity::across`]) with the warp of the first
/// wing's triangle from the texture coordinates. `None` for a degenerate hinge, and for the
/// curvature model, whose rigidity is per triangle ([`crate::constraints::curvature`]).
pub fn hinge_stiffness(
    model: BendingModel,
    rigidity: &BendingRigidity,
    positions: [Vec3; 4],
    uvs: [Vec2; 4],
) -> Option<f32> {
    let [a, b, c, d] = positions;
    let edge = b - a;
    let normal = edge.cross(c - a).normalize_or_zero();
    let warp = warp_direction([a, b, c], [uvs[0], uvs[1], uvs[2]]);
    let rigidity = rigidity.across(edge, warp - normal * warp.dot(normal));
    match model {
        BendingModel::Isometric => isometric_weights(a, b, c, d).map(|_| rigidity),
        BendingModel::Dihedral => {
            let areas = 0.5 * (edge.cross(c - a).length() + edge.cross(d - a).length());
            (areas > 0.0).then(|| rigidity * edge.length_squared() / areas)
        }
        BendingModel::Curvature => None,
    }
}

/// The largest stiffness number `B h²/(ρ s⁴)` at which the solver brings a bent fabric to
/// its rest ([`Fabric::bending_substeps`]): the cantilever of cotton shirting and of a stiff
/// twill (B 100 µN·m, 324 g/m²) rested within 1 % of their rigidities at numbers 0.5 and 1.0,
/// within 4 % at 1.5.
pub const BENDING_STIFFNESS_NUMBER: f32 = 1.0;

/// A fabric by its measured properties (SI units), with where the numbers come from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fabric {
    /// Its name on the command line (`--fabric`).
    pub name: &'static str,
    /// Areal density, kg/m² (fabric data sheets give g/m²).
    pub density: f32,
    /// Warp, weft and shear moduli, N/m.
    pub moduli: Moduli,
    /// Bending rigidity per direction, N·m.
    pub bending: BendingRigidity,
    /// What it is and where its numbers come from.
    pub source: &'static str,
}

/// `gf·cm²/cm` (the Kawabata KES-FB2 unit of bending rigidity) in N·m: 9.80665e-3 N × 1e-4 m²
/// / 1e-2 m.
pub const GF_CM2_PER_CM: f32 = 9.80665e-5;

impl Fabric {
    /// The fewest substeps (at least `at_least`, at most 128) for a frame of `time_step`
    /// seconds at which a cloth of this fabric with cells `spacing` metres apart bends as its
    /// rigidity says: its stiffness number `B h²/(ρ s⁴)` (`B` the larger rigidity, `h` the
    /// substep) at most [`BENDING_STIFFNESS_NUMBER`]. A triangle's curvature constraint is that
    /// stiff against its particles' masses, 16 times more per halving of the cells at a fixed
    /// step, and past it Gauss-Seidel stops short of rest: a cantilever of cotton shirting at
    /// 16 cells and 20 substeps (number 1.5) bent as 1.04 B, at 32 cells (number 23) it
    /// collapsed, at 32 cells and 80 substeps (1.4) it read 1.032 B, and at the 95 substeps
    /// this gives (number 1) 1.009 B (BENCHMARKS.md, "Fabrics").
    pub fn bending_substeps(&self, spacing: f32, time_step: f32, at_least: u32) -> u32 {
        let rigidity = self.bending.warp.max(self.bending.weft);
        let needed = time_step / (spacing * spacing) * (rigidity / (self.density * BENDING_STIFFNESS_NUMBER)).sqrt();
        if needed.is_finite() {
            (needed.ceil() as u32).clamp(at_least.min(128), 128)
        } else {
            128
        }
    }

    /// Checks every value is finite and > 0.
    pub fn validate(&self) -> Result<(), ParamError> {
        if !(self.density.is_finite() && self.density > 0.0) {
            return Err(ParamError { name: "density", value: self.density.to_string(), expected: "finite and > 0" });
        }
        self.moduli.validate()?;
        self.bending.validate()
    }

    /// The preset called `name` ([`FABRICS`]).
    pub fn named(name: &str) -> Option<Fabric> {
        FABRICS.iter().find(|f| f.name == name).copied()
    }
}

/// The fabric of a cloth when none is named: the lab's tests' and the demos' first cloth.
pub const DEFAULT_FABRIC: &str = "cotton-shirting";

/// What the demos call the edge model (a stretch constraint per edge, each cloth's own) where
/// they offer it beside the fabrics.
pub const EDGE_MODEL: &str = "edges";

/// A cloth's material as the demos offer it: a fabric preset, or `None` for each cloth's own
/// (the edge model, [`EDGE_MODEL`]; the layers scene's cloths keep their fabrics).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FabricChoice(pub Option<Fabric>);

impl Default for FabricChoice {
    /// [`DEFAULT_FABRIC`]: the membrane with curvature bending is the default for cloth.
    fn default() -> Self {
        Self(Fabric::named(DEFAULT_FABRIC))
    }
}

impl FabricChoice {
    /// Its name: the fabric's, or [`EDGE_MODEL`].
    pub fn name(&self) -> &'static str {
        self.0.map_or(EDGE_MODEL, |f| f.name)
    }

    /// What the demos' lists show for it: the fabric's name, or what the scene's own is.
    pub fn label(&self) -> &'static str {
        self.0.map_or("the scene's own (edges; the layers: their fabrics)", |f| f.name)
    }
}

/// A preset by its name, or [`EDGE_MODEL`].
impl std::str::FromStr for FabricChoice {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        if name == EDGE_MODEL {
            return Ok(Self(None));
        }
        name.parse().map(|f| Self(Some(f))).map_err(|e| format!("{e}, or {EDGE_MODEL}"))
    }
}

/// A preset by its name ([`Fabric::named`]), for command lines.
impl std::str::FromStr for Fabric {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        Self::named(name).ok_or_else(|| {
            let names: Vec<_> = FABRICS.iter().map(|f| f.name).collect();
            format!("unknown fabric `{name}` (expected one of {})", names.join(", "))
        })
    }
}

/// µN·m in N·m.
const MICRO_N_M: f32 = 1e-6;

/// `gf/cm` (the textile labs' unit of tension per unit width) in N/m.
pub const GF_PER_CM: f32 = 0.980665;

/// The tension at which [`Wang2011`]'s tensile moduli are read, as secants: FAST's lowest load,
/// 5 gf/cm (its extensibility `E5`), the nearest standard load to a hanging cloth's own (a
/// metre of a 224 g/m² knit hanging pulls its top with 2.2 N/m; a Cusick disc's overhang pulls
/// with 0.15 N/m).
pub const SECANT_TENSION: f32 = 5.0 * GF_PER_CM;

/// A fabric measured by Wang, O'Brien & Ramamoorthi 2011 ("Data-Driven Elastic Models for
/// Cloth: Modeling and Measurement", ACM TOG 30(4):71), as ARCSim (Narain, Samii & O'Brien 2012)
/// ships their data (`materials/*.json`). ARCSim's stiffnesses are twice the file's, `k = 2c`,
/// on the Green strain `ε = ½(FᵀF − I)`, and its forces hold the energy per area
/// `½k₀ε₀₀² + k₁ε₀₀ε₁₁ + ½k₂ε₁₁² + k₃ε₀₁²`, each `k` interpolated from the file's row at rest
/// to its row at 1/6 strain along the stretch's direction. Along a thread (`ε₀₀` the warp's
/// strain) the tension at strain `s` is `k(s) λ (λ² − 1)/2` with `λ = 1 + s`: the tensile moduli
/// are its secants at [`SECANT_TENSION`] (fabrics stiffen as they stretch, a knit seventyfold by
/// 1/6, and a linear membrane takes one stiffness for the drape's range of tensions; the
/// membrane leaves the Poisson coupling `c₁₂` out). The shear modulus per radian is `c₃₃` at rest
/// (`ε₀₁` is half the shear angle). A hinge holds `ke |e|² θ²/(8(A₁ + A₂))`, which on a sheet
/// bent into a cylinder sums to `½ (ke/4) κ²` per unit area: `B = ke/4`, read in the data's
/// first column (curvatures up to 10 m⁻¹). The measured fabrics soften as they bend, the
/// denim's `v` to a third and the knit to a quarter by 40 m⁻¹ (the data's last column, where
/// KES-FB2's 50–150 m⁻¹ would read); the linear model keeps the value at rest. The data do not
/// say which of the texture's `u` and `v` is the warp (a stretch denim's elastane usually runs
/// in the weft, which would make its softer `u` the weft); `u` is the warp here as in ARCSim's
/// meshes, so a cloth with the same texture coordinates gets the same material in both.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Wang2011 {
    /// Areal density, kg/m² (the file's `density`).
    pub density: f32,
    /// The first row of the file's `stretching`, `[c₁₁, c₁₂, c₂₂, c₃₃]` at zero strain (N/m).
    pub stretching_at_rest: [f32; 4],
    /// At 1/6 strain: `c₁₁` of the row for a stretch along `u` (the file's second) and `c₂₂`
    /// of the row along `v` (its sixth), N/m.
    pub stretching_stretched: [f32; 2],
    /// The first column of the file's `bending` for hinges whose edge runs along `u` and along
    /// `v` (its rows at 0° and 90°), at the lowest curvature: `ke` (N·m).
    pub bending_at_rest: [f32; 2],
}

impl Wang2011 {
    /// The warp's and the weft's secant moduli at [`SECANT_TENSION`], and the shear's `c₃₃`.
    pub const fn moduli(&self) -> Moduli {
        let [c11, _, c22, c33] = self.stretching_at_rest;
        let [stretched_u, stretched_v] = self.stretching_stretched;
        Moduli { warp: secant_modulus(c11, stretched_u), weft: secant_modulus(c22, stretched_v), shear: c33 }
    }

    /// The rigidities `ke/4`: a hinge along the weft (`v`) bends the warp.
    pub const fn rigidity(&self) -> BendingRigidity {
        let [along_warp, along_weft] = self.bending_at_rest;
        BendingRigidity { warp: along_weft / 4.0, weft: along_warp / 4.0 }
    }
}

/// ARCSim's tension (N/m) along a thread at strain `strain` whose file values are `rest` at
/// zero strain and `stretched` at 1/6 ([`Wang2011`]): `k(s) λ (λ² − 1)/2`, `k` held past 1/6
/// and never below zero.
const fn arcsim_tension(rest: f32, stretched: f32, strain: f32) -> f32 {
    let along = if 6.0 * strain < 1.0 { 6.0 * strain } else { 1.0 };
    let k = (2.0 * (rest + (stretched - rest) * along)).max(0.0);
    let stretch = 1.0 + strain;
    k * stretch * (stretch * stretch - 1.0) / 2.0
}

/// The secant `SECANT_TENSION / s` at the strain `s` (found by bisection in [0, 1]) where
/// [`arcsim_tension`] reaches [`SECANT_TENSION`].
const fn secant_modulus(rest: f32, stretched: f32) -> f32 {
    let (mut low, mut high, mut halvings) = (0.0f32, 1.0f32, 0);
    while halvings < 24 {
        let middle = 0.5 * (low + high);
        if arcsim_tension(rest, stretched, middle) < SECANT_TENSION {
            low = middle;
        } else {
            high = middle;
        }
        halvings += 1;
    }
    SECANT_TENSION / (0.5 * (low + high))
}

/// Wang et al. 2011's navy sparkle sweat (a sweater's knit, 96/4 polyester/spandex).
#[allow(clippy::excessive_precision)] // the file's digits, as it gives them
pub const WANG_2011_SWEAT_KNIT: Wang2011 = Wang2011 {
    density: 0.224,
    stretching_at_rest: [12.486332, -19.875324, 3.272434, 17.616289],
    stretching_stretched: [32.172089, 243.264908],
    bending_at_rest: [59.469658e-6, 45.625023e-6],
};

/// Wang et al. 2011's 11 oz black denim (jeans, 99/1 cotton/spandex).
#[allow(clippy::excessive_precision)] // the file's digits, as it gives them
pub const WANG_2011_DENIM: Wang2011 = Wang2011 {
    density: 0.324,
    stretching_at_rest: [205.352005, 10.234077, 1013.88629, 53.387184],
    stretching_stretched: [232.027634, 1051.55712],
    bending_at_rest: [64.196457e-6, 96.951576e-6],
};

/// The fabric presets, from the shortest bending length `(B/W)^(1/3)` to the longest (the
/// warp's). Measured values are cited in each one's `source`: the knit and the denim are
/// measured whole (Wang et al. 2011, [`Wang2011`]); the silk's, the wool's and the shirting's
/// tensile and shear moduli are estimates typical of the class (no measured table was at hand),
/// and so is the leather-like entirely. The values cited from Matsudaira et al. 2015 (J.
/// Textile Eng. 61(6):69–73, Tables 1 and 2: KES-FB bending rigidity and mass) were read from
/// public copies of those tables.
pub const FABRICS: [Fabric; 6] = [
    Fabric {
        name: "silk-charmeuse",
        density: 0.0818,
        moduli: Moduli { warp: 3000.0, weft: 2000.0, shear: 20.0 },
        bending: BendingRigidity { warp: 2.0 * MICRO_N_M, weft: 1.8 * MICRO_N_M },
        source: "density: 19 momme (1 momme = 4.306 g/m²), 81.8 g/m²; rigidity: estimate near the \
                 1.86 µN·m (0.019 gf·cm²/cm) Matsudaira et al. 2015 measured on a light polyester \
                 faille; moduli: estimates",
    },
    Fabric {
        name: "wool-suiting",
        density: 0.163,
        moduli: Moduli { warp: 5000.0, weft: 4000.0, shear: 40.0 },
        bending: BendingRigidity { warp: 0.067 * GF_CM2_PER_CM, weft: 0.067 * GF_CM2_PER_CM },
        source: "Matsudaira et al. 2015, wool tropical (plain weave): 162.9 g/m², KES-FB2 B = 0.067 \
                 gf·cm²/cm = 6.57 µN·m (one value for both directions); moduli: estimates",
    },
    Fabric {
        name: "polyester-knit",
        density: WANG_2011_SWEAT_KNIT.density,
        moduli: WANG_2011_SWEAT_KNIT.moduli(),
        bending: WANG_2011_SWEAT_KNIT.rigidity(),
        source: "Wang et al. 2011, navy sparkle sweat (96/4 polyester/spandex knit), measured: \
                 224 g/m²; 53 N/m along u and 126 N/m along v at 5 gf/cm (25 and 6.5 N/m at \
                 rest), shear 17.6 N/m; B 11.4 µN·m (u) and 14.9 µN·m (v)",
    },
    Fabric {
        name: "denim",
        density: WANG_2011_DENIM.density,
        moduli: WANG_2011_DENIM.moduli(),
        bending: WANG_2011_DENIM.rigidity(),
        source: "Wang et al. 2011, 11 oz black denim (99/1 cotton/spandex), measured: 324 g/m²; \
                 422 N/m along u and 2036 N/m along v at 5 gf/cm, shear 53 N/m; B 24.2 µN·m (u) \
                 and 16.0 µN·m (v). KES-FB on six denims (Kumari & Khurana 2016, J. Textiles \
                 4614168, Table 5): B 14–22 µN·m, shear 84–191 N/m per radian",
    },
    Fabric {
        name: "cotton-shirting",
        density: 0.124,
        moduli: Moduli { warp: 8000.0, weft: 5000.0, shear: 80.0 },
        bending: BendingRigidity { warp: 0.118 * GF_CM2_PER_CM, weft: 0.118 * GF_CM2_PER_CM },
        source: "Matsudaira et al. 2015, cotton broad (plain weave): 123.8 g/m², KES-FB2 B = 0.118 \
                 gf·cm²/cm = 11.6 µN·m (one value for both directions); moduli: estimates",
    },
    Fabric {
        name: "leather-like",
        density: 0.5,
        moduli: Moduli { warp: 20000.0, weft: 20000.0, shear: 2000.0 },
        bending: BendingRigidity { warp: 500.0 * MICRO_N_M, weft: 500.0 * MICRO_N_M },
        source: "estimates for a 1 mm PU-coated faux leather: no measured source at hand",
    },
];
