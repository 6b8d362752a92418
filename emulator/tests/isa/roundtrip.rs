//! Exhaustive round trips over the instruction table: every definition (spec and base
//! group) with several legal operand-value sets goes
//! `Instr -> bits -> Instr`, `Instr -> text -> assembler -> bits`, and (spec rows, and
//! every row without a branch target) `text -> bits -> disassembler text` byte-identically.
//! Also checks the shape of the table and of the bit layouts.

use std::collections::{BTreeMap, HashMap, HashSet};

use wavedbg_emulator::asm::assemble;
use wavedbg_emulator::disasm::{decode_all, disassemble_code, instr_text};
use wavedbg_emulator::isa::{
    DecodeError, ImmKind, Instr, InstrDef, InstrId, Isa, OperandKind, Origin, RegFile, Slot, Unit,
    FORMATS,
};

// ---------------------------------------------------------------------------------------
// Operand values
// ---------------------------------------------------------------------------------------

/// The highest legal first register of a tuple of `count` registers.
fn reg_max(file: RegFile, count: u8) -> i64 {
    file.count() as i64 - count as i64
}

/// Interesting legal values of each immediate kind (extremes first).
fn imm_values(kind: ImmKind) -> Vec<i64> {
    let (lo, hi) = kind.range();
    let mut v = match kind {
        ImmKind::S8 => vec![-128, 127, -1, 1, -64, 100, 0, -2],
        ImmKind::U8 => vec![255, 0, 1, 128, 127, 200, 37, 254],
        ImmKind::S24 => vec![lo, hi, -1, 1, 0x12_3456, -0x65_4321, 0x7fff, lo + 1],
        ImmKind::Ln7 => vec![127, 0, 31, 32, 64, 1, 100, 126],
        ImmKind::U6 => vec![63, 0, 1, 32, 31, 17, 62, 5],
        ImmKind::U14 => vec![16383, 0, 1, 8192, 4095, 12345, 16382, 77],
        ImmKind::Rel14 => vec![lo, hi, -1, 1, 0, 4096, -4096, 2],
        // b32 is canonically the unsigned bit pattern (what the decoder returns).
        ImmKind::B32 => vec![
            0xffff_ffff,
            0,
            0xffff,
            0x1_0000,
            0x3fc0_0000,
            0x8000_0000,
            1,
            0x7fff_ffff,
        ],
    };
    // Keep the table honest: every value is in range.
    v.retain(|x| (lo..=hi).contains(x));
    v
}

/// How a set of operand values is chosen.
#[derive(Clone, Copy, Debug)]
enum ValueSet {
    /// Every operand 0.
    Zero,
    /// Registers at the top of their file (tuples still fitting), immediates at their
    /// maximum, every cache-policy bit set.
    Max,
    /// Registers 0, immediates at their minimum, cache policy `glc`.
    Min,
    /// A mixture, different for every `k` and every slot.
    Varied(usize),
}

fn value_for(kind: OperandKind, set: ValueSet, slot_index: usize) -> i64 {
    match (kind, set) {
        // Zero is legal for every kind.
        (_, ValueSet::Zero) => 0,
        (OperandKind::Reg { file, count }, ValueSet::Max) => reg_max(file, count),
        (OperandKind::Reg { .. }, ValueSet::Min) => 0,
        (OperandKind::Reg { file, count }, ValueSet::Varied(k)) => {
            let m = reg_max(file, count);
            m - ((k as i64 * 13 + slot_index as i64 * 5 + 1) % (m + 1))
        }
        (OperandKind::Imm(k), ValueSet::Max) => k.range().1,
        (OperandKind::Imm(k), ValueSet::Min) => match k {
            // b32 minimum as the decoder reports it.
            ImmKind::B32 => 0x8000_0000,
            _ => k.range().0,
        },
        (OperandKind::Imm(kind), ValueSet::Varied(k)) => {
            let v = imm_values(kind);
            v[k % v.len()]
        }
        (OperandKind::Cpol, ValueSet::Max) => 7,
        (OperandKind::Cpol, ValueSet::Min) => 1,
        (OperandKind::Cpol, ValueSet::Varied(k)) => (k % 8) as i64,
    }
}

