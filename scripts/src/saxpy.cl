// saxpy: y[i] = a * x[i] + y[i] for the first n elements.
// A C-like kernel language; scripts/saxpy_src.s is what its compiler emits.
kernel void saxpy(float a, global const float *x,
                  global float *y, uint n)
{
    uint i = group_id() * group_size()
           + lane_id();
    if (i < n) {
        float xi = x[i];
        float yi = y[i];
        y[i] = a * xi + yi;
    }
}
