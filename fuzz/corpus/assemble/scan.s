; Inclusive prefix sum over each workgroup of 256 lanes (8 waves):
;   out[base + t] = in[base] + in[base + 1] + ... + in[base + t]   (wrapping u32)
; where base = 256 * workgroup and t = 32 * wave + lane. Two workgroups scan their own
; 256-element blocks independently.
;
; Method: xscan.add.u32 gives each wave its own inclusive scan; lane 31 then holds the
; wave's total, which goes to shared[4 * wave]. After a barrier every wave adds the totals
; of the waves before it: lanes l < wave load shared[4 * l] and an xred.add.u32 under that
; EXEC sums them into a uniform register (0 for wave 0, whose EXEC is empty there).
;
; Registers:
;   u[0:1] in, u[2:3] out (arguments)
;   u4 workgroup id, u5 wave index, u6 byte offset of the wave's first element,
;   u7 scratch, u8 wave total, u9 mask, u10 saved EXEC, u11 sum of preceding totals
;   v0 lane id, v1 byte offset of the lane's element, v2 input, v3 scan, v4 wave total,
;   v5 shared address, v6 wave index, v7 preceding wave totals
.kernel scan
.workgroup 256
.grid 2
.shared 32                      ; one u32 total per wave
.buffer in, 2048
.iota in, u32, 512, 1, 3        ; in[i] = 1 + 3 * i
.buffer out, 2048
.arg u[0:1], in
.arg u[2:3], out

    uwgid u4
    uwaveid u5
    uwgsize u6
    umul u6, u6, u4             ; first element of the workgroup
    ushli u7, u5, 5
    uadd u6, u6, u7             ; + 32 * wave
    ushli u6, u6, 2             ; -> byte offset
    vlaneid v0
    vshli v1, v0, 2
    vadd.u32.u v1, v1, u6
    ld.ubase.b32 v2, u[0:1], v1, 0
    wait.vm 0

    xscan.add.u32 v3, v2        ; inclusive scan within the wave
    readlane u8, v3, 31         ; the wave's total

    ; lane 0 stores the total at shared[4 * wave]
    ushli u7, u5, 2
    vmov.u v5, u7
    vmov.u v4, u8
    umovi u9, 1
    exec.and.save u10, u9
    st.shared.b32 v4, v5, 0
    exec.set u10
    wait.ls 0
    barrier                     ; all eight totals are in shared memory

    ; lanes l < wave read the totals of the preceding waves
    vmov.u v6, u5
    vcmp.lt.u32 u9, v0, v6
    exec.and.save u10, u9
    vshli v5, v0, 2
    ld.shared.b32 v7, v5, 0
    wait.ls 0
    xred.add.u32 u11, v7        ; the sum of the preceding totals (0 when EXEC is empty)
    exec.set u10

    vadd.u32.u v3, v3, u11
    st.ubase.b32 v3, u[2:3], v1, 0
    wait.vst 0
    end
