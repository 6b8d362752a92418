; Shared counters read by one wave, then updated by another after a barrier: wave 0
; reads the 32 counters and retires the loads (wait.ls 0) before the barrier, so the
; barrier orders them before wave 1's atomics. Clean under every schedule.
; counts_shared_no_wait.s drops the wait.
;
;   u[2:3] out (32 u32)
.kernel counts_shared
.workgroup 64
.grid 1
.shared 128
.buffer out, 128
.arg u[2:3], out
    uwaveid u5
    vlaneid v0
    vshli v1, v0, 2            ; v1 = lane * 4: counter `lane`
    vmovi v7, 1
    br.unz u5, cleared
    st.shared.b32 v0, v1, 0    ; wave 0 sets the counters
    wait.ls 0
cleared:
    barrier
    br.unz u5, skip
read:
    ld.shared.b32 v4, v1, 0
    wait.ls 0                  ; the read retired before the barrier orders it
skip:
    barrier
    br.uz u5, out
add:
    atom.shared.add.u32 v7, v1, 0
    wait.ls 0
    end
out:
    wait.ls 0
    st.ubase.b32 v4, u[2:3], v1, 0
    wait.vst 0
    end
