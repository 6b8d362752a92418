//! Kernels shared by the debug engine and command-language tests.

/// Two waves add 1 per lane to a counter, then load it without waiting.
pub const ATOMIC: &str = r#"
.kernel atom
.workgroup 64
.buffer counter, 64
.arg u[0:1], counter
    vmovi v1, 1
    vmovi v2, 0
add:
    atom.ubase.add.u32 v1, u[0:1], v2, 0
after_add:
    wait.vst 0
load:
    ld.ubase.b32 v5, u[0:1], v2, 0
after_load:
    wait.vm 0
    end
"#;

pub const BRK: &str = r#"
.kernel brk
    vmovi v1, 5
    brk
after_brk:
    vmovi v1, 6
    end
"#;

/// One wave: lanes 28-31 inactive at `here`, v3 = 4 * lane.
pub const COND: &str = r#"
.kernel cond
    vlaneid v0
    vmuli.u32 v3, v0, 4
    umovi u7, 0x0fffffff
    exec.set u7
here:
    vaddi.u32 v3, v3, 1
    end
"#;

pub const DEADLOCK: &str = r#"
.kernel dl
.workgroup 64
    uwaveid u5
    br.unz u5, quit
wait_here:
    barrier
    end
quit:
    end
"#;

pub const FAULT: &str = r#"
.kernel fault
.shared 64
    vlaneid v0
    vshli v2, v0, 2
bad:
    st.shared.b32 v0, v2, 0
    end
"#;
