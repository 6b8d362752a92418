; Wave 0 stores X (one instruction, twice: a loop with a barrier in it), never waiting
; before the barriers; wave 1 runs the same barriers. After the loop wave 0 retires
; only the first store (wait.vst 1) and releases through an atomic on flag; wave 1
; acquires (atomic, cache.inv.l1, wait.vm 0) and writes X. The second store was
; retired neither before a barrier nor before the release: a race across the second
; barrier (docs/memory.md). The two stores are one instruction on the same bytes, but
; the release orders only the first: the sanitizer must not take one for the other.
.kernel late_store_released_once
.workgroup 64
.grid 1
.buffer data, 128
.buffer flag, 4
.buffer other, 128
.arg u[0:1], data
.arg u[2:3], flag
.arg u[10:11], other
    uwaveid u6
    vlaneid v0
    vshli v1, v0, 2
    vmovi v5, 0
    umovi u5, 2
loop:
    br.unz u6, nostore
storeA:
    st.ubase.b32 v0, u[0:1], v1, 0
nostore:
    barrier
    uaddi u5, u5, -1
    br.unz u5, loop
    br.unz u6, consumer
    wait.vst 1
    vmovi v3, 1
raise:
    atom.ubase.xchg.b32 v3, u[2:3], v5, 0
    wait.vst 0
    end
consumer:
    vmovi v6, 1
spin:
    vmovi v4, 0
poll:
    atom.ubase.add.u32.rtn v4, u[2:3], v5, 0
    wait.vm 0
    vcmp.eq.b32 u8, v4, v6
    br.uz u8, spin
    cache.inv.l1
    wait.vm 0
storeB:
    st.ubase.b32 v0, u[0:1], v1, 0
    wait.vst 0
    end
