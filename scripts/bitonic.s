; Bitonic sort of 32 u32 values inside one wave, no shared memory: lane l holds element l
; and exchanges with its partner lane l ^ j through shfl.xor. Eight waves (2 workgroups x
; 4 waves) each sort their own 32 consecutive values of `data` in place, ascending.
;
;   for k = 2, 4, 8, 16, 32:          (size of the bitonic sequences being merged)
;     for j = k/2, ..., 2, 1:         (compare-exchange distance)
;       p = shfl.xor(x, j)
;       up    = (lane & k) == 0       (this block sorts ascending; always true for k = 32)
;       lower = (lane & j) == 0       (this lane is the lower one of its pair)
;       x = (up == lower) ? min(x, p) : max(x, p)
;
; The two conditions become lane masks with vcmp.eq.b32 against 0; their XOR selects the
; lanes that take the maximum, and vsel picks min or max per lane.
;
; Registers:
;   u[0:1] data (argument)
;   u4 workgroup id, u5 wave index, u6 scratch, u7 k, u8 j, u9 "up" mask,
;   u10 "lower" mask, u11 take-max mask, u12 loop condition
;   v0 lane id, v1 byte offset of the lane's element, v2 x, v3 partner p,
;   v4 min, v5 max, v6 lane & k, v7 lane & j, v8 zero
.kernel bitonic
.workgroup 128
.grid 2
.buffer data, 1024
; 256 scrambled values: data[i] = 74565 + 2654435761 * i (mod 2^32)
.iota data, u32, 256, 74565, 2654435761, wrap
.arg u[0:1], data

    uwgid u4
    uwaveid u5
    unumwaves u6
    umul u6, u6, u4
    uadd u6, u6, u5             ; global wave index
    ushli u6, u6, 7             ; * 32 elements * 4 bytes
    vlaneid v0
    vshli v1, v0, 2
    vadd.u32.u v1, v1, u6
    ld.ubase.b32 v2, u[0:1], v1, 0
    vmovi v8, 0
    wait.vm 0

    umovi u7, 2                 ; k
merge_k:
    ushri u8, u7, 1             ; j = k / 2
exchange_j:
    shfl.xor.vu v3, v2, u8      ; partner's value
    vmin.u32 v4, v2, v3
    vmax.u32 v5, v2, v3
    vand.u v6, v0, u7
    vcmp.eq.b32 u9, v6, v8      ; up: (lane & k) == 0
    vand.u v7, v0, u8
    vcmp.eq.b32 u10, v7, v8     ; lower: (lane & j) == 0
    uxor u11, u9, u10           ; up != lower: take the maximum
    vsel v2, v4, v5, u11
    ushri u8, u8, 1
    br.unz u8, exchange_j
    ushli u7, u7, 1
    ucmpi.lt.u32 u12, u7, 33    ; k <= 32
    br.unz u12, merge_k

    st.ubase.b32 v2, u[0:1], v1, 0
    wait.vst 0
    end
