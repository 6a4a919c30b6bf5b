//! WGSL written from Rust, so that each thing shared by the host and the kernels is defined once:
//! constants ([`Constant`]: a Rust `const` becomes a WGSL `const` with exactly its value), the
//! binding declarations of a bind group ([`BindingTable`]: the table is also what the GPU
//! solver builds the group's layout and bind group from; a binding's index is its place in the
//! table, written nowhere else), and the layouts of host-shared structs ([`StructLayout`], which
//! `tests/shaders.rs` checks against naga's reflection of the WGSL struct).

use std::borrow::Cow;
use std::fmt::Write;

/// A scalar value of a generated WGSL constant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    /// `u32`.
    U32(u32),
    /// `i32`.
    I32(i32),
    /// `f32`, written as an exact hexadecimal literal.
    F32(f32),
}

/// A WGSL `const` generated from its Rust twin.
#[derive(Debug, Clone, PartialEq)]
pub struct Constant {
    /// Its WGSL name.
    pub name: Cow<'static, str>,
    /// Its value.
    pub value: Scalar,
}

impl Constant {
    /// A `u32` constant.
    pub const fn u32(name: &'static str, value: u32) -> Self {
        Self { name: Cow::Borrowed(name), value: Scalar::U32(value) }
    }

    /// An `i32` constant.
    pub const fn i32(name: &'static str, value: i32) -> Self {
        Self { name: Cow::Borrowed(name), value: Scalar::I32(value) }
    }

    /// An `f32` constant.
    pub const fn f32(name: &'static str, value: f32) -> Self {
        Self { name: Cow::Borrowed(name), value: Scalar::F32(value) }
    }

    /// A constant whose name is built at run time (one per registered kind, say).
    pub fn named(name: String, value: Scalar) -> Self {
        Self { name: Cow::Owned(name), value }
    }

    /// Its WGSL declaration, one line.
    pub fn declaration(&self) -> String {
        match self.value {
            Scalar::U32(v) => format!("const {}: u32 = {v}u;\n", self.name),
            Scalar::I32(v) => format!("const {}: i32 = {v}i;\n", self.name),
            Scalar::F32(v) => format!("const {}: f32 = {}; // {v:?}\n", self.name, f32_literal(v)),
        }
    }
}

/// The declarations of `constants`, under a line saying whose they are.
pub fn constant_declarations(module: &str, constants: &[Constant]) -> String {
    let mut source = format!("// The {module} constants, generated from their Rust twins.\n");
    source.extend(constants.iter().map(Constant::declaration));
    source
}

/// An exact WGSL literal of a finite `f32`: hexadecimal (`0x1.8p1f` is 3), so that no parser's
/// decimal rounding can change a bit.
///
/// # Panics
/// If `x` is not finite (WGSL has no literal for it).
pub fn f32_literal(x: f32) -> String {
    assert!(x.is_finite(), "WGSL has no literal for {x}");
    let bits = x.to_bits();
    let sign = if bits >> 31 == 1 { "-" } else { "" };
    let exponent = ((bits >> 23) & 0xff) as i32;
    let fraction = bits & 0x7f_ffff;
    if exponent == 0 && fraction == 0 {
        return format!("{sign}0.0f");
    }
    // 23 fraction bits shifted to 24 make six hexadecimal digits.
    let digits = format!("{:06x}", fraction << 1);
    let digits = match digits.trim_end_matches('0') {
        "" => "0",
        trimmed => trimmed,
    };
    let (lead, power) = if exponent == 0 { (0, -126) } else { (1, exponent - 127) };
    format!("{sign}0x{lead}.{digits}p{power}f")
}

/// A WGSL file of `shaders/`: its path there and its text ([`wgsl_file!`](crate::wgsl_file)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WgslFile {
    /// Its path under `shaders/`.
    pub path: &'static str,
    /// Its text.
    pub source: &'static str,
}

/// The [`WgslFile`] at a path under `shaders/`, compiled in.
#[macro_export]
macro_rules! wgsl_file {
    ($path:literal) => {
        $crate::wgsl::WgslFile {
            path: $path,
            source: include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/shaders/", $path)),
        }
    };
}

