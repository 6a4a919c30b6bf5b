//! Bind group layouts and compute pipelines, created once per solver. Each kernel binds only
//! what it uses, in three groups: the frame (parameters, dispatch entry), the particles, and the
//! constraint data its stage reads (`shaders/common.wgsl` and each module's files).

use super::plan::{Kernel, WorkgroupSizes};
use super::shaders;
use crate::constraints::UnitType;

fn storage(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

fn uniform(binding: u32, has_dynamic_offset: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset,
            min_binding_size: None,
        },
        count: None,
    }
}

/// The mesh colliders' distance fields: a 3-D `r32float` texture read with `textureLoad`.
fn distance_fields(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Float { filterable: false },
            view_dimension: wgpu::TextureViewDimension::D3,
            multisampled: false,
        },
        count: None,
    }
}

/// Every bind group layout. Group 0 (the frame) is shared by all kernels; the pipeline layouts
/// are `[frame, particles, data]` ([`GroupLayout::PIPELINES`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GroupLayout {
    /// Group 0: parameters and the dispatch table entry (dynamic offset).
    Frame,
    /// Group 1 of predict and finalize: positions and velocities written, pins and the air's
    /// accelerations read, the clock written, the springs' accelerations read, the collider
    /// list read (its overflow count written), the mesh colliders' distance fields read.
    Integrate,
    /// Group 1 of the projections: positions read, displacements written.
    Solve,
    /// Group 1 of the normals: positions read.
    Positions,
    /// Group 2 of Gauss-Seidel: the constraint records (multipliers written) and the schedule.
    GaussSeidel,
    /// Group 2 of Jacobi: the constraint records, the correction slots and Jacobi's plan.
    Jacobi,
    /// Group 2 of the normals: normals written, triangles and gather lists read.
    Normals,
    /// Group 2 of the tethers: their lists, read.
    Tethers,
    /// Group 2 of the area limits: the coloured triangles, read.
    Areas,
    /// Group 2 of the aerodynamics: accelerations written, triangles, gather lists and clock
    /// read.
    Aerodynamics,
    /// Group 2 of the rigid damping: the partial moments and the rigid motion, written.
    RigidDamping,
    /// Group 2 of the springs: their lists read, their accelerations written.
    Springs,
    /// Group 2 of self-collision: the hash table, the hashed particles and the corrections
    /// written, the rest shape read.
    SelfCollision,
}

impl GroupLayout {
    /// Every pipeline layout's groups (integrate has no group 2), for the device limit checks.
    pub const PIPELINES: [&[GroupLayout]; 10] = [
        &[Self::Frame, Self::Integrate],
        &[Self::Frame, Self::Solve, Self::GaussSeidel],
        &[Self::Frame, Self::Solve, Self::Jacobi],
        &[Self::Frame, Self::Positions, Self::Normals],
        &[Self::Frame, Self::Solve, Self::Tethers],
        &[Self::Frame, Self::Solve, Self::Areas],
        &[Self::Frame, Self::Solve, Self::Aerodynamics],
        &[Self::Frame, Self::Solve, Self::RigidDamping],
        &[Self::Frame, Self::Solve, Self::Springs],
        &[Self::Frame, Self::Solve, Self::SelfCollision],
    ];

    /// The layout's entries (`@group(n) @binding(k)` declarations in `shaders/`).
    pub fn entries(self) -> Vec<wgpu::BindGroupLayoutEntry> {
        match self {
            Self::Frame => vec![uniform(0, false), uniform(1, true)],
            Self::Integrate => {
                let (written, read) = (false, true);
                vec![
                    storage(0, written),
                    storage(1, written),
                    storage(2, read),
                    storage(3, read),
                    storage(4, written),
                    storage(5, read),
                    storage(6, written),
                    distance_fields(7),
                ]
            }
            Self::Solve => vec![storage(0, true), storage(1, false)],
            Self::Positions => vec![storage(0, true)],
            Self::GaussSeidel => vec![storage(0, false), storage(1, true)],
            Self::Jacobi => vec![storage(0, false), storage(2, false), storage(3, true)],
            Self::Normals => vec![storage(0, false), storage(1, true), storage(2, true)],
            Self::Tethers | Self::Areas => vec![storage(0, true)],
            Self::Aerodynamics => vec![storage(0, false), storage(1, true), storage(2, true), storage(3, true)],
            Self::RigidDamping => vec![storage(0, false), storage(1, false)],
            Self::Springs => vec![storage(0, true), storage(1, false)],
            Self::SelfCollision => vec![storage(0, false), storage(1, false), storage(2, false), storage(3, true)],
        }
    }
}

