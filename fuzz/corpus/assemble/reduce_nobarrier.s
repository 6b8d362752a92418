; BUG (a classic): a shared-memory reduction that is missing a barrier.
;
; Each workgroup of two waves sums its 64 inputs: every lane t stores in[t] to shared[t],
; then wave 0 adds shared[t + 32] to its own element and reduces across its lanes. Wave 0
; reads what wave 1 stored with no barrier between the stores and the reads, so whether
; it sees wave 1's values depends on which wave the scheduler ran first. Round-robin
; (quantum 8) runs wave 0's read before wave 1's store: it adds shared memory nobody
; wrote. Other schedules (`--seed N`) get it right by luck.
;
;   wavedbg check scripts/bugs/reduce_nobarrier.s --seeds 8
;
; finds the race, the uninitialised shared reads of the schedules that read first, and
; the order-dependent result. The fix: `barrier` right after `wait.ls 0`.
.kernel reduce_nobarrier
.workgroup 64
.grid 2
.shared 256
.buffer in, 512
.iota in, u32, 128, 1
.buffer out, 8
.arg u[0:1], in
.arg u[2:3], out

    uwgid u4
    uwaveid u5
    vlaneid v0
    ushli u6, u5, 5             ; 32 * wave
    vadd.u32.u v1, v0, u6       ; t: the lane's index in the workgroup
    vshli v2, v1, 2             ; 4t: its shared offset
    ushli u7, u4, 8             ; 256 bytes of input per workgroup
    vadd.u32.u v3, v2, u7
    ld.ubase.b32 v4, u[0:1], v3, 0
    wait.vm 0
    st.shared.b32 v4, v2, 0     ; shared[t] = in[t]
    wait.ls 0
                                ; BUG: no barrier here
    br.unz u5, done             ; wave 0 finishes the sum
    ld.shared.b32 v5, v2, 128   ; shared[t + 32], stored by wave 1
    wait.ls 0
    vadd.u32 v4, v4, v5
    xred.add.u32 u8, v4
    ushli u9, u4, 2
    vmov.u v6, u9
    vmov.u v7, u8
    umovi u10, 1
    exec.and.save u11, u10      ; lane 0 stores the workgroup's sum
    st.ubase.b32 v7, u[2:3], v6, 0
    exec.set u11
    wait.vst 0
done:
    end
