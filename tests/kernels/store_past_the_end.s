; Workgroups 2 and 4 of 12 store past the end of `out` (a 1 KiB buffer): each of their
; waves faults; with two resident workgroups, workgroups 5-11 never get a slot.
.kernel fl
.workgroup 64
.grid 12
.buffer out, 1024
.arg u[0:1], out
    uwgid u4
    uwaveid u5
    unumwaves u6
    umul u7, u4, u6
    uadd u7, u7, u5
    ushli u7, u7, 7
    vlaneid v0
    vshli v0, v0, 2
    vadd.u32.u v0, v0, u7
    ucmpi.eq u8, u4, 2
    br.uz u8, ok
    umovi u10, 4096
    vadd.u32.u v0, v0, u10
ok:
    vlaneid v1
    st.ubase.b32 v1, u[0:1], v0, 0
    end
