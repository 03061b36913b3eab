/*
 * codes.c — reading, validating and copying shortcode tables (see codes.h).
 *
 * Option shape: {"codes": {"[smile]": {"image": "/usr/share/layoutd/smile.png",
 * "width": 1.2, "ascent": 0.9, "descent": 0.3}, "[cry]": "cry.png", ...}, "unit": "em"}.
 *   - "unit": "em" (default: sizes are em of the request's font size) or "pt" (points);
 *     it applies to the codes of the same object.
 *   - a code's key must be non-empty; its value is an object with a non-empty "image"
 *     string and optional "width", "ascent", "descent" (finite, non-negative numbers;
 *     a missing one takes the default 1.2em / 0.95em / 0.25em whatever the unit), or just
 *     the image string with the default sizes.
 *   - "codes" must be an object; it may be empty.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_support.h"
#include "plugin_support.h"
#include "codes.h"

#define SC_DEFAULT_SIZES {1.2, 0.95, 0.25}, {true, true, true}

const sc_code sc_default_codes[] = {
    {"[smile]", 7, "emoji/smile.png", SC_DEFAULT_SIZES},
    {"[laugh]", 7, "emoji/laugh.png", SC_DEFAULT_SIZES},
    {"[cry]", 5, "emoji/cry.png", SC_DEFAULT_SIZES},
    {"[heart]", 7, "emoji/heart.png", SC_DEFAULT_SIZES},
    {"[thumbsup]", 10, "emoji/thumbsup.png", SC_DEFAULT_SIZES},
    {"[ok]", 4, "emoji/ok.png", SC_DEFAULT_SIZES},
};
const size_t sc_default_count = sizeof sc_default_codes / sizeof sc_default_codes[0];

static const char *const size_names[3] = {"width", "ascent", "descent"};
static const double default_sizes[3] = {1.2, 0.95, 0.25};



/** Fills `code` from one member of "codes". Returns 0 or -1 with a message. */
static int read_code(const layoutd_member *m, bool em, sc_code *code, char *error, size_t error_size) {
    if (m->key_length == 0) {
        plugin_set_error(error, error_size, "shortcodes: a code is the empty string");
        return -1;
    }
    code->key = m->key;
    code->key_length = m->key_length;
    for (int k = 0; k < 3; k++) {
        code->size[k] = default_sizes[k];
        code->em[k] = true;
    }
    const layoutd_value *image = &m->value;
    if (m->value.type == LAYOUTD_VALUE_OBJECT) {
        image = plugin_member(&m->value, "image");
        for (int k = 0; k < 3; k++) {
            const layoutd_value *size = plugin_member(&m->value, size_names[k]);
            if (!size) continue;
            if (size->type != LAYOUTD_VALUE_NUMBER || !isfinite(size->number) || size->number < 0) {
                plugin_set_error(error, error_size, "shortcodes: code \"%s\": %s must be a finite non-negative number",
                         m->key, size_names[k]);
                return -1;
            }
            code->size[k] = size->number;
            code->em[k] = em;
        }
    } else if (m->value.type != LAYOUTD_VALUE_STRING) {
        plugin_set_error(error, error_size, "shortcodes: code \"%s\" must be an object or an image name", m->key);
        return -1;
    }
    if (!image || image->type != LAYOUTD_VALUE_STRING || image->length == 0) {
        plugin_set_error(error, error_size, "shortcodes: code \"%s\" needs a non-empty \"image\" string", m->key);
        return -1;
    }
    code->image = image->string;
    return 0;
}

int sc_read_codes(const layoutd_value *options, bool *present, sc_code **codes, size_t *count,
                  char *error, size_t error_size) {
    *present = false;
    *codes = NULL;
    *count = 0;
    if (options->type != LAYOUTD_VALUE_OBJECT) return 0;
    const layoutd_value *table = plugin_member(options, "codes");
    if (!table) return 0;
    if (table->type != LAYOUTD_VALUE_OBJECT) {
        plugin_set_error(error, error_size, "shortcodes: \"codes\" must be an object");
        return -1;
    }
    bool em = true;
    const layoutd_value *unit = plugin_member(options, "unit");
    if (unit) {
        if (unit->type == LAYOUTD_VALUE_STRING && strcmp(unit->string, "pt") == 0) {
            em = false;
        } else if (unit->type != LAYOUTD_VALUE_STRING || strcmp(unit->string, "em") != 0) {
            plugin_set_error(error, error_size, "shortcodes: \"unit\" must be \"em\" or \"pt\"");
            return -1;
        }
    }
    *present = true;
    if (table->count == 0) return 0;
    sc_code *list = malloc(table->count * sizeof *list);
    if (!list) {
        plugin_set_error(error, error_size, "shortcodes: out of memory (%u codes)", table->count);
        return -1;
    }
    for (uint32_t i = 0; i < table->count; i++) {
        if (read_code(&table->members[i], em, &list[i], error, error_size)) {
            free(list);
            return -1;
        }
    }
    *codes = list;
    *count = table->count;
    return 0;
}

int sc_table_copy(sc_table *table, const sc_code *codes, size_t count) {
    size_t bytes = 0;
    for (size_t i = 0; i < count; i++) bytes += codes[i].key_length + 1 + strlen(codes[i].image) + 1;
    table->codes = malloc((count ? count : 1) * sizeof *table->codes);
    table->pool = malloc(bytes ? bytes : 1);
    table->count = count;
    if (!table->codes || !table->pool) {
        sc_table_free(table);
        return -1;
    }
    char *p = table->pool;
    for (size_t i = 0; i < count; i++) {
        sc_code *code = &table->codes[i];
        *code = codes[i];
        memcpy(p, codes[i].key, codes[i].key_length);
        p[codes[i].key_length] = '\0';
        code->key = p;
        p += codes[i].key_length + 1;
        size_t image_length = strlen(codes[i].image);
        memcpy(p, codes[i].image, image_length + 1);
        code->image = p;
        p += image_length + 1;
    }
    return 0;
}

void sc_table_free(sc_table *table) {
    free(table->codes);
    free(table->pool);
    table->codes = NULL;
    table->pool = NULL;
    table->count = 0;
}
