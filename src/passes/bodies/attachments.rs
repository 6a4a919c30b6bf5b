//! Particles attached to points of rigid bodies, two-way: a zero-length XPBD constraint
//! between the particle and the body's point, solved in the bodies pass beside the contacts,
//! each substep (not a frame late). It moves the particle by `w_p λ` and the body by the
//! opposite impulse at the particle, its mass split among its contacts and attachments, so
//! a cloth hanging from a body pulls it down and a body thrown drags its cloth. WGSL twin:
//! `attachment_pull` in `shaders/passes/bodies.wgsl`.

use super::{body_surface, BodyShare};
use crate::bodies::BodyState;
use crate::error::{Error, ParamError};
use crate::math::{DENOMINATOR_EPSILON, GEOMETRY_EPSILON};
use crate::passes::attachments::check_reach;
use crate::pins::{Pins, NOT_ATTACHED};
use crate::struct_layout;
use crate::wgsl::StructLayout;
use bytemuck::{Pod, Zeroable};
use glam::Vec3;

/// A particle to attach to a point of a body.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BodyAttachment {
    /// The particle (a pinned one holds the body where its target is).
    pub particle: u32,
    /// The body (an index into the solver's bodies).
    pub body: u32,
    /// The point, in the body's own frame (m): `Pose::to_local` of a world point where the
    /// body was set.
    pub point: Vec3,
}

/// A particle's attachment as the GPU reads it (`BodyAttachment` in
/// `shaders/passes/bodies.wgsl`): the point in its body's frame, and the body or
/// [`NOT_ATTACHED`].
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuBodyAttachment {
    /// The point in the body's frame (m).
    pub point: [f32; 3],
    /// The body, or [`NOT_ATTACHED`].
    pub body: u32,
}

impl GpuBodyAttachment {
    /// The layout its WGSL twin must have.
    pub const LAYOUT: StructLayout = struct_layout!(GpuBodyAttachment as "BodyAttachment", point, body);

    /// No attachment.
    const NONE: Self = Self { point: [0.0; 3], body: NOT_ATTACHED };
}

/// Each particle's attachment to a body, if any (none at all until one is made).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BodyAttachments {
    /// One record per particle once one is attached; empty before.
    records: Vec<GpuBodyAttachment>,
}

impl BodyAttachments {
    /// The particles attached.
    pub fn count(&self) -> usize {
        self.records.iter().filter(|r| r.body != NOT_ATTACHED).count()
    }

    /// Particle `i`'s body and point, if it is attached.
    pub fn of(&self, i: usize) -> Option<(u32, Vec3)> {
        let record = self.records.get(i)?;
        (record.body != NOT_ATTACHED).then(|| (record.body, Vec3::from_array(record.point)))
    }

    /// The records, one per particle (empty while none was ever attached).
    pub fn records(&self) -> &[GpuBodyAttachment] {
        &self.records
    }

    /// These attachments with `added` more particles after the others, none attached.
    pub(crate) fn appended(&self, added: usize) -> Self {
        let mut records = self.records.clone();
        if !records.is_empty() {
            records.resize(records.len() + added, GpuBodyAttachment::NONE);
        }
        Self { records }
    }

    /// Makes every attachment of `attachments` among `pins`' particles and `bodies` bodies:
    /// all, or on error none. Errors: a particle or a body that does not exist, a point that is
    /// not finite.
    pub(crate) fn attach_all(
        &mut self,
        pins: &Pins,
        bodies: usize,
        attachments: &[BodyAttachment],
    ) -> Result<(), Error> {
        if attachments.is_empty() {
            return Ok(());
        }
        let n = pins.inverse_masses().len();
        let mut records = if self.records.is_empty() { vec![GpuBodyAttachment::NONE; n] } else { self.records.clone() };
        for a in attachments {
            let i = a.particle as usize;
            if i >= n {
                return Err(Error::ParticleOutOfRange { index: a.particle, particle_count: n });
            }
            let refuse = |name, value: String, expected| Err(ParamError { name, value, expected }.into());
            if a.body as usize >= bodies {
                return refuse("body_attachment.body", a.body.to_string(), "one of the solver's bodies");
            }
            if !a.point.is_finite() {
                return refuse("body_attachment.point", a.point.to_string(), "finite");
            }
            records[i] = GpuBodyAttachment { point: a.point.to_array(), body: a.body };
        }
        self.records = records;
        Ok(())
    }

    /// Releases particle `particle` of `particle_count`, if attached.
    pub(crate) fn detach(&mut self, particle: u32, particle_count: usize) -> Result<(), Error> {
        if particle as usize >= particle_count {
            return Err(Error::ParticleOutOfRange { index: particle, particle_count });
        }
        if let Some(record) = self.records.get_mut(particle as usize) {
            *record = GpuBodyAttachment::NONE;
        }
        Ok(())
    }
}

/// The attachments of every free particle at `positions` within `distance` of body `body`'s
/// surface where it is (inside it too), each at its point in the body's frame (both solvers'
/// `attach_within_body`). Errors: a body that is not among `bodies`, a negative or non-finite
/// distance.
pub(crate) fn body_attachments_within(
    pins: &Pins,
    bodies: &[BodyState],
    body: u32,
    distance: f32,
    positions: &[Vec3],
) -> Result<Vec<BodyAttachment>, Error> {
    check_reach(distance)?;
    let Some(state) = bodies.get(body as usize) else {
        let value = body.to_string();
        return Err(ParamError { name: "body", value, expected: "one of the solver's bodies" }.into());
    };
    let (free, pose) = (|i: usize| pins.inverse_masses()[i] > 0.0, state.pose());
    Ok((0..positions.len())
        .filter(|&i| free(i) && body_surface(state, positions[i], distance).distance <= distance)
        .map(|i| BodyAttachment { particle: i as u32, body, point: pose.to_local(positions[i]) })
        .collect())
}

/// A particle at `x + q` of inverse mass `w` attached to `body`'s point `point` (in its frame):
/// the particle's move and the body's share. The gap `g` from the particle to the point where
/// the substep left the body closes by `λ = |g|/(w + w_s)` along it, `w_s` the body's split
/// generalised inverse mass at the particle ([`BodyState::split_inverse_mass_at`]): the
/// particle moves `w λ`, the body takes the opposite impulse at the particle.
pub fn attachment_pull(body: &BodyState, point: Vec3, x: Vec3, q: Vec3, w: f32) -> (Vec3, BodyShare) {
    let pose = body.pose();
    let p = x + q;
    let gap = pose.to_world(point) - p;
    let length = gap.length();
    if length <= GEOMETRY_EPSILON {
        return (Vec3::ZERO, BodyShare::default());
    }
    let n = gap / length;
    let r = p - pose.translation;
    let lambda = length / (w + body.split_inverse_mass_at(r, n)).max(DENOMINATOR_EPSILON);
    let impulse = -n * lambda;
    let angular = r.cross(impulse);
    (n * (w * lambda), BodyShare { linear: impulse, angular, moments: angular.length() })
}
