; Misaligned shared load in every wave (address = lane id, not 4*lane).
.kernel manyfault
.workgroup 1024
.grid 200
.shared 4096
    vlaneid v0
    ld.shared.b32 v2, v0, 0
    wait.ls 0
    end