fn instr_with(id: InstrId, set: ValueSet) -> Instr {
    let def = Isa::get().def(id);
    let mut i = Instr::new(id);
    for (j, op) in def.operands.iter().enumerate() {
        i.set(op.slot, value_for(op.kind, set, j));
    }
    i
}

fn value_sets() -> Vec<ValueSet> {
    let mut v = vec![ValueSet::Zero, ValueSet::Max, ValueSet::Min];
    v.extend((0..8).map(ValueSet::Varied));
    v
}

fn has_branch(def: &InstrDef) -> bool {
    def.operands
        .iter()
        .any(|o| o.kind == OperandKind::Imm(ImmKind::Rel14))
}

/// The instruction text of a one-line disassembly listing (`    text   ; 0000`).
fn listing_text(line: &str) -> &str {
    let body = line.trim_start();
    match body.rfind(" ; ") {
        Some(i) => body[..i].trim_end(),
        None => body.trim_end(),
    }
}

fn all_ids() -> impl Iterator<Item = InstrId> {
    (0..Isa::get().defs().len()).map(|i| i as InstrId)
}

// ---------------------------------------------------------------------------------------
// Round trips over every definition
// ---------------------------------------------------------------------------------------

#[test]
fn every_definition_encode_decode_roundtrip() {
    let mut checked = 0;
    for id in all_ids() {
        let def = Isa::get().def(id);
        for set in value_sets() {
            let instr = instr_with(id, set);
            let words = instr
                .encode_words()
                .unwrap_or_else(|e| panic!("{} {set:?}: encode failed: {e}", def.mnemonic()));
            assert_eq!(
                words.len() * 4,
                def.len as usize,
                "{}: word count",
                def.mnemonic()
            );
            assert_eq!(instr.size_bytes(), def.len as u32);
            let (word, len) = instr.encode().unwrap();
            assert_eq!(len, def.len as u32);
            assert_eq!(words[0], word as u32);
            if len == 8 {
                assert_eq!(words[1], (word >> 32) as u32);
            } else {
                assert_eq!(
                    word >> 32,
                    0,
                    "{}: 32-bit word has high bits",
                    def.mnemonic()
                );
            }
            let back = Instr::decode(&words).unwrap_or_else(|e| {
                panic!(
                    "{} {set:?}: {words:08x?} does not decode: {e}",
                    def.mnemonic()
                )
            });
            assert_eq!(back, instr, "{} {set:?}: {words:08x?}", def.mnemonic());
            // Trailing words after the instruction are ignored.
            let mut padded = words.clone();
            padded.extend([0xdead_beef, 0xffff_ffff]);
            assert_eq!(Instr::decode(&padded), Ok(instr));
            checked += 1;
        }
    }
    assert!(checked >= 3 * Isa::get().defs().len());
}

#[test]
fn every_definition_text_assembles_to_the_same_words() {
    for id in all_ids() {
        let def = Isa::get().def(id);
        for set in value_sets() {
            let instr = instr_with(id, set);
            let words = instr.encode_words().unwrap();
            let text = instr.text(0);
            assert!(
                text.starts_with(def.mnemonic()),
                "{text:?} does not start with the mnemonic"
            );
            assert_eq!(instr.to_string(), text, "Display differs from text(0)");
            let program = assemble(&text, "roundtrip.s", None)
                .unwrap_or_else(|e| panic!("{} {set:?}: `{text}` rejected:\n{e}", def.mnemonic()));
            assert_eq!(
                program.code,
                words,
                "{} {set:?}: `{text}` assembled to different words",
                def.mnemonic()
            );
            assert_eq!(program.lines, vec![(0, 1)]);
        }
    }
}

