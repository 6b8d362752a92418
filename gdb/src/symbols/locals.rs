//! The kernel's source variables (`.var`; docs/source-level.md) as DWARF variables of
//! the subprograms whose code they live in, each with a location list (`.debug_loc`)
//! over its live ranges.
//!
//! A per-lane variable holds its 32 lanes ([`Shape`]: an array of its type for a vector
//! register or a 32-bit scratch variable, the two words' halves for a pair or a 64-bit
//! scratch variable, read in the wave window's scratch-by-word part; an array of lane
//! windows for scratch at an address that is not a multiple of 4); `NAME_lane` beside it is the selected lane's value (through the lane
//! registers `lvN`, or the `lane` register for scratch). A uniform, global or shared one
//! is a plain value. Every location but a global one is an address in the thread's wave
//! window (`DW_OP_breg3`: `rbx` is its base; [`crate::memory`]), where gdb and lldb read
//! the wave's registers, its workgroup's shared memory and its lanes' scratch as memory:
//! gdb's x86-64 architecture maps no DWARF register number to the wave's own registers.

use gimli::write::{
    Address, AttributeValue, Expression, Location, LocationList, Range, RangeList, UnitEntryId,
};
use wavedbg_emulator::program::{Program, VarDef, VarLocation, VarType};

use super::{Function, Launch, TypeBuilder};
use crate::memory::{
    SCRATCH_OFFSET_BITS, WAVE_LANE_SCRATCH, WAVE_LANE_VECTOR, WAVE_SCRATCH, WAVE_SCRATCH_WORDS,
    WAVE_SHARED, WAVE_UNIFORM, WAVE_VECTOR,
};

/// Lanes of a per-lane variable.
const LANES: u64 = 32;

/// The suffix of the selected-lane variable of a per-lane one (`xi_lane`).
pub const LANE_SUFFIX: &str = "_lane";

/// A stretch of code where one definition of a name is the live one.
#[derive(Debug, Clone, Copy)]
struct Segment<'a> {
    start: u64,
    end: u64,
    def: &'a VarDef,
}

/// How a definition is typed in DWARF (the forms lldb 14 reads: it ignores an array's
/// `DW_AT_byte_stride` and composes no `DW_OP_bit_piece`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// One value (uniform, global, shared).
    Value(VarType),
    /// A vector register: `T[32]`.
    Lanes(VarType),
    /// A vector register pair: `struct { unsigned int lo[32], hi[32]; }`, the halves of
    /// each lane's value.
    Pair(VarType),
    /// Scratch at an address that is not a multiple of 4 (its words are not whole words
    /// of the scratch-by-word part): `struct { T v; }[32]`, each struct as large as a
    /// lane's window (2 MiB in all: over gdb's `max-value-size`, but lanes print).
    Scratch(VarType),
}

impl Shape {
    fn of(def: &VarDef) -> Shape {
        match def.location {
            VarLocation::Vector(_) => Shape::Lanes(def.ty),
            VarLocation::VectorPair(_) => Shape::Pair(def.ty),
            // Whole words: each word's 32 lanes are one array in the scratch-by-word part.
            VarLocation::Scratch(a) if a % 4 == 0 && def.ty.bytes() == 8 => Shape::Pair(def.ty),
            VarLocation::Scratch(a) if a % 4 == 0 => Shape::Lanes(def.ty),
            VarLocation::Scratch(_) => Shape::Scratch(def.ty),
            _ => Shape::Value(def.ty),
        }
    }

    /// Whether it holds a value per lane (and so has a `NAME_lane`).
    fn per_lane(self) -> bool {
        !matches!(self, Shape::Value(_))
    }
}

/// The struct of a vector register pair variable.
const PAIR_STRUCT: &str = "__lane_halves";
/// The struct of one lane's value of a scratch variable.
const SCRATCH_STRUCT: &str = "__scratch_lane";
/// The member of [`SCRATCH_STRUCT`].
pub const SCRATCH_MEMBER: &str = "v";

/// The C name of a variable type.
fn type_name(ty: VarType) -> &'static str {
    match ty {
        VarType::U32 => "unsigned int",
        VarType::I32 => "int",
        VarType::F32 => "float",
        VarType::U64 => "long unsigned int",
        VarType::F64 => "double",
    }
}

