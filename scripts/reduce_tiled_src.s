; A tiled reduction as a compiler emits it from scripts/src/reduce_tiled.cl: each
; workgroup of 64 lanes (2 waves) stores its inputs into a shared-memory tile, waits at a
; barrier, then sums the tile with a tree of halving strides (a barrier after each step),
; and lane 0 writes the total to out[workgroup]. `.file`/`.loc` give each instruction's
; .cl line, `.var` where the variables live: vector (lid, i), uniform (stride) and shared
; memory (tile, by its first element, which ends up holding the total).
;
; Line 11 (the `for`) is three stretches of code: the initial stride before the loop,
; `stride /= 2` and the `stride > 0` test after the body.
.kernel reduce_tiled
.workgroup 64
.grid 4
.shared 256                     ; tile: 64 words
.buffer in, 1024
.iota in, u32, 256, 1, 3        ; in[i] = 1 + 3 * i
.buffer out, 16
.arg u[0:1], in
.arg u[2:3], out

        .file 1 "src/reduce_tiled.cl"
        .var tile, shared:0
        .loc 1 4 0                      ; kernel void reduce_tiled(...)
        uwgid u4                        ; prologue: the wave's place in the grid
        uwaveid u5
        uwgsize u6
        .loc 1 7 16 prologue_end        ; lid = local_id()
        ushli u8, u5, 5
        vlaneid v0
        vadd.u32.u v0, v0, u8
        .var lid, v0
        .loc 1 8 14                     ; i = group_id() * group_size() + lid
        umul u9, u4, u6
        vadd.u32.u v1, v0, u9
        .var i, v1
        .loc 1 9 17                     ; in[i]
        vshli v2, v1, 2
        ld.ubase.b32 v3, u[0:1], v2, 0
        .loc 1 9 15                     ; tile[lid] = ...
        vshli v4, v0, 2
        wait.vm 0
        st.shared.b32 v3, v4, 0
        .loc 1 10 5                     ; barrier()
        wait.ls 0
        barrier
        .loc 1 11 24                    ; stride = group_size() / 2
        ushri u7, u6, 1
        .var stride, u7
tree:
        .loc 1 12 13                    ; if (lid < stride)
        vmov.u v5, u7
        vcmp.lt.u32 u10, v0, v5
        exec.and.save u11, u10
        br.execz skip
        .loc 1 13 24                    ; tile[lid + stride]
        ushli u12, u7, 2
        vadd.u32.u v6, v4, u12
        ld.shared.b32 v7, v6, 0
        .loc 1 13 22                    ; tile[lid] += ...
        ld.shared.b32 v8, v4, 0
        wait.ls 0
        vadd.u32 v8, v8, v7
        st.shared.b32 v8, v4, 0
skip:
        .loc 1 14 9                     ; barrier()
        exec.set u11
        wait.ls 0
        barrier
        .loc 1 11 59                    ; stride /= 2
        ushri u7, u7, 1
        .loc 1 11 49 is_stmt 0          ; stride > 0: part of the step, not a statement
        br.unz u7, tree
        .endvar stride
        .loc 1 16 13 is_stmt 1          ; if (lid == 0)
        umovi u13, 0
        vmov.u v5, u13
        vcmp.eq.b32 u10, v0, v5
        exec.and.save u11, u10
        br.execz done
        .loc 1 17 27                    ; tile[0]
        ld.shared.b32 v9, v5, 0
        .loc 1 17 25                    ; out[group_id()] = ...
        ushli u12, u4, 2
        vmov.u v6, u12
        wait.ls 0
        st.ubase.b32 v9, u[2:3], v6, 0
done:
        .loc 1 18 1                     ; }
        exec.set u11
        end
