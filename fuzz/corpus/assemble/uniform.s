; Uniform loads from a constant buffer: values every lane needs are loaded once per wave
; into uniform registers (uld ignores EXEC and takes the scalar path), then used by the
; vector math of all 32 lanes.
;
; consts (64 bytes):
;   0  f32 scale = 2.5          \
;   4  f32 bias  = -1.0          | uld.b128 u[12:15]
;   8  u32 shift = 3             |
;   12 u32 mask  = 0x3ff        /
;   16 table: 4 pairs (mul, add), one per workgroup: uld.x.b64 with index 8 * wg
;   48 u32 a = 1000, 52 u32 b = 2000: uld.buf.b64 through a descriptor
;   56 u32 c = 777: uld.b32
;   60 u32 clamp = 10000: uld.buf.b64 at 60 reads (clamp, 0): buffer loads check each dword,
;      and the dword at 64 is past the end of the 64-byte buffer, so it reads 0
;
; For x = in[gid] (gid = 64 * wg + 32 * wave + lane):
;   outf[gid] = fma(f32(x), scale, bias)
;   outi[gid] = min(((x << shift) & mask) * mul + add + a + b + c, clamp + 0)
;
; Registers:
;   u[0:1] consts, u[2:3] in, u[4:7] consts descriptor, u[8:9] outf, u[10:11] outi
;   (arguments); u[12:15] scale, bias, shift, mask; u[16:17] mul, add; u[18:19] a, b;
;   u20 workgroup id, u21 table offset, u[22:23] clamp and the out-of-bounds dword,
;   u24 c, u25 u26 scratch
;   v0 lane id, v1 gid, v2 byte offset, v3 x, v4 f32(x), v5 scale, v6 bias, v7 outf,
;   v8 integer path, v9 clamp
.kernel uniform
.workgroup 64
.grid 4
.buffer consts, 64
.init consts, f32, 2.5, -1.0
.init consts, u32, 3, 0x3ff
.init consts, u32, 3, 7, 5, 11, 7, 13, 9, 17
.init consts, u32, 1000, 2000, 777, 10000
.buffer in, 1024
.iota in, u32, 256, 0, 1        ; x = gid
.buffer outf, 1024
.buffer outi, 1024
.arg u[0:1], consts
.arg u[2:3], in
.arg u[4:7], desc consts
.arg u[8:9], outf
.arg u[10:11], outi

    uwgid u20
    ushli u21, u20, 3                   ; 8 bytes per table pair
    uld.b128 u[12:15], u[0:1], 0        ; scale, bias, shift, mask
    uld.x.b64 u[16:17], u[0:1], u21, 16 ; table[wg]: mul, add
    uld.buf.b64 u[18:19], u[4:7], 48    ; a, b
    uld.b32 u24, u[0:1], 56             ; c
    uld.buf.b64 u[22:23], u[4:7], 60    ; clamp, and 0 for the dword past the end

    uwaveid u25
    uwgsize u26
    umul u26, u26, u20
    ushli u25, u25, 5
    uadd u26, u26, u25
    vlaneid v0
    vadd.u32.u v1, v0, u26              ; gid
    vshli v2, v1, 2
    ld.ubase.b32 v3, u[2:3], v2, 0
    wait.sm 0                           ; the constants are needed from here on
    wait.vm 0

    ; float path: fma(f32(x), scale, bias)
    vcvt.f32.u32 v4, v3
    vmov.u v5, u12
    vmov.u v6, u13
    vfma.f32 v7, v4, v5, v6
    st.ubase.b32 v7, u[8:9], v2, 0

    ; integer path
    vshl.u v8, v3, u14
    vand.u v8, v8, u15
    vmul.u32.u v8, v8, u16
    vadd.u32.u v8, v8, u17
    uadd u25, u18, u19
    uadd u25, u25, u24                  ; a + b + c, folded once per wave
    vadd.u32.u v8, v8, u25
    uadd u26, u22, u23                  ; clamp + 0
    vmov.u v9, u26
    vmin.u32 v8, v8, v9
    st.ubase.b32 v8, u[10:11], v2, 0
    wait.vst 0
    end
