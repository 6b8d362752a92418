; A chain of message passing with the last reader not spinning: workgroup 0 stores the
; data, retires it and raises flag y; workgroup 1 spins on y, acquires, and raises flag x
; (which carries workgroup 0's release); workgroup 2 reads x once, after workgroup 0's
; raise but before workgroup 1's, then acquires and loads the data. Its loads race
; workgroup 0's stores, and the atomic that released them on x is workgroup 1's raise of
; x, not workgroup 0's raise of y (which came before the read).
.kernel message_chain_no_spin
.workgroup 32
.grid 3
.buffer data, 128
.buffer flagy, 4
.buffer flagx, 4
.buffer out, 128
.arg u[0:1], data
.arg u[2:3], flagy
.arg u[4:5], flagx
.arg u[10:11], out

    uwgid u6
    vlaneid v0
    vshli v1, v0, 2
    vmovi v5, 0
    br.uz u6, producer
    uaddi u9, u6, -1
    br.uz u9, relay
consumer:
    umovi u7, 300
d1:
    uaddi u7, u7, -1
    br.unz u7, d1
    vmovi v4, 0
    atom.ubase.add.u32.rtn v4, u[4:5], v5, 0
    wait.vm 0
    umovi u7, 3000
d2:
    uaddi u7, u7, -1
    br.unz u7, d2
    cache.inv.l1
    wait.vm 0
    ld.ubase.b32 v7, u[0:1], v1, 0
    wait.vm 0
    st.ubase.b32 v7, u[10:11], v1, 0
    wait.vst 0
    end
producer:
    vaddi.u32 v2, v0, 7
    st.ubase.b32 v2, u[0:1], v1, 0
    wait.vst 0
    vmovi v3, 1
    atom.ubase.xchg.b32 v3, u[2:3], v5, 0
    wait.vst 0
    end
relay:
    vmovi v6, 1
spin:
    vmovi v4, 0
    atom.ubase.add.u32.rtn v4, u[2:3], v5, 0
    wait.vm 0
    vcmp.eq.b32 u8, v4, v6
    br.uz u8, spin
    cache.inv.l1
    wait.vm 0
    umovi u7, 2000
d3:
    uaddi u7, u7, -1
    br.unz u7, d3
    vmovi v3, 1
    atom.ubase.xchg.b32 v3, u[4:5], v5, 0
    wait.vst 0
    end
