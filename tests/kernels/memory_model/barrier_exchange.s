; Two waves swap 32 words through shared memory: each stores its values, retires the
; store (wait.ls 0), meets the other at the barrier, and reads the other wave's words.
; barrier_exchange_no_wait.s leaves out the wait: the barrier then orders nothing.
.kernel barrier_exchange
.workgroup 64
.grid 1
.shared 256
.buffer out, 256
.arg u[2:3], out
    uwaveid u0
    vlaneid v0
    vshli v1, v0, 2            ; v1 = lane * 4
    ushli u1, u0, 7            ; u1 = wave * 128: this wave's words
    vadd.u32.u v2, v1, u1
    vadd.u32.u v3, v0, u1      ; the value: wave * 128 + lane
publish:
    st.shared.b32 v3, v2, 0
    wait.ls 0
sync:
    barrier
    uxori u4, u0, 1            ; the other wave
    ushli u4, u4, 7
    vadd.u32.u v4, v1, u4
read:
    ld.shared.b32 v5, v4, 0
    wait.ls 0
    st.ubase.b32 v5, u[2:3], v2, 0
    wait.vst 0
    end