/// Each variable name (in declaration order) with the stretches of code where each of
/// its definitions is the one seen: where live ranges of a name overlap, the latest
/// declared wins (as the engine's `print`).
fn segments(vars: &[VarDef]) -> Vec<(&str, Vec<Segment<'_>>)> {
    let mut names: Vec<&str> = Vec::new();
    for v in vars {
        if !names.contains(&v.name.as_str()) {
            names.push(&v.name);
        }
    }
    names
        .into_iter()
        .map(|name| {
            let defs: Vec<&VarDef> = vars
                .iter()
                .filter(|v| v.name == name && v.start < v.end)
                .collect();
            let mut cuts: Vec<u64> = defs.iter().flat_map(|d| [d.start, d.end]).collect();
            cuts.sort_unstable();
            cuts.dedup();
            let mut out: Vec<Segment<'_>> = Vec::new();
            for w in cuts.windows(2) {
                let (a, b) = (w[0], w[1]);
                let Some(def) = defs.iter().rev().find(|d| d.start <= a && b <= d.end) else {
                    continue;
                };
                match out.last_mut() {
                    Some(last) if last.end == a && std::ptr::eq(last.def, *def) => last.end = b,
                    _ => out.push(Segment {
                        start: a,
                        end: b,
                        def,
                    }),
                }
            }
            (name, out)
        })
        .collect()
}

/// Pushes the address `offset` bytes into the thread's wave window: `rbx` reads as its
/// base (DWARF register 3; [`crate::memory`]).
fn window(offset: u64) -> Expression {
    let mut e = Expression::new();
    e.op_breg(gimli::X86_64::RBX, offset as i64);
    e
}

/// Where a definition's value is: all 32 lanes for a per-lane one (`lane` false), or
/// the selected lane's value (`lane` true; `None` for a value that is not per lane).
/// Registers, shared memory and scratch are read in the thread's wave window, whose
/// registers lie in order (a pair's two registers are contiguous there).
fn location(def: &VarDef, program: &Program, launch: &Launch, lane: bool) -> Option<Expression> {
    let vector = |r: u8| WAVE_VECTOR + u64::from(r) * LANES * 4;
    let lane_vector = |r: u8| WAVE_LANE_VECTOR + u64::from(r) * 4;
    Some(match (&def.location, lane) {
        (VarLocation::Vector(r) | VarLocation::VectorPair(r), false) => window(vector(*r)),
        (VarLocation::Vector(r) | VarLocation::VectorPair(r), true) => window(lane_vector(*r)),
        (VarLocation::Uniform(r) | VarLocation::UniformPair(r), false) => {
            window(WAVE_UNIFORM + u64::from(*r) * 4)
        }
        (VarLocation::Global { buffer, offset }, false) => {
            let i = program.buffers.iter().position(|b| &b.name == buffer)?;
            let base = launch.buffer_bases.get(i)?;
            let mut e = Expression::new();
            e.op_addr(Address::Constant(base.wrapping_add(*offset)));
            e
        }
        (VarLocation::Shared(a), false) => window(WAVE_SHARED.wrapping_add(*a)),
        (VarLocation::Scratch(a), false) if a % 4 == 0 => {
            window(WAVE_SCRATCH_WORDS.wrapping_add(a / 4 * LANES * 4))
        }
        (VarLocation::Scratch(a), false) => window(WAVE_SCRATCH.wrapping_add(*a)),
        (VarLocation::Scratch(a), true) => window(WAVE_LANE_SCRATCH.wrapping_add(*a)),
        (_, true) => return None,
    })
}

/// The DWARF types of the shapes built so far.
#[derive(Default)]
struct Types(Vec<((Shape, bool), UnitEntryId)>);

impl Types {
    /// The type of a shape: its value, or (`lanes`) its array of 32 lanes.
    fn of(&mut self, t: &mut TypeBuilder<'_>, shape: Shape, lanes: bool) -> UnitEntryId {
        if let Some(&(_, id)) = self.0.iter().find(|(k, _)| *k == (shape, lanes)) {
            return id;
        }
        let id = match shape {
            Shape::Value(ty) => t.base(type_name(ty)),
            Shape::Lanes(ty) | Shape::Pair(ty) | Shape::Scratch(ty) if !lanes => {
                t.base(type_name(ty))
            }
            Shape::Lanes(ty) => {
                let element = t.base(type_name(ty));
                t.array(element, &[LANES])
            }
            Shape::Pair(_) => {
                let word = t.base("unsigned int");
                let half = t.array(word, &[LANES]);
                let members = [("lo", half, 0), ("hi", half, LANES * 4)];
                structure(t, PAIR_STRUCT, LANES * 8, &members)
            }
            Shape::Scratch(ty) => {
                let value = t.base(type_name(ty));
                let members = [(SCRATCH_MEMBER, value, 0)];
                let lane = structure(t, SCRATCH_STRUCT, 1 << SCRATCH_OFFSET_BITS, &members);
                t.array(lane, &[LANES])
            }
        };
        self.0.push(((shape, lanes), id));
        id
    }
}

