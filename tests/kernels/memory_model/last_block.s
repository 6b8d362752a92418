; The "last block" grid reduction, fenced: each workgroup stores its partials with plain
; stores, retires them (wait.vst: the release), takes a ticket with an atomic; the one
; that draws the last ticket invalidates its L1 (cache.inv.l1, retired by wait.vm: the
; acquire) and sums every workgroup's partials with plain loads. Clean.
;
;   u[0:1] partial (32 u32 per workgroup, grid <= 32), u[2:3] ticket, u[4:5] out (32 u32)
;   v1 lane * 4, v2 this workgroup's partial offset, v4 ticket, v7 sum, v8 load offset
.kernel last_block
.workgroup 32
.grid 4
.buffer partial, 4096         ; up to 32 workgroups
.buffer ticket, 4
.buffer out, 128
.arg u[0:1], partial
.arg u[2:3], ticket
.arg u[4:5], out

    uwgid u6
    vlaneid v0
    vshli v1, v0, 2
    ushli u7, u6, 7             ; 128 bytes of partials per workgroup
    vadd.u32.u v2, v1, u7
    vadd.u32.u v3, v0, u6       ; partial: lane + workgroup
publish:
    st.ubase.b32 v3, u[0:1], v2, 0
    wait.vst 0                  ; release: the partials are retired before the ticket
    vmovi v4, 1
    vmovi v5, 0
ticket:
    atom.ubase.add.u32.rtn v4, u[2:3], v5, 0
    wait.vm 0
    ugridsize u10
    ushli u10, u10, 5           ; 32 tickets per workgroup (one per lane)
    uaddi u10, u10, -1
    vmov.u v6, u10              ; the last ticket
    vcmp.eq.b32 u8, v4, v6
    br.uz u8, done
acquire:
    cache.inv.l1
    wait.vm 0                   ; acquire: retired before the loads
    vmovi v7, 0
    vmov v8, v1
    ugridsize u9
sum:
    ld.ubase.b32 v9, u[0:1], v8, 0
    wait.vm 0
    vadd.u32 v7, v7, v9
    vaddi.u32 v8, v8, 128
    uaddi u9, u9, -1
    br.unz u9, sum
    st.ubase.b32 v7, u[4:5], v1, 0
    wait.vst 0
done:
    end
