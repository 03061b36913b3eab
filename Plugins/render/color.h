/*
 * color.h — colours for the render plugin: parsing "#rrggbb" / "#rrggbbaa" option strings
 * into layoutd_color (0xRRGGBBAA) and splitting a colour into its channels.
 */
#ifndef RENDER_COLOR_H
#define RENDER_COLOR_H

#include <stddef.h>
#include <stdint.h>

#include "layoutd_plugin.h"

static inline uint32_t rp_color_r(layoutd_color c) { return (c >> 24) & 0xffu; }
static inline uint32_t rp_color_g(layoutd_color c) { return (c >> 16) & 0xffu; }
static inline uint32_t rp_color_b(layoutd_color c) { return (c >> 8) & 0xffu; }
static inline uint32_t rp_color_a(layoutd_color c) { return c & 0xffu; }

/* Value of one hex digit, or -1. */
static inline int rp_hex_digit(char ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* Parses "#rrggbb" (opaque) or "#rrggbbaa" (hex, either case) of exactly `length` bytes.
 * Returns 0 and sets *out, or -1 when the string is anything else. */
static inline int rp_parse_color(const char *s, size_t length, layoutd_color *out)
{
    if (s == NULL || (length != 7 && length != 9) || s[0] != '#') return -1;
    uint32_t v = 0;
    for (size_t i = 1; i < length; i++) {
        int d = rp_hex_digit(s[i]);
        if (d < 0) return -1;
        v = (v << 4) | (uint32_t)d;
    }
    *out = length == 7 ? (v << 8) | 0xffu : v;
    return 0;
}

#endif /* RENDER_COLOR_H */
