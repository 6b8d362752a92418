; The last-block reduction with 2 waves per workgroup where only wave 0 retires its
; partials before the barrier (wave 1 skips the wait.vst); wave 0 alone takes the ticket,
; which publishes what the barrier passed on, and every wave of the last workgroup
; acquires and reads. Wave 1's stores race the last workgroup's loads, and the release
; that misses them is wave 0's atomic: the report names wave 0 as the one that executed
; it, not wave 1 (the earlier side's wave).
.kernel last_block_two_waves_one_release
.workgroup 64
.grid 6
.shared 4
.buffer partial, 1536
.buffer ticket, 4
.buffer out, 256
.arg u[0:1], partial
.arg u[2:3], ticket
.arg u[4:5], out
    uwgid u6
    uwaveid u7
    vlaneid v0
    ushli u8, u7, 5
    vadd.u32.u v1, v0, u8        ; t
    vshli v2, v1, 2
    ushli u9, u6, 8              ; 256 bytes per workgroup
    vadd.u32.u v3, v2, u9
    vadd.u32.u v4, v1, u6
    st.ubase.b32 v4, u[0:1], v3, 0   ; PUBLISH
    br.unz u7, skipw                 ; BUG: only wave 0 retires its partials
    wait.vst 0                       ; RELEASE
skipw:
    barrier
    br.unz u7, wait_flag
    umovi u10, 1
    exec.and.save u11, u10
    vmovi v5, 1
    vmovi v6, 0
    atom.ubase.add.u32.rtn v5, u[2:3], v6, 0   ; TICKET
    wait.vm 0
    vmovi v7, 0
    st.shared.b32 v5, v7, 0
    wait.ls 0
    exec.set u11
wait_flag:
    barrier
    vmovi v7, 0
    ld.shared.b32 v8, v7, 0
    wait.ls 0
    readfirst u12, v8
    ugridsize u13
    uaddi u13, u13, -1
    ucmp.eq u14, u12, u13
    br.uz u14, done
    cache.inv.l1                     ; ACQUIRE (each wave)
    wait.vm 0
    vmovi v9, 0
    vmov v10, v2
    ugridsize u15
sum:
    ld.ubase.b32 v11, u[0:1], v10, 0
    wait.vm 0
    vadd.u32 v9, v9, v11
    vaddi.u32 v10, v10, 256
    uaddi u15, u15, -1
    br.unz u15, sum
    st.ubase.b32 v9, u[4:5], v2, 0
    wait.vst 0
done:
    end