#[test]
fn text_is_independent_of_pc_without_labels() {
    for id in all_ids() {
        let instr = instr_with(id, ValueSet::Varied(3));
        assert_eq!(
            instr.text(0),
            instr.text(0x1000),
            "{}",
            instr.def().mnemonic()
        );
    }
}

#[test]
fn text_bits_text_is_byte_identical() {
    let no_labels = BTreeMap::new();
    let mut spec_checked = 0;
    for id in all_ids() {
        let def = Isa::get().def(id);
        for set in value_sets() {
            let instr = instr_with(id, set);
            let text = instr.text(0);
            let words = assemble(&text, "t.s", None).unwrap().code;
            // Decoder + text writer.
            let decoded = Instr::decode(&words).unwrap();
            assert_eq!(decoded.text(0), text, "{} {set:?}", def.mnemonic());
            if has_branch(def) {
                continue;
            }
            // The disassembler's line API.
            let lines = decode_all(&words);
            assert_eq!(lines.len(), 1, "`{text}` decodes to {} lines", lines.len());
            assert_eq!(lines[0].words, words);
            assert_eq!(lines[0].addr, 0);
            let labels = BTreeMap::new();
            assert_eq!(
                instr_text(lines[0].instr.as_ref().unwrap(), 0, &labels),
                text
            );
            // The whole-code listing.
            let listing = disassemble_code(&words, &no_labels);
            let body: Vec<&str> = listing.lines().collect();
            assert_eq!(body.len(), 1, "listing of `{text}`:\n{listing}");
            assert_eq!(listing_text(body[0]), text, "listing:\n{listing}");
            if def.row.origin == Origin::Spec {
                spec_checked += 1;
            }
        }
    }
    assert_eq!(spec_checked, 338 * value_sets().len());
}

#[test]
fn branch_text_round_trips_through_labels() {
    // Branches: the relative text round-trips; in a listing the target gets a label.
    let isa = Isa::get();
    for id in all_ids().filter(|id| has_branch(isa.def(*id))) {
        let def = isa.def(id);
        let mut instr = instr_with(id, ValueSet::Varied(1));
        // Target: two words ahead, within a 4-word code image.
        instr.imm = 2;
        let nop = Instr::new(isa.lookup("nop").unwrap())
            .encode_words()
            .unwrap()[0];
        let mut code = instr.encode_words().unwrap();
        code.extend([nop, nop, nop]);
        let listing = disassemble_code(&code, &BTreeMap::new());
        assert!(
            listing.contains("L_0008:"),
            "{}:\n{listing}",
            def.mnemonic()
        );
        let first = listing.lines().next().unwrap();
        assert!(
            listing_text(first).starts_with(def.mnemonic()) && first.contains("L_0008"),
            "{first}"
        );
        let again = assemble(&listing, "t.s", None).unwrap();
        assert_eq!(again.code, code, "{}:\n{listing}", def.mnemonic());
        assert_eq!(again.labels.get("L_0008"), Some(&8));
        assert_eq!(instr.branch_target(0x100), Some(0x108));
    }
}

