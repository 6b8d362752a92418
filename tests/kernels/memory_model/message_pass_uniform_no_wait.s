; message_pass_uniform.s without the wait after the acquire fence: the uniform load
; after it is on the `sm` counter, so it does not complete after the fence (only loads
; and returning atomics on the fence's `vm` counter do): it may read the stale data
; from before the flag (a race naming the unretired fence: docs/memory.md).
.kernel message_pass_uniform_no_wait
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
                                ; BUG: no wait.vm 0: the uld is on sm, not behind the fence
read:
    uld.b32 u20, u[0:1], 4      ; data[1], through the scalar cache
    wait.sm 0
    vmov.u v7, u20
    st.ubase.b32 v7, u[4:5], v1, 0
    wait.vst 0
    end
