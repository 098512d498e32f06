/* Names from tables, journals and paths on their way to a terminal, a log
 * or markdown (gdt_util.h): a control character in a device or plan name
 * would move the cursor, ring the bell or start a new row there.  Loaders
 * refuse such names; what is printed is escaped all the same. */
#include <stdio.h>
#include <string.h>

#include "gdt_util.h"

int gdt_text_control_at(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    if (!u || !*u) return 0;
    if (u[0] < 0x20 || u[0] == 0x7f) return 1;
    /* U+0080..U+009F (C1: CSI is U+009B) in UTF-8 */
    if (u[0] == 0xc2 && u[1] >= 0x80 && u[1] <= 0x9f) return 2;
    return 0;
}

long gdt_text_control_find(const char *s)
{
    for (const char *p = s; p && *p; p++)
        if (gdt_text_control_at(p)) return (long)(p - s);
    return -1;
}

/* The escape of the control character at s (k bytes) into out. */
static int escape_one(const char *s, int k, char out[12])
{
    static const char named[][3] = {['\n'] = "\\n", ['\r'] = "\\r", ['\t'] = "\\t"};
    unsigned char c = (unsigned char)s[0];
    if (k == 1 && c < sizeof named / sizeof *named && named[c][0]) return snprintf(out, 12, "%s", named[c]);
    if (k == 1) return snprintf(out, 12, "\\x%02x", c);
    return snprintf(out, 12, "\\u%04x", (unsigned char)s[1]); /* U+0080..U+009F */
}

/* Ends buf (w bytes written, n its size) with "..." inside n. */
static void cut(char *buf, size_t w, size_t n)
{
    size_t at = n < 4 ? 0 : w < n - 4 ? w : n - 4;
    snprintf(buf + at, n - at, "%s", "...");
}

const char *gdt_text_escape(const char *s, char *buf, size_t n)
{
    size_t w = 0;
    if (!buf || !n) return "";
    for (const char *p = s ? s : ""; *p;) {
        char one[12];
        int k = gdt_text_control_at(p);
        size_t len = k ? (size_t)escape_one(p, k, one) : 1;
        if (w + len >= n) {
            cut(buf, w, n);
            return buf;
        }
        memcpy(buf + w, k ? one : p, len);
        w += len;
        p += k ? k : 1;
    }
    buf[w] = 0;
    return buf;
}