/// The bind group layouts.
pub(crate) struct Layouts {
    pub frame: wgpu::BindGroupLayout,
    pub integrate: wgpu::BindGroupLayout,
    pub solve: wgpu::BindGroupLayout,
    pub positions: wgpu::BindGroupLayout,
    pub gauss_seidel: wgpu::BindGroupLayout,
    pub jacobi: wgpu::BindGroupLayout,
    pub normals: wgpu::BindGroupLayout,
    pub tethers: wgpu::BindGroupLayout,
    pub areas: wgpu::BindGroupLayout,
    pub aerodynamics: wgpu::BindGroupLayout,
    pub rigid_damping: wgpu::BindGroupLayout,
    pub springs: wgpu::BindGroupLayout,
    pub self_collision: wgpu::BindGroupLayout,
}

impl Layouts {
    pub fn new(device: &wgpu::Device) -> Self {
        let layout = |label, group: GroupLayout| {
            device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(label),
                entries: &group.entries(),
            })
        };
        Self {
            frame: layout("drape frame", GroupLayout::Frame),
            integrate: layout("drape particles (integrate)", GroupLayout::Integrate),
            solve: layout("drape particles (solve)", GroupLayout::Solve),
            positions: layout("drape positions", GroupLayout::Positions),
            gauss_seidel: layout("drape gauss-seidel data", GroupLayout::GaussSeidel),
            jacobi: layout("drape jacobi data", GroupLayout::Jacobi),
            normals: layout("drape normals data", GroupLayout::Normals),
            tethers: layout("drape tethers", GroupLayout::Tethers),
            areas: layout("drape area limits", GroupLayout::Areas),
            aerodynamics: layout("drape aerodynamics data", GroupLayout::Aerodynamics),
            rigid_damping: layout("drape rigid damping data", GroupLayout::RigidDamping),
            springs: layout("drape springs data", GroupLayout::Springs),
            self_collision: layout("drape self-collision data", GroupLayout::SelfCollision),
        }
    }
}

/// What a workgroup-memory kernel keeps of each particle and how many particles
/// (`shaders/passes/iterations/gauss_seidel_workgroup.wgsl`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Block {
    pub particles: u32,
    /// Positions beside displacements (two `vec4` per particle), or displacements only.
    pub positions: bool,
}

impl Block {
    /// The block for `particles` particles in `bytes` of workgroup memory: positions and
    /// displacements where they fit, displacements alone where only they do, else none.
    pub fn fitting(particles: usize, bytes: u32) -> Option<Self> {
        let vector = 16;
        // Slots are 16-bit.
        let fits = |per_particle: usize| particles <= (1 << 16) && particles * per_particle * vector <= bytes as usize;
        let particles = particles as u32;
        if fits(2) {
            Some(Self { particles, positions: true })
        } else {
            fits(1).then_some(Self { particles, positions: false })
        }
    }

    fn vectors(self) -> u32 {
        self.particles.max(1) * if self.positions { 2 } else { 1 }
    }
}

/// The blocks of the workgroup-memory kernels: the widest stripe's and the whole cloth's, or
/// `None` where they do not fit the device (those kernels then run in place).
#[derive(Debug, Clone, Copy)]
pub(crate) struct BlockSizes {
    pub stripe: Option<Block>,
    pub cloth: Option<Block>,
}

