; Wave-specialised pipeline: wave 0 (producer) loads 4 tiles into a shared ring of 2;
; wave 1 (consumer) sums them. Each role has its own barrier sites (counts match). Correct.
.kernel wavespec
.workgroup 64
.shared 256
.buffer in, 512
.iota in, u32, 128, 1
.buffer out, 128
.arg u[0:1], in
.arg u[2:3], out
    uwaveid u5
    vlaneid v0
    vshli v1, v0, 2
    umovi u6, 0                 ; tile k
    br.unz u5, consumer
producer:
    ushli u7, u6, 7
    vadd.u32.u v2, v1, u7
    ld.ubase.b32 v3, u[0:1], v2, 0
    uandi u8, u6, 1
    ushli u8, u8, 7
    vadd.u32.u v4, v1, u8
    wait.vm 0
    st.shared.b32 v3, v4, 0
    wait.ls 0
    barrier                     ; tile k ready
    barrier                     ; tile k consumed
    uaddi u6, u6, 1
    ucmpi.lt.u32 u9, u6, 4
    br.unz u9, producer
    end
consumer:
    vmovi v10, 0
cloop:
    barrier                     ; tile k ready
    uandi u8, u6, 1
    ushli u8, u8, 7
    vadd.u32.u v4, v1, u8
    ld.shared.b32 v5, v4, 0
    wait.ls 0
    vadd.u32 v10, v10, v5
    barrier                     ; tile k consumed
    uaddi u6, u6, 1
    ucmpi.lt.u32 u9, u6, 4
    br.unz u9, cloop
    st.ubase.b32 v10, u[2:3], v1, 0
    wait.vst 0
    end
