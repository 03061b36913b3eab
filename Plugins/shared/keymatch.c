/*
 * keymatch.c — leftmost-longest key matching with an Aho–Corasick automaton built over the
 * REVERSED keys. Shared by the links ("literal") and shortcodes plugins, compiled into each.
 *
 * Running that automaton over the text from the end to the start, the state after reading
 * text[i] tells which keys START at i, and its output link gives the longest of them. One
 * backward pass records the longest key at every position, one forward pass takes
 * leftmost-longest non-overlapping matches from that. Both passes are linear in the text
 * (the usual Aho–Corasick amortization: fail moves never outnumber forward moves), however
 * many keys there are and however they overlap.
 *
 * The trie is laid out breadth-first with each node's edges contiguous and sorted, so an
 * edge is found by binary search; the root's edges are a 256-entry table (a first-byte
 * bucket), the common case when scanning text that holds no key.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "keymatch.h"

#define KM_NONE UINT32_MAX

typedef struct km_node {
    uint32_t first_edge, edge_count; /**< edges[first_edge ..+ edge_count), sorted by byte */
    uint32_t fail;                   /**< longest proper suffix that is also a node */
    uint32_t out;                    /**< 1 + index of the longest key that is a suffix, or 0 */
} km_node;

struct km_matcher {
    km_node *nodes;
    uint32_t node_count;
    unsigned char *edge_byte;
    uint32_t *edge_target;
    size_t *key_length;              /**< by key index */
    size_t key_count;
    uint32_t root_next[256];
};

/** A key being sorted: its bytes, length and index in the caller's array. */
typedef struct km_sorted {
    const unsigned char *bytes;
    size_t length, index;
} km_sorted;

/** Byte d of a key read backwards. */
static inline unsigned char rbyte(const km_sorted *k, size_t d) { return k->bytes[k->length - 1 - d]; }

/** Orders keys by their reversed bytes, then by index (qsort comparator). */
static int compare_reversed(const void *a, const void *b) {
    const km_sorted *x = a, *y = b;
    size_t common = x->length < y->length ? x->length : y->length;
    for (size_t d = 0; d < common; d++) {
        unsigned char p = rbyte(x, d), q = rbyte(y, d);
        if (p != q) return p < q ? -1 : 1;
    }
    if (x->length != y->length) return x->length < y->length ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/** The child of `node` along byte c, or KM_NONE. */
static inline uint32_t km_go(const km_matcher *m, uint32_t node, unsigned char c) {
    if (node == 0) return m->root_next[c];
    uint32_t lo = m->nodes[node].first_edge, hi = lo + m->nodes[node].edge_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m->edge_byte[mid] < c) lo = mid + 1;
        else hi = mid;
    }
    return lo < m->nodes[node].first_edge + m->nodes[node].edge_count && m->edge_byte[lo] == c
               ? m->edge_target[lo]
               : KM_NONE;
}

void km_free(km_matcher *m) {
    if (!m) return;
    free(m->nodes);
    free(m->edge_byte);
    free(m->edge_target);
    free(m->key_length);
    free(m);
}

