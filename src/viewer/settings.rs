//! What the demos' controls offer, shared by the desktop panel and the web page so that both
//! behave alike: ranges, the statistics' pace and the wind as speed and heading.

use glam::{Vec2, Vec3};
use std::ops::RangeInclusive;
use std::time::Duration;

/// Grid cells per side that the demos offer for library scenes.
pub const GRID_CELLS: RangeInclusive<u32> = 4..=256;
/// Horizontal wind speeds the demos' sliders offer (m/s).
pub const WIND_SPEEDS: RangeInclusive<f32> = 0.0..=20.0;
/// How often the statistics read the cloth back.
pub const METRICS_INTERVAL: Duration = Duration::from_millis(500);

/// The horizontal part of `wind` as a speed (m/s) and a heading (degrees from +z towards +x).
pub fn horizontal_wind(wind: Vec3) -> (f32, f32) {
    let horizontal = Vec2::new(wind.x, wind.z);
    (horizontal.length(), horizontal.x.atan2(horizontal.y).to_degrees())
}

/// `wind` with its horizontal part set to `speed` along `heading` ([`horizontal_wind`]'s
/// terms); a vertical part stays.
pub fn with_horizontal_wind(wind: Vec3, speed: f32, heading: f32) -> Vec3 {
    let (sin, cos) = heading.to_radians().sin_cos();
    Vec3::new(sin * speed, wind.y, cos * speed)
}
