/* The bytes of one section of an ELF64 image (a cubin): what the tests
 * that compare an NVRTC build's kernel with the hand cubin's entry
 * (test_gemm_tma_rows, test_attn_fwd_tma_rows) read.  Only included,
 * never built alone. */
#ifndef ELF_SUPPORT_H
#define ELF_SUPPORT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The bytes of section `name` in an ELF64 image; NULL when absent. */
static inline const unsigned char *elf_section(const void *img, size_t len, const char *name,
                                               size_t *size)
{
    const unsigned char *b = img;
    uint64_t shoff;
    uint16_t entsize, num, strndx;
    if (len < 64)
        return NULL;
    memcpy(&shoff, b + 0x28, 8), memcpy(&entsize, b + 0x3a, 2);
    memcpy(&num, b + 0x3c, 2), memcpy(&strndx, b + 0x3e, 2);
    if (shoff + (uint64_t)num * entsize > len || strndx >= num)
        return NULL;
    uint64_t stroff;
    memcpy(&stroff, b + shoff + (size_t)strndx * entsize + 0x18, 8);
    for (int i = 0; i < num; i++) {
        const unsigned char *h = b + shoff + (size_t)i * entsize;
        uint32_t nm;
        uint64_t off, sz;
        memcpy(&nm, h, 4), memcpy(&off, h + 0x18, 8), memcpy(&sz, h + 0x20, 8);
        if (stroff + nm < len && !strcmp((const char *)b + stroff + nm, name) && off + sz <= len) {
            *size = (size_t)sz;
            return b + off;
        }
    }
    return NULL;
}

#endif
