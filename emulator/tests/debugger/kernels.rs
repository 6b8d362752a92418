//! Kernels shared by the debugger tests (re-exported by `fixtures`).

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

/// Two workgroups of two waves. Each lane loops three times (v1 counts iterations, v3
/// starts at 4 * lane and gains one per iteration), then stores v3 to out[gid].
/// 26 instructions per wave.
pub const LOOP: &str = r#"
.kernel loop
.workgroup 64
.grid 2
.buffer out, 1024
.arg u[0:1], out
    uwgid u4
    uwaveid u5
    vlaneid v0
    vmuli.u32 v3, v0, 4         ; v3 = 4 * lane
    umovi u6, 3                 ; iterations
    vmovi v1, 0
loop:
    vaddi.u32 v1, v1, 1
    vaddi.u32 v3, v3, 1
    uaddi u6, u6, -1
    br.unz u6, loop
after:
    ushli u7, u4, 6             ; 64 * workgroup
    ushli u8, u5, 5             ; 32 * wave index
    uadd u7, u7, u8
    vadd.u32.u v2, v0, u7       ; gid
    vshli v2, v2, 2
store:
    st.ubase.b32 v3, u[0:1], v2, 0
    wait.vst 0
    end
"#;

/// Four waves (two workgroups). Lanes 0, 4, ..., 28 of each wave store 100 * wave + lane to
/// shared:0 (lanes 1, 5, ... to shared:4, and so on); after a barrier every lane stores
/// the same value to out[gid].
pub const WRITERS: &str = r#"
.kernel writers
.workgroup 64
.grid 2
.shared 64
.buffer out, 512
.arg u[0:1], out
    uwgid u4
    uwaveid u5
    ushli u6, u4, 1
    uadd u6, u6, u5             ; global wave id
    vlaneid v0
    vandi v2, v0, 3
    vshli v2, v2, 2             ; (lane & 3) * 4
    umuli u7, u6, 100
    vadd.u32.u v4, v0, u7       ; 100 * wave + lane
store:
    st.shared.b32 v4, v2, 0
after_store:
    wait.ls 0
    barrier
    ushli u8, u6, 5
    vadd.u32.u v5, v0, u8       ; gid
    vshli v5, v5, 2
gstore:
    st.ubase.b32 v4, u[0:1], v5, 0
after_gstore:
    wait.vst 0
    end
"#;