/// A `-1` written for an arithmetic `b32` immediate is the bit pattern 0xffffffff, and
/// reads back as `-1`; bitwise instructions read back in hex.
#[test]
fn b32_negative_text_of_arithmetic_reads_back_signed() {
    let isa = Isa::get();
    for m in ["vmovi", "umovi", "uaddi", "vaddi.u32"] {
        let id = isa.lookup(m).unwrap();
        let def = isa.def(id);
        let regs: Vec<String> = def
            .operands
            .iter()
            .filter_map(|o| match o.kind {
                OperandKind::Reg { file, .. } => Some(format!("{}3", file.prefix())),
                _ => None,
            })
            .collect();
        let neg = format!("{m} {}, -1", regs.join(", "));
        let pos = format!("{m} {}, 0xffffffff", regs.join(", "));
        let a = assemble(&neg, "t.s", None).unwrap().code;
        let b = assemble(&pos, "t.s", None).unwrap().code;
        assert_eq!(a, b, "{neg} vs {pos}");
        let d = Instr::decode(&a).unwrap();
        assert_eq!(d.imm, 0xffff_ffff);
        assert_eq!(d.text(0), neg);
        // An Instr holding the two's-complement form encodes to the same bits.
        let mut i = d;
        i.imm = -1;
        assert_eq!(i.encode_words().unwrap(), a);
    }
    // Bit patterns stay hex; large negative values too.
    for (text, back) in [
        ("vandi v3, v3, -256", "vandi v3, v3, 0xffffff00"),
        ("uori u3, u3, -1", "uori u3, u3, 0xffffffff"),
        ("ushri u3, u3, 4", "ushri u3, u3, 4"),
        ("uaddi u3, u3, -65536", "uaddi u3, u3, -65536"),
        ("uaddi u3, u3, -65537", "uaddi u3, u3, 0xfffeffff"),
        ("ucmpi.lt.i32 u3, u4, -5", "ucmpi.lt.i32 u3, u4, -5"),
        ("ucmpi.lt.u32 u3, u4, -5", "ucmpi.lt.u32 u3, u4, 0xfffffffb"),
        ("vmuli.u32 v3, v4, -3", "vmuli.u32 v3, v4, -3"),
    ] {
        let code = assemble(text, "t.s", None).unwrap().code;
        let d = Instr::decode(&code).unwrap();
        assert_eq!(d.text(0), back, "{text}");
        assert_eq!(assemble(back, "t.s", None).unwrap().code, code, "{back}");
    }
}

#[test]
fn out_of_range_operands_do_not_encode() {
    let isa = Isa::get();
    for id in all_ids() {
        let def = isa.def(id);
        for op in &def.operands {
            let (lo, hi) = match op.kind {
                OperandKind::Reg { file, count } => (0, reg_max(file, count)),
                OperandKind::Imm(k) => k.range(),
                OperandKind::Cpol => (0, 7),
            };
            for bad in [hi + 1, lo - 1] {
                // Register and cpol slots are u8: only test values they can hold.
                let representable = match op.slot {
                    Slot::Imm => true,
                    _ => (0..=255).contains(&bad),
                };
                if !representable {
                    continue;
                }
                let mut i = Instr::new(id);
                i.set(op.slot, bad);
                let e = i.encode().expect_err(&format!(
                    "{} {} = {bad} encoded",
                    def.mnemonic(),
                    op.token
                ));
                assert_eq!(e.mnemonic, def.mnemonic());
                assert_eq!(e.operand, op.token);
                assert_eq!(e.value, bad);
                assert!(!e.expected.is_empty());
            }
        }
    }
}

#[test]
fn zero_instruction_of_every_definition_decodes_to_itself() {
    // Distinct encodings: each row's fixed bits identify exactly that row.
    for id in all_ids() {
        let def = Isa::get().def(id);
        let w = def.fixed_bits;
        let words = [w as u32, (w >> 32) as u32];
        let d = Instr::decode(&words[..def.len as usize / 4]).unwrap();
        assert_eq!(d, Instr::new(id), "{}", def.mnemonic());
    }
}

