; Wave 0 writes s[0] once; both waves then meet at 65,536 barriers (a persistent kernel's
; main loop) that never touch s[0]; wave 1 reads s[0] last. The barriers order the write
; before the read: clean, although the records keep barrier counts modulo 2^16 (the
; count at the read is the write's plus 2^16).
.kernel epoch_wrap
.workgroup 64
.shared 4
.buffer out, 4
.arg u[0:1], out
    uwaveid u5
    vmovi v0, 0
    br.unz u5, skip
    vmovi v1, 42
    st.shared.b32 v1, v0, 0
    wait.ls 0
skip:
    umovi u6, 65536              ; ITER
loop:
    barrier
    uaddi u6, u6, -1
    br.unz u6, loop
    br.uz u5, done
    ld.shared.b32 v2, v0, 0
    wait.ls 0
    umovi u7, 1
    exec.and.save u8, u7
    st.ubase.b32 v2, u[0:1], v0, 0
    wait.vst 0
    exec.set u8
done:
    end
