/*
 * literal.c — the "literal" kind: every occurrence of a key of a caller-given table, with
 * the key's value. Request options: {"table": {"@百度": "https://www.baidu.com", ...}}, or
 * the table object itself when it has no "table" member holding an object (its "kind"
 * member, the request's {"kind": "literal", ...} echo, is then not a key). Values are
 * strings (emitted as the link's value) or null (the matched text itself); anything else
 * fails the call naming the key. Longest key wins at a position, matches do not overlap
 * (leftmost-longest, scanning forward), and a key given twice keeps its last value.
 * Matching is linear in the text whatever the table (keymatch.c).
 */
#include <stdlib.h>
#include <string.h>

#include "plugin_support.h"
#include "keymatch.h"
#include "links.h"


/** Per-scan context: the table (for values) and the call. */
typedef struct literal_scan {
    lk_ctx *ctx;
    const layoutd_value *table;
} literal_scan;

static int on_match(void *context, size_t start, size_t end, size_t key) {
    literal_scan *scan = context;
    return lk_emit_value(scan->ctx, start, end, scan->table->members[key].value.string);
}

int lk_detect_literal(lk_ctx *ctx, const layoutd_value *options) {
    if (options->type != LAYOUTD_VALUE_OBJECT) return lk_fail(ctx, "links: literal options must be an object");
    const layoutd_value *table = plugin_member(options, "table");
    if (!table || table->type != LAYOUTD_VALUE_OBJECT) table = options;
    if (table->count == 0 || ctx->n == 0) return 0;

    km_key *keys = malloc(table->count * sizeof *keys);
    if (!keys) return lk_fail(ctx, "links: out of memory (literal table of %u keys)", table->count);
    for (uint32_t i = 0; i < table->count; i++) {
        const layoutd_member *m = &table->members[i];
        if (table == options && m->key_length == 4 && memcmp(m->key, "kind", 4) == 0) {
            keys[i] = (km_key){m->key, 0}; /* empty: km_build ignores it */
            continue;
        }
        if (m->value.type != LAYOUTD_VALUE_STRING && m->value.type != LAYOUTD_VALUE_NULL) {
            free(keys);
            return lk_fail(ctx, "links: literal value for \"%s\" must be a string or null", m->key);
        }
        keys[i] = (km_key){m->key, m->key_length};
    }
    km_matcher *matcher = km_build(keys, table->count);
    free(keys);
    if (!matcher) return lk_fail(ctx, "links: out of memory (literal table of %u keys)", table->count);
    literal_scan scan = {ctx, table};
    int rc = km_scan(matcher, (const char *)ctx->s, ctx->n, on_match, &scan);
    km_free(matcher);
    if (rc == -1) return lk_fail(ctx, "links: out of memory (literal scan of %zu bytes)", ctx->n);
    return rc;
}
