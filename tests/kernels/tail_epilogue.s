; CORRECT: `if (gid >= n) return;` compiled as an EXEC mask (tail lanes off for good),
; then shared-memory work with a barrier; the epilogue restores EXEC just before `end`
; (as compiled code restores EXEC at the function's exit block). Nothing runs in the
; rejoined lanes.
.kernel tailep
.workgroup 64
.shared 256
.buffer in, 256
.iota in, u32, 64, 1, 1
.buffer out, 256
.arg u[0:1], in
.arg u[2:3], out
    uwaveid u5
    vlaneid v0
    ushli u6, u5, 5
    vadd.u32.u v1, v0, u6
    vshli v2, v1, 2
    vmovi v3, 50
    vcmp.lt.u32 u7, v1, v3       ; n = 50: wave 1 lanes 18-31 are the tail
    exec.and.save u8, u7
    ld.ubase.b32 v4, u[0:1], v2, 0
    wait.vm 0
    st.shared.b32 v4, v2, 0
    wait.ls 0
    barrier
    vmovi v5, 196                ; 4 * 49
    vsub.u32 v6, v5, v2
    ld.shared.b32 v7, v6, 0      ; s[49 - t]
    wait.ls 0
    st.ubase.b32 v7, u[2:3], v2, 0
    wait.vst 0
    exec.set u8                  ; epilogue restores EXEC
    end
