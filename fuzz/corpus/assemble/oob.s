; Reads past the end of a 16-byte buffer: lanes 4-31 touch unallocated memory.
.kernel oob
.buffer b, 16
.init b, u32, 10, 20, 30, 40
.arg u[0:1], b
    vlaneid v0
    vshli v0, v0, 2
    ld.ubase.b32 v1, u[0:1], v0, 0
    wait.vm 0
    end
