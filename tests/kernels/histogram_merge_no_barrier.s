; A 128-bin histogram with its merge barrier left out: four workgroups of 128 lanes clear
; their shared bins, barrier, count with shared atomics, and merge each non-empty bin into
; `out` with a global atomic, without the barrier between the counting and the merge. A
; lane reads its bin while other waves still add to it: a plain read against atomics,
; which is not a race in this model (docs/sanitizer.md), so only `--seeds` shows it.
.kernel histogram_merge_no_barrier
.workgroup 128
.grid 4
.shared 512
.buffer in, 4096
.iota in, u32, 1024, 12345, 2654435761, wrap
.buffer out, 512
.arg u[0:1], in
.arg u[2:3], out

    uwgid u4
    uwaveid u5
    uwgsize u6
    vlaneid v0
    ushli u7, u5, 5
    vadd.u32.u v1, v0, u7       ; t
    vshli v2, v1, 2             ; bin t offset
    vmovi v7, 1
    vmovi v8, 0
    st.shared.b32 v8, v2, 0     ; CLEAR
    wait.ls 0
    barrier                     ; BARCLEAR
    umul u7, u4, u6
    ushli u7, u7, 2
    vadd.u32.u v3, v2, u7       ; first word of this lane
    ugridsize u9
    umul u9, u9, u6
    ushli u9, u9, 2
    umovi u8, 2
next_word:
    ld.ubase.b32 v4, u[0:1], v3, 0
    wait.vm 0
    umovi u12, 4
next_byte:
    vandi v5, v4, 0x7f
    vshli v6, v5, 2
    atom.shared.add.u32 v7, v6, 0   ; ATOM
    vshri v4, v4, 8
    uaddi u12, u12, -1
    br.unz u12, next_byte
    vadd.u32.u v3, v3, u9
    uaddi u8, u8, -1
    br.unz u8, next_word
    wait.ls 0
    nop                         ; BUG: no barrier before the merge
    ld.shared.b32 v9, v2, 0     ; MERGELOAD
    wait.ls 0
    vcmp.ne.b32 u10, v9, v8
    exec.and.save u11, u10
    br.execz merged
    atom.ubase.add.u32 v9, u[2:3], v2, 0   ; MERGE
merged:
    exec.set u11
    wait.vst 0
    end
