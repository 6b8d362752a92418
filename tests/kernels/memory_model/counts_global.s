; Counters in global memory shared by the two waves of a workgroup, in rounds separated
; by barriers: both waves add to the 32 counters with atomics, retire them (wait.vst 0)
; and reach the barrier; wave 0 reads the totals with plain loads, retires them
; (wait.vm 0) before the next barrier; then wave 1 adds again. Clean under every
; schedule. counts_global_no_wait.s drops both waits.
;
;   u[0:1] counts (32 u32), u[2:3] out (32 u32)
.kernel counts_global
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
    wait.vst 0                 ; the atomics retired before the barrier orders them
first:
    barrier
    br.unz u5, skip
read:
    ld.ubase.b32 v4, u[0:1], v1, 0
    wait.vm 0                  ; the read retired before the barrier orders it
skip:
second:
    barrier
    br.uz u5, out
again:
    atom.ubase.add.u32 v7, u[0:1], v1, 0
    wait.vst 0
    end
out:
    st.ubase.b32 v4, u[2:3], v1, 0
    wait.vst 0
    end
