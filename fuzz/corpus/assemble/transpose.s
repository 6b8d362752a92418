; Matrix transpose of a 64x64 u32 matrix (row-major): out[c][r] = in[r][c].
;
; The matrix is cut into 2x2 tiles of 32x32; workgroup g handles tile (ty, tx) =
; (g / 2, g % 2). Its 8 waves each move 4 rows of the tile, lane = column, so global reads
; and writes are both row-contiguous (coalesced):
;   1. wave w, rows i = 4w .. 4w+3: tile[i][lane] = in[32*ty + i][32*tx + lane],
;      stored at shared[(33 * i + lane) * 4] (rows padded to 33 words so a column read
;      does not hit one bank 32 times);
;   2. barrier;
;   3. same rows i: out[32*tx + i][32*ty + lane] = tile[lane][i], read from
;      shared[(33 * lane + i) * 4].
;
; Registers:
;   u[0:1] in, u[2:3] out (arguments)
;   u4 workgroup id, u5 wave index, u6 tx, u7 ty, u8 row i, u9 rows left,
;   u10 u11 u12 scratch offsets, u13 first row saved for phase 3
;   v0 lane id, v1 lane * 4, v2 lane * 132, v3 global byte offset, v4 element,
;   v5 shared byte offset
.kernel transpose
.workgroup 256
.grid 4
.shared 4224                    ; 32 rows x 33 words x 4 bytes
.buffer in, 16384
.iota in, u32, 4096, 1000, 1    ; in[r][c] = 1000 + 64 * r + c
.buffer out, 16384
.arg u[0:1], in
.arg u[2:3], out

    uwgid u4
    uwaveid u5
    uandi u6, u4, 1             ; tx
    ushri u7, u4, 1             ; ty
    vlaneid v0
    vshli v1, v0, 2             ; lane * 4
    vmuli.u32 v2, v0, 132       ; lane * 33 * 4
    ushli u13, u5, 2            ; first row of this wave: 4 * wave

    ; --- 1. load 4 rows of the tile into shared memory
    umov u8, u13
    umovi u9, 4
load_row:
    ushli u10, u7, 5
    uadd u10, u10, u8           ; global row 32*ty + i
    ushli u10, u10, 6           ; * 64 columns
    ushli u11, u6, 5
    uadd u10, u10, u11          ; + 32*tx
    ushli u10, u10, 2           ; -> bytes
    vadd.u32.u v3, v1, u10
    ld.ubase.b32 v4, u[0:1], v3, 0
    umuli u12, u8, 132          ; row i of the padded tile, in bytes
    vadd.u32.u v5, v1, u12
    wait.vm 0
    st.shared.b32 v4, v5, 0
    wait.ls 0                   ; the next row reloads v4: the store must have read it
    uaddi u8, u8, 1
    uaddi u9, u9, -1
    br.unz u9, load_row

    wait.ls 0
    barrier                     ; the whole tile is in shared memory

    ; --- 3. write 4 rows of the transposed tile
    umov u8, u13
    umovi u9, 4
store_row:
    ushli u12, u8, 2            ; column i of the tile, in bytes
    vadd.u32.u v5, v2, u12      ; tile[lane][i]
    ld.shared.b32 v4, v5, 0
    ushli u10, u6, 5
    uadd u10, u10, u8           ; output row 32*tx + i
    ushli u10, u10, 6
    ushli u11, u7, 5
    uadd u10, u10, u11          ; + 32*ty
    ushli u10, u10, 2
    vadd.u32.u v3, v1, u10
    wait.ls 0
    st.ubase.b32 v4, u[2:3], v3, 0
    wait.vst 0                  ; the next row reloads v4: the store must have read it
    uaddi u8, u8, 1
    uaddi u9, u9, -1
    br.unz u9, store_row
    wait.vst 0
    end
