.kernel k
.workgroup 32
.buffer out, 128
.arg u[0:1], out
        .file 1 "src/main.cl"
        .file 2 "inc/helper.h"
        umovi u20, 0                    ; before any .loc
        .loc 1 5 14 prologue_end
        vlaneid v0
        .var i, v0
        .loc 1 6 10
        vmovi v1, 0
        .var acc, v1
        .loc 1 7 19
        umovi u7, 0
        .var j, u7
loop:
        .loc 1 8 19
        vadd.u32.u v2, v1, u7
        .loc 2 4 16                     ; inlined twice()
        vadd.u32 v3, v2, v2
        .var r, v3
        .loc 2 5 5
        vmov v1, v3
        .endvar r
        .loc 1 0 0                      ; compiler-generated
        uaddi u7, u7, 1
        .loc 1 7 23 is_stmt 0
        ucmpi.lt.u32 u8, u7, 3
        br.unz u8, loop
        .endvar j
        .loc 1 10 11 is_stmt 1
        vmovi v4, 16
        vcmp.lt.u32 u9, v0, v4
        exec.and.save u10, u9
        br.execz else
        .loc 1 11 13
        vaddi.u32 v1, v1, 100
else:
        .loc 1 12 7
        exec.set u10
        exec.andn.save u10, u9
        br.execz join
        .loc 1 13 13
        vaddi.u32 v1, v1, 200
join:
        .loc 1 10 5                     ; line 10 again, far away (join)
        exec.set u10
        .loc 1 15 14
        vshli v5, v0, 2
        st.ubase.b32 v1, u[0:1], v5, 0
        end