/// How a kernel accesses a binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// A uniform buffer.
    Uniform,
    /// A uniform buffer bound at a dynamic offset, `min_bytes` wide.
    DynamicUniform,
    /// A storage buffer, read only.
    Read,
    /// A storage buffer, read and written.
    ReadWrite,
    /// A 3-D `f32` texture read with `textureLoad` (not filterable).
    Texture3d,
}

/// One binding of a bind group: a named resource, the same name in WGSL and in the GPU
/// solver's store of buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Binding {
    /// The WGSL variable, and the buffer (or texture) the solver binds to it.
    pub name: &'static str,
    /// The WGSL type (`array<vec4<f32>>`, a struct's name, `texture_3d<f32>`).
    pub ty: &'static str,
    /// How the kernels access it.
    pub access: Access,
    /// The fewest bytes the binding takes: a placeholder buffer this large stands in until the
    /// resource is first uploaded (and a dynamic uniform binds exactly this many).
    pub min_bytes: u64,
    /// What it holds, written above its WGSL declaration.
    pub doc: &'static str,
}

impl Binding {
    /// A storage buffer read by the kernels.
    pub const fn read(name: &'static str, ty: &'static str, min_bytes: u64, doc: &'static str) -> Self {
        Self { name, ty, access: Access::Read, min_bytes, doc }
    }

    /// A storage buffer read and written by the kernels.
    pub const fn read_write(name: &'static str, ty: &'static str, min_bytes: u64, doc: &'static str) -> Self {
        Self { name, ty, access: Access::ReadWrite, min_bytes, doc }
    }

    /// A uniform buffer of `bytes` bytes.
    pub const fn uniform(name: &'static str, ty: &'static str, bytes: u64, doc: &'static str) -> Self {
        Self { name, ty, access: Access::Uniform, min_bytes: bytes, doc }
    }
}

/// The bindings of one bind group, in binding order: binding `k` is `bindings[k]`.
#[derive(Debug, PartialEq, Eq)]
pub struct BindingTable {
    /// Names its layout and bind groups.
    pub label: &'static str,
    /// The bindings.
    pub bindings: &'static [Binding],
}

impl BindingTable {
    /// The WGSL declarations of the group as group `group`.
    pub fn declarations(&self, group: u32) -> String {
        let mut source = format!("// Group {group}, generated from the binding table `{}`.\n", self.label);
        for (index, binding) in self.bindings.iter().enumerate() {
            for line in binding.doc.lines() {
                let _ = writeln!(source, "// {}", line.trim());
            }
            let space = match binding.access {
                Access::Uniform | Access::DynamicUniform => "<uniform>",
                Access::Read => "<storage, read>",
                Access::ReadWrite => "<storage, read_write>",
                Access::Texture3d => "",
            };
            let _ = writeln!(source, "@group({group}) @binding({index}) var{space} {}: {};", binding.name, binding.ty);
        }
        source
    }
}

/// The layout of a `#[repr(C)]` Rust struct that a WGSL struct mirrors: the WGSL struct's name,
/// the Rust struct's size and its members' offsets (padding members, named `_pad…`, left out).
/// A `tail` is a WGSL runtime-sized array after the members (the Rust struct is then the head
/// before it, and the array starts at its size).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StructLayout {
    /// The WGSL struct.
    pub name: &'static str,
    /// `size_of` the Rust struct.
    pub size: usize,
    /// `(member, offset)` in order.
    pub members: &'static [(&'static str, usize)],
    /// The runtime-sized array member after the head, if any.
    pub tail: Option<&'static str>,
}

/// The [`StructLayout`] of a Rust struct and the WGSL struct it mirrors, from its members' names:
/// `struct_layout!(GpuParams as "Params", acceleration, h)`, or with `tail "name"` after the
/// WGSL name for a head before a runtime-sized array.
#[macro_export]
macro_rules! struct_layout {
    ($ty:ty as $name:literal $(tail $tail:literal)?, $($member:ident),* $(,)?) => {
        $crate::wgsl::StructLayout {
            name: $name,
            size: ::std::mem::size_of::<$ty>(),
            members: &[$((stringify!($member), ::std::mem::offset_of!($ty, $member))),*],
            tail: $crate::struct_layout!(@tail $($tail)?),
        }
    };
    (@tail) => { None };
    (@tail $tail:literal) => { Some($tail) };
}