/// A struct `name` of `size` bytes with these members (name, type, byte offset).
fn structure(
    t: &mut TypeBuilder<'_>,
    name: &str,
    size: u64,
    members: &[(&str, UnitEntryId, u64)],
) -> UnitEntryId {
    let id = t.add(t.root, gimli::DW_TAG_structure_type);
    t.name(id, name);
    t.set(id, gimli::DW_AT_byte_size, AttributeValue::Udata(size));
    for &(member, ty, offset) in members {
        let m = t.add(id, gimli::DW_TAG_member);
        t.name(m, member);
        t.set(m, gimli::DW_AT_type, AttributeValue::UnitRef(ty));
        t.set(
            m,
            gimli::DW_AT_data_member_location,
            AttributeValue::Udata(offset),
        );
    }
    id
}

/// Adds the kernel's variables to each subprogram whose code one of their live ranges
/// overlaps: per name, a `DW_TAG_variable` with a location list over the stretches of
/// the function where it lives (in a `DW_TAG_lexical_block` over those stretches per
/// shape, when the name changes type or lane-ness in the function), and `NAME_lane` for
/// a per-lane one, unless the kernel uses that name.
pub(super) fn add_locals(
    t: &mut TypeBuilder<'_>,
    program: &Program,
    launch: &Launch,
    subprograms: &[(UnitEntryId, &Function)],
) {
    let vars = &program.source_info.vars;
    let taken = |name: &str| {
        vars.iter().any(|v| v.name == name)
            || program.buffers.iter().any(|b| b.name == name)
            || program.labels.contains_key(name)
    };
    let mut types = Types::default();
    for (name, segs) in segments(vars) {
        for &(sub, f) in subprograms {
            let (lo, hi) = (f.address, f.address + f.size);
            let mut groups: Vec<(Shape, Vec<Segment<'_>>)> = Vec::new();
            for s in segs.iter().filter(|s| s.start < hi && lo < s.end) {
                let clipped = Segment {
                    start: s.start.max(lo),
                    end: s.end.min(hi),
                    def: s.def,
                };
                match groups.iter_mut().find(|(k, _)| *k == Shape::of(s.def)) {
                    Some((_, g)) => g.push(clipped),
                    None => groups.push((Shape::of(s.def), vec![clipped])),
                }
            }
            let blocks = groups.len() > 1;
            for (shape, group) in &groups {
                let parent = if blocks {
                    let ranges = group
                        .iter()
                        .map(|s| Range::StartEnd {
                            begin: Address::Constant(s.start),
                            end: Address::Constant(s.end),
                        })
                        .collect();
                    let ranges = t.dwarf.unit.ranges.add(RangeList(ranges));
                    let block = t.add(sub, gimli::DW_TAG_lexical_block);
                    t.set(
                        block,
                        gimli::DW_AT_ranges,
                        AttributeValue::RangeListRef(ranges),
                    );
                    block
                } else {
                    sub
                };
                let per_lane = shape.per_lane();
                let lane_name = format!("{name}{LANE_SUFFIX}");
                let mut wanted = vec![(name.to_string(), false)];
                if per_lane && !taken(&lane_name) {
                    wanted.push((lane_name, true));
                }
                for (var, lane) in wanted {
                    let list: Vec<Location> = group
                        .iter()
                        .filter_map(|s| {
                            Some(Location::StartEnd {
                                begin: Address::Constant(s.start),
                                end: Address::Constant(s.end),
                                data: location(s.def, program, launch, lane)?,
                            })
                        })
                        .collect();
                    if list.is_empty() {
                        continue;
                    }
                    let ty = types.of(t, *shape, !lane);
                    let list = t.dwarf.unit.locations.add(LocationList(list));
                    let id = t.add(parent, gimli::DW_TAG_variable);
                    t.name(id, &var);
                    t.set(id, gimli::DW_AT_type, AttributeValue::UnitRef(ty));
                    t.set(
                        id,
                        gimli::DW_AT_location,
                        AttributeValue::LocationListRef(list),
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{with_unit, R};
    use super::super::{elf_file, Launch};
    use super::*;
    use wavedbg_emulator::machine::LaunchOptions;

    /// A local as read back: its subprogram (and lexical block), name, type name, and
    /// its location list as (begin, end, operations).
    type ReadLocal = (String, String, String, Vec<(u64, u64, Vec<String>)>);

    /// The locals of a symbol file: `(scope, name, type, location list)`, scope being
    /// `FUNCTION` or `FUNCTION/block`.
    fn read_locals(bytes: &[u8]) -> Vec<ReadLocal> {
        with_unit(bytes, |dwarf, unit| {
            let string = |e: &gimli::DebuggingInformationEntry<R<'_>>| {
                e.attr_value(gimli::DW_AT_name)
                    .map(|v| {
                        dwarf
                            .attr_string(unit, v)
                            .unwrap()
                            .to_string_lossy()
                            .into_owned()
                    })
                    .unwrap_or_default()
            };
            let type_name = |e: &gimli::DebuggingInformationEntry<R<'_>>| {
                let Some(gimli::AttributeValue::UnitRef(o)) = e.attr_value(gimli::DW_AT_type)
                else {
                    panic!("no type");
                };
                let t = unit.entry(o).unwrap();
                if t.tag() == gimli::DW_TAG_array_type {
                    let Some(gimli::AttributeValue::UnitRef(el)) = t.attr_value(gimli::DW_AT_type)
                    else {
                        panic!("no element type");
                    };
                    format!("{}[32]", string(&unit.entry(el).unwrap()))
                } else {
                    string(&t)
                }
            };
            let mut out = Vec::new();
            let mut scope: Vec<String> = Vec::new();
            let mut entries = unit.entries();
            while let Some(e) = entries.next_dfs().unwrap() {
                scope.truncate(e.depth().max(1) as usize - 1);
                match e.tag() {
                    gimli::DW_TAG_subprogram => scope.push(string(e)),
                    gimli::DW_TAG_lexical_block => scope.push("block".into()),
                    gimli::DW_TAG_variable if e.depth() > 1 => {
                        let Some(gimli::AttributeValue::LocationListsRef(offset)) =
                            e.attr_value(gimli::DW_AT_location)
                        else {
                            panic!("no location list for {}", string(e));
                        };
                        let mut list = dwarf.locations(unit, offset).unwrap();
                        let mut ranges = Vec::new();
                        while let Some(l) = list.next().unwrap() {
                            let mut ops = l.data.operations(unit.encoding());
                            let mut names = Vec::new();
                            while let Some(op) = ops.next().unwrap() {
                                names.push(format!("{op:?}"));
                            }
                            ranges.push((l.range.begin, l.range.end, names));
                        }
                        out.push((scope.join("/"), string(e), type_name(e), ranges));
                    }
                    _ => {}
                }
            }
            out
        })
    }

    /// `DW_OP_breg3 offset`: `offset` bytes into the thread's wave window.
    fn at(offset: u64) -> String {
        format!("RegisterOffset {{ register: Register(3), offset: {offset}, base_type: UnitOffset(0) }}")
    }

    /// Where `vN` (all lanes), `lvN` and `uN` are in the wave window.
    fn v(n: u64) -> String {
        at(WAVE_VECTOR + n * 128)
    }
    fn lv(n: u64) -> String {
        at(WAVE_LANE_VECTOR + n * 4)
    }
    fn u(n: u64) -> String {
        at(WAVE_UNIFORM + n * 4)
    }

    #[test]
    fn saxpy_variables_are_locals_with_location_lists() {
        let text = include_str!("../../../scripts/saxpy_src.s");
        let p = wavedbg_emulator::asm::assemble(text, "saxpy_src.s", None).unwrap();
        let launch = Launch::new(&p, LaunchOptions::default()).unwrap();
        let locals = read_locals(&elf_file(&p, &launch, "saxpy_src.s", "/w").unwrap());
        let join = p.labels["join"];
        let end = p.code.len() as u64 * 4;
        let names: Vec<(&str, &str, &str)> = locals
            .iter()
            .map(|l| (l.0.as_str(), l.1.as_str(), l.2.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("saxpy", "a", "float"),
                ("saxpy", "n", "unsigned int"),
                ("saxpy", "i", "unsigned int[32]"),
                ("saxpy", "i_lane", "unsigned int"),
                ("saxpy", "xi", "float[32]"),
                ("saxpy", "xi_lane", "float"),
                ("saxpy", "yi", "float[32]"),
                ("saxpy", "yi_lane", "float"),
            ]
        );
        // `a` lives in the whole kernel, one function (its labels, `join`, are labels in
        // it), so its list covers the whole code.
        assert!(join > 0 && join < end);
        assert_eq!(locals[0].3, [(0, end, vec![u(4)])]);
        let xi = p.source_info.vars.iter().find(|v| v.name == "xi").unwrap();
        assert_eq!(locals[4].3, [(xi.start, xi.end, vec![v(4)])]);
        assert_eq!(locals[5].3, [(xi.start, xi.end, vec![lv(4)])]);
    }

    /// Overlapping ranges of a name: the latest declared is seen; a name that changes
    /// shape in a function gets a lexical block per shape; pairs, shared and scratch.
    #[test]
    fn moves_pairs_and_memory() {
        let text = "\
.kernel moves
.workgroup 32
.shared 64
.scratch 16
.buffer out, 64
.arg u[0:1], out
    .var x, v0
    vlaneid v0
    .var x, u4, f32
    umovi u4, 1
    .endvar x
    .var x, v1
    vmovi v1, 2
    .var w, v[2:3], u64
    .var p, u[6:7], f64
    .var s, shared:0x10, i32
    .var t, scratch:0x8
    .var d, scratch:0x4, f64
    .var o, scratch:0x2
    .var g, global:out+4
    end
";
        let p = wavedbg_emulator::asm::assemble(text, "m.s", None).unwrap();
        let launch = Launch::new(&p, LaunchOptions::default()).unwrap();
        let locals = read_locals(&elf_file(&p, &launch, "m.s", "/w").unwrap());
        let end = p.code.len() as u64 * 4;
        let x: Vec<_> = locals.iter().filter(|l| l.1 == "x").collect();
        assert_eq!(x.len(), 2, "{locals:#?}");
        assert_eq!(
            (x[0].0.as_str(), x[0].2.as_str()),
            ("moves/block", "unsigned int[32]")
        );
        assert_eq!(x[0].3[0], (0, 4, vec![v(0)]));
        assert_eq!(x[0].3[1].2, vec![v(1)]);
        assert_eq!((x[1].0.as_str(), x[1].2.as_str()), ("moves/block", "float"));
        assert_eq!(x[1].3, [(4, x[0].3[1].0, vec![u(4)])]);
        let get = |n: &str| locals.iter().find(|l| l.1 == n).unwrap();
        assert_eq!(get("w").2, "__lane_halves");
        // A pair's registers are contiguous in the window.
        assert_eq!(get("w").3[0].2, [v(2)]);
        assert_eq!(get("w_lane").2, "long unsigned int");
        assert_eq!(get("w_lane").3[0].2, [lv(2)]);
        assert_eq!(get("p").2, "double");
        assert_eq!(get("p").3[0].2, [u(6)]);
        assert_eq!(get("s").2, "int");
        assert_eq!(get("s").3[0].2, [at(WAVE_SHARED + 0x10)]);
        // Scratch in whole words: each word's 32 lanes are 128 bytes of the
        // scratch-by-word part (word 2 for 0x8), a 64-bit value's two words two arrays.
        assert_eq!(get("t").2, "unsigned int[32]");
        assert_eq!(get("t").3[0].2, [at(WAVE_SCRATCH_WORDS + 2 * 128)]);
        assert_eq!(get("t_lane").2, "unsigned int");
        assert_eq!(get("t_lane").3[0].2, [at(WAVE_LANE_SCRATCH + 8)]);
        assert_eq!(get("d").2, "__lane_halves");
        assert_eq!(get("d").3[0].2, [at(WAVE_SCRATCH_WORDS + 128)]);
        assert_eq!(get("d_lane").2, "double");
        // Not in whole words: the lanes' windows.
        assert_eq!(get("o").2, "__scratch_lane[32]");
        assert_eq!(get("o").3[0].2, [at(WAVE_SCRATCH + 2)]);
        assert_eq!(get("o_lane").3[0].2, [at(WAVE_LANE_SCRATCH + 2)]);
        let g = get("g");
        assert_eq!(
            g.3,
            [(
                g.3[0].0,
                end,
                vec![format!(
                    "Address {{ address: {} }}",
                    launch.buffer_bases[0] + 4
                )]
            )]
        );
        assert!(!locals
            .iter()
            .any(|l| l.1 == "s_lane" || l.1 == "g_lane" || l.1 == "p_lane"));
    }
}
