; BUG (a classic): a shared-memory histogram with a non-atomic increment.
;
; Each workgroup (two waves) counts the low 4 bits of its 64 input words into 16 bins in
; shared memory, then adds its bins to `out` with global atomics. The increment is a
; plain load, add and store: two waves that bump the same bin race (one update is
; lost), and so do lanes of one wave that hit the same bin (they all store the same
; count + 1).
;
;   wavedbg check scripts/bugs/histogram_race.s --seeds 4
;
; finds the race between the waves' read-modify-writes. The fix: replace the ld/add/st
; with `atom.shared.add.u32 v7, v6, 0` (v7 = 1), as scripts/histogram.s does.
.kernel histogram_race
.workgroup 64
.grid 2
.shared 64                      ; 16 bins x u32
.buffer in, 512
; in[i] = 7 * i + 3 (mod 2^32): the low 4 bits visit every bin
.iota in, u32, 128, 3, 7
.buffer out, 64
.arg u[0:1], in
.arg u[2:3], out

    uwgid u4
    uwaveid u5
    vlaneid v0
    ushli u6, u5, 5
    vadd.u32.u v1, v0, u6       ; t
    vshli v2, v1, 2             ; 4t
    vmovi v8, 0
    ; 1. wave 0's lanes 0-15 clear the bins
    umovi u10, 0xffff
    exec.and.save u11, u10
    br.unz u5, cleared
    st.shared.b32 v8, v2, 0
cleared:
    exec.set u11
    wait.ls 0
    barrier
    ; 2. count: bin = in[t] & 15
    ushli u7, u4, 8
    vadd.u32.u v3, v2, u7
    ld.ubase.b32 v4, u[0:1], v3, 0
    wait.vm 0
    vandi v5, v4, 15
    vshli v6, v5, 2             ; the bin's shared offset
    ld.shared.b32 v7, v6, 0
    wait.ls 0
    vaddi.u32 v7, v7, 1
    st.shared.b32 v7, v6, 0     ; BUG: not atomic
    wait.ls 0
    barrier
    ; 3. wave 0's lanes 0-15 add the bins to out
    br.unz u5, done
    exec.and.save u11, u10
    ld.shared.b32 v9, v2, 0
    wait.ls 0
    atom.ubase.add.u32 v9, u[2:3], v2, 0
    exec.set u11
    wait.vst 0
done:
    end
