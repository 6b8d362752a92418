; Message passing without the spin and without the acquire: as message_pass_no_spin.s,
; with the consumer's cache.inv.l1 left out too. Workgroup 0 publishes the data (plain
; stores, wait.vst, atomic exchange) only after workgroup 1's atomic has read the flag:
; the consumer's atomic read the flag before the release, so its fence acquires nothing
; of it and its loads race the producer's stores.
;
;   u[0:1] data (32 u32), u[2:3] flag, u[4:5] out (32 u32)
.kernel message_pass_no_spin_no_inv
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
    umovi u7, 30
late:
    uaddi u7, u7, -1
    br.unz u7, late
    vaddi.u32 v2, v0, 7
    st.ubase.b32 v2, u[0:1], v1, 0
    wait.vst 0                  ; release: the data is retired before the flag
    vmovi v3, 1
    atom.ubase.xchg.b32 v3, u[2:3], v5, 0
    wait.vst 0
    end
consumer:
    vmovi v4, 0
    atom.ubase.add.u32.rtn v4, u[2:3], v5, 0   ; BUG: read once, not spun on
    wait.vm 0
    umovi u7, 300
idle:
    uaddi u7, u7, -1
    br.unz u7, idle
    wait.vm 0
    ld.ubase.b32 v7, u[0:1], v1, 0
    wait.vm 0
    st.ubase.b32 v7, u[4:5], v1, 0
    wait.vst 0
    end
