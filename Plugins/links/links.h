/*
 * links.h — what the link detectors share: the per-call context and how matches are
 * emitted (links.c), the URL and email scanners other detectors use to skip URLs and
 * emails (url.c, email.c, exclusions.c), and one entry point per kind.
 */
#ifndef LINKS_LINKS_H
#define LINKS_LINKS_H

#include <stdbool.h>
#include <stddef.h>

#include "layoutd_plugin.h"

/** One detect call: the text, where links go, a scratch buffer for building values and
 * where an error message goes. Lives on the dispatcher's stack; nothing in it is shared. */
typedef struct lk_ctx {
    const unsigned char *s;   /**< the text (not NUL-terminated) */
    size_t n;                 /**< its length in bytes */
    const char *kind;         /**< the kind emitted links carry (static) */
    layoutd_link_sink emit;
    void *context;
    char *buffer;             /**< scratch for values, grown on demand, freed by the dispatcher */
    size_t capacity;
    char *error;
    size_t error_size;
} lk_ctx;

/** A half-open byte range of the text. */
typedef struct lk_span {
    size_t start, end;
} lk_span;

/** Emits [start, end) with value `prefix` followed by the text [value_start, value_end).
 * Returns 0, or -1 (with the error set) when the value cannot be built. */
int lk_emit_text(lk_ctx *ctx, size_t start, size_t end, const char *prefix, size_t value_start,
                 size_t value_end);

/** Emits [start, end) with `value` (NUL-terminated, or NULL for the matched text). */
int lk_emit_value(lk_ctx *ctx, size_t start, size_t end, const char *value);

/** Writes a formatted message into the call's error buffer; returns -1. */
int lk_fail(lk_ctx *ctx, const char *format, ...) __attribute__((format(printf, 2, 3)));

/** The next URL that starts at or after `from`; `*www` says it is a bare "www." form.
 * Returns false when there is none. */
bool lk_next_url(const unsigned char *s, size_t n, size_t from, lk_span *url, bool *www);

/** The next email address that starts at or after `from`. Returns false when none. */
bool lk_next_email(const unsigned char *s, size_t n, size_t from, lk_span *email);

/** Walks the URLs and emails of a text alongside a detector that must not report matches
 * inside them (mentions, hashtags, phone numbers). Positions asked must not decrease. */
typedef struct lk_exclusions {
    const unsigned char *s;
    size_t n;
    lk_span url, email;
    bool url_done, email_done;
} lk_exclusions;

void lk_exclusions_init(lk_exclusions *x, const unsigned char *s, size_t n);

/** Returns `pos` when it lies outside every URL and email, else the end of the one it is
 * in (check again from there: an email may follow a URL directly). */
size_t lk_exclusions_skip(lk_exclusions *x, size_t pos);

int lk_detect_url(lk_ctx *ctx);
int lk_detect_email(lk_ctx *ctx);
int lk_detect_mention(lk_ctx *ctx);
int lk_detect_hashtag(lk_ctx *ctx);
int lk_detect_phone(lk_ctx *ctx);
int lk_detect_literal(lk_ctx *ctx, const layoutd_value *options);

#endif /* LINKS_LINKS_H */
