/*
 * codes.h — the shortcode table: reading and validating {"codes": {...}, "unit": ...}
 * option objects, the built-in default table, and owned copies of a table (for `state`).
 */
#ifndef SHORTCODES_CODES_H
#define SHORTCODES_CODES_H

#include <stdbool.h>
#include <stddef.h>

#include "layoutd_plugin.h"

/** One shortcode. Strings are NUL-terminated; they point into an option tree (during a
 * call), into static data (defaults) or into an sc_table's pool. */
typedef struct sc_code {
    const char *key;
    size_t key_length;
    const char *image;
    double size[3];          /**< width, ascent, descent */
    bool em[3];              /**< per size: true in em of the font size, false in points */
} sc_code;

/** An owned table: codes whose strings live in `pool`. */
typedef struct sc_table {
    sc_code *codes;
    size_t count;
    char *pool;
} sc_table;

/** Reads options' "codes" member (and "unit"). Sets `*present` to whether there is one,
 * and `*codes`/`*count` to a malloc'd array (NULL, 0 when none) whose strings point into
 * `options`. Returns 0, or -1 with a message naming the offending code in `error`. */
int sc_read_codes(const layoutd_value *options, bool *present, sc_code **codes, size_t *count,
                  char *error, size_t error_size);

/** The table used when the config has no "codes": [smile] [laugh] [cry] [heart] [thumbsup]
 * [ok] → emoji/<name>.png, 1.2em wide, 0.95em ascent, 0.25em descent. */
extern const sc_code sc_default_codes[];
extern const size_t sc_default_count;

/** Copies codes[0..count) and their strings into `table`. Returns 0 or -1 (out of memory). */
int sc_table_copy(sc_table *table, const sc_code *codes, size_t count);

void sc_table_free(sc_table *table);

/** With the option "imageFolder", declares each code's image to the host (images.c).
 * Returns 0, or -1 with a message when "imageFolder" is not a non-empty string. */
int sc_register_images(const layoutd_host *host, const layoutd_value *options, const sc_table *table,
                       char *error, size_t error_size);

#endif /* SHORTCODES_CODES_H */
