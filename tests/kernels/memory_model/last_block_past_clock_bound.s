; The fenced "last block" reduction at 32,769 workgroups of 2 waves: the last workgroup's
; clock would hold 65,538 waves, past the sanitizer's bound of 65,536, so the report it
; cannot rule out says so (docs/sanitizer.md, "Bounds"). Fenced as last_block.s is, with
; 2 waves per workgroup. Every lane stores a partial; the workgroup retires them, barrier, wave 0
; lane 0 takes a ticket; the flag goes through shared; the last workgroup acquires and
; both its waves sum every workgroup's partials column-wise.
.kernel last_block_past_clock_bound
.workgroup 64
.grid 32769
.shared 4
.buffer partial, 16777216
.buffer ticket, 4
.buffer out, 256
.arg u[0:1], partial
.arg u[2:3], ticket
.arg u[4:5], out

    uwgid u6
    uwaveid u7
    vlaneid v0
    ushli u8, u7, 5
    vadd.u32.u v1, v0, u8       ; t
    vshli v2, v1, 2             ; 4t
    ushli u9, u6, 8             ; 256 bytes per workgroup
    vadd.u32.u v3, v2, u9
    vmuli.u32 v4, v1, 3
    vadd.u32.u v4, v4, u6       ; partial = 3t + wg
publish:
    st.ubase.b32 v4, u[0:1], v3, 0
    wait.vst 0                  ; release: partials retired before the barrier/ticket
    barrier
    br.unz u7, waitflag
    umovi u10, 1
    exec.and.save u11, u10
    vmovi v5, 1
    vmovi v6, 0
ticket:
    atom.ubase.add.u32.rtn v5, u[2:3], v6, 0
    wait.vm 0
    ugridsize u12
    uaddi u12, u12, -1
    vmov.u v7, u12
    vcmp.eq.b32 u13, v5, v7
    vmov.u v8, u13
    vmovi v9, 0
    st.shared.b32 v8, v9, 0     ; isLast for the workgroup
    wait.ls 0
    exec.set u11
waitflag:
    barrier
    vmovi v9, 0
    ld.shared.b32 v10, v9, 0
    wait.ls 0
    readfirst u14, v10
    br.uz u14, done
acquire:
    cache.inv.l1
    wait.vm 0
    vmovi v11, 0
    vmov v12, v2
    ugridsize u15
sum:
    ld.ubase.b32 v13, u[0:1], v12, 0
    wait.vm 0
    vadd.u32 v11, v11, v13
    vaddi.u32 v12, v12, 256
    uaddi u15, u15, -1
    br.unz u15, sum
    st.ubase.b32 v11, u[4:5], v2, 0
    wait.vst 0
done:
    end
