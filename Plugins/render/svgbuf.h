/*
 * svgbuf.h — the SVG painter's text buffer (svgbuf.c): a growable byte buffer that ignores
 * everything after a failed allocation, and writers for numbers, attributes, paints, XML
 * text, image references and base64 from the host.
 */
#ifndef RENDER_SVGBUF_H
#define RENDER_SVGBUF_H

#include <stddef.h>

#include "layoutd_plugin.h"

typedef struct sbuf {
    char *data;
    size_t len, cap;
    int failed;
} sbuf;

void sb_put(sbuf *b, const char *s, size_t n);
void sb_str(sbuf *b, const char *s);
void sb_char(sbuf *b, char c);
/* Appends `v` rounded to `decimals` (2 or 3) decimals, trailing zeros trimmed, with a '.'
 * whatever the locale. Returns -1 (appending nothing) when v is NaN, inf or |v| ≥ 1e12. */
int sb_num(sbuf *b, double v, int decimals);
/* Appends ` name="v"`; -1 when v is not writable. */
int sb_attr(sbuf *b, const char *name, double v);
/* Appends ` fill="#rrggbb"` (or stroke=...) and, unless opaque, ` fill-opacity="a"`. */
void sb_paint(sbuf *b, const char *what, layoutd_color c);
/* Appends `s` as XML character data, escaped, cut at `max` bytes on a character boundary. */
void sb_text(sbuf *b, const char *s, size_t max);
/* Appends ` href="data:image/png;base64,…" xlink:href="…"`. */
void sb_image_href(sbuf *b, const char *base64, size_t length);

/* A layoutd_bytes_fn context: base64 from the host goes into `b`; `bad` is set when it holds
 * anything but the base64 alphabet. */
typedef struct sb_base64_job {
    sbuf *b;
    int bad;
} sb_base64_job;
void sb_base64_sink(void *context, const char *bytes, size_t length);

#endif /* RENDER_SVGBUF_H */
