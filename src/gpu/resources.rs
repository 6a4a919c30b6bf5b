//! The solver's GPU resources by name, and the bind groups built from the binding tables.
//!
//! Every buffer is named by the bindings that bind it ([`crate::wgsl::Binding::name`]): the
//! cloth's own (positions, velocities, pins, colliders, normals, triangles…), made when the
//! solver is, and the passes', made, grown and written from their uploads
//! ([`crate::passes::Upload`]). A binding whose buffer nobody uploaded yet gets a zeroed
//! placeholder of its `min_bytes`. [`BindGroups`] makes one layout and one bind group per
//! binding table, and rebuilds the bind groups of a table when a buffer it binds is replaced
//! (grown), so no code outside this module writes a binding index or a bind group. A table
//! that some kernels bind only part of ([`crate::passes::Kernel::uses`]) gets a layout and bind
//! group per part.

use super::device::check_buffer_size;
use super::fields::FieldAtlas;
use crate::error::Error;
use crate::passes::{ParamsLayout, Upload};
use crate::wgsl::{Access, Binding, BindingTable};
use std::collections::{BTreeMap, BTreeSet};

/// Storage buffers the host writes into and copies out of.
pub(crate) const STORAGE: wgpu::BufferUsages =
    wgpu::BufferUsages::STORAGE.union(wgpu::BufferUsages::COPY_DST).union(wgpu::BufferUsages::COPY_SRC);
/// Uniform buffers the host writes into.
pub(crate) const UNIFORM: wgpu::BufferUsages = wgpu::BufferUsages::UNIFORM.union(wgpu::BufferUsages::COPY_DST);

/// The solver's buffers by name, and the mesh colliders' distance fields.
pub(crate) struct Resources {
    device: wgpu::Device,
    queue: wgpu::Queue,
    buffers: BTreeMap<&'static str, wgpu::Buffer>,
    /// The distance fields (the `distance_fields` binding).
    pub fields: FieldAtlas,
    /// Bytes of the buffers, the fields and the readback buffers counted in.
    allocated_bytes: u64,
    /// Resources replaced since the bind groups were last built.
    replaced: BTreeSet<&'static str>,
}

