; Wave 0 of each workgroup reaches the barrier first; wave 1 then faults (store past the
; end of out) before it gets there: every workgroup's barrier can never complete.
.kernel fault_after_wait
.workgroup 64
.grid 2
.buffer out, 128
.arg u[0:1], out

    uwaveid u2
    vlaneid v0
    vshli v1, v0, 2
    br.uz u2, wait_here
    nop
    nop
    nop
    nop
    nop
    nop
    nop
    nop
    nop
    nop
    vaddi.u32 v1, v1, 0x10000      ; BUG: far past the end of out
    st.ubase.b32 v0, u[0:1], v1, 0
    wait.vst 0
wait_here:
    barrier
    end
