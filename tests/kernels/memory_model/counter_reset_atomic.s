; counter_reset.s with the reset made atomic: no race on the counter, but a workgroup
; that claims after the reset takes an item already claimed, and two workgroups store to
; the same word of `out`: the result depends on the schedule, explained by that race.
.kernel counter_reset_atomic
.workgroup 32
.grid 4
.buffer ctr, 4
.buffer out, 512
.arg u[0:1], ctr
.arg u[2:3], out

    uwgid u4
    vlaneid v0
    vmovi v1, 0
    vmovi v3, 1
    atom.ubase.add.u32.rtn v3, u[0:1], v1, 0   ; claim an item
    wait.vm 0
    vshli v4, v3, 2
    st.ubase.b32 v0, u[2:3], v4, 0
    wait.vst 0
    br.unz u4, done
    ld.ubase.b32 v5, u[0:1], v1, 0             ; plain read of the counter: not a race
    wait.vm 0
    vmovi v6, 0
    atom.ubase.and.b32 v6, u[0:1], v1, 0       ; reset atomically: no race on ctr
    wait.vst 0
done:
    end