impl Resources {
    /// No buffers yet, and `fields`.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue, fields: FieldAtlas) -> Self {
        let allocated_bytes = fields.bytes();
        Self {
            device: device.clone(),
            queue: queue.clone(),
            buffers: BTreeMap::new(),
            fields,
            allocated_bytes,
            replaced: BTreeSet::new(),
        }
    }

    /// Makes buffer `name` holding `contents`, at least `min_bytes` (bindings cannot be empty).
    pub fn create(&mut self, name: &'static str, contents: &[u8], min_bytes: usize, usage: wgpu::BufferUsages) {
        use wgpu::util::DeviceExt;
        let mut padded = contents.to_vec();
        padded.resize(contents.len().max(min_bytes), 0);
        let label = format!("drape {name}");
        let buffer = self.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(&label),
            contents: &padded,
            usage,
        });
        self.allocated_bytes += buffer.size();
        self.insert(name, buffer);
    }

    /// Buffer `name`.
    ///
    /// # Panics
    /// If no buffer has that name: every name comes from a binding table, whose buffers the bind
    /// groups make.
    pub fn buffer(&self, name: &str) -> &wgpu::Buffer {
        self.buffers.get(name).unwrap_or_else(|| panic!("no buffer `{name}`"))
    }

    /// Replaces the distance fields.
    pub fn set_fields(&mut self, fields: FieldAtlas) {
        self.allocated_bytes = self.allocated_bytes + fields.bytes() - self.fields.bytes();
        self.fields = fields;
        self.replaced.insert("distance_fields");
    }

    /// Replaces buffer `name` by an uninitialised (zeroed) one of `size` bytes when it is
    /// smaller or missing, keeping its usage (`usage` for a new one). Returns whether it did.
    pub fn grow(&mut self, name: &'static str, size: u64, usage: wgpu::BufferUsages) -> bool {
        let existing = self.buffers.get(name);
        if existing.is_some_and(|b| b.size() >= size) {
            return false;
        }
        let usage = existing.map_or(usage, wgpu::Buffer::usage);
        let label = format!("drape {name}");
        let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(&label),
            size,
            usage,
            mapped_at_creation: false,
        });
        self.allocated_bytes += size;
        self.insert(name, buffer);
        true
    }

    /// Writes `bytes` into buffer `name` at `offset` (at the next submit).
    pub fn write(&self, name: &str, offset: u64, bytes: &[u8]) {
        if !bytes.is_empty() {
            self.queue.write_buffer(self.buffer(name), offset, bytes);
        }
    }

    /// Writes zeros over all of buffer `name`.
    pub fn zero(&self, name: &str) {
        let buffer = self.buffer(name);
        self.queue.write_buffer(buffer, 0, &vec![0; buffer.size() as usize]);
    }

    /// Checks that the buffers `uploads` ask for fit the device.
    pub fn check(&self, uploads: &[Upload]) -> Result<(), Error> {
        for upload in uploads {
            match upload {
                Upload::Write { buffer, bytes } => check_buffer_size(&self.device, buffer, bytes.len() as u64)?,
                Upload::Reserve { buffer, bytes } => check_buffer_size(&self.device, buffer, *bytes)?,
                Upload::Zero { .. } | Upload::Block { .. } => {}
            }
        }
        Ok(())
    }

    /// Applies checked `uploads` in order, growing buffers as they need (storage buffers unless
    /// `tables` bind them as uniforms), the passes' blocks where `params` lays them out.
    pub fn apply(&mut self, uploads: &[Upload], tables: &BindGroups, params: &ParamsLayout) {
        for upload in uploads {
            match upload {
                Upload::Write { buffer, bytes } => {
                    self.grow(buffer, (bytes.len() as u64).max(4), tables.usage(buffer));
                    self.write(buffer, 0, bytes);
                }
                Upload::Reserve { buffer, bytes } => {
                    self.grow(buffer, *bytes, tables.usage(buffer));
                }
                Upload::Zero { buffer } => self.zero(buffer),
                Upload::Block { member, bytes } => {
                    let offset = params.offset(member).unwrap_or_else(|| panic!("no block `{member}`"));
                    self.write("params", offset, bytes);
                }
            }
        }
    }

    /// Counts a buffer made elsewhere (a readback buffer) in [`Resources::allocated_bytes`].
    pub fn count_added(&mut self, buffer: &wgpu::Buffer) {
        self.allocated_bytes += buffer.size();
    }

    /// Stops counting a buffer made elsewhere, dropped.
    pub fn count_dropped(&mut self, buffer: &wgpu::Buffer) {
        self.allocated_bytes -= buffer.size();
    }

    /// Bytes of GPU buffers and textures allocated.
    pub fn allocated_bytes(&self) -> u64 {
        self.allocated_bytes
    }

    /// Bytes of each named buffer, and of the distance fields.
    pub fn sizes(&self) -> Vec<(&'static str, u64)> {
        let buffers = self.buffers.iter().map(|(&name, buffer)| (name, buffer.size()));
        buffers.chain([("distance_fields", self.fields.bytes())]).collect()
    }

    fn insert(&mut self, name: &'static str, buffer: wgpu::Buffer) {
        if let Some(old) = self.buffers.insert(name, buffer) {
            self.allocated_bytes -= old.size();
        }
        self.replaced.insert(name);
    }

    /// A zeroed buffer for `binding` until its resource is uploaded.
    fn placeholder(&mut self, binding: &Binding) {
        if binding.access != Access::Texture3d && !self.buffers.contains_key(binding.name) {
            self.grow(binding.name, binding.min_bytes, usage(binding.access));
        }
    }
}

/// The usage of a new buffer bound with `access`.
fn usage(access: Access) -> wgpu::BufferUsages {
    match access {
        Access::Uniform | Access::DynamicUniform => UNIFORM,
        _ => STORAGE,
    }
}

