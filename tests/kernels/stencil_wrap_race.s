; 1D stencil: each lane t of a 2-wave workgroup stores in[t] to shared[t],
; then reads its right neighbour shared[(t+1) % 64] and writes in[t] + in[t+1] to out.
; BUG: no barrier between the stores and the neighbour reads.
.kernel stencil_wrap_race
.workgroup 64
.grid 2
.shared 256
.buffer in, 512
.iota in, u32, 128, 1
.buffer out, 512
.arg u[0:1], in
.arg u[2:3], out

    uwgid u4
    uwaveid u5
    vlaneid v0
    ushli u6, u5, 5             ; 32 * wave
    vadd.u32.u v1, v0, u6       ; t
    vshli v2, v1, 2             ; 4t
    ushli u7, u4, 8             ; 256 bytes per workgroup
    vadd.u32.u v3, v2, u7       ; global offset
    ld.ubase.b32 v4, u[0:1], v3, 0
    wait.vm 0
    st.shared.b32 v4, v2, 0     ; shared[t] = in[t]
    wait.ls 0
                                ; BUG: no barrier
    vaddi.u32 v5, v1, 1
    vandi v5, v5, 63            ; (t+1) % 64
    vshli v5, v5, 2
    ld.shared.b32 v6, v5, 0     ; shared[t+1]
    wait.ls 0
    vadd.u32 v7, v4, v6
    st.ubase.b32 v7, u[2:3], v3, 0
    wait.vst 0
    end
