; Early return before a barrier: wave 1 has nothing to do and returns.
.kernel deadlock
.workgroup 96
.grid 3
.shared 512
.buffer out, 1024
.arg u[0:1], out

    uwgid u4
    uwaveid u5
    vlaneid v0
    ucmpi.eq u6, u5, 1
    br.unz u6, done             ; BUG: returns before the barrier
    ushli u7, u5, 7
    vshli v2, v0, 2
    vadd.u32.u v2, v2, u7
    st.shared.b32 v0, v2, 0
    wait.ls 0
    barrier
    ld.shared.b32 v3, v2, 0
    wait.ls 0
done:
    end
