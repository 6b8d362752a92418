; Message passing, fenced, with a persistent producer: workgroup 0 publishes the data
; (store, wait.vst, atomic flag = 1), then runs 4,100 iterations of plain stores to its
; own log and atomic counter bumps, 8,200 release generations. Workgroup 1 does unrelated
; work for a while, then acquires the flag (atomic poll, cache.inv.l1, wait.vm) and reads
; the data: ordered by the flag's release/acquire. The race records keep a generation
; modulo 2,048, so the data's record is taken for a generation the release does not
; cover: the report it cannot rule out says it may be false (docs/sanitizer.md, "Bounds").
.kernel message_pass_past_generation_bound
.workgroup 32
.grid 2
.buffer data, 128
.buffer flag, 4
.buffer counter, 4
.buffer log, 128
.buffer out, 128
.arg u[0:1], data
.arg u[2:3], flag
.arg u[4:5], counter
.arg u[6:7], log
.arg u[8:9], out
    uwgid u10
    vlaneid v0
    vshli v1, v0, 2
    vmovi v5, 0
    br.unz u10, consumer
    vaddi.u32 v2, v0, 7
    st.ubase.b32 v2, u[0:1], v1, 0
    wait.vst 0
    vmovi v3, 1
    atom.ubase.xchg.b32 v3, u[2:3], v5, 0
    umovi u11, 4100              ; ITERS
produce:
    st.ubase.b32 v0, u[6:7], v1, 0
    wait.vst 0
    vmovi v4, 1
    atom.ubase.add.u32 v4, u[4:5], v5, 0
    uaddi u11, u11, -1
    br.unz u11, produce
    wait.vst 0
    end
consumer:
    umovi u12, 60000             ; DELAY
delay:
    uaddi u12, u12, -1
    br.unz u12, delay
    vmovi v6, 1
spin:
    vmovi v7, 0
    atom.ubase.add.u32.rtn v7, u[2:3], v5, 0
    wait.vm 0
    vcmp.eq.b32 u13, v7, v6
    br.uz u13, spin
    cache.inv.l1
    wait.vm 0
    ld.ubase.b32 v8, u[0:1], v1, 0
    wait.vm 0
    st.ubase.b32 v8, u[8:9], v1, 0
    wait.vst 0
    end
