/*
 * svgbuf.c — the SVG painter's text buffer and writers (see svgbuf.h). Numbers are written
 * by hand (the C locale's decimal point is not trusted).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "color.h"
#include "svgbuf.h"

/* A growable byte buffer; after a failed allocation it ignores everything. */
void sb_put(sbuf *b, const char *s, size_t n)
{
    if (b->failed || n == 0) return;
    if (n > SIZE_MAX / 2 - b->len) {
        b->failed = 1;
        return;
    }
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap < b->len + n) cap *= 2;
        char *data = realloc(b->data, cap);
        if (data == NULL) {
            b->failed = 1;
            return;
        }
        b->data = data, b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
}

void sb_str(sbuf *b, const char *s) { sb_put(b, s, strlen(s)); }
void sb_char(sbuf *b, char c) { sb_put(b, &c, 1); }

/* Appends `v` rounded to `decimals` (2 or 3) decimals, trailing zeros trimmed, with a '.'
 * whatever the locale. Returns -1 (appending nothing) when v is NaN, inf or |v| ≥ 1e12. */
int sb_num(sbuf *b, double v, int decimals)
{
    if (!isfinite(v) || v >= 1e12 || v <= -1e12) return -1;
    int64_t unit = decimals >= 3 ? 1000 : 100;
    double scaled = v * (double)unit;
    int64_t n = (int64_t)(scaled + (scaled >= 0 ? 0.5 : -0.5));
    char tmp[40];
    size_t k = sizeof tmp;
    uint64_t u = n < 0 ? (uint64_t)(-n) : (uint64_t)n;
    uint64_t ip = u / (uint64_t)unit, fp = u % (uint64_t)unit;
    int frac_digits = decimals >= 3 ? 3 : 2;
    int started = 0;
    for (int d = 0; d < frac_digits; d++, fp /= 10) { /* fraction, right to left */
        if (!started && fp % 10 == 0) continue;
        started = 1;
        tmp[--k] = (char)('0' + fp % 10);
    }
    if (started) tmp[--k] = '.';
    do {
        tmp[--k] = (char)('0' + ip % 10);
        ip /= 10;
    } while (ip);
    if (n < 0) tmp[--k] = '-';
    sb_put(b, tmp + k, sizeof tmp - k);
    return 0;
}

/* Appends ` name="v"`; -1 when v is not writable. */
int sb_attr(sbuf *b, const char *name, double v)
{
    sb_char(b, ' ');
    sb_str(b, name);
    sb_str(b, "=\"");
    if (sb_num(b, v, 2) != 0) return -1;
    sb_char(b, '"');
    return 0;
}

/* Appends ` fill="#rrggbb"` (or stroke=...) and, unless opaque, ` fill-opacity="a"`. */
void sb_paint(sbuf *b, const char *what, layoutd_color c)
{
    static const char hex[] = "0123456789abcdef";
    char v[8] = {'#'};
    for (int i = 0; i < 6; i++) v[1 + i] = hex[(c >> (28 - 4 * i)) & 0xfu];
    sb_char(b, ' ');
    sb_str(b, what);
    sb_str(b, "=\"");
    sb_put(b, v, 7);
    sb_char(b, '"');
    if (rp_color_a(c) != 255) {
        sb_char(b, ' ');
        sb_str(b, what);
        sb_str(b, "-opacity=\"");
        sb_num(b, (double)rp_color_a(c) / 255.0, 3);
        sb_char(b, '"');
    }
}

/* Appends `s` as XML character data: & < > " ' escaped, control characters other than tab
 * and newline dropped, cut at `max` bytes on a UTF-8 character boundary. */
void sb_text(sbuf *b, const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n > max) {
        n = max;
        while (n > 0 && ((unsigned char)s[n] & 0xc0u) == 0x80u) n--; /* not mid-character */
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '&': sb_str(b, "&amp;"); break;
        case '<': sb_str(b, "&lt;"); break;
        case '>': sb_str(b, "&gt;"); break;
        case '"': sb_str(b, "&quot;"); break;
        case '\'': sb_str(b, "&apos;"); break;
        default:
            if (c >= 0x20 || c == '\t' || c == '\n') sb_char(b, (char)c);
        }
    }
}

/* Appends ` href="data:image/png;base64,…" xlink:href="…"` (the same data twice): SVG 2
 * viewers read `href`, SVG 1.1 ones only `xlink:href` (SVG 1.1, "The 'image' element"; SVG 2
 * deprecates xlink:href and still reads it); the host's <svg> declares the xlink namespace. */
void sb_image_href(sbuf *b, const char *base64, size_t length)
{
    sb_str(b, " href=\"data:image/png;base64,");
    sb_put(b, base64, length);
    sb_str(b, "\" xlink:href=\"data:image/png;base64,");
    sb_put(b, base64, length);
    sb_char(b, '"');
}


/* Appends base64 from the host, refusing anything but the base64 alphabet (it goes into an
 * attribute unescaped). */
void sb_base64_sink(void *context, const char *bytes, size_t length)
{
    sb_base64_job *job = context;
    if (bytes == NULL) return;
    for (size_t i = 0; i < length; i++) {
        char c = bytes[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '+' || c == '/' || c == '='))
            job->bad = 1;
    }
    if (!job->bad) sb_put(job->b, bytes, length);
}

