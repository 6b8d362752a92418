; message_pass_workgroup.s without the wait after the acquire fence: workgroup 1's wave 0
; reaches the barrier with its cache.inv.l1 still outstanding, so the barrier passes
; nothing on to wave 1, whose loads may read stale data (the race names the unretired
; fence and the barrier: docs/memory.md).
.kernel message_pass_workgroup_no_wait
.workgroup 64
.grid 2
.buffer data, 256
.buffer flag, 4
.buffer out, 256
.arg u[0:1], data
.arg u[2:3], flag
.arg u[4:5], out

    uwgid u8
    uwaveid u9
    vlaneid v0
    ushli u10, u9, 5
    vadd.u32.u v1, v0, u10
    vshli v1, v1, 2
    vmovi v7, 0
    umovi u14, 1
    br.unz u8, consumer
    vaddi.u32 v2, v1, 1000
    st.ubase.b32 v2, u[0:1], v1, 0
    wait.vst 0
    barrier
    br.unz u9, pdone
    exec.and.save u15, u14
    vmovi v3, 1
    atom.ubase.xchg.b32 v3, u[2:3], v7, 0
    exec.set u15
    wait.vst 0
pdone:
    end
consumer:
    br.unz u9, cwait
    exec.and.save u15, u14
spin:
    vmovi v5, 0
    atom.ubase.or.b32.rtn v5, u[2:3], v7, 0
    wait.vm 0
    readfirst u16, v5
    br.uz u16, spin
    exec.set u15
acquire:
    cache.inv.l1
                               ; BUG: no wait.vm 0: the fence is still outstanding
cwait:
    barrier
    ld.ubase.b32 v6, u[0:1], v1, 0
    wait.vm 0
    st.ubase.b32 v6, u[4:5], v1, 0
    wait.vst 0
    end
