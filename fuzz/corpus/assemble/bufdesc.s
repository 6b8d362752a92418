; Buffer descriptors and their bounds checks.
;
; A buffer descriptor is four uniform registers: base address (low, high), size in bytes,
; flags (bit 0: valid). ld.buf/st.buf/atom.buf address DESC.base + vaddr + imm and check
; the whole access against [0, DESC.size):
;   - a load that is out of bounds (or only partly in bounds, or at a negative offset)
;     reads 0 instead of faulting;
;   - a store or atomic that is out of bounds is dropped (memory is unchanged);
;   - a null descriptor (flags bit 0 clear, or base 0) makes every access out of bounds.
; All 32 lanes run every access below; the lanes past the end are simply masked by the
; hardware check, which is how real kernels handle ragged tails without branches.
;
; Each of the two workgroups (one wave each) records what its lanes read in its own
; 768-byte slice of `probe` (6 rows of 32 u32, row r at byte 128 * r):
;   row 0  ld.buf.b32  src, offset 4l         lanes 0..24 read src[l], 25..31 read 0
;   row 1  ld.buf.b64  src, offset 4l (low)   lanes 0..23 read src[l]; lane 24's 8 bytes
;   row 2              (high word)            straddle the end: the whole access reads 0
;   row 3  ld.buf.b32  src, offset 4l - 8     lanes 0, 1 are at a negative offset: 0
;   row 4  ld.buf.b32  through a descriptor narrowed to 40 bytes: lanes 0..9 only
;   row 5  ld.buf.b32  through a null descriptor (flags 0): all 0
; and then
;   - workgroup 0 only: st.buf.b32 3 * src[l] to dst (16 words): lanes 16..31 are
;     dropped (both workgroups storing to dst would race, even with equal values);
;   - both: atom.buf.add.u32 l + 1 to cnt[l / 4] (4 words): lanes 16..31 are dropped;
;   - both: st.buf.b32 through the null descriptor: every lane dropped.
;
; Registers:
;   u[0:1] probe address, u[4:7] src descriptor, u[8:11] dst descriptor,
;   u[12:15] cnt descriptor (arguments); u16 workgroup id, u17 probe slice offset,
;   u[20:23] narrowed src descriptor, u[24:27] null descriptor
;   v0 lane id, v1 4 * lane, v2 row 0, v[3:4] rows 1-2, v5 row 3, v6 row 4, v7 row 5,
;   v8 data stored to dst, v9 cnt offset, v10 probe offset, v11 atomic operand
.kernel bufdesc
.workgroup 32
.grid 2
.buffer src, 100
.iota src, u32, 25, 100, 1      ; src[i] = 100 + i, 25 words
.buffer dst, 64
.buffer cnt, 16
.buffer probe, 1536
.arg u[0:1], probe
.arg u[4:7], desc src
.arg u[8:11], desc dst
.arg u[12:15], desc cnt

    uwgid u16
    umuli u17, u16, 768
    vlaneid v0
    vshli v1, v0, 2
    vadd.u32.u v10, v1, u17

    ld.buf.b32 v2, u[4:7], v1, 0         ; row 0
    ld.buf.b64 v[3:4], u[4:7], v1, 0     ; rows 1, 2
    ld.buf.b32 v5, u[4:7], v1, -8        ; row 3
    umov u20, u4                         ; same base ...
    umov u21, u5
    umovi u22, 40                        ; ... but only 40 bytes
    umov u23, u7                         ; valid
    ld.buf.b32 v6, u[20:23], v1, 0       ; row 4
    umov u24, u4
    umov u25, u5
    umov u26, u6
    umovi u27, 0                         ; flags 0: a null descriptor
    ld.buf.b32 v7, u[24:27], v1, 0       ; row 5
    wait.vm 0

    st.ubase.b32 v2, u[0:1], v10, 0
    st.ubase.b32 v3, u[0:1], v10, 128
    st.ubase.b32 v4, u[0:1], v10, 256
    st.ubase.b32 v5, u[0:1], v10, 384
    st.ubase.b32 v6, u[0:1], v10, 512
    st.ubase.b32 v7, u[0:1], v10, 640

    vmuli.u32 v8, v2, 3
    br.unz u16, dst_done                 ; one workgroup writes dst
    st.buf.b32 v8, u[8:11], v1, 0        ; dst is 64 bytes: lanes 16..31 dropped
dst_done:
    vshri v9, v0, 2
    vshli v9, v9, 2                      ; 4 * (lane / 4)
    vaddi.u32 v11, v0, 1
    atom.buf.add.u32 v11, u[12:15], v9, 0 ; cnt is 16 bytes: lanes 16..31 dropped
    st.buf.b32 v8, u[24:27], v1, 0       ; null descriptor: nothing is written
    wait.vst 0
    end
