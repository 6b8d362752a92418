; Divergent control flow with the EXEC mask: the Collatz sequence of n = in[gid].
;
;   x = n; steps = 0; peak = n
;   while (x != 1) {                 loop with a per-lane trip count
;       if (x & 1) x = 3 * x + 1;    if / else
;       else       x = x / 2;
;       peak = max(peak, x); steps++;
;   }
;   if (steps >= 20) {               a nested condition
;       cls = 1;
;       if (n & 1) cls = 2;
;   } else {
;       cls = 3;
;   }
;   steps_out[gid] = steps; peak_out[gid] = peak; cls_out[gid] = cls;
;
; Branches are uniform, so divergence is expressed with EXEC:
;   - if:   vcmp gives the mask of active lanes where the condition holds;
;           exec.and.save uS, uM saves EXEC in uS and narrows it to uM; br.execz skips a
;           body no lane runs;
;   - else: exec.set uS restores EXEC, exec.andn.save uS, uM narrows it to the others;
;   - join: exec.set uS;
;   - loop: each iteration narrows EXEC to the lanes still running and br.execnz repeats
;           while any is left; the EXEC saved before the loop is restored after it.
;
; Registers:
;   u[0:1] in, u[2:3] steps_out, u[4:5] peak_out, u[6:7] cls_out (arguments)
;   u8 workgroup id, u9 wave index, u10 loop mask, u11 EXEC before the loop,
;   u12 odd mask, u13 EXEC of the loop body, u14 lanes still running, u15 steps >= 20,
;   u16 EXEC before the outer if, u17 n odd, u18 EXEC before the inner if, u19 scratch
;   v0 lane id, v1 gid, v2 byte offset, v3 n, v4 x, v5 steps, v6 peak, v7 constant 1,
;   v8 constant 0, v9 low bit, v10 cls, v11 constant 20
.kernel divergent
.workgroup 64
.grid 2
.buffer in, 512
.iota in, u32, 128, 1, 1        ; n = 1 .. 128
.buffer steps_out, 512
.buffer peak_out, 512
.buffer cls_out, 512
.arg u[0:1], in
.arg u[2:3], steps_out
.arg u[4:5], peak_out
.arg u[6:7], cls_out

    uwgid u8
    uwaveid u9
    uwgsize u19
    umul u19, u19, u8
    ushli u9, u9, 5
    uadd u19, u19, u9
    vlaneid v0
    vadd.u32.u v1, v0, u19      ; gid
    vshli v2, v1, 2
    ld.ubase.b32 v3, u[0:1], v2, 0
    wait.vm 0
    vmov v4, v3                 ; x
    vmovi v5, 0                 ; steps
    vmov v6, v3                 ; peak
    vmovi v7, 1
    vmovi v8, 0

    ; --- while (x != 1)
    vcmp.ne.b32 u10, v4, v7
    exec.and.save u11, u10
    br.execz loop_done
loop:
    vandi v9, v4, 1
    vcmp.ne.b32 u12, v9, v8     ; odd lanes
    exec.and.save u13, u12      ; if (x & 1)
    br.execz else_half
    vmuli.u32 v4, v4, 3
    vaddi.u32 v4, v4, 1
else_half:
    exec.set u13
    exec.andn.save u13, u12     ; else
    br.execz endif_odd
    vshri v4, v4, 1
endif_odd:
    exec.set u13                ; join: every lane of this iteration
    vmax.u32 v6, v6, v4
    vaddi.u32 v5, v5, 1
    vcmp.ne.b32 u14, v4, v7     ; lanes that have not reached 1 yet
    exec.set u14
    br.execnz loop
loop_done:
    exec.set u11                ; all lanes again

    ; --- nested classification
    vmovi v10, 0
    vmovi v11, 20
    vcmp.ge.u32 u15, v5, v11
    exec.and.save u16, u15      ; if (steps >= 20)
    br.execz else_short
    vmovi v10, 1
    vandi v9, v3, 1
    vcmp.ne.b32 u17, v9, v8
    exec.and.save u18, u17      ;     if (n & 1)
    vmovi v10, 2
    exec.set u18                ;     join
else_short:
    exec.set u16
    exec.andn.save u16, u15     ; else
    vmovi v10, 3
    exec.set u16                ; join

    st.ubase.b32 v5, u[2:3], v2, 0
    st.ubase.b32 v6, u[4:5], v2, 0
    st.ubase.b32 v10, u[6:7], v2, 0
    wait.vst 0
    end