pub(crate) struct Pipelines {
    predict: wgpu::ComputePipeline,
    finalize: wgpu::ComputePipeline,
    finalize_and_predict: wgpu::ComputePipeline,
    project_colour: wgpu::ComputePipeline,
    project_stripes: wgpu::ComputePipeline,
    project_substep: wgpu::ComputePipeline,
    project_stripes_in_workgroup: Option<wgpu::ComputePipeline>,
    project_substep_in_workgroup: Option<wgpu::ComputePipeline>,
    jacobi_project: wgpu::ComputePipeline,
    jacobi_apply: wgpu::ComputePipeline,
    jacobi_substep: wgpu::ComputePipeline,
    project_tethers: wgpu::ComputePipeline,
    limit_areas: wgpu::ComputePipeline,
    apply_aerodynamics: wgpu::ComputePipeline,
    sum_moments: wgpu::ComputePipeline,
    solve_rigid_motion: wgpu::ComputePipeline,
    damp_to_rigid_motion: wgpu::ComputePipeline,
    apply_springs: wgpu::ComputePipeline,
    hash_count: wgpu::ComputePipeline,
    hash_prefix_sum: wgpu::ComputePipeline,
    hash_scatter: wgpu::ComputePipeline,
    hash_sort_buckets: wgpu::ComputePipeline,
    self_contacts: wgpu::ComputePipeline,
    triangle_contacts: wgpu::ComputePipeline,
    apply_self_contacts: wgpu::ComputePipeline,
    pub normals: wgpu::ComputePipeline,
}

