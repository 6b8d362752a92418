// reduce_tiled: each workgroup sums its 64 inputs into out[group_id()] through a tile
// in shared memory: every lane stores one input, then a tree halves the stride.
// A C-like kernel language; scripts/reduce_tiled_src.s is what its compiler emits.
kernel void reduce_tiled(global const uint *in, global uint *out)
{
    local uint tile[64];
    uint lid = local_id();
    uint i = group_id() * group_size() + lid;
    tile[lid] = in[i];
    barrier();
    for (uint stride = group_size() / 2; stride > 0; stride /= 2) {
        if (lid < stride)
            tile[lid] += tile[lid + stride];
        barrier();
    }
    if (lid == 0)
        out[group_id()] = tile[0];
}