#[test]
fn every_non_operand_bit_is_checked() {
    // Flipping a bit outside the operand fields never yields the same instruction: it is a
    // function-field bit (another row, or unknown) or a reserved bit (an error).
    let isa = Isa::get();
    for id in all_ids() {
        let def = isa.def(id);
        let base = instr_with(id, ValueSet::Zero).encode().unwrap().0;
        let bits = def.len as u32 * 8;
        let operand_mask = !def.fixed_mask & if bits == 64 { u64::MAX } else { 0xffff_ffff };
        for b in 0..bits {
            let w = base ^ (1u64 << b);
            let words = [w as u32, (w >> 32) as u32];
            let r = Instr::decode(&words);
            if operand_mask & (1 << b) != 0 {
                match r {
                    Ok(i) => assert_eq!(i.id, id, "{} bit {b}", def.mnemonic()),
                    // A narrow immediate in a wider field (u6 in imm14).
                    Err(DecodeError::Operand { mnemonic, .. }) => {
                        assert_eq!(mnemonic, def.mnemonic())
                    }
                    Err(e) => panic!("{} operand bit {b}: {e}", def.mnemonic()),
                }
            } else {
                match r {
                    Ok(i) => assert_ne!(i.id, id, "{} bit {b} ignored", def.mnemonic()),
                    // Still this row: exactly the flipped bit is reported. (A flipped
                    // opcode or function bit may select another row, whose reserved
                    // bits are then reported.)
                    Err(DecodeError::Reserved { mnemonic, bits }) => {
                        if mnemonic == def.mnemonic() {
                            assert_eq!(bits, 1 << b, "{} bit {b}", def.mnemonic());
                        }
                    }
                    Err(DecodeError::Unknown { word, opcode }) => {
                        assert_eq!(word, w as u32);
                        assert_eq!(opcode, (w & 0x7f) as u8);
                    }
                    Err(e) => panic!("{} bit {b}: unexpected {e:?}", def.mnemonic()),
                }
            }
        }
    }
}

#[test]
fn tuples_past_the_register_file_do_not_decode() {
    let isa = Isa::get();
    let mut seen = 0;
    for id in all_ids() {
        let def = isa.def(id);
        for op in &def.operands {
            let OperandKind::Reg { file, count } = op.kind else {
                continue;
            };
            if count == 1 {
                continue;
            }
            let field = def
                .format
                .field(op.slot.name())
                .expect("register operands have a field");
            // The largest value the field can hold, if it is past the end for this tuple.
            let raw = (1u64 << field.width) - 1;
            if raw as i64 <= reg_max(file, count) {
                continue;
            }
            let w = def.fixed_bits | (raw << field.lo);
            let words = [w as u32, (w >> 32) as u32];
            match Instr::decode(&words[..def.len as usize / 4]) {
                Err(DecodeError::Operand {
                    mnemonic,
                    operand,
                    value,
                }) => {
                    assert_eq!(mnemonic, def.mnemonic());
                    assert_eq!(operand, op.token);
                    assert_eq!(value, raw as i64);
                    seen += 1;
                }
                other => panic!("{} {}={raw}: {other:?}", def.mnemonic(), op.token),
            }
        }
    }
    assert!(seen > 100, "only {seen} tuple operands checked");
}

// ---------------------------------------------------------------------------------------
// The table's shape
// ---------------------------------------------------------------------------------------

#[test]
fn spec_rows_are_338_lsu_301_xlane_37() {
    let defs = Isa::get().defs();
    let spec: Vec<&InstrDef> = defs
        .iter()
        .filter(|d| d.row.origin == Origin::Spec)
        .collect();
    assert_eq!(spec.len(), 338);
    assert_eq!(spec.iter().filter(|d| d.row.unit == Unit::Lsu).count(), 301);
    assert_eq!(
        spec.iter().filter(|d| d.row.unit == Unit::Xlane).count(),
        37
    );
    assert!(spec.iter().all(|d| d.row.unit != Unit::Base));
    // Spec rows come first, then the base group, which is all unit base.
    assert!(defs[..338].iter().all(|d| d.row.origin == Origin::Spec));
    assert!(defs[338..]
        .iter()
        .all(|d| d.row.origin == Origin::Base && d.row.unit == Unit::Base));
    assert!(defs.len() > 338, "the base group is missing");
    assert_eq!(wavedbg_emulator::isa::rows().count(), defs.len());
    assert!(Isa::build().is_ok());
}

