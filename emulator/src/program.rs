//! An assembled kernel: code plus the metadata of its directives, and the container
//! format it is saved in (`.wko`, a RON document; see docs/assembler.md).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The container format's version; bumped on incompatible changes.
pub const OBJECT_FORMAT_VERSION: u32 = 1;

/// Launch settings from the kernel's directives (overridable on the command line).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchConfig {
    /// Lanes per workgroup (a multiple of 32).
    pub workgroup_lanes: u32,
    /// Workgroups in the grid.
    pub grid: u32,
    /// Shared-memory bytes per workgroup.
    pub shared_bytes: u32,
    /// Scratch bytes per lane.
    pub scratch_bytes: u32,
}

impl Default for LaunchConfig {
    fn default() -> Self {
        Self {
            workgroup_lanes: 32,
            grid: 1,
            shared_bytes: 0,
            scratch_bytes: 0,
        }
    }
}

impl LaunchConfig {
    /// Waves per workgroup.
    pub fn waves_per_workgroup(&self) -> u32 {
        self.workgroup_lanes.div_ceil(32)
    }
}

/// A global buffer the kernel declares.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BufferDef {
    /// Name (used by `--dump NAME` and the debugger).
    pub name: String,
    /// Size in bytes.
    pub size: u64,
    /// Initial contents (the rest of the buffer is zero).
    pub init: Vec<u8>,
}

/// What a preloaded uniform-register argument holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ArgValue {
    /// A buffer's 64-bit address, in two registers (low, high).
    Address(String),
    /// A buffer descriptor, in four registers (base low, base high, size, flags).
    Descriptor(String),
    /// A 32-bit constant.
    Value(u32),
}

/// A uniform register (or run of registers) preloaded before the kernel starts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArgDef {
    /// First uniform register.
    pub reg: u8,
    /// What it holds.
    pub value: ArgValue,
}

impl ArgValue {
    /// How many registers the value occupies.
    pub fn regs(&self) -> u8 {
        match self {
            ArgValue::Address(_) => 2,
            ArgValue::Descriptor(_) => 4,
            ArgValue::Value(_) => 1,
        }
    }
}

/// An assembled kernel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Program {
    /// Container format version ([`OBJECT_FORMAT_VERSION`]).
    pub format_version: u32,
    /// Kernel name.
    pub name: String,
    /// The source file it was assembled from, if any.
    pub source: Option<String>,
    /// Code, 32-bit words; a 64-bit instruction takes two (low first). PC 0 is `code[0]`.
    pub code: Vec<u32>,
    /// Labels by name: byte address in the code.
    pub labels: BTreeMap<String, u64>,
    /// Source line of each instruction: (byte address, line number).
    pub lines: Vec<(u64, u32)>,
    /// Launch settings.
    pub launch: LaunchConfig,
    /// Global buffers.
    pub buffers: Vec<BufferDef>,
    /// Preloaded uniform registers.
    pub args: Vec<ArgDef>,
}

/// Why a kernel object could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ObjectError {
    /// Not a valid RON document of the expected shape.
    #[error("not a wavedbg kernel object: {0}")]
    Parse(String),
    /// Written by an incompatible version.
    #[error(
        "kernel object format version {found} is not supported (expected {OBJECT_FORMAT_VERSION})"
    )]
    Version {
        /// The version found.
        found: u32,
    },
}

impl Program {
    /// A program with no code and default launch settings.
    pub fn empty(name: &str) -> Self {
        Self {
            format_version: OBJECT_FORMAT_VERSION,
            name: name.to_string(),
            source: None,
            code: Vec::new(),
            labels: BTreeMap::new(),
            lines: Vec::new(),
            launch: LaunchConfig::default(),
            buffers: Vec::new(),
            args: Vec::new(),
        }
    }

    /// Serializes to the `.wko` container (RON text).
    pub fn to_object(&self) -> String {
        let cfg = ron::ser::PrettyConfig::new().depth_limit(2);
        // Serializing plain data into a String cannot fail.
        ron::ser::to_string_pretty(self, cfg).unwrap_or_default()
    }

    /// Reads a `.wko` container.
    pub fn from_object(text: &str) -> Result<Self, ObjectError> {
        let p: Program = ron::from_str(text).map_err(|e| ObjectError::Parse(e.to_string()))?;
        if p.format_version != OBJECT_FORMAT_VERSION {
            return Err(ObjectError::Version {
                found: p.format_version,
            });
        }
        Ok(p)
    }

    /// The label at an address, if any (the first by name).
    pub fn label_at(&self, addr: u64) -> Option<&str> {
        self.labels
            .iter()
            .find(|(_, a)| **a == addr)
            .map(|(n, _)| n.as_str())
    }

    /// The source line of the instruction at `addr`.
    pub fn line_at(&self, addr: u64) -> Option<u32> {
        self.lines
            .binary_search_by_key(&addr, |(a, _)| *a)
            .ok()
            .map(|i| self.lines[i].1)
    }

    /// The buffer with this name.
    pub fn buffer(&self, name: &str) -> Option<&BufferDef> {
        self.buffers.iter().find(|b| b.name == name)
    }

    /// Code size in bytes.
    pub fn code_bytes(&self) -> u64 {
        self.code.len() as u64 * 4
    }
}
