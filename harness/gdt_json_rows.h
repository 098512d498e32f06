/* A record's JSON object as rows: one row (key, kind, offset) a member, in
 * the order the object holds them, so that the --format json documents of
 * the harness and the verbs (confirm, tables diff, the emit summaries)
 * declare what they write of a struct once and one function writes it.
 * Private to the harness and the command line. */
#ifndef GDT_JSON_ROWS_H
#define GDT_JSON_ROWS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

typedef enum gdt_json_row_kind {
    GDT_JSON_ROW_STR,      /* a char *: a string (no member when NULL, as cJSON adds none) */
    GDT_JSON_ROW_CHARS,    /* a char array: a string */
    GDT_JSON_ROW_INT,      /* an int: a number */
    GDT_JSON_ROW_NUM,      /* a double: a number */
    GDT_JSON_ROW_BOOL,     /* a bool */
    GDT_JSON_ROW_NUM_IF,   /* a double: a number where the bool at `when` is true and it is finite, else null */
    GDT_JSON_ROW_POSITIVE, /* a double: a number above 0, else null (0: unknown) */
    GDT_JSON_ROW_FINITE,   /* a double: a number where finite, else null */
} gdt_json_row_kind;

typedef struct gdt_json_row {
    const char *key;
    gdt_json_row_kind kind;
    size_t at;   /* the member's offset in the record */
    size_t when; /* NUM_IF: the offset of its bool */
} gdt_json_row;

/* Rows of struct T, the kind of a scalar or char * member taken from its
 * type (another type does not compile); a char array is GDT_JSON_TEXT. */
#define GDT_JSON_ROW(T, key, m)                                                                    \
    {key,                                                                                          \
     _Generic(&((T *)0)->m, char **: GDT_JSON_ROW_STR, const char **: GDT_JSON_ROW_STR,            \
              int *: GDT_JSON_ROW_INT, double *: GDT_JSON_ROW_NUM, bool *: GDT_JSON_ROW_BOOL),      \
     offsetof(T, m), 0}
#define GDT_JSON_TEXT(T, key, m) {key, _Generic(((T *)0)->m[0], char: GDT_JSON_ROW_CHARS), offsetof(T, m), 0}
#define GDT_JSON_NUM_IF(T, key, m, flag)                                                           \
    {key, _Generic(&((T *)0)->m, double *: _Generic(&((T *)0)->flag, bool *: GDT_JSON_ROW_NUM_IF)), \
     offsetof(T, m), offsetof(T, flag)}
#define GDT_JSON_POSITIVE(T, key, m) {key, _Generic(&((T *)0)->m, double *: GDT_JSON_ROW_POSITIVE), offsetof(T, m), 0}

/* A double: a number where finite, else null (NaN: unknown). */
#define GDT_JSON_FINITE(T, key, m) {key, _Generic(&((T *)0)->m, double *: GDT_JSON_ROW_FINITE), offsetof(T, m), 0}
/* The rows above keyed by their member's name, so that the key and the
 * member are one spelling. */
#define GDT_JSON_FIELD(T, m) GDT_JSON_ROW(T, #m, m)
#define GDT_JSON_FIELD_TEXT(T, m) GDT_JSON_TEXT(T, #m, m)
#define GDT_JSON_FIELD_IF(T, m, flag) GDT_JSON_NUM_IF(T, #m, m, flag)
#define GDT_JSON_FIELD_POSITIVE(T, m) GDT_JSON_POSITIVE(T, #m, m)

/* Adds rows[0 .. n-1] of rec to the object o, in order. */
void gdt_json_rows_add(cJSON *o, const void *rec, const gdt_json_row *rows, size_t n);
/* A new object of rec's rows (NULL without memory). */
cJSON *gdt_json_rows_object(const void *rec, const gdt_json_row *rows, size_t n);

#define GDT_JSON_ROWS_N(rows) (sizeof rows / sizeof rows[0])

#endif
