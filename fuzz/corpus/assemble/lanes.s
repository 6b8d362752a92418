; Lanes, threads and windows for the real-client tests (tests/gdb_lanes.rs): four
; workgroups of two waves. Each lane writes its global lane id (32 * wave + lane) to word 1
; of its scratch and to word (32 * wave_in_wg + lane) of its workgroup's shared memory;
; at `odd` only the odd lanes are active (EXEC 0xaaaaaaaa) and add 1000; `out` gets v3.
.kernel lanes
.workgroup 64
.grid 4
.shared 256
.scratch 16
.buffer out, 1024
.arg u[0:1], out

    uwgid u4
    uwaveid u5
    ushli u6, u4, 1
    uadd u6, u6, u5
    ushli u6, u6, 5             ; 32 * global wave id
    vlaneid v0
    vadd.u32.u v3, v0, u6       ; v3 = global lane id
    vshli v1, v0, 2
    vmovi v8, 0
    st.scratch.b32 v3, v8, 4    ; scratch word 1 of each lane: its global lane id
    wait.vst 0
    ushli u7, u5, 7
    vadd.u32.u v2, v1, u7       ; 128 * wave_in_wg + 4 * lane
    st.shared.b32 v3, v2, 0     ; shared word (32 * wave_in_wg + lane)
    wait.ls 0
    vshli v4, v3, 2
    vandi v9, v0, 1
    vcmp.ne.b32 u12, v9, v8     ; odd lanes
    exec.and.save u13, u12
odd:
    vaddi.u32 v3, v3, 1000      ; odd lanes only
    exec.set u13
joined:
    st.ubase.b32 v3, u[0:1], v4, 0
    wait.vst 0
    end
