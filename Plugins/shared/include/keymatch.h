/*
 * keymatch.h — finds a fixed set of byte-string keys in a text: leftmost-longest,
 * non-overlapping, scanning forward, in time linear in the text (plus the keys' total
 * length to build). Used by the links plugin's "literal" kind and by the shortcodes plugin:
 * the PluginSupport target, linked statically into both (it uses libc only, no layoutd code).
 */
#ifndef KEYMATCH_H
#define KEYMATCH_H

#include <stddef.h>

/** One key: bytes and length (not NUL-terminated). */
typedef struct km_key {
    const char *bytes;
    size_t length;
} km_key;

/** An immutable matcher; safe to scan from several threads at once. */
typedef struct km_matcher km_matcher;

/** Builds a matcher for keys[0..count). Empty keys are ignored; among equal keys the one
 * with the highest index wins. The matcher keeps no pointer into `keys`. Returns NULL
 * when out of memory. */
km_matcher *km_build(const km_key *keys, size_t count);

void km_free(km_matcher *matcher);

/** Receives one match: text [start, end) is keys[key]. Returns 0 to go on. */
typedef int (*km_match_fn)(void *context, size_t start, size_t end, size_t key);

/** Reports every match in text order: at each position the longest key that starts there,
 * then on from its end; where no key starts, on from the next byte. Returns 0, the first
 * non-zero result of `fn`, or -1 when out of memory (it allocates 4 bytes per text byte). */
int km_scan(const km_matcher *matcher, const char *text, size_t length, km_match_fn fn, void *context);

#endif /* KEYMATCH_H */
