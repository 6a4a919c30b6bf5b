mod support;
use drape::{CpuSolver, GpuSolver, Scene, SceneKind};
use glam::Vec3;
#[test]
fn pin_release() {
    let (device, queue) = support::device();
    let scene = Scene::new(SceneKind::Hanging, 8).unwrap();
    let i = 76u32;
    let mut g = GpuSolver::new(&device, &queue, &scene.model, scene.params, &scene.colliders).unwrap();
    let mut c = CpuSolver::new(&scene.model, scene.params, &scene.colliders).unwrap();
    for _ in 0..60 {
        g.step();
        c.step();
    }
    let start = g.read_positions().unwrap()[i as usize];
    g.pin(i, start).unwrap();
    c.pins.pin(i, start).unwrap();
    let speed = Vec3::new(std::env::var("SPEED").map(|s| s.parse().unwrap()).unwrap_or(0.5), 0.0, 0.0);
    for f in 1..=10 {
        let t = start + speed * (f as f32 / 60.0);
        g.set_pin_target(i, t).unwrap();
        c.pins.set_target(i, t).unwrap();
        g.step();
        c.step();
        println!(
            "frame {f}: gpu v {:?} cpu v {:?}",
            g.read_velocities().unwrap()[i as usize],
            c.velocities[i as usize]
        );
    }
    let x = g.read_positions().unwrap();
    let st = &scene.model.constraints().stretch;
    for k in 0..st.len() {
        let [a, b] = st.particles(k);
        if a == i || b == i {
            println!("edge {a}-{b}: ratio {}", x[a as usize].distance(x[b as usize]) / st.rest_length(k));
        }
    }
    println!("max stretch {}", g.metrics().unwrap().max_stretch);
    g.unpin(i).unwrap();
    c.pins.unpin(i).unwrap();
    for f in 0..8 {
        g.step();
        c.step();
        println!(
            "released {f}: gpu v {:?} cpu v {:?}",
            g.read_velocities().unwrap()[i as usize],
            c.velocities[i as usize]
        );
    }
}
