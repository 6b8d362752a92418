//! Memory: a launch of 1,024 resident waves fits in 40 MiB beyond the kernel's own buffers,
//! as the bare machine and under the debugger (with its snapshot for change tracking and a
//! 4 MiB bound on time-travel snapshots),
//! measured by counting the heap's live bytes. One test in this binary, so nothing else
//! allocates while it measures. Figures in docs/performance.md.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use wavedbg_emulator::asm::assemble;
use wavedbg_emulator::debug::Engine;
use wavedbg_emulator::machine::{LaunchOptions, Machine};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; only a counter is kept.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size, Ordering::Relaxed);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// 32 waves per workgroup, 32 workgroups resident: 1,024 waves. Each wave writes 32 vector
/// registers, each lane 256 bytes of scratch, each workgroup its 16 KiB of shared memory,
/// and the loop keeps them live; `out` is the kernel's own buffer.
const KERNEL: &str = "
.kernel footprint
.workgroup 1024
.grid 32
.shared 16384
.scratch 256
.buffer out, 131072
.arg u[0:1], out
    uwgid u4
    uwaveid u5
    vlaneid v0
    ushli u6, u5, 7
    vshli v1, v0, 2
    vadd.u32.u v1, v1, u6          ; byte offset of this lane in the workgroup
    umovi u7, 0
fill:
    vmovi v2, 7
    vadd.u32.u v3, v0, u7
    vadd.u32 v4, v3, v2
    vmov v5, v4
    vmov v6, v4
    vmov v7, v4
    vmov v8, v4
    vmov v9, v4
    vmov v10, v4
    vmov v11, v4
    vmov v12, v4
    vmov v13, v4
    vmov v14, v4
    vmov v15, v4
    vmov v16, v4
    vmov v17, v4
    vmov v18, v4
    vmov v19, v4
    vmov v20, v4
    vmov v21, v4
    vmov v22, v4
    vmov v23, v4
    vmov v24, v4
    vmov v25, v4
    vmov v26, v4
    vmov v27, v4
    vmov v28, v4
    vmov v29, v4
    vmov v30, v4
    vmov v31, v4
    vshli v40, v3, 2
    vandi v40, v40, 252
    st.scratch.b32 v4, v40, 0
    st.shared.b32 v4, v1, 0
    st.shared.b32 v4, v1, 4096
    st.shared.b32 v4, v1, 8192
    st.shared.b32 v4, v1, 12288
    uaddi u7, u7, 1
    ucmpi.lt.u32 u8, u7, 64
    br.unz u8, fill
    barrier
    end
";

const MIB: usize = 1 << 20;

#[test]
fn a_launch_of_1024_resident_waves_fits_in_40_mib() {
    let p = assemble(KERNEL, "footprint.s", None).expect("kernel");
    let options = LaunchOptions {
        resident_workgroups: 32,
        max_instructions: None,
        ..LaunchOptions::default()
    };
    let buffers: usize = p.buffers.iter().map(|b| b.size as usize).sum();
    // Run until every wave has written its registers, scratch and shared memory (the
    // barrier at the end holds them all).
    let steps = 1_024 * 40 * 64;

    let base = LIVE.load(Ordering::Relaxed);
    let mut m = Machine::new(&p, options).expect("launch");
    assert_eq!(m.waves.len(), 1_024);
    m.run(Some(steps));
    let machine = (LIVE.load(Ordering::Relaxed) - base).saturating_sub(buffers);
    assert!(
        m.waves.iter().all(|w| w.v.allocated() >= 32),
        "registers written"
    );
    drop(m);

    let base = LIVE.load(Ordering::Relaxed);
    let mut e = Engine::new(&p, options).expect("launch");
    // Time-travel snapshots are bounded separately (`set history-size`, 256 MiB by
    // default); here they get 4 MiB, so what is measured is the launch under the debugger.
    e.set_history_size(4 << 20);
    e.step_all(steps);
    e.step_all(1);
    let engine = (LIVE.load(Ordering::Relaxed) - base).saturating_sub(buffers);
    drop(e);

    eprintln!(
        "1,024 waves: machine {:.1} MiB, engine {:.1} MiB beyond {} KiB of buffers",
        machine as f64 / MIB as f64,
        engine as f64 / MIB as f64,
        buffers / 1024
    );
    assert!(machine < 40 * MIB, "machine: {machine} bytes");
    assert!(engine < 40 * MIB, "engine: {engine} bytes");
}
