; 256-bin histogram of the bytes of `in` (8192 bytes) into out[0..256] (u32 counts).
;
; Four workgroups of 256 lanes each build a private histogram in shared memory and then
; merge it into the global one:
;   1. lane t clears bin t of the shared histogram; barrier;
;   2. grid-stride loop: each lane reads one u32 (4 bytes) per iteration, at word index
;      32 * wave + lane + 256 * workgroup + 1024 * iteration, and for each of the 4 bytes
;      does atom.shared.add.u32 +1 on bin[byte] (lanes hitting the same bin apply in
;      order, so no update is lost);
;   3. barrier; lane t adds bin t to out[t] with a global atomic, skipping empty bins.
;
; Registers:
;   u[0:1] in, u[2:3] out (arguments)
;   u4 workgroup id, u5 wave index, u6 lanes per workgroup, u7 thread id base (bytes),
;   u8 iterations left, u9 stride in bytes, u10 mask, u11 saved EXEC
;   v0 lane id, v1 thread id t, v2 byte offset of bin t, v3 input byte offset,
;   v4 input word, v5 bin byte, v6 bin address, v7 constant 1, v8 constant 0,
;   v9 merged count
.kernel histogram
.workgroup 256
.grid 4
.shared 1024                    ; 256 bins x u32
.buffer in, 8192
; 2048 words in[i] = 12345 + 2654435761 * i (mod 2^32): a scrambled byte stream
.iota in, u32, 2048, 12345, 2654435761, wrap
.buffer out, 1024
.arg u[0:1], in
.arg u[2:3], out

    uwgid u4
    uwaveid u5
    uwgsize u6
    vlaneid v0
    ushli u7, u5, 5             ; 32 * wave
    vadd.u32.u v1, v0, u7       ; t = thread id within the workgroup (0..255)
    vshli v2, v1, 2             ; bin t's shared offset
    vmovi v7, 1
    vmovi v8, 0

    ; 1. clear this workgroup's histogram (shared memory starts zeroed here, but real
    ;    hardware gives no such guarantee)
    st.shared.b32 v8, v2, 0
    wait.ls 0
    barrier

    ; 2. accumulate: word index = t + 256 * wg + 1024 * k, k = 0, 1
    umul u7, u4, u6             ; 256 * wg
    ushli u7, u7, 2             ; in bytes
    vadd.u32.u v3, v2, u7       ; byte offset of the first word
    ugridsize u9
    umul u9, u9, u6
    ushli u9, u9, 2             ; stride: all lanes of the grid, in bytes
    umovi u8, 2                 ; words per lane
next_word:
    ld.ubase.b32 v4, u[0:1], v3, 0
    wait.vm 0
    vandi v5, v4, 0xff          ; byte 0
    vshli v6, v5, 2
    atom.shared.add.u32 v7, v6, 0
    vshri v5, v4, 8             ; byte 1
    vandi v5, v5, 0xff
    vshli v6, v5, 2
    atom.shared.add.u32 v7, v6, 0
    vshri v5, v4, 16            ; byte 2
    vandi v5, v5, 0xff
    vshli v6, v5, 2
    atom.shared.add.u32 v7, v6, 0
    vshri v5, v4, 24            ; byte 3
    vshli v6, v5, 2
    atom.shared.add.u32 v7, v6, 0
    vadd.u32.u v3, v3, u9
    uaddi u8, u8, -1
    br.unz u8, next_word
    wait.ls 0
    barrier                     ; the shared histogram is complete

    ; 3. merge: out[t] += bin[t] for the non-empty bins
    ld.shared.b32 v9, v2, 0
    wait.ls 0
    vcmp.ne.b32 u10, v9, v8
    exec.and.save u11, u10
    br.execz merged
    atom.ubase.add.u32 v9, u[2:3], v2, 0
merged:
    exec.set u11
    wait.vst 0
    end
