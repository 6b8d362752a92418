kernel void k()
{
    int a = 1;
    int b = a + 2;
    out[lane] = b;
}
