//! An orbit camera (yaw/pitch/distance around a target, Y up) and the rays it casts through
//! the viewport, for picking.

use glam::{Mat4, Vec2, Vec3};

/// Radians of orbit per pixel of pointer motion.
pub const ORBIT_PER_PIXEL: f32 = 0.006;
/// How close (in pixels) the cursor must be to a particle to grab it off the cloth's surface.
pub const GRAB_RADIUS_PIXELS: f32 = 12.0;
/// Distance factor per zoom step: a key press or a wheel notch (< 1 zooms in).
pub const ZOOM_PER_STEP: f32 = 0.9;

/// Pitch stays this far from the poles so the view never flips.
const MAX_PITCH: f32 = 1.55;
/// Closest and farthest orbit distances (m).
const DISTANCE_RANGE: (f32, f32) = (0.05, 500.0);

/// A ray `origin + t·direction`, `direction` of unit length.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ray {
    /// Where the ray starts (on the near plane), m.
    pub origin: Vec3,
    /// Unit direction.
    pub direction: Vec3,
}

impl Ray {
    /// The point at parameter `t` (metres along the ray).
    pub fn at(&self, t: f32) -> Vec3 {
        self.origin + t * self.direction
    }

    /// Where the ray crosses the plane through `point` with normal `normal`, if it does in front
    /// of its origin.
    pub fn intersect_plane(&self, point: Vec3, normal: Vec3) -> Option<Vec3> {
        let denominator = self.direction.dot(normal);
        if denominator.abs() < 1e-8 {
            return None;
        }
        let t = (point - self.origin).dot(normal) / denominator;
        (t >= 0.0).then(|| self.at(t))
    }
}

/// A perspective camera orbiting `target`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrbitCamera {
    /// The point the camera looks at and orbits around (m).
    pub target: Vec3,
    /// Rotation around +Y in radians (0 looks along −Z).
    pub yaw: f32,
    /// Elevation in radians (positive looks down on the target).
    pub pitch: f32,
    /// Distance from the target (m).
    pub distance: f32,
    /// Vertical field of view in radians.
    pub fov_y: f32,
}

impl Default for OrbitCamera {
    fn default() -> Self {
        Self { target: Vec3::new(0.0, 0.6, 0.0), yaw: 0.6, pitch: 0.45, distance: 4.0, fov_y: 45f32.to_radians() }
    }
}

impl OrbitCamera {
    /// A camera that frames the box `[min, max]` from the default direction.
    pub fn framing(min: Vec3, max: Vec3) -> Self {
        let radius = (0.5 * (max - min).length()).max(0.1);
        let camera = Self::default();
        let distance = 0.95 * radius / (0.5 * camera.fov_y).sin();
        Self { target: 0.5 * (min + max), distance: distance.clamp(DISTANCE_RANGE.0, DISTANCE_RANGE.1), ..camera }
    }

    /// The camera position (m).
    pub fn eye(&self) -> Vec3 {
        let (sin_yaw, cos_yaw) = self.yaw.sin_cos();
        let (sin_pitch, cos_pitch) = self.pitch.sin_cos();
        self.target + self.distance * Vec3::new(cos_pitch * sin_yaw, sin_pitch, cos_pitch * cos_yaw)
    }

    /// Unit vector from the eye towards the target.
    pub fn forward(&self) -> Vec3 {
        (self.target - self.eye()).normalize()
    }

    /// World-to-clip transform for a viewport of aspect ratio `aspect` (width / height), with
    /// wgpu's 0..1 depth range.
    pub fn view_projection(&self, aspect: f32) -> Mat4 {
        let near = (0.01 * self.distance).max(0.001);
        let far = 100.0 * self.distance.max(1.0);
        // wgpu's clip space is Direct3D's: y up, depth 0..1.
        let projection = glam::camera::rh::proj::directx::perspective(self.fov_y, aspect.max(1e-3), near, far);
        projection * glam::camera::rh::view::look_at_mat4(self.eye(), self.target, Vec3::Y)
    }

    /// Turns the camera around the target (radians).
    pub fn orbit(&mut self, delta_yaw: f32, delta_pitch: f32) {
        self.yaw = (self.yaw + delta_yaw).rem_euclid(std::f32::consts::TAU);
        self.pitch = (self.pitch + delta_pitch).clamp(-MAX_PITCH, MAX_PITCH);
    }

    /// Moves target and eye together so the scene follows a cursor moved by `pixels` in a
    /// viewport `viewport_height` pixels tall.
    pub fn pan(&mut self, pixels: Vec2, viewport_height: f32) {
        let metres_per_pixel = self.pixel_size_at(self.distance, viewport_height);
        let right = self.forward().cross(Vec3::Y).normalize_or_zero();
        let up = right.cross(self.forward());
        self.target += metres_per_pixel * (-pixels.x * right + pixels.y * up);
    }

    /// Orbits as a pointer dragged by `pixels` asks: right turns the view left, down tilts it
    /// up, [`ORBIT_PER_PIXEL`] radians per pixel.
    pub fn orbit_by_drag(&mut self, pixels: Vec2) {
        self.orbit(-ORBIT_PER_PIXEL * pixels.x, ORBIT_PER_PIXEL * pixels.y);
    }

    /// How far (m) from a cursor's ray at depth `t` a particle may be to be grabbed: within
    /// [`GRAB_RADIUS_PIXELS`] on screen, for a `viewport_height`-pixel view.
    pub fn grab_tolerance(&self, viewport_height: f32) -> impl Fn(f32) -> f32 {
        let camera = *self;
        move |depth| GRAB_RADIUS_PIXELS * camera.pixel_size_at(depth, viewport_height)
    }

    /// Multiplies the distance to the target by `factor` (< 1 zooms in), within sane bounds.
    pub fn zoom(&mut self, factor: f32) {
        if factor.is_finite() && factor > 0.0 {
            self.distance = (self.distance * factor).clamp(DISTANCE_RANGE.0, DISTANCE_RANGE.1);
        }
    }

    /// The ray through pixel `cursor` (origin top-left) of a `viewport`-sized image.
    pub fn ray(&self, cursor: Vec2, viewport: Vec2) -> Ray {
        let ndc = Vec2::new(2.0 * cursor.x / viewport.x - 1.0, 1.0 - 2.0 * cursor.y / viewport.y);
        let inverse = self.view_projection(viewport.x / viewport.y).inverse();
        let near = inverse.project_point3(ndc.extend(0.0));
        let far = inverse.project_point3(ndc.extend(1.0));
        Ray { origin: near, direction: (far - near).normalize() }
    }

    /// Metres covered by one pixel at `depth` metres in front of the camera.
    pub fn pixel_size_at(&self, depth: f32, viewport_height: f32) -> f32 {
        2.0 * depth * (0.5 * self.fov_y).tan() / viewport_height.max(1.0)
    }
}
