.kernel k
.file 1 "src/a.cl"
.file 2 "lib/a.cl"
.loc 1 3
        vmovi v1, 7
.loc 2 3
        vmovi v2, 8
.loc 1 4
        vmovi v2, 9
        end
