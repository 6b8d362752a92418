; Spin on a flag nobody sets (wg 1 waits for wg 0 which never writes).
.kernel forever
.grid 2
.buffer flag, 4
.arg u[0:1], flag
    vmovi v7, 0
spin:
    vmovi v5, 0
    atom.ubase.add.u32.rtn v5, u[0:1], v7, 0
    wait.vm 0
    readfirst u16, v5
    br.uz u16, spin
    end
