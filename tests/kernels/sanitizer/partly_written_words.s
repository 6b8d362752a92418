; Writes one byte of each word, reads the whole word (3 bytes uninitialised, BUG).
.kernel partialbyte
.shared 128
    vlaneid v0
    vshli v1, v0, 2
    st.shared.b8 v0, v1, 0
    wait.ls 0
    ld.shared.b32 v2, v1, 0
    wait.ls 0
    end
