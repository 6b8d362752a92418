; A kernel whose source file's path has a space: locations quote it as gdb's do
; (`break 'sub dir/x.cl':4`, `"sub dir/x.cl":4`), and sessions keep the quotes.
.kernel k
.workgroup 32
.grid 1
.buffer out, 128
.arg u[0:1], out
        .file 1 "sub dir/x.cl"
        .loc 1 1 0
        vlaneid v0
        .loc 1 3 5 prologue_end
        vmovi v1, 1
        .loc 1 4 5
        vadd.u32 v2, v1, v1
        .loc 1 5 5
        vshli v3, v0, 2
        st.ubase.b32 v2, u[0:1], v3, 0
        .loc 1 6 1
        end
