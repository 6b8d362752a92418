; BUG (a classic): a loaded register used before the wait that retires its load.
;
; Loads are asynchronous: `ld` only issues the access, and the destination register holds
; the loaded value once `wait.vm` has brought the vm counter down far enough. Here the
; kernel scales in[t] by 3 right after issuing the load. On hardware it computes with
; whatever v3 held before; the emulator completes loads at once, so the result even
; looks right, which is exactly why the bug survives testing.
;
;   wavedbg check scripts/bugs/load_before_wait.s
;
; names the read, the register, and the load it raced. The fix: move `wait.vm 0` up,
; between the load and the multiply.
.kernel load_before_wait
.workgroup 32
.grid 2
.buffer in, 256
.iota in, u32, 64, 10
.buffer out, 256
.arg u[0:1], in
.arg u[2:3], out

    uwgid u4
    vlaneid v0
    ushli u5, u4, 7             ; 128 bytes per workgroup
    vshli v1, v0, 2
    vadd.u32.u v2, v1, u5
    ld.ubase.b32 v3, u[0:1], v2, 0
    vmuli.u32 v4, v3, 3         ; BUG: v3 is read before wait.vm
    wait.vm 0
    st.ubase.b32 v4, u[2:3], v2, 0
    wait.vst 0
    end
