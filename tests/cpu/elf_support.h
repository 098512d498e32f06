/* The bytes of one section of an ELF64 image (a cubin): what the tests
 * that compare an NVRTC build's kernel with the hand cubin's entry
 * (test_gemm_tma_rows, test_attn_fwd_tma_rows) read, and a kernel's
 * stack frame (test_gemm_tma_rows: the staged rows keep none).  Only included,
 * never built alone. */
#ifndef ELF_SUPPORT_H
#define ELF_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gdt_util.h"

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

/* Whether section `text` of the NVRTC build (cubin, len; NULL: none) is
 * section `entry` of the embedded hand cubin, byte for byte; what is
 * missing or differs is printed, naming `what`. */
static inline bool elf_same_text(const void *cubin, size_t len, const char *text,
                                 const gdt_embedded *hand, const char *entry, const char *what)
{
    size_t na = 0, nb = 0;
    const unsigned char *a = cubin ? elf_section(cubin, len, text, &na) : NULL;
    const unsigned char *b = elf_section(hand->data, hand->len, entry, &nb);
    if (!a || !b) {
        fprintf(stderr, "%s: no section %s\n", what, a ? entry : text);
        return false;
    }
    if (na == nb && !memcmp(a, b, na))
        return true;
    fprintf(stderr, "%s: %s (%zu bytes) differs from %s (%zu bytes)\n", what, text, na, entry, nb);
    return false;
}

/* The largest EIATTR_FRAME_SIZE of a cubin's .nv.info (a kernel's stack
 * frame in local memory, bytes: spills, or an array indexed at run time;
 * ptxas -v's "bytes stack frame"); -1 when the cubin records none.  The
 * section is a run of entries: format, attribute, a 16-bit size, and for
 * format 4 (EIFMT_SVAL) that many bytes, here a symbol and a value. */
static inline long elf_frame_size(const void *cubin, size_t len)
{
    enum { EIFMT_SVAL = 4, EIATTR_FRAME_SIZE = 0x11 };
    size_t n = 0;
    const unsigned char *s = cubin ? elf_section(cubin, len, ".nv.info", &n) : NULL;
    long most = -1;
    for (size_t i = 0; s && i + 4 <= n;) {
        uint16_t size;
        memcpy(&size, s + i + 2, 2);
        if (s[i] != EIFMT_SVAL) {
            i += 4;
            continue;
        }
        if (s[i + 1] == EIATTR_FRAME_SIZE && size == 8 && i + 12 <= n) {
            uint32_t v;
            memcpy(&v, s + i + 8, 4);
            most = (long)v > most ? (long)v : most;
        }
        i += 4 + (size_t)size;
    }
    return most;
}

#endif
