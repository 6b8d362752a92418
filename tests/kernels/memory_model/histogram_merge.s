; A shared-memory histogram per workgroup (the usual CUDA pattern): wave 0 clears the 32
; bins, every wave adds its values' bins with shared atomics, retires them (wait.ls 0)
; and reaches the barrier; then wave 0 reads the bins with plain loads and writes them
; out. Clean under every schedule. histogram_merge_no_wait.s drops the wait.
;
;   u[0:1] in (4 * 32 u32 per workgroup), u[2:3] out (32 u32 per workgroup)
.kernel histogram_merge
.workgroup 128
.grid 2
.shared 128
.buffer in, 1024
.iota in, u32, 256, 12345, 2654435761, wrap
.buffer out, 256
.arg u[0:1], in
.arg u[2:3], out
    uwgid u4
    uwaveid u5
    vlaneid v0
    vshli v1, v0, 2            ; v1 = lane * 4: bin `lane`
    vmovi v8, 0
    vmovi v7, 1
    br.unz u5, counted
    st.shared.b32 v8, v1, 0    ; wave 0 clears the bins
    wait.ls 0
counted:
    barrier
    ushli u6, u5, 7
    ushli u7, u4, 9
    uadd u6, u6, u7
    vadd.u32.u v2, v1, u6
    ld.ubase.b32 v3, u[0:1], v2, 0
    wait.vm 0
    vshri v3, v3, 27           ; the bin: the value's top 5 bits
    vshli v3, v3, 2
add:
    atom.shared.add.u32 v7, v3, 0
    wait.ls 0                  ; retired before the barrier orders it
merge:
    barrier
    br.unz u5, done
read:
    ld.shared.b32 v4, v1, 0
    wait.ls 0
    ushli u8, u4, 7
    vadd.u32.u v5, v1, u8
    st.ubase.b32 v4, u[2:3], v5, 0
    wait.vst 0
done:
    end
