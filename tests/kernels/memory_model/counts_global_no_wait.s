; counts_global.s without its waits before the barriers: the atomics are still
; outstanding (no wait.vst 0) when the waves reach the first barrier, so it does not order
; them before wave 0's plain loads; and those loads are still outstanding (no wait.vm 0)
; at the second, so it does not order them before wave 1's atomics. Two races across a
; barrier (docs/memory.md), one each way.
;
;   u[0:1] counts (32 u32), u[2:3] out (32 u32)
.kernel counts_global_no_wait
.workgroup 64
.grid 1
.buffer counts, 128
.buffer out, 128
.arg u[0:1], counts
.arg u[2:3], out
    uwaveid u5
    vlaneid v0
    vshli v1, v0, 2            ; v1 = lane * 4: counter `lane`
    vmovi v7, 1
add:
    atom.ubase.add.u32 v7, u[0:1], v1, 0
                               ; BUG: no wait.vst 0 before the barrier
first:
    barrier
    br.unz u5, skip
read:
    ld.ubase.b32 v4, u[0:1], v1, 0
                               ; BUG: no wait.vm 0 before the barrier
skip:
second:
    barrier
    br.uz u5, out
again:
    atom.ubase.add.u32 v7, u[0:1], v1, 0
    wait.vst 0
    end
out:
    wait.vm 0
    st.ubase.b32 v4, u[2:3], v1, 0
    wait.vst 0
    end
