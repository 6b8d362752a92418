; Parallel reduction: each workgroup sums 64 u32 values with xred (one per wave), then
; one atomic add per wave into out[workgroup].
.kernel reduce
.workgroup 64
.grid 4
.buffer in, 1024
.iota in, u32, 256, 1
.buffer out, 16
.arg u[0:1], in
.arg u[2:3], out

    uwgid u4                    ; workgroup id
    uwaveid u5
    unumwaves u6
    umul u7, u4, u6
    uadd u7, u7, u5             ; global wave index
    ushli u7, u7, 7             ; * 32 lanes * 4 bytes
    vlaneid v0
    vshli v0, v0, 2
    vadd.u32.u v0, v0, u7       ; byte offset of this lane's element
    ld.ubase.b32 v1, u[0:1], v0, 0
    wait.vm 0
    xred.add.u32 u8, v1
combine:
    ushli u9, u4, 2             ; out offset
    vmov.u v2, u9
    vmov.u v3, u8
    umovi u10, 1
    exec.and.save u11, u10      ; lane 0 only
    atom.ubase.add.u32 v3, u[2:3], v2, 0
    exec.set u11
    end
