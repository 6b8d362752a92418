; Each workgroup writes its lanes' ids, but in workgroup 1 wave 1 leaves before the barrier.
.kernel dl
.workgroup 64
.grid 4
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
    vlaneid v1
    st.ubase.b32 v1, u[0:1], v0, 0
    wait.vst 0
    ucmpi.eq u8, u4, 1
    ucmpi.eq u9, u5, 1
    uand u8, u8, u9
    br.unz u8, leave
    barrier
leave:
    end