km_matcher *km_build(const km_key *keys, size_t count) {
    km_matcher *m = calloc(1, sizeof *m);
    km_sorted *sorted = malloc((count ? count : 1) * sizeof *sorted);
    size_t *lo = NULL, *hi = NULL, *depth = NULL;
    if (!m || !sorted || count >= UINT32_MAX) goto failed;
    m->key_count = count;
    m->key_length = malloc((count ? count : 1) * sizeof *m->key_length);
    if (!m->key_length) goto failed;

    size_t used = 0, total = 0;
    for (size_t i = 0; i < count; i++) {
        m->key_length[i] = keys[i].length;
        if (!keys[i].length) continue;
        sorted[used++] = (km_sorted){(const unsigned char *)keys[i].bytes, keys[i].length, i};
        total += keys[i].length;
        if (total >= UINT32_MAX / 2) goto failed;
    }
    qsort(sorted, used, sizeof *sorted, compare_reversed);
    /* Of equal keys keep the last (highest index): it sorts last in its run. */
    size_t unique = 0;
    for (size_t i = 0; i < used; i++) {
        if (i + 1 < used && sorted[i].length == sorted[i + 1].length &&
            memcmp(sorted[i].bytes, sorted[i + 1].bytes, sorted[i].length) == 0)
            continue;
        sorted[unique++] = sorted[i];
    }

    /* Breadth-first trie: node v covers sorted[lo[v], hi[v]), the keys whose reversed
     * bytes start with v's path of length depth[v]. */
    size_t capacity = total + 1;
    m->nodes = malloc(capacity * sizeof *m->nodes);
    m->edge_byte = malloc(capacity * sizeof *m->edge_byte);
    m->edge_target = malloc(capacity * sizeof *m->edge_target);
    lo = malloc(capacity * sizeof *lo);
    hi = malloc(capacity * sizeof *hi);
    depth = malloc(capacity * sizeof *depth);
    if (!m->nodes || !m->edge_byte || !m->edge_target || !lo || !hi || !depth) goto failed;
    uint32_t node_count = 1, edge_count = 0;
    lo[0] = 0;
    hi[0] = unique;
    depth[0] = 0;
    for (uint32_t v = 0; v < node_count; v++) {
        size_t a = lo[v], b = hi[v], d = depth[v];
        km_node *node = &m->nodes[v];
        node->out = 0;
        node->fail = 0;
        node->first_edge = edge_count;
        if (a < b && sorted[a].length == d) node->out = (uint32_t)sorted[a++].index + 1;
        while (a < b) {
            unsigned char c = rbyte(&sorted[a], d);
            size_t e = a + 1;
            while (e < b && rbyte(&sorted[e], d) == c) e++;
            uint32_t child = node_count++;
            lo[child] = a;
            hi[child] = e;
            depth[child] = d + 1;
            m->edge_byte[edge_count] = c;
            m->edge_target[edge_count] = child;
            edge_count++;
            a = e;
        }
        node->edge_count = edge_count - node->first_edge;
    }
    m->node_count = node_count;
    for (int c = 0; c < 256; c++) m->root_next[c] = KM_NONE;
    for (uint32_t k = 0; k < m->nodes[0].edge_count; k++) m->root_next[m->edge_byte[k]] = m->edge_target[k];

    /* Fail and output links, breadth-first (a node's fail target is shallower, so done). */
    for (uint32_t v = 0; v < node_count; v++) {
        const km_node *node = &m->nodes[v];
        for (uint32_t k = node->first_edge; k < node->first_edge + node->edge_count; k++) {
            unsigned char c = m->edge_byte[k];
            uint32_t t = m->edge_target[k], fail = 0;
            if (v != 0) {
                uint32_t f = node->fail;
                for (;;) {
                    uint32_t g = km_go(m, f, c);
                    if (g != KM_NONE) {
                        fail = g;
                        break;
                    }
                    if (f == 0) break;
                    f = m->nodes[f].fail;
                }
            }
            m->nodes[t].fail = fail;
            if (!m->nodes[t].out) m->nodes[t].out = m->nodes[fail].out;
        }
    }
    free(sorted);
    free(lo);
    free(hi);
    free(depth);
    return m;

failed:
    free(sorted);
    free(lo);
    free(hi);
    free(depth);
    km_free(m);
    return NULL;
}

int km_scan(const km_matcher *m, const char *text, size_t length, km_match_fn fn, void *context) {
    if (!length || m->node_count <= 1) return 0;
    const unsigned char *s = (const unsigned char *)text;
    uint32_t *longest = malloc(length * sizeof *longest);
    if (!longest) return -1;
    uint32_t state = 0;
    for (size_t i = length; i-- > 0;) {
        for (;;) {
            uint32_t g = km_go(m, state, s[i]);
            if (g != KM_NONE) {
                state = g;
                break;
            }
            if (state == 0) break;
            state = m->nodes[state].fail;
        }
        longest[i] = m->nodes[state].out;
    }
    int rc = 0;
    for (size_t i = 0; i < length;) {
        if (!longest[i]) {
            i++;
            continue;
        }
        size_t key = longest[i] - 1, end = i + m->key_length[key];
        rc = fn(context, i, end, key);
        if (rc) break;
        i = end;
    }
    free(longest);
    return rc;
}
