//! How far the edges stretch, as a user sees it: the largest edge of a frame swings with the
//! cloth and is often a shear diagonal, which real cloth lets give, so the distribution's upper
//! percentiles are reported beside it, with the warp and weft edges of a grid apart from its
//! shear diagonals.

use crate::model::ClothModel;
use glam::Vec3;

/// The distribution of the stretch ratios `l / l₀` of a set of edges.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StretchStats {
    /// The largest ratio.
    pub max: f32,
    /// The 99th percentile (nearest rank).
    pub p99: f32,
    /// The 99.9th percentile (nearest rank).
    pub p999: f32,
    /// The mean of `max(l / l₀ − 1, 0)`: how much the edges stretch on average, compression left out.
    pub mean_positive_strain: f32,
}

impl StretchStats {
    /// The statistics of `ratios` (`None` for none); NaN in every field if any ratio is not finite.
    pub fn of(mut ratios: Vec<f32>) -> Option<Self> {
        if ratios.is_empty() {
            return None;
        }
        if ratios.iter().any(|r| !r.is_finite()) {
            return Some(Self { max: f32::NAN, p99: f32::NAN, p999: f32::NAN, mean_positive_strain: f32::NAN });
        }
        ratios.sort_by(f32::total_cmp);
        let rank = |q: f64| ratios[((q * ratios.len() as f64).ceil() as usize).clamp(1, ratios.len()) - 1];
        let positive: f64 = ratios.iter().map(|&r| f64::from((r - 1.0).max(0.0))).sum();
        Some(Self {
            max: ratios[ratios.len() - 1],
            p99: rank(0.99),
            p999: rank(0.999),
            mean_positive_strain: (positive / ratios.len() as f64) as f32,
        })
    }

    /// Each field the worse (larger) of the two, NaN if either is.
    pub fn worst(self, other: Self) -> Self {
        let worse = super::largest;
        Self {
            max: worse(self.max, other.max),
            p99: worse(self.p99, other.p99),
            p999: worse(self.p999, other.p999),
            mean_positive_strain: worse(self.mean_positive_strain, other.mean_positive_strain),
        }
    }
}

/// The stretch of a cloth's edges (its stretch constraints): all of them, and where the mesh has
/// texture coordinates, the edges along them (warp and weft) apart from the others (shear).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StretchReport {
    /// Every edge.
    pub all: StretchStats,
    /// The edges along a texture axis (`None` without texture coordinates or such edges).
    pub warp_weft: Option<StretchStats>,
    /// The edges across the texture axes (`None` without texture coordinates or such edges).
    pub shear: Option<StretchStats>,
}

impl StretchReport {
    /// The stretch of `model`'s edges at `positions`; `None` for a model without edges.
    ///
    /// # Panics
    /// If `positions` has fewer entries than the model has particles.
    pub fn measure(model: &ClothModel, positions: &[Vec3]) -> Option<Self> {
        let stretch = model.edges();
        let uvs = &model.mesh().uvs;
        let textured = uvs.iter().any(|uv| *uv != uvs[0]);
        let (mut all, mut along, mut across) = (Vec::new(), Vec::new(), Vec::new());
        for c in 0..stretch.len() {
            let [a, b] = stretch.particles(c).map(|i| i as usize);
            let ratio = positions[a].distance(positions[b]) / stretch.rest_length(c);
            all.push(ratio);
            if textured {
                let d = (uvs[b] - uvs[a]).abs();
                let axial = d.min_element() <= 1e-6 * d.max_element();
                (if axial { &mut along } else { &mut across }).push(ratio);
            }
        }
        Some(Self { all: StretchStats::of(all)?, warp_weft: StretchStats::of(along), shear: StretchStats::of(across) })
    }

    /// Each statistic the worse of the two (the worst over a window of frames).
    pub fn worst(self, other: Self) -> Self {
        let worst = |a: Option<StretchStats>, b: Option<StretchStats>| match (a, b) {
            (Some(a), Some(b)) => Some(a.worst(b)),
            (a, b) => a.or(b),
        };
        Self {
            all: self.all.worst(other.all),
            warp_weft: worst(self.warp_weft, other.warp_weft),
            shear: worst(self.shear, other.shear),
        }
    }
}
