/* engines/gdt_json.h — strict JSON on top of cJSON.  Private.
 *
 * cJSON accepts duplicate keys, non-finite numbers (1e400 -> inf) and nests
 * up to 1000 levels; gdtune's tables must not, so every table is parsed
 * through gdt_json_parse and read through the typed readers below, whose
 * messages name the file, the JSON path (RFC 6901) and the expected and
 * actual values. */
#ifndef GDT_JSON_H
#define GDT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "gdtune/gdtune.h"

#define GDT_JSON_MAX_DEPTH 64
/* Integers are exact only below 2^53: the text 9007199254740993 parses to
 * the same double as 2^53, so 2^53 itself is refused too. */
#define GDT_JSON_INT_LIMIT 9007199254740992LL

/* Parses text (len bytes) strictly.  BAD_INPUT naming `file` and the place
 * for: a NUL byte (offset), malformed text or truncation (offset, line and
 * column), trailing text after the value, nesting deeper than
 * GDT_JSON_MAX_DEPTH, a duplicate key or two keys equal ignoring case in one
 * object (JSON path of both), a number that is not finite (1e400).  On
 * success *out owns the tree (free with cJSON_Delete). */
gdt_status gdt_json_parse(const char *text, size_t len, const char *file, cJSON **out,
                          gdt_error *e);

/* Typed readers: BAD_INPUT "<file>: <jpath>: expected <what>, got <actual>"
 * on mismatch.  n may be NULL (reported as "missing"). */
/* Exact integers only: no fraction, |v| < 2^53 (see GDT_JSON_INT_LIMIT). */
gdt_status gdt_json_int(const cJSON *n, const char *file, const char *jpath, int64_t *out,
                        gdt_error *e);
gdt_status gdt_json_number(const cJSON *n, const char *file, const char *jpath, double *out,
                           gdt_error *e);
gdt_status gdt_json_string(const cJSON *n, const char *file, const char *jpath,
                           const char **out, gdt_error *e);
gdt_status gdt_json_bool(const cJSON *n, const char *file, const char *jpath, bool *out,
                         gdt_error *e);

/* Member lookup (case-sensitive; NULL when obj is not an object or the key
 * is absent). */
const cJSON *gdt_json_get(const cJSON *obj, const char *key);
/* Missing `key` -> BAD_INPUT "<file>: <jpath>: missing required field "key"";
 * obj not an object -> "expected object, got <type>". */
gdt_status gdt_json_require(const cJSON *obj, const char *key, const char *file,
                            const char *jpath, const cJSON **out, gdt_error *e);
/* The top-level member `key` of root, a string equal to want: BAD_INPUT
 * "<file>: /<key>: expected "<want>", got "<actual>"" (or the typed
 * readers' message when missing or not a string). */
gdt_status gdt_json_require_text(const cJSON *root, const char *key, const char *want, const char *file,
                                 gdt_error *e);
/* Any key of obj not in allowed -> BAD_INPUT "<file>: <jpath>/<key>: unknown
 * field "key" (expected one of: ...)". */
gdt_status gdt_json_check_keys(const cJSON *obj, const char *const *allowed, int nallowed,
                               const char *file, const char *jpath, gdt_error *e);
/* "object", "array", "string", "number", "boolean", "null" ("missing" for
 * NULL, "invalid" otherwise). */
const char *gdt_json_type_name(const cJSON *n);

/* Child JSON paths, RFC 6901 escaped
 * ("~" -> "~0", "/" -> "~1").  Truncate safely; return buf. */
char *gdt_json_path_key(char *buf, size_t n, const char *parent, const char *key);
char *gdt_json_path_index(char *buf, size_t n, const char *parent, int index);
/* Short description of a value for messages: `string "abc"`, `number 3.5`,
 * `array of 7`, `object`, `boolean true`, `null`. */
int gdt_json_describe(const cJSON *n, char *buf, size_t size);

/* Lenient readers for records gdtune wrote itself (journal, worker replies,
 * emitted tables already validated): the member's value, or def when it is
 * absent or of another type. */
double gdt_json_num_or(const cJSON *obj, const char *key, double def);
const char *gdt_json_str_or(const cJSON *obj, const char *key, const char *def);

#endif
