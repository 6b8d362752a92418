.kernel race
.workgroup 64
.grid 1
.shared 64
    uwaveid u0
    vmovi v1, 0
    vmovi v2, 7
    br.uz u0, reader
    st.shared.b32 v2, v1, 0
    wait.ls 0
    end
reader:
    ld.shared.b32 v3, v1, 0
    wait.ls 0
    end