#[test]
fn mnemonics_are_unique_and_looked_up() {
    let isa = Isa::get();
    let mut seen = HashSet::new();
    for (i, d) in isa.defs().iter().enumerate() {
        assert!(seen.insert(d.mnemonic()), "duplicate {}", d.mnemonic());
        assert_eq!(isa.lookup(d.mnemonic()), Some(i as InstrId));
        assert_eq!(isa.def(i as InstrId).mnemonic(), d.mnemonic());
        assert_eq!(isa.nearest(d.mnemonic(), 1), vec![d.mnemonic()]);
    }
    assert_eq!(isa.lookup("no.such.instr"), None);
}

#[test]
fn opcode_parity_matches_length() {
    for d in Isa::get().defs() {
        let op = d.row.opcode;
        assert!(op <= 0x7f, "{}", d.mnemonic());
        match d.format.bits {
            64 => {
                assert_eq!(op & 1, 1, "{}: 64-bit opcode {op:#x} is even", d.mnemonic());
                assert_eq!(d.len, 8);
            }
            32 => {
                assert_eq!(op & 1, 0, "{}: 32-bit opcode {op:#x} is odd", d.mnemonic());
                assert_eq!(d.len, 4);
            }
            b => panic!("{}: format of {b} bits", d.mnemonic()),
        }
        assert_eq!(d.fixed_bits & 0x7f, op as u64);
        assert_eq!(d.fixed_mask & 0x7f, 0x7f);
    }
}

#[test]
fn base_opcodes_never_equal_spec_opcodes() {
    let defs = Isa::get().defs();
    let spec: HashSet<u8> = defs
        .iter()
        .filter(|d| d.row.origin == Origin::Spec)
        .map(|d| d.row.opcode)
        .collect();
    for d in defs.iter().filter(|d| d.row.origin == Origin::Base) {
        assert!(
            !spec.contains(&d.row.opcode),
            "base {} uses spec opcode {:#x}",
            d.mnemonic(),
            d.row.opcode
        );
    }
}

#[test]
fn rows_sharing_an_opcode_share_a_format() {
    let mut by_op: HashMap<u8, &str> = HashMap::new();
    for d in Isa::get().defs() {
        let f = by_op.entry(d.row.opcode).or_insert(d.format.name);
        assert_eq!(*f, d.format.name, "{}", d.mnemonic());
    }
}

#[test]
fn format_fields_do_not_overlap_and_fit() {
    let mut names = HashSet::new();
    for f in FORMATS {
        assert!(names.insert(f.name), "format {} twice", f.name);
        assert!(f.bits == 32 || f.bits == 64, "{}", f.name);
        let op = f.field("op").expect("every format has an opcode");
        assert_eq!((op.lo, op.width), (0, 7), "{}: op must be bits 6:0", f.name);
        let mut used = 0u64;
        let mut prev_hi = 0u32;
        let mut field_names = HashSet::new();
        for (i, fd) in f.fields.iter().enumerate() {
            assert!(
                field_names.insert(fd.name),
                "{}: field {} twice",
                f.name,
                fd.name
            );
            assert!(fd.width > 0, "{}.{}", f.name, fd.name);
            let hi = fd.lo as u32 + fd.width as u32;
            assert!(
                hi <= f.bits as u32,
                "{}.{} past bit {}",
                f.name,
                fd.name,
                f.bits
            );
            assert_eq!(used & fd.mask(), 0, "{}.{} overlaps", f.name, fd.name);
            if i > 0 {
                assert!(fd.lo as u32 >= prev_hi, "{}: fields not ascending", f.name);
            }
            prev_hi = hi;
            used |= fd.mask();
            assert_eq!(fd.get(fd.mask()), (fd.mask() >> fd.lo));
            assert_eq!(fd.get(!fd.mask()), 0);
        }
        let all = if f.bits == 64 { u64::MAX } else { 0xffff_ffff };
        assert_eq!(f.reserved_mask(), all & !used, "{}", f.name);
    }
}

