; Shared-memory tree reduction for any workgroup size (uwgsize lanes, 4 bytes each).
; Levels with s >= 32 cross waves and need a barrier; levels with s < 32 are inside
; wave 0 (lanes of one wave never race), so the barrier is skipped there ("warp-
; synchronous" tail). Lane 0 adds the workgroup's sum to out[0] atomically.
.kernel tree
.workgroup 256
.grid 4
.shared 4096
.buffer out, 4
.arg u[0:1], out

    uwgid u2
    uwaveid u3
    uwgsize u4
    vlaneid v0
    ushli u5, u3, 5
    vadd.u32.u v1, v0, u5          ; t
    vshli v2, v1, 2
    vaddi.u32 v3, v1, 1            ; value t + 1
    st.shared.b32 v3, v2, 0
    wait.ls 0
    barrier
    ushri u6, u4, 1                ; s = n / 2
level:
    vmov.u v4, u6
    vcmp.lt.u32 u7, v1, v4         ; t < s
    exec.and.save u8, u7
    ushli u9, u6, 2
    ld.shared.b32 v5, v2, 0
    vadd.u32.u v6, v2, u9
    ld.shared.b32 v7, v6, 0
    wait.ls 0
    vadd.u32 v5, v5, v7
    st.shared.b32 v5, v2, 0
    wait.ls 0
    exec.set u8
    ucmpi.lt.u32 u10, u6, 128      ; BUG: 128 (the level s = 64 still crosses waves)
    br.unz u10, nobar              ; inside one wave: no barrier needed
    barrier
nobar:
    ushri u6, u6, 1
    br.unz u6, level
    br.unz u3, done
    umovi u11, 1
    exec.and.save u12, u11
    ld.shared.b32 v8, v2, 0
    wait.ls 0
    vmovi v9, 0
    atom.ubase.add.u32 v8, u[0:1], v9, 0
    wait.vst 0
    exec.set u12
done:
    end
