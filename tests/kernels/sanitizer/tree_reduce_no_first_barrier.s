; Block reduction: 4 waves, tree through shared memory, then xred in wave 0.
.kernel blockreduce
.workgroup 128
.grid 4
.shared 512
.buffer in, 2048
.iota in, u32, 512, 1
.buffer out, 16
.arg u[0:1], in
.arg u[2:3], out

    uwgid u4
    uwaveid u5
    vlaneid v0
    ushli u6, u5, 5
    vadd.u32.u v1, v0, u6       ; t
    vshli v2, v1, 2             ; 4t
    ushli u7, u4, 9
    vadd.u32.u v3, v2, u7
    ld.ubase.b32 v4, u[0:1], v3, 0
    wait.vm 0
    st.shared.b32 v4, v2, 0     ; s[t] = in[t]
    wait.ls 0
    ucmpi.ge.u32 u8, u5, 2
    br.unz u8, skip1
    ld.shared.b32 v5, v2, 0
    ld.shared.b32 v6, v2, 256   ; s[t+64]
    wait.ls 0
    vadd.u32 v5, v5, v6
    st.shared.b32 v5, v2, 0     ; s[t] += s[t+64]
    wait.ls 0                   ; W2
skip1:
    barrier                     ; B2
    br.unz u5, done
    ld.shared.b32 v5, v2, 0
    ld.shared.b32 v6, v2, 128   ; s[t+32], written by wave 1
    wait.ls 0
    vadd.u32 v5, v5, v6
    xred.add.u32 u9, v5
    ushli u10, u4, 2
    vmov.u v7, u10
    vmov.u v8, u9
    umovi u11, 1
    exec.and.save u12, u11
    st.ubase.b32 v8, u[2:3], v7, 0
    exec.set u12
    wait.vst 0
done:
    end
