; x = c ? a[i] : b[i], as compilers emit it: both sides of the if/else load into the same
; register (v4) under disjoint EXEC masks, and one wait.vm at the join retires both.
; Clean: the vm counter retires in issue order, so the else side's load lands after the
; then side's, and the wait covers both (docs/sanitizer.md, hazards). Odd lanes of out
; get a[i] = 100 + i, even lanes b[i] = 200 + i.
.kernel ifelse
.workgroup 32
.buffer a, 128
.iota a, u32, 32, 100, 1
.buffer b, 128
.iota b, u32, 32, 200, 1
.buffer out, 128
.arg u[0:1], a
.arg u[2:3], b
.arg u[4:5], out
    vlaneid v0
    vshli v1, v0, 2
    vandi v2, v0, 1
    vmovi v3, 0
    vcmp.ne.b32 u6, v2, v3
    exec.and.save u7, u6         ; then: odd lanes
    ld.ubase.b32 v4, u[0:1], v1, 0
    exec.set u7
    exec.andn.save u8, u6        ; else: even lanes
    ld.ubase.b32 v4, u[2:3], v1, 0
    exec.set u8
    wait.vm 0                    ; one wait at the join
    st.ubase.b32 v4, u[4:5], v1, 0
    wait.vst 0
    end
