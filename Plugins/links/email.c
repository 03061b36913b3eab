/*
 * email.c — the "email" kind: local@domain.tld, value "mailto:" + the address. The scanner
 * (lk_next_email) is also what mentions, hashtags and phones use to skip addresses.
 *
 * Rules:
 *   - local part: ASCII letters, digits and . _ % + - (leading dots are skipped, a trailing
 *     dot rejects it). It must not continue a word: the character before it must not be a
 *     letter of a space-separated script (u_joins_word; so "müller@x.de" is not
 *     "ller@x.de"), while CJK right before is fine ("邮箱a@b.com" finds "a@b.com").
 *   - domain: two or more labels of ASCII letters, digits, "-" and non-ASCII letters (IDN),
 *     separated by single dots; the last label (TLD) is 2+ letters, no digits. A final
 *     dot is not part of it ("a.b@example.org." ends before the dot). A label that turns
 *     from ASCII into CJK (U+2E80 and up) ends the domain, so "a@b.com联系我" is "a@b.com".
 * Linear time: the local part is scanned back no further than the previous "@" (or the
 * previous match), the domain forward no further than the next "@".
 */
#include <string.h>

#include "links.h"
#include "utf8.h"

static bool local_byte(unsigned char c) {
    return u_is_ascii_alnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-';
}

/** A domain-label character: ASCII letter, digit or "-", or a non-ASCII letter. */
static bool label_char(uint32_t cp) {
    return cp < 0x80 ? (u_is_ascii_alnum(cp) || cp == '-') : u_is_letter(cp);
}

/** Scans the domain after an "@" at `start`. Returns its end (start when there is no valid
 * domain). */
static size_t scan_domain(const unsigned char *s, size_t n, size_t start) {
    size_t q = start, labels = 0, tld_start = start;
    for (;;) {
        size_t label = q;
        bool ascii_seen = false;
        while (q < n) {
            size_t length;
            uint32_t cp = u8_decode(s, n, q, &length);
            if (!label_char(cp)) break;
            if (cp >= 0x2E80 && ascii_seen) break; /* "b.com联系我": the domain ends at 联 */
            if (cp < 0x80) ascii_seen = true;
            q += length;
        }
        if (q == label) break;
        labels++;
        tld_start = label;
        /* Another label follows only after a single dot and a label character. */
        if (q + 1 < n && s[q] == '.') {
            size_t length;
            uint32_t cp = u8_decode(s, n, q + 1, &length);
            if (label_char(cp)) {
                q++;
                continue;
            }
        }
        break;
    }
    if (labels < 2) return start;
    /* The TLD: two or more letters. */
    size_t letters = 0;
    for (size_t k = tld_start; k < q;) {
        size_t length;
        uint32_t cp = u8_decode(s, n, k, &length);
        if (!u_is_letter(cp)) return start;
        letters++;
        k += length;
    }
    return letters >= 2 ? q : start;
}

bool lk_next_email(const unsigned char *s, size_t n, size_t from, lk_span *email) {
    size_t p = from;
    while (p < n) {
        const unsigned char *at = memchr(s + p, '@', n - p);
        if (!at) return false;
        size_t a = (size_t)(at - s);
        p = a + 1;
        size_t local = a;
        while (local > from && local_byte(s[local - 1])) local--;
        if (local > 0) {
            uint32_t before = u8_before(s, n, local);
            /* A local byte before means the scan stopped at `from`: the address would be cut. */
            if (u_joins_word(before) || (before < 0x80 && local_byte((unsigned char)before))) continue;
        }
        while (local < a && s[local] == '.') local++;
        if (local == a || s[a - 1] == '.') continue;
        size_t end = scan_domain(s, n, a + 1);
        if (end == a + 1) continue;
        email->start = local;
        email->end = end;
        return true;
    }
    return false;
}

int lk_detect_email(lk_ctx *ctx) {
    lk_span email;
    size_t from = 0;
    while (lk_next_email(ctx->s, ctx->n, from, &email)) {
        if (lk_emit_text(ctx, email.start, email.end, "mailto:", email.start, email.end)) return -1;
        from = email.end;
    }
    return 0;
}
