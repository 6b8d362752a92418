; Two waves of one workgroup exchange through global memory without a barrier (BUG).
.kernel samewg_global
.workgroup 64
.buffer buf, 256
.arg u[0:1], buf
    uwaveid u5
    vlaneid v0
    vshli v1, v0, 2
    ushli u6, u5, 7
    vadd.u32.u v2, v1, u6
    st.ubase.b32 v0, u[0:1], v2, 0
    wait.vst 0
    vxori v3, v2, 128
    ld.ubase.b32 v4, u[0:1], v3, 0
    wait.vm 0
    end
