; A barrier in divergent code (the DAP tests' `sync` exception filter): the odd lanes
; skip it and come back at exec.set, to work with the others.
.kernel divergent_barrier
    vlaneid v0
    vmovi v8, 0
    vandi v9, v0, 1
    vcmp.ne.b32 u12, v9, v8     ; odd lanes
    exec.and.save u13, u12
    barrier                     ; only the odd lanes are here
    exec.set u13                ; the even lanes come back: they skipped the barrier
    vadd.u32 v1, v0, v0         ; and work with the odd ones
    end
