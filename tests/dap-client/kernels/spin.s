; Spins for ever (the DAP tests' `pause`): u4 counts the turns.
.kernel spin
.grid 1
    umovi u4, 0
spin:
    uaddi u4, u4, 1
    br spin
    end
