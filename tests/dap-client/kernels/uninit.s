; Reads a uniform register nothing wrote (the DAP tests' `init` exception filter).
.kernel uninit
    umovi u4, 1
    uadd u6, u4, u5             ; u5 was never written
    end
