; Flag-based producer/consumer: the LAST workgroup produces 32 words of data and raises
; a flag; every other workgroup spins on the flag and then copies the data to its
; row of out. Release: wait.vst before the flag. Acquire: cache.inv.l1 + wait.vm after.
.kernel mp
.workgroup 32
.grid 3
.buffer data, 128
.buffer flag, 4
.buffer out, 384
.arg u[0:1], data
.arg u[2:3], flag
.arg u[4:5], out

    uwgid u6
    ugridsize u7
    uaddi u7, u7, -1
    vlaneid v0
    vshli v1, v0, 2
    vmovi v5, 0                 ; flag offset
    ucmp.eq u8, u6, u7
    br.uz u8, consumer
producer:
    vmuli.u32 v2, v0, 3
    st.ubase.b32 v2, u[0:1], v1, 0
    wait.vst 0                  ; release
    vmovi v3, 1
    st.ubase.b32 v3, u[2:3], v5, 0   ; BUG: plain store of the flag
    wait.vst 0
    end
consumer:
    vmovi v6, 1
spin:
    vmovi v4, 0
    atom.ubase.or.b32.rtn v4, u[2:3], v5, 0
    wait.vm 0
    vcmp.eq.b32 u9, v4, v6
    br.uz u9, spin
    cache.inv.l1                ; acquire
    wait.vm 0
    ld.ubase.b32 v7, u[0:1], v1, 0
    wait.vm 0
    ushli u10, u6, 7
    vadd.u32.u v8, v1, u10
    st.ubase.b32 v7, u[4:5], v8, 0
    wait.vst 0
    end