impl Pipelines {
    /// Builds every pipeline, the projections for the cloth's `unit_types`.
    pub fn new(
        device: &wgpu::Device,
        layouts: &Layouts,
        sizes: WorkgroupSizes,
        blocks: BlockSizes,
        unit_types: &[UnitType],
    ) -> Self {
        let module = |label, source: String| {
            device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(label),
                source: wgpu::ShaderSource::Wgsl(source.into()),
            })
        };
        let integrate = module("drape integrate", shaders::integrate_module_source());
        let solver = module("drape solver", shaders::solver_module_source(unit_types));
        let normals = module("drape normals", shaders::normals_module_source());
        let tethers = module("drape tethers", shaders::tether_module_source());
        let areas = module("drape area limits", shaders::area_module_source());
        let aerodynamics = module("drape aerodynamics", shaders::aerodynamics_module_source());
        let rigid_damping = module("drape rigid damping", shaders::rigid_damping_module_source());
        let mass_spring = module("drape mass-spring", shaders::mass_spring_module_source());
        let self_collision = module("drape self-collision", shaders::self_collision_module_source());
        let pipeline_layout = |label, groups: [&wgpu::BindGroupLayout; 3]| {
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(label),
                bind_group_layouts: &groups.map(Some),
                immediate_size: 0,
            })
        };
        let integrate_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("drape integrate"),
            bind_group_layouts: &[Some(&layouts.frame), Some(&layouts.integrate)],
            immediate_size: 0,
        });
        let gauss_seidel =
            pipeline_layout("drape gauss-seidel", [&layouts.frame, &layouts.solve, &layouts.gauss_seidel]);
        let jacobi = pipeline_layout("drape jacobi", [&layouts.frame, &layouts.solve, &layouts.jacobi]);
        let normals_layout = pipeline_layout("drape normals", [&layouts.frame, &layouts.positions, &layouts.normals]);
        let tethers_layout = pipeline_layout("drape tethers", [&layouts.frame, &layouts.solve, &layouts.tethers]);
        let areas_layout = pipeline_layout("drape area limits", [&layouts.frame, &layouts.solve, &layouts.areas]);
        let aerodynamics_layout =
            pipeline_layout("drape aerodynamics", [&layouts.frame, &layouts.solve, &layouts.aerodynamics]);
        let rigid_damping_layout =
            pipeline_layout("drape rigid damping", [&layouts.frame, &layouts.solve, &layouts.rigid_damping]);
        let springs_layout = pipeline_layout("drape springs", [&layouts.frame, &layouts.solve, &layouts.springs]);
        let self_collision_layout =
            pipeline_layout("drape self-collision", [&layouts.frame, &layouts.solve, &layouts.self_collision]);
        let workgroup_sizes =
            [("STRIPE_WORKGROUP_SIZE", f64::from(sizes.stripe)), ("SUBSTEP_WORKGROUP_SIZE", f64::from(sizes.substep))];
        let pipeline = |module: &wgpu::ShaderModule,
                        layout: &wgpu::PipelineLayout,
                        entry_point: &str,
                        constants: &[(&str, f64)]| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry_point),
                layout: Some(layout),
                module,
                entry_point: Some(entry_point),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants,
                    // The only workgroup memory, the block copy, is written before it is read;
                    // zeroing it would cost every dispatch.
                    zero_initialize_workgroup_memory: false,
                },
                cache: None,
            })
        };
        let workgroup = (blocks.stripe.is_some() || blocks.cloth.is_some())
            .then(|| module("drape solver (workgroup memory)", shaders::workgroup_module_source(unit_types)));
        let in_workgroup = |entry_point, block: Option<Block>, whole_cloth: bool| {
            let (workgroup, block) = (workgroup.as_ref()?, block?);
            let mut constants = workgroup_sizes.to_vec();
            constants.push(("BLOCK_VECTORS", f64::from(block.vectors())));
            constants.push(("POSITIONS_IN_BLOCK", f64::from(u8::from(block.positions))));
            constants.push(("WHOLE_CLOTH", f64::from(u8::from(whole_cloth))));
            Some(pipeline(workgroup, &gauss_seidel, entry_point, &constants))
        };
        Self {
            predict: pipeline(&integrate, &integrate_layout, "predict", &[]),
            finalize: pipeline(&integrate, &integrate_layout, "finalize", &[]),
            finalize_and_predict: pipeline(&integrate, &integrate_layout, "finalize_and_predict", &[]),
            project_colour: pipeline(&solver, &gauss_seidel, "project_colour", &workgroup_sizes),
            project_stripes: pipeline(&solver, &gauss_seidel, "project_stripes", &workgroup_sizes),
            project_substep: pipeline(&solver, &gauss_seidel, "project_substep", &workgroup_sizes),
            project_stripes_in_workgroup: in_workgroup("project_stripes", blocks.stripe, false),
            project_substep_in_workgroup: in_workgroup("project_substep", blocks.cloth, true),
            jacobi_project: pipeline(&solver, &jacobi, "jacobi_project", &workgroup_sizes),
            jacobi_apply: pipeline(&solver, &jacobi, "jacobi_apply", &workgroup_sizes),
            jacobi_substep: pipeline(&solver, &jacobi, "jacobi_substep", &workgroup_sizes),
            project_tethers: pipeline(&tethers, &tethers_layout, "project_tethers", &[]),
            limit_areas: pipeline(&areas, &areas_layout, "limit_areas", &[]),
            apply_aerodynamics: pipeline(&aerodynamics, &aerodynamics_layout, "apply_aerodynamics", &[]),
            sum_moments: pipeline(&rigid_damping, &rigid_damping_layout, "sum_moments", &[]),
            solve_rigid_motion: pipeline(&rigid_damping, &rigid_damping_layout, "solve_rigid_motion", &[]),
            damp_to_rigid_motion: pipeline(&rigid_damping, &rigid_damping_layout, "damp_to_rigid_motion", &[]),
            apply_springs: pipeline(&mass_spring, &springs_layout, "apply_springs", &[]),
            hash_count: pipeline(&self_collision, &self_collision_layout, "hash_count", &[]),
            hash_prefix_sum: pipeline(&self_collision, &self_collision_layout, "hash_prefix_sum", &[]),
            hash_scatter: pipeline(&self_collision, &self_collision_layout, "hash_scatter", &[]),
            hash_sort_buckets: pipeline(&self_collision, &self_collision_layout, "hash_sort_buckets", &[]),
            self_contacts: pipeline(&self_collision, &self_collision_layout, "self_contacts", &[]),
            triangle_contacts: pipeline(&self_collision, &self_collision_layout, "triangle_contacts", &[]),
            apply_self_contacts: pipeline(&self_collision, &self_collision_layout, "apply_self_contacts", &[]),
            normals: pipeline(&normals, &normals_layout, "compute_normals", &[]),
        }
    }

    /// The pipeline of `kernel` (the plan asks for workgroup-memory kernels only where they
    /// were built).
    pub fn get(&self, kernel: Kernel) -> &wgpu::ComputePipeline {
        fn built(p: &Option<wgpu::ComputePipeline>) -> &wgpu::ComputePipeline {
            p.as_ref().expect("planned only where it fits workgroup memory")
        }
        match kernel {
            Kernel::Predict => &self.predict,
            Kernel::Finalize => &self.finalize,
            Kernel::FinalizeAndPredict => &self.finalize_and_predict,
            Kernel::ProjectColour => &self.project_colour,
            Kernel::ProjectStripes { in_workgroup: false } => &self.project_stripes,
            Kernel::ProjectStripes { in_workgroup: true } => built(&self.project_stripes_in_workgroup),
            Kernel::ProjectSubstep { in_workgroup: false } => &self.project_substep,
            Kernel::ProjectSubstep { in_workgroup: true } => built(&self.project_substep_in_workgroup),
            Kernel::JacobiProject => &self.jacobi_project,
            Kernel::JacobiApply => &self.jacobi_apply,
            Kernel::JacobiSubstep => &self.jacobi_substep,
            Kernel::ProjectTethers => &self.project_tethers,
            Kernel::LimitAreas => &self.limit_areas,
            Kernel::Aerodynamics => &self.apply_aerodynamics,
            Kernel::SumMoments => &self.sum_moments,
            Kernel::SolveRigidMotion => &self.solve_rigid_motion,
            Kernel::DampToRigidMotion => &self.damp_to_rigid_motion,
            Kernel::Springs => &self.apply_springs,
            Kernel::HashCount => &self.hash_count,
            Kernel::HashPrefixSum => &self.hash_prefix_sum,
            Kernel::HashScatter => &self.hash_scatter,
            Kernel::HashSortBuckets => &self.hash_sort_buckets,
            Kernel::SelfContacts => &self.self_contacts,
            Kernel::TriangleContacts => &self.triangle_contacts,
            Kernel::ApplySelfContacts => &self.apply_self_contacts,
        }
    }

    /// The bind groups a kernel's layout takes.
    pub fn data_group(kernel: Kernel) -> DataGroup {
        match kernel {
            Kernel::Predict | Kernel::Finalize | Kernel::FinalizeAndPredict => DataGroup::Integrate,
            Kernel::JacobiProject | Kernel::JacobiApply | Kernel::JacobiSubstep => DataGroup::Jacobi,
            Kernel::ProjectTethers => DataGroup::Tethers,
            Kernel::LimitAreas => DataGroup::Areas,
            Kernel::Aerodynamics => DataGroup::Aerodynamics,
            Kernel::SumMoments | Kernel::SolveRigidMotion | Kernel::DampToRigidMotion => DataGroup::RigidDamping,
            Kernel::Springs => DataGroup::Springs,
            Kernel::HashCount
            | Kernel::HashPrefixSum
            | Kernel::HashScatter
            | Kernel::HashSortBuckets
            | Kernel::SelfContacts
            | Kernel::TriangleContacts
            | Kernel::ApplySelfContacts => DataGroup::SelfCollision,
            _ => DataGroup::GaussSeidel,
        }
    }
}

/// Which bind groups a kernel uses besides the frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DataGroup {
    /// Group 1 for integration, no group 2.
    Integrate,
    /// Group 1 for solving, group 2 with the schedule.
    GaussSeidel,
    /// Group 1 for solving, group 2 with Jacobi's buffers.
    Jacobi,
    /// Group 1 for solving, group 2 with the tethers.
    Tethers,
    /// Group 1 for solving, group 2 with the coloured triangles.
    Areas,
    /// Group 1 for solving, group 2 with the air's buffers.
    Aerodynamics,
    /// Group 1 for solving, group 2 with the rigid damping's buffers.
    RigidDamping,
    /// Group 1 for solving, group 2 with the springs' buffers.
    Springs,
    /// Group 1 for solving, group 2 with self-collision's buffers.
    SelfCollision,
}
