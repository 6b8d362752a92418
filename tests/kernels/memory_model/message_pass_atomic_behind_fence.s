; message_pass.s with the consumer updating the data with a returning atomic right after
; its acquire fence, with no wait between: the atomic is on the fence's in-order `vm`
; counter, so it completes after the fence, as a plain load there does (docs/memory.md).
; Clean under every schedule.
.kernel message_pass_atomic_behind_fence
.workgroup 32
.grid 2
.buffer data, 128
.buffer flag, 4
.buffer out, 128
.arg u[0:1], data
.arg u[2:3], flag
.arg u[4:5], out

    uwgid u6
    vlaneid v0
    vshli v1, v0, 2
    vmovi v5, 0                 ; offset of the flag
    br.unz u6, consumer
producer:
    vaddi.u32 v2, v0, 7
store:
    st.ubase.b32 v2, u[0:1], v1, 0
    wait.vst 0                  ; release: the data is retired before the flag
    vmovi v3, 1
raise:
    atom.ubase.xchg.b32 v3, u[2:3], v5, 0
    wait.vst 0
    end
consumer:
    vmovi v6, 1
spin:
    vmovi v4, 0
poll:
    atom.ubase.add.u32.rtn v4, u[2:3], v5, 0
    wait.vm 0
    vcmp.eq.b32 u8, v4, v6
    br.uz u8, spin
acquire:
    cache.inv.l1
                                ; no wait.vm 0
update:
    vmovi v7, 1
    atom.ubase.add.u32.rtn v7, u[0:1], v1, 0
    wait.vm 0
    st.ubase.b32 v7, u[4:5], v1, 0
    wait.vst 0
    end
