; As epoch_wrap.s, but wave 0 writes s[0] again after the last barrier, in the interval
; wave 1 reads it in: a race, reported after 65,536 barriers as in the first interval.
.kernel epoch_wrap_race
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
    br.unz u5, reader
    vmovi v1, 43
    st.shared.b32 v1, v0, 0     ; BUG: no barrier before wave 1's read
    wait.ls 0
    br.uz u5, done
reader:
    ld.shared.b32 v2, v0, 0
    wait.ls 0
    umovi u7, 1
    exec.and.save u8, u7
    st.ubase.b32 v2, u[0:1], v0, 0
    wait.vst 0
    exec.set u8
done:
    end
