; saxpy as a compiler emits it from scripts/src/saxpy.cl: `.file` names the kernel-language
; source, `.loc` gives each instruction's line (and column), `.var` says where a source
; variable lives. The debugger shows and steps by the .cl lines (docs/source-level.md).
;
; Line 6-7 (`uint i = ...`) is spread over non-contiguous instructions: the compiler
; hoists the load of `a` (line 4's parameter) between its halves, with `is_stmt 0` so a
; breakpoint on the line does not land in the middle of it.
.kernel saxpy
.workgroup 64
.grid 2
.buffer x, 512
.iota x, f32, 128, 0, 1         ; x[i] = i
.buffer y, 512
.fill y, f32, 1.0, 128          ; y[i] = 1
.arg u[0:1], x
.arg u[2:3], y
.arg u4, 2.0                    ; a
.arg u5, 100                    ; n: lanes 100..127 are out of range

        .file 1 "src/saxpy.cl"
        .var a, u4, f32
        .var n, u5
        .loc 1 4 0                      ; kernel void saxpy(...)
        uwgid u6                        ; prologue: the wave's place in the grid
        uwaveid u7
        .loc 1 6 14 prologue_end        ; i = group_id() * group_size()
        uwgsize u8
        umul u6, u6, u8
        .loc 1 4 0 is_stmt 0            ; a, hoisted: broadcast to every lane
        vmov.u v3, u4
        .loc 1 7 14 is_stmt 1           ; + lane_id()
        ushli u7, u7, 5
        uadd u6, u6, u7
        vlaneid v0
        .loc 1 6 10                     ; i = ...
        vadd.u32.u v0, v0, u6
        .var i, v0
        .loc 1 8 11                     ; if (i < n)
        vmov.u v1, u5
        vcmp.lt.u32 u9, v0, v1
        exec.and.save u10, u9
        br.execz join
        .loc 1 9 20                     ; float xi = x[i];
        vshli v2, v0, 2
        ld.ubase.b32 v4, u[0:1], v2, 0
        .var xi, v4, f32
        .loc 1 10 20                    ; float yi = y[i];
        ld.ubase.b32 v5, u[2:3], v2, 0
        wait.vm 0
        .var yi, v5, f32
        .loc 1 11 16                    ; y[i] = a * xi + yi;
        vfma.f32 v6, v3, v4, v5
        .loc 1 11 14
        st.ubase.b32 v6, u[2:3], v2, 0
        .endvar xi
        .endvar yi
join:
        .loc 1 13 1                     ; }
        exec.set u10
        end
