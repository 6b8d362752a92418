// helper.h
static inline uint twice(uint x)
{
    uint r = x + x;
    return r;
}
