; Tree reduction with shuffles: each workgroup of 256 lanes (8 waves) reduces its 256 u32
; inputs to two results, written to out[2*wg] and out[2*wg + 1]:
;   - the wrapping sum of the inputs, computed with shfl.down (a log2(32) = 5 step tree
;     that leaves the wave's sum in lane 0);
;   - the largest hash h(x) = x * 0x9e3779b1 (low 32 bits, unsigned), computed with a
;     shfl.xor butterfly (5 steps that leave the wave's maximum in every lane).
; The wave results are combined through shared memory: lane 0 of each wave writes its
; (sum, max) pair to shared[8 * wave], a barrier makes all pairs visible, and wave 0
; reduces the 8 pairs with the same shuffle trees and stores the workgroup's result.
;
; Registers:
;   u[0:1] in, u[2:3] out (arguments)
;   u4 workgroup id, u5 wave index, u6 lanes per workgroup, u7 byte offset of the wave's
;   first element, u8 scratch, u9 butterfly distance, u10 lane-0 mask, u11 saved EXEC
;   v0 lane id, v1 byte offset of the lane's element, v2 value / running sum,
;   v3 hash / running max, v4 v5 shuffled partners, v6 shared address
.kernel reduce_shfl
.workgroup 256
.grid 4
.shared 64                      ; 8 waves x (sum, max), 8 bytes each
.buffer in, 4096
.iota in, u32, 1024, 5, 3       ; in[i] = 5 + 3 * i
.buffer out, 32                 ; per workgroup: sum, max
.arg u[0:1], in
.arg u[2:3], out

    uwgid u4
    uwaveid u5
    uwgsize u6
    umul u7, u4, u6             ; first element of the workgroup
    ushli u8, u5, 5
    uadd u7, u7, u8             ; + 32 * wave: first element of this wave
    ushli u7, u7, 2             ; -> byte offset
    vlaneid v0
    vshli v1, v0, 2
    vadd.u32.u v1, v1, u7       ; byte offset of this lane's element
    ld.ubase.b32 v2, u[0:1], v1, 0
    wait.vm 0                   ; v2 is used below: wait for the load
    vmuli.u32 v3, v2, 0x9e3779b1 ; the hash whose maximum we want

    ; --- sum: shfl.down tree. After the step with distance d, lane l (l < d) holds the sum
    ; of lanes l, l+d, l+2d, ...; lanes past the end read their own value (ignored).
    shfl.down.vi v4, v2, 16
    vadd.u32 v2, v2, v4
    shfl.down.vi v4, v2, 8
    vadd.u32 v2, v2, v4
    shfl.down.vi v4, v2, 4
    vadd.u32 v2, v2, v4
    shfl.down.vi v4, v2, 2
    vadd.u32 v2, v2, v4
    shfl.down.vi v4, v2, 1
    vadd.u32 v2, v2, v4         ; lane 0: the wave's sum

    ; --- max: shfl.xor butterfly with the distance in a uniform register (16, 8, 4, 2, 1).
    ; Every lane exchanges with lane ^ d, so every lane ends with the wave's maximum.
    umovi u9, 16
max_step:
    shfl.xor.vu v5, v3, u9
    vmax.u32 v3, v3, v5
    ushri u9, u9, 1
    br.unz u9, max_step

    ; --- lane 0 publishes the wave's pair at shared[8 * wave]
    ushli u8, u5, 3
    vmov.u v6, u8
    umovi u10, 1
    exec.and.save u11, u10      ; lane 0 only
    st.shared.b32 v2, v6, 0
    st.shared.b32 v3, v6, 4
    exec.set u11
    wait.ls 0                   ; our stores are done before we signal the barrier
    barrier                     ; every wave's pair is now in shared memory
    br.unz u5, done             ; waves 1..7 are finished

    ; --- wave 0: lane l < 8 loads wave l's pair; the other lanes hold 0 (the identity of
    ; both + and unsigned max), then the same two trees reduce across lanes.
    vmovi v2, 0
    vmovi v3, 0
    unumwaves u8
    vmov.u v7, u8
    vcmp.lt.u32 u10, v0, v7     ; lanes below the wave count
    exec.and.save u11, u10
    vshli v6, v0, 3
    ld.shared.b32 v2, v6, 0
    ld.shared.b32 v3, v6, 4
    wait.ls 0
    exec.set u11
    shfl.down.vi v4, v2, 16
    vadd.u32 v2, v2, v4
    shfl.down.vi v4, v2, 8
    vadd.u32 v2, v2, v4
    shfl.down.vi v4, v2, 4
    vadd.u32 v2, v2, v4
    shfl.down.vi v4, v2, 2
    vadd.u32 v2, v2, v4
    shfl.down.vi v4, v2, 1
    vadd.u32 v2, v2, v4
    shfl.xor.vi v5, v3, 16
    vmax.u32 v3, v3, v5
    shfl.xor.vi v5, v3, 8
    vmax.u32 v3, v3, v5
    shfl.xor.vi v5, v3, 4
    vmax.u32 v3, v3, v5
    shfl.xor.vi v5, v3, 2
    vmax.u32 v3, v3, v5
    shfl.xor.vi v5, v3, 1
    vmax.u32 v3, v3, v5

    ; --- lane 0 writes out[2*wg] = sum, out[2*wg + 1] = max
    ushli u8, u4, 3
    vmov.u v6, u8
    umovi u10, 1
    exec.and.save u11, u10
    st.ubase.b32 v2, u[2:3], v6, 0
    st.ubase.b32 v3, u[2:3], v6, 4
    exec.set u11
    wait.vst 0
done:
    end
