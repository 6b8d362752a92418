; Block sum with an early-out: a workgroup whose first input is 0 "has nothing to do".
; BUG: the test is per wave (each wave reads its own first element), so wave 1 of a
; workgroup can leave while wave 0 waits at the barrier for ever.
.kernel exit_early
.workgroup 64
.grid 4
.shared 256
.buffer in, 1024
.iota in, u32, 256, 0
.buffer out, 16
.arg u[0:1], in
.arg u[2:3], out

    uwgid u4
    uwaveid u5
    vlaneid v0
    ushli u6, u5, 5
    vadd.u32.u v1, v0, u6
    vshli v2, v1, 2
    ushli u7, u4, 8
    vadd.u32.u v3, v2, u7
    ld.ubase.b32 v4, u[0:1], v3, 0
    wait.vm 0
    readfirst u8, v4
    uandi u8, u8, 63               ; in[64g + 32w] & 63: 0 for wave 0 of every wg
    br.uz u8, done                 ; BUG: per-wave early exit
    st.shared.b32 v4, v2, 0
    wait.ls 0
    barrier
    xred.add.u32 u9, v4
    ushli u10, u4, 2
    vmov.u v5, u10
    vmov.u v6, u9
    umovi u11, 1
    exec.and.save u12, u11
    atom.ubase.add.u32 v6, u[2:3], v5, 0
    exec.set u12
    wait.vst 0
done:
    end
