; Register spilling to per-lane scratch, as a compiler does under register pressure.
;
; Every lane owns .scratch bytes of private memory: the same scratch address in two lanes
; names two different locations, so all lanes spill to the same offsets below.
;
;   1. compute live values: a b32 (v10), a b64 tuple (v[12:13]), a b128 tuple (v[16:19]),
;      a 16-bit and an 8-bit value (v20, v21);
;   2. spill them with st.scratch.b32/b64/b128/b16/b8 to offsets 0, 8, 16, 32, 34;
;   3. reuse (clobber) those registers: a private array arr[8] at scratch 64..95 is
;      filled with dynamic, per-lane indices (arr[(k + gid) & 7] = 100 * k + gid) and
;      then summed as sum_j (j + 1) * arr[j] -- such arrays live in scratch on real
;      hardware because registers cannot be indexed per lane;
;   4. fill the spilled values back with ld.scratch.b32/b64/b128, and the narrow ones with
;      both sign- and zero-extending loads (i16/u16, i8/u8);
;   5. write 12 words per lane to out[12 * gid ..]:
;      v10, v12, v13, v16, v17, v18, v19, i16, u16, i8, u8, weighted sum.
;
; Registers:
;   u[0:1] out (argument); u4 workgroup id, u5 wave index, u6 scratch, u10 k / j,
;   u11 loop condition, u12 byte offset, u13 weight
;   v0 lane id, v1 gid (global lane id), v2 out byte offset, v10 b32 value,
;   v[12:13] b64 value, v[16:19] b128 value, v20 16-bit value, v21 8-bit value,
;   v22 v23 zero-extended fills, v14 weighted sum, v30 scratch address 0
.kernel spill
.workgroup 64
.grid 2
.scratch 96                     ; bytes per lane
.buffer out, 6144               ; 128 lanes x 12 words
.arg u[0:1], out

    uwgid u4
    uwaveid u5
    uwgsize u6
    umul u6, u6, u4
    ushli u5, u5, 5
    uadd u6, u6, u5
    vlaneid v0
    vadd.u32.u v1, v0, u6       ; gid
    vmuli.u32 v2, v1, 48        ; 12 words per lane

    ; --- 1. live values
    vmuli.u32 v10, v1, 7
    vaddi.u32 v10, v10, 3       ; 7 * gid + 3
    vmuli.u32 v12, v1, 0x10001  ; b64 tuple: (gid * 0x10001, ~gid)
    vxori v13, v1, -1
    vmov v16, v1                ; b128 tuple: (gid, gid + 1, gid * gid, gid ^ 0xa5a5a5a5)
    vaddi.u32 v17, v1, 1
    vmul.u32 v18, v1, v1
    vxori v19, v1, 0xa5a5a5a5
    vaddi.u32 v20, v1, 0x8000   ; its low 16 bits have the sign bit set
    vaddi.u32 v21, v1, 0x80     ; its low 8 bits have the sign bit set

    ; --- 2. spill
    vmovi v30, 0
    st.scratch.b32 v10, v30, 0
    st.scratch.b64 v[12:13], v30, 8
    st.scratch.b128 v[16:19], v30, 16
    st.scratch.b16 v20, v30, 32
    st.scratch.b8 v21, v30, 34
    wait.vst 0

    ; --- 3. the registers are reused
    vmovi v16, -1
    vmovi v17, -1
    vmovi v18, -1
    vmovi v19, -1
    vmovi v20, -1
    vmovi v21, -1
    umovi u10, 0                ; k
fill_arr:
    vmov.u v11, u10
    vadd.u32 v12, v11, v1
    vandi v12, v12, 7
    vshli v12, v12, 2           ; byte offset of arr[(k + gid) & 7]: differs per lane
    vmuli.u32 v13, v11, 100
    vadd.u32 v13, v13, v1       ; 100 * k + gid
    st.scratch.b32 v13, v12, 64
    wait.vst 0                  ; the next k overwrites v13: the store must have read it
    uaddi u10, u10, 1
    ucmpi.lt.u32 u11, u10, 8
    br.unz u11, fill_arr
    wait.vst 0
    vmovi v14, 0
    umovi u10, 0                ; j
sum_arr:
    ushli u12, u10, 2
    vmov.u v10, u12
    ld.scratch.b32 v11, v10, 64 ; arr[j]
    wait.vm 0
    uaddi u13, u10, 1
    vmul.u32.u v11, v11, u13
    vadd.u32 v14, v14, v11
    uaddi u10, u10, 1
    ucmpi.lt.u32 u11, u10, 8
    br.unz u11, sum_arr

    ; --- 4. fill
    ld.scratch.b32 v10, v30, 0
    ld.scratch.b64 v[12:13], v30, 8
    ld.scratch.b128 v[16:19], v30, 16
    ld.scratch.i16 v20, v30, 32
    ld.scratch.u16 v22, v30, 32
    ld.scratch.i8 v21, v30, 34
    ld.scratch.u8 v23, v30, 34
    wait.vm 0

    ; --- 5. results
    st.ubase.b32 v10, u[0:1], v2, 0
    st.ubase.b64 v[12:13], u[0:1], v2, 4
    st.ubase.b128 v[16:19], u[0:1], v2, 12
    st.ubase.b32 v20, u[0:1], v2, 28
    st.ubase.b32 v22, u[0:1], v2, 32
    st.ubase.b32 v21, u[0:1], v2, 36
    st.ubase.b32 v23, u[0:1], v2, 40
    st.ubase.b32 v14, u[0:1], v2, 44
    wait.vst 0
    end