/// One bind group layout and bind group per binding table, or per part of one that some
/// kernels bind ([`crate::passes::Kernel::uses`]).
pub(crate) struct BindGroups {
    tables: Vec<(&'static BindingTable, Option<&'static [&'static str]>)>,
    layouts: Vec<wgpu::BindGroupLayout>,
    groups: Vec<Option<wgpu::BindGroup>>,
}

impl BindGroups {
    /// None yet.
    pub fn new() -> Self {
        Self { tables: Vec::new(), layouts: Vec::new(), groups: Vec::new() }
    }

    /// The index of the layout and bind group of `table` (or of the bindings of it named in
    /// `uses`, each at its place in the table), making the layout the first time.
    pub fn add(
        &mut self,
        device: &wgpu::Device,
        table: &'static BindingTable,
        uses: Option<&'static [&'static str]>,
    ) -> usize {
        if let Some(i) = self.tables.iter().position(|&(t, u)| std::ptr::eq(t, table) && u == uses) {
            return i;
        }
        let entries: Vec<wgpu::BindGroupLayoutEntry> =
            bound(table, uses).map(|(index, binding)| layout_entry(index, binding)).collect();
        let label = format!("drape {}", table.label);
        self.layouts.push(
            device
                .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label: Some(&label), entries: &entries }),
        );
        self.tables.push((table, uses));
        self.groups.push(None);
        self.tables.len() - 1
    }

    /// The layout of table `index`.
    pub fn layout(&self, index: usize) -> &wgpu::BindGroupLayout {
        &self.layouts[index]
    }

    /// The bind group of table `index`.
    ///
    /// # Panics
    /// Before [`BindGroups::refresh`].
    pub fn group(&self, index: usize) -> &wgpu::BindGroup {
        self.groups[index].as_ref().expect("bind groups are built before a frame is recorded")
    }

    /// Makes the bind groups not made yet and remakes those binding a replaced resource, with
    /// placeholders for buffers not uploaded yet.
    pub fn refresh(&mut self, device: &wgpu::Device, resources: &mut Resources) {
        for (i, &(table, uses)) in self.tables.iter().enumerate() {
            let stale =
                self.groups[i].is_none() || bound(table, uses).any(|(_, b)| resources.replaced.contains(b.name));
            if !stale {
                continue;
            }
            bound(table, uses).for_each(|(_, b)| resources.placeholder(b));
            let entries: Vec<wgpu::BindGroupEntry> =
                bound(table, uses).map(|(index, binding)| group_entry(index, binding, resources)).collect();
            let label = format!("drape {}", table.label);
            self.groups[i] = Some(device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(&label),
                layout: &self.layouts[i],
                entries: &entries,
            }));
        }
        resources.replaced.clear();
    }

    /// The usage of a new buffer `name`: uniform if a table binds it so, else storage.
    fn usage(&self, name: &str) -> wgpu::BufferUsages {
        let binding = self.tables.iter().flat_map(|(t, _)| t.bindings).find(|b| b.name == name);
        binding.map_or(STORAGE, |b| usage(b.access))
    }
}

/// The bindings of `table` a bind group holds (those named in `uses`, or all), with their
/// indices in the table.
fn bound(
    table: &'static BindingTable,
    uses: Option<&'static [&'static str]>,
) -> impl Iterator<Item = (u32, &'static Binding)> {
    (0..).zip(table.bindings).filter(move |(_, b)| uses.is_none_or(|uses| uses.contains(&b.name)))
}

fn layout_entry(index: u32, binding: &Binding) -> wgpu::BindGroupLayoutEntry {
    let buffer = |ty, has_dynamic_offset| wgpu::BindingType::Buffer { ty, has_dynamic_offset, min_binding_size: None };
    let ty = match binding.access {
        Access::Uniform => buffer(wgpu::BufferBindingType::Uniform, false),
        Access::DynamicUniform => buffer(wgpu::BufferBindingType::Uniform, true),
        Access::Read => buffer(wgpu::BufferBindingType::Storage { read_only: true }, false),
        Access::ReadWrite => buffer(wgpu::BufferBindingType::Storage { read_only: false }, false),
        Access::Texture3d => wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Float { filterable: false },
            view_dimension: wgpu::TextureViewDimension::D3,
            multisampled: false,
        },
    };
    wgpu::BindGroupLayoutEntry { binding: index, visibility: wgpu::ShaderStages::COMPUTE, ty, count: None }
}

fn group_entry<'a>(index: u32, binding: &Binding, resources: &'a Resources) -> wgpu::BindGroupEntry<'a> {
    let resource = match binding.access {
        Access::Texture3d => wgpu::BindingResource::TextureView(&resources.fields.view),
        // A dynamic offset selects one entry of `min_bytes`.
        Access::DynamicUniform => wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer: resources.buffer(binding.name),
            offset: 0,
            size: wgpu::BufferSize::new(binding.min_bytes),
        }),
        _ => resources.buffer(binding.name).as_entire_binding(),
    };
    wgpu::BindGroupEntry { binding: index, resource }
}