#[test]
fn named_formats_cover_their_width_exactly() {
    let expect_full = [
        ("R", 32),
        ("I8", 32),
        ("RU", 32),
        ("R1", 32),
        ("CI", 32),
        ("CU", 32),
        ("M", 64),
    ];
    for (name, bits) in expect_full {
        let f = FORMATS.iter().find(|f| f.name == name).unwrap();
        assert_eq!(f.bits, bits, "{name}");
        assert_eq!(f.reserved_mask(), 0, "{name} has reserved bits");
        let covered: u32 = f.fields.iter().map(|fd| fd.width as u32).sum();
        assert_eq!(covered, bits as u32, "{name}");
    }
    // The formats documented with reserved bits reserve exactly those.
    let reserved = [
        ("C", 0xfe00_0000u64),
        ("SYS", 0xffff_f000),
        ("UM", 0x0000_00f8_0000_0000),
        ("UI", 0xff00_0000),
        ("VI", 0xfc00_0000),
        ("V3", 0xffff_ff00_0000_0000),
    ];
    for (name, mask) in reserved {
        let f = FORMATS.iter().find(|f| f.name == name).unwrap();
        assert_eq!(f.reserved_mask(), mask, "{name}: {:#x}", f.reserved_mask());
    }
    // Spec formats are the ten the spec names.
    for name in ["R", "I8", "RU", "R1", "C", "CI", "CU", "SYS", "M", "UM"] {
        assert!(
            Isa::get()
                .defs()
                .iter()
                .filter(|d| d.row.origin == Origin::Spec)
                .any(|d| d.format.name == name),
            "no spec row uses {name}"
        );
    }
}

#[test]
fn fixed_bits_and_operand_fields_partition_every_word() {
    for d in Isa::get().defs() {
        let all = if d.format.bits == 64 {
            u64::MAX
        } else {
            0xffff_ffff
        };
        assert_eq!(d.fixed_bits & !d.fixed_mask, 0, "{}", d.mnemonic());
        assert_eq!(d.fixed_mask & !all, 0, "{}", d.mnemonic());
        let mut operand_bits = 0u64;
        let mut slots = HashSet::new();
        for op in &d.operands {
            assert!(
                slots.insert(op.slot),
                "{}: slot {:?} twice",
                d.mnemonic(),
                op.slot
            );
            let field = match op.slot {
                Slot::Imm => d.format.fields.iter().find(|f| f.name.starts_with("imm")),
                s => d.format.field(s.name()),
            }
            .unwrap_or_else(|| panic!("{}: no field for {}", d.mnemonic(), op.token));
            assert_eq!(
                operand_bits & field.mask(),
                0,
                "{}: fields overlap",
                d.mnemonic()
            );
            operand_bits |= field.mask();
            // The field is wide enough for every legal value.
            let (lo, hi) = match op.kind {
                OperandKind::Reg { file, count } => (0, reg_max(file, count)),
                OperandKind::Imm(k) => k.range(),
                OperandKind::Cpol => (0, 7),
            };
            let width = field.width as u32;
            match op.kind {
                OperandKind::Imm(k) if k.signed() => {
                    assert!(lo >= -(1i64 << (width - 1)) && hi < (1i64 << (width - 1)))
                }
                OperandKind::Imm(ImmKind::B32) => assert_eq!(width, 32),
                _ => assert!(hi < (1i64 << width), "{} {}", d.mnemonic(), op.token),
            }
            // Operand tokens are the spec's: slot name, colon, kind.
            assert!(op.token.starts_with(op.slot.name()), "{}", op.token);
        }
        assert_eq!(
            d.fixed_mask | operand_bits,
            all,
            "{}: bits neither fixed nor operand",
            d.mnemonic()
        );
        assert_eq!(d.fixed_mask & operand_bits, 0, "{}", d.mnemonic());
        assert_eq!(
            d.operands.len(),
            d.row.syntax.split_whitespace().count(),
            "{}",
            d.mnemonic()
        );
    }
}
