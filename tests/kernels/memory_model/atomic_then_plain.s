; Workgroup 0's atomic on x, then workgroup 1's, then workgroup 0's plain store to x: the
; store races workgroup 1's atomic, and no fence of either could order them (workgroup 0's
; atomic came before workgroup 1's): the report names no release or acquire.
.kernel atomic_then_plain
.workgroup 32
.grid 2
.buffer x, 4
.arg u[0:1], x
    uwgid u4
    vmovi v1, 0
    vmovi v3, 1
    br.unz u4, other
    atom.ubase.add.u32 v3, u[0:1], v1, 0   ; A0 (first in the run)
    wait.vst 0
    umovi u5, 40
delay:
    uaddi u5, u5, -1
    br.unz u5, delay
    vmovi v6, 7
    st.ubase.b32 v6, u[0:1], v1, 0         ; BUG: plain write after wg1's atomic, unsynchronised
    wait.vst 0
    end
other:
    atom.ubase.add.u32 v3, u[0:1], v1, 0   ; A1
    wait.vst 0
    end
