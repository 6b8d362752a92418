// main.cl: a kernel with an inlined helper and a divergent branch.
#include "helper.h"
kernel void k(global uint *out)
{
    uint i = lane_id();
    uint acc = 0;
    for (uint j = 0; j < 3; j++) {
        acc = twice(acc + j);
    }
    if (i < 16) {
        acc = acc + 100;
    } else {
        acc = acc + 200;
    }
    out[i] = acc;
}
