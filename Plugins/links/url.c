/*
 * url.c — the "url" kind: http://, https://, ftp://, mailto: (any case) and bare "www."
 * URLs, with IDN hosts and paths, trailing-punctuation and unbalanced-parenthesis trimming.
 * The scanner (lk_next_url) is also what mentions, hashtags and phones use to skip URLs.
 *
 * Rules:
 *   - A URL starts at a scheme or "www." not glued to what precedes it: the character
 *     before must not join a word (see u_joins_word) nor be . - @ / +.
 *   - It runs over URL characters: printable ASCII except space < > " and DEL, and
 *     non-ASCII letters (so IDN hosts and paths like 例子.测试/路径 stay whole). It stops
 *     at white space, controls, CJK/fullwidth punctuation and every other non-letter
 *     (see utf8.h), and where an ASCII letter or digit is followed directly by a CJK
 *     character (U+2E80 and up): Chinese and Japanese text runs on after a URL without a
 *     space, so "www.example.com了解更多" is "www.example.com" ("…/wiki/中文" keeps 中文).
 *   - The host (up to the first / ? #) must hold a letter or digit ("http://" alone is no
 *     URL); after "www." it must hold a dot between two label characters ("www.a.de").
 *   - Trailing . , ; : ! ? ' are dropped, and so is a closing ) or ] that has no opening
 *     partner inside the URL ("(see https://a.com/x)" loses the ")", ".../Foo_(bar)" keeps it).
 *   - value: the URL text, with "http://" prefixed to the www. form.
 * Linear time: a candidate whose host check fails has a host with no letter or digit (or,
 * for www., no inner dot), so no later candidate starts inside the stretch it scanned
 * (at most one, for www.); the path is scanned only for a candidate that matches.
 */
#include <string.h>

#include "links.h"
#include "utf8.h"

/** The prefixes that start a URL, lower case; "www." is last. */
static const struct {
    const char *text;
    size_t length;
} url_prefixes[] = {
    {"https://", 8}, {"http://", 7}, {"ftp://", 6}, {"mailto:", 7}, {"www.", 4},
};
#define URL_PREFIX_COUNT (sizeof url_prefixes / sizeof url_prefixes[0])

/** True when the text at i starts with `lower` (lower-case ASCII), ignoring ASCII case. */
static bool starts_with_ci(const unsigned char *s, size_t n, size_t i, const char *lower, size_t length) {
    if (n - i < length) return false;
    for (size_t k = 0; k < length; k++) {
        unsigned char c = s[i + k];
        if (c >= 'A' && c <= 'Z') c = (unsigned char)(c + 32);
        if (c != (unsigned char)lower[k]) return false;
    }
    return true;
}

/** A character that may be part of a URL. */
static bool url_char(uint32_t cp) {
    if (cp < 0x80) return cp > 0x20 && cp != 0x7F && cp != '<' && cp != '>' && cp != '"';
    return u_is_letter(cp);
}

/** True when `cp` may follow `previous` inside a URL: a URL character, and not CJK glued
 * to an ASCII letter or digit (where a URL runs into CJK text). */
static bool url_continues(uint32_t previous, uint32_t cp) {
    return url_char(cp) && !(cp >= 0x2E80 && u_is_ascii_alnum(previous));
}

/** True when a URL may start at i: the character before does not glue it to a word. */
static bool url_may_start(const unsigned char *s, size_t n, size_t i) {
    if (i == 0) return true;
    uint32_t cp = u8_before(s, n, i);
    if (u_joins_word(cp)) return false;
    return cp != '.' && cp != '-' && cp != '@' && cp != '/' && cp != '+';
}

/** A byte that can be part of a host label: ASCII letter or digit, or any byte of a
 * non-ASCII character (the host scan only admits non-ASCII letters). */
static bool label_byte(unsigned char c) { return c >= 0x80 || u_is_ascii_alnum(c); }

/** True when the host after "www.", [start, end), is like "example.com": it starts with a
 * label character and has a dot with label characters on both sides. */
static bool www_host_ok(const unsigned char *s, size_t start, size_t end) {
    if (start >= end || !label_byte(s[start])) return false;
    for (size_t k = start + 1; k + 1 < end; k++)
        if (s[k] == '.' && label_byte(s[k - 1]) && label_byte(s[k + 1])) return true;
    return false;
}

/** Parenthesis and bracket counts of a URL, for trimming unbalanced closers. */
typedef struct url_pairs {
    size_t open_paren, close_paren, open_bracket, close_bracket;
} url_pairs;

static void count_pair(url_pairs *p, uint32_t cp) {
    if (cp == '(') p->open_paren++;
    else if (cp == ')') p->close_paren++;
    else if (cp == '[') p->open_bracket++;
    else if (cp == ']') p->close_bracket++;
}

/** Drops trailing punctuation and unbalanced closers from [.., end), never below `floor`
 * (the end of the scheme). Returns the new end. */
static size_t trim_end(const unsigned char *s, size_t floor, size_t end, url_pairs *p) {
    while (end > floor) {
        unsigned char c = s[end - 1];
        if (c == '.' || c == ',' || c == ';' || c == ':' || c == '!' || c == '?' || c == '\'') {
            end--;
        } else if (c == ')' && p->close_paren > p->open_paren) {
            p->close_paren--;
            end--;
        } else if (c == ']' && p->close_bracket > p->open_bracket) {
            p->close_bracket--;
            end--;
        } else {
            break;
        }
    }
    return end;
}

bool lk_next_url(const unsigned char *s, size_t n, size_t from, lk_span *url, bool *www) {
    for (size_t i = from; i < n; i++) {
        unsigned char c = s[i];
        if (c >= 'A' && c <= 'Z') c = (unsigned char)(c + 32);
        if (c != 'h' && c != 'f' && c != 'm' && c != 'w') continue;
        size_t k = 0;
        while (k < URL_PREFIX_COUNT && !starts_with_ci(s, n, i, url_prefixes[k].text, url_prefixes[k].length)) k++;
        if (k == URL_PREFIX_COUNT || !url_may_start(s, n, i)) continue;
        bool is_www = k == URL_PREFIX_COUNT - 1;
        size_t host = i + url_prefixes[k].length;

        /* The host: up to the first / ? # or non-URL character. */
        url_pairs pairs = {0, 0, 0, 0};
        bool alnum = false;
        size_t end = host;
        uint32_t previous = s[host - 1];
        while (end < n) {
            size_t length;
            uint32_t cp = u8_decode(s, n, end, &length);
            if (!url_continues(previous, cp) || cp == '/' || cp == '?' || cp == '#') break;
            if (cp >= 0x80 || u_is_ascii_alnum(cp)) alnum = true;
            count_pair(&pairs, cp);
            previous = cp;
            end += length;
        }
        if (is_www ? !www_host_ok(s, host, end) : !alnum) continue;

        /* Path, query and fragment. */
        while (end < n) {
            size_t length;
            uint32_t cp = u8_decode(s, n, end, &length);
            if (!url_continues(previous, cp)) break;
            count_pair(&pairs, cp);
            previous = cp;
            end += length;
        }
        url->start = i;
        url->end = trim_end(s, host, end, &pairs);
        *www = is_www;
        return true;
    }
    return false;
}

int lk_detect_url(lk_ctx *ctx) {
    lk_span url;
    bool www;
    size_t from = 0;
    while (lk_next_url(ctx->s, ctx->n, from, &url, &www)) {
        if (lk_emit_text(ctx, url.start, url.end, www ? "http://" : "", url.start, url.end)) return -1;
        from = url.end;
    }
    return 0;
}
