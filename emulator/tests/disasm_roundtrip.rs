use wavedbg_emulator::asm::assemble;
use wavedbg_emulator::disasm::disassemble;
use wavedbg_emulator::isa::{Instr, Isa};

fn show(src: &str) {
    match assemble(src, "t.s", None) {
        Ok(p) => println!(
            "OK code={:x?} labels={:?}\n{}",
            p.code,
            p.labels,
            disassemble(&p)
        ),
        Err(e) => println!("ERR\n{e}"),
    }
}

#[test]
fn probe() {
    show("umovi u1, 5\n br .-4\n");
    show("L_0008: nop\n br .+4\n nop\n");
    show("vmov v[4294967295:4294967295], v1\n");
    let isa = Isa::get();
    let mut i = Instr::new(isa.lookup("vmovi").unwrap());
    i.imm = -1;
    let w = i.encode_words().unwrap();
    println!("{:?} {:?}", w, Instr::decode(&w));
}
