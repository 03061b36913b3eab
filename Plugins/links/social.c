/*
 * social.c — the "mention" (@name) and "hashtag" (#tag, Weibo #话题#) kinds.
 *
 * Mention: "@" at the start of the text or after a character that does not join a word
 * (u_joins_word: not an ASCII letter/digit, "_" or a letter of a space-separated script;
 * CJK before is fine, so "生活着@百度" has a mention and "a@b.com" has none). The name is
 * letters of any script, ASCII digits, "_" and "-", without trailing "-"; it stops at
 * white space, other ASCII punctuation and every non-letter of utf8.h (、，。！？ ...).
 * CJK has no spaces, so a CJK name runs on until punctuation or space: "@腾讯这样的居民 "
 * is the name "腾讯这样的居民". value: the name without "@".
 *
 * Hashtag: "#" placed like the "@" of a mention. The Weibo form "#话题#" wins when a closing
 * "#" comes within 64 characters with no white space, control or other "#" before it and
 * the text between has a non-digit; value: the text between. Otherwise "#tag": letters of
 * any script, ASCII digits and "_", with at least one non-digit ("#123" is none); value:
 * the tag.
 *
 * Neither is reported inside a URL or an email address. Both run in linear time: every
 * scan starts at an "@" or "#" and stops at the next one or earlier (the Weibo look-ahead is
 * capped at 64 characters).
 */
#include <string.h>

#include "links.h"
#include "utf8.h"

/** Longest Weibo topic, in code points, between the two "#". */
#define WEIBO_MAX_CHARS 64

/** Finds the next `mark` at or after `*pos` that may start a mention/hashtag: outside
 * URLs and emails and not glued to a preceding word. Returns false at the end. */
static bool next_mark(const unsigned char *s, size_t n, unsigned char mark, lk_exclusions *x, size_t *pos) {
    size_t p = *pos;
    while (p < n) {
        const unsigned char *hit = memchr(s + p, mark, n - p);
        if (!hit) return false;
        p = (size_t)(hit - s);
        size_t skip = lk_exclusions_skip(x, p);
        if (skip != p) {
            p = skip;
            continue;
        }
        if (p > 0 && u_joins_word(u8_before(s, n, p))) {
            p++;
            continue;
        }
        *pos = p;
        return true;
    }
    return false;
}

int lk_detect_mention(lk_ctx *ctx) {
    const unsigned char *s = ctx->s;
    size_t n = ctx->n, p = 0;
    lk_exclusions x;
    lk_exclusions_init(&x, s, n);
    while (next_mark(s, n, '@', &x, &p)) {
        size_t q = p + 1, end = q;
        while (q < n) {
            size_t length;
            uint32_t cp = u8_decode(s, n, q, &length);
            if (cp == '-') {
                q += length;
                continue;
            }
            if (!u_is_letter(cp) && !u_is_digit(cp) && cp != '_') break;
            q += length;
            end = q; /* not past a trailing "-" */
        }
        if (end == p + 1) {
            p++;
            continue;
        }
        if (lk_emit_text(ctx, p, end, "", p + 1, end)) return -1;
        p = end;
    }
    return 0;
}

/** The end of a Weibo topic "#...#" whose first "#" is at p (the byte after the closing
 * "#"), or 0 when there is none. */
static size_t weibo_topic(const unsigned char *s, size_t n, size_t p) {
    size_t q = p + 1, chars = 0;
    bool non_digit = false;
    while (q < n && chars <= WEIBO_MAX_CHARS) {
        size_t length;
        uint32_t cp = u8_decode(s, n, q, &length);
        if (cp == '#') return chars >= 1 && chars <= WEIBO_MAX_CHARS && non_digit ? q + 1 : 0;
        if (u_is_space(cp) || cp < 0x20 || cp == 0x7F) return 0;
        if (!u_is_digit(cp)) non_digit = true;
        chars++;
        q += length;
    }
    return 0;
}

/** The end of a "#tag" whose "#" is at p, or 0 when there is none. */
static size_t plain_tag(const unsigned char *s, size_t n, size_t p) {
    size_t q = p + 1;
    bool non_digit = false;
    while (q < n) {
        size_t length;
        uint32_t cp = u8_decode(s, n, q, &length);
        if (u_is_letter(cp) || cp == '_') non_digit = true;
        else if (!u_is_digit(cp)) break;
        q += length;
    }
    return non_digit ? q : 0;
}

int lk_detect_hashtag(lk_ctx *ctx) {
    const unsigned char *s = ctx->s;
    size_t n = ctx->n, p = 0;
    lk_exclusions x;
    lk_exclusions_init(&x, s, n);
    while (next_mark(s, n, '#', &x, &p)) {
        size_t end = weibo_topic(s, n, p);
        if (end) {
            if (lk_emit_text(ctx, p, end, "", p + 1, end - 1)) return -1;
            p = end;
            continue;
        }
        end = plain_tag(s, n, p);
        if (end) {
            if (lk_emit_text(ctx, p, end, "", p + 1, end)) return -1;
            p = end;
            continue;
        }
        p++;
    }
    return 0;
}
