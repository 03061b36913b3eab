/*
 * shortcodes.c — the "shortcodes" attachment-provider plugin: its table and entry point,
 * init/fini and the attachments call.
 *
 * init copies the config's code table (codes.c; the built-in default table when the config
 * has no "codes") into `state` with a matcher for it, and with "imageFolder" declares the
 * codes' images to the host (images.c). `attachments` emits one inline object
 * per occurrence of a code (leftmost-longest, non-overlapping; keymatch.c), value = the
 * code's image, sizes in points (em sizes times the request's font_size). Request options
 * may carry {"codes": {...}, "unit": ...} too: merged over the config table for that call,
 * the request's entry winning for a code in both. `state` is read-only after init, so calls
 * are thread-safe.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_support.h"
#include "codes.h"
#include "keymatch.h"

static const char *const shortcodes_kinds[] = {"shortcodes", NULL};

/** What init builds: the config table and a matcher over its keys. */
typedef struct sc_state {
    sc_table table;
    km_matcher *matcher;
} sc_state;

/** Builds a matcher over the keys of codes[0..count). NULL when out of memory. */
static km_matcher *build_matcher(const sc_code *codes, size_t count) {
    km_key *keys = malloc((count ? count : 1) * sizeof *keys);
    if (!keys) return NULL;
    for (size_t i = 0; i < count; i++) keys[i] = (km_key){codes[i].key, codes[i].key_length};
    km_matcher *matcher = km_build(keys, count);
    free(keys);
    return matcher;
}

static void shortcodes_fini(void *state) {
    sc_state *st = state;
    if (!st) return;
    km_free(st->matcher);
    sc_table_free(&st->table);
    free(st);
}

static int shortcodes_init(const layoutd_host *host, const layoutd_value *options, void **state,
                           char *error, size_t error_size) {
    *state = NULL;
    static const layoutd_value empty_object = {LAYOUTD_VALUE_OBJECT, 0, 0, NULL, 0, NULL, NULL};
    bool present;
    sc_code *codes;
    size_t count;
    if (sc_read_codes(options ? options : &empty_object, &present, &codes, &count, error, error_size))
        return 1;
    sc_state *st = calloc(1, sizeof *st);
    int failed = !st || (present ? sc_table_copy(&st->table, codes, count)
                                 : sc_table_copy(&st->table, sc_default_codes, sc_default_count));
    free(codes);
    if (!failed) {
        st->matcher = build_matcher(st->table.codes, st->table.count);
        failed = !st->matcher;
    }
    if (failed) {
        shortcodes_fini(st);
        plugin_set_error(error, error_size, "shortcodes: out of memory");
        return 1;
    }
    if (sc_register_images(host, options ? options : &empty_object, &st->table, error, error_size)) {
        shortcodes_fini(st);
        return 1;
    }
    *state = st;
    return 0;
}

/** One attachments call: the codes its matches index, the font size, the sink. */
typedef struct sc_scan {
    const sc_code *codes;
    double font_size;
    layoutd_attachment_sink emit;
    void *context;
} sc_scan;

static int on_match(void *context, size_t start, size_t end, size_t index) {
    const sc_scan *scan = context;
    const sc_code *code = &scan->codes[index];
    double size[3];
    for (int k = 0; k < 3; k++) size[k] = code->em[k] ? code->size[k] * scan->font_size : code->size[k];
    layoutd_attachment attachment = {(uint32_t)start, (uint32_t)end, size[0], size[1], size[2], code->image};
    scan->emit(scan->context, &attachment);
    return 0;
}

/** The request fields this plugin reads end with `options`. */
#define SHORTCODES_REQUEST_MIN_SIZE \
    (offsetof(layoutd_attachment_request, options) + sizeof(const layoutd_value *))

static int shortcodes_attachments(void *state, const layoutd_attachment_request *request,
                                  layoutd_attachment_sink emit, void *context, char *error,
                                  size_t error_size) {
    const sc_state *st = state;
    if (!st || !request || !emit) {
        plugin_set_error(error, error_size, "shortcodes: no state, request or sink");
        return 1;
    }
    if (request->struct_size < SHORTCODES_REQUEST_MIN_SIZE) {
        plugin_set_error(error, error_size, "shortcodes: request struct too small (%u bytes)", request->struct_size);
        return 1;
    }
    if (!request->text && request->text_length) {
        plugin_set_error(error, error_size, "shortcodes: no text");
        return 1;
    }
    if (request->text_length > UINT32_MAX) {
        plugin_set_error(error, error_size, "shortcodes: text too long (%zu bytes)", request->text_length);
        return 1;
    }
    if (!isfinite(request->font_size) || request->font_size < 0) {
        plugin_set_error(error, error_size, "shortcodes: font_size must be finite and non-negative");
        return 1;
    }

    /* Request codes, if any, go after the config's so that they win (km_build keeps the
     * highest index of equal keys). */
    bool present = false;
    sc_code *extra = NULL;
    size_t extra_count = 0;
    if (request->options && sc_read_codes(request->options, &present, &extra, &extra_count, error, error_size))
        return 1;
    const sc_code *codes = st->table.codes;
    sc_code *merged = NULL;
    km_matcher *matcher = st->matcher, *own = NULL;
    if (extra_count) {
        merged = malloc((st->table.count + extra_count) * sizeof *merged);
        if (merged) {
            memcpy(merged, st->table.codes, st->table.count * sizeof *merged);
            memcpy(merged + st->table.count, extra, extra_count * sizeof *merged);
            own = build_matcher(merged, st->table.count + extra_count);
        }
        free(extra);
        if (!own) {
            free(merged);
            plugin_set_error(error, error_size, "shortcodes: out of memory");
            return 1;
        }
        codes = merged;
        matcher = own;
    }
    sc_scan scan = {codes, request->font_size, emit, context};
    int rc = km_scan(matcher, request->text, request->text_length, on_match, &scan);
    km_free(own);
    free(merged);
    if (rc) {
        plugin_set_error(error, error_size, "shortcodes: out of memory (scan of %zu bytes)", request->text_length);
        return 1;
    }
    return 0;
}

static const layoutd_plugin shortcodes_plugin = {
    .abi_version = LAYOUTD_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(layoutd_plugin),
    .kind = LAYOUTD_KIND_ATTACHMENT_PROVIDER,
    .name = "shortcodes",
    .version = "1.0",
    .kinds = shortcodes_kinds,
    .init = shortcodes_init,
    .fini = shortcodes_fini,
    .attachments = shortcodes_attachments,
};

LAYOUTD_PLUGIN_EXPORT const layoutd_plugin *layoutd_plugin_entry(uint32_t host_abi_version) {
    return host_abi_version == LAYOUTD_PLUGIN_ABI_VERSION ? &shortcodes_plugin : NULL;
}
