mod support;
use drape::lab::{bending_length, cantilever_reading, Cantilever};
use drape::{Fabric, GpuSolver, SolverParams};
#[test]
fn probe() {
    let (device, queue) = support::device();
    let fabric = Fabric::named("cotton-shirting").unwrap();
    let overhang = 2.0 * bending_length(&fabric, 9.81);
    for (cells, iterations) in [(8, 100), (8, 400), (8, 1600), (16, 1600)] {
        let rig = Cantilever::new(&fabric, overhang, cells).unwrap();
        let params = SolverParams { substeps: 20, iterations, damping: 5.0, ..Default::default() };
        let mut solver = GpuSolver::new(&device, &queue, &rig.model, params, &[]).unwrap();
        let t = std::time::Instant::now();
        let mut line = String::new();
        for f in 0..120 {
            solver.step();
            if f % 20 == 19 {
                line += &format!(
                    " {:.2}",
                    cantilever_reading(&rig.model, &solver.read_positions().unwrap(), 9.81).tip_angle.to_degrees()
                );
            }
        }
        println!("cells {cells} it {iterations}: {line} ({:.0}s)", t.elapsed().as_secs_f32());
    }
}
