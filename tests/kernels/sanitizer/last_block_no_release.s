; Last-block grid reduction (threadFenceReduction): each workgroup writes a partial,
; takes a ticket; the last one sums the partials.
.kernel lastblock
.workgroup 64
.grid 8
.shared 16
.buffer in, 2048
.iota in, u32, 512, 1
.buffer partial, 32
.buffer ticket, 4
.buffer out, 4
.arg u[0:1], in
.arg u[2:3], partial
.arg u[4:5], ticket
.arg u[6:7], out

    uwgid u8
    uwaveid u9
    vlaneid v0
    ushli u10, u9, 5
    vadd.u32.u v1, v0, u10
    vshli v2, v1, 2
    ushli u11, u8, 8
    vadd.u32.u v3, v2, u11
    ld.ubase.b32 v4, u[0:1], v3, 0
    wait.vm 0
    xred.add.u32 u12, v4
    ushli u13, u9, 2
    vmov.u v5, u13
    vmov.u v6, u12
    vmovi v7, 0
    vmovi v12, 1
    umovi u14, 1
    exec.and.save u15, u14
    st.shared.b32 v6, v5, 0
    exec.set u15
    wait.ls 0
    barrier
    br.unz u9, exit
    exec.and.save u15, u14
    ld.shared.b32 v8, v7, 0
    ld.shared.b32 v9, v7, 4
    wait.ls 0
    vadd.u32 v8, v8, v9
    ushli u16, u8, 2
    vmov.u v10, u16
    st.ubase.b32 v8, u[2:3], v10, 0     ; partial[wg]
    atom.ubase.add.u32.rtn v12, u[4:5], v7, 0
    cache.inv.l1                        ; ACQUIRE
    wait.vm 0
    readfirst u17, v12
    exec.set u15
    ugridsize u18
    uaddi u18, u18, -1
    ucmp.ne u19, u17, u18
    br.unz u19, exit
    vmovi v14, 8
    vcmp.lt.u32 u20, v0, v14
    exec.and.save u21, u20
    vshli v13, v0, 2
    ld.ubase.b32 v15, u[2:3], v13, 0    ; partial[lane]
    wait.vm 0
    xred.add.u32 u22, v15
    exec.set u21
    exec.and.save u21, u14
    vmov.u v16, u22
    st.ubase.b32 v16, u[6:7], v7, 0
    wait.vst 0
    exec.set u21
exit:
    end
