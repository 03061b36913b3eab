/*
 * raster.c — the RGBA painter: anti-aliased rects, rounded rects, horizontal lines and glyph
 * images composited with straight-alpha "over" onto the host's RGBA canvas.
 *
 * Points map to pixels by `canvas->scale`. Every shape is converted to pixel space, checked
 * for NaN/inf, clamped to the canvas before any integer conversion, and only the pixels
 * inside the canvas are visited, so the work per shape is bounded by the canvas area.
 * Coverage: exact pixel-area overlap for rect edges; 4×4 supersampling in the corner zones
 * of rounded rects. Lines (underlines, overlay) snap to whole pixels to stay crisp.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "plugin_support.h"
#include "color.h"
#include "layoutd_plugin.h"
#include "render.h"

typedef struct raster {
    rp_painter base; /* first member: painter callbacks cast back to raster */
    const rp_state *state;
    uint8_t *pixels;
    size_t stride;
    int64_t iw, ih;  /* canvas size in pixels */
    double w, h;     /* the same, as doubles for clipping */
    double scale;    /* pixels per point */
} raster;

/* A colour as premultiplied floats in 0..1. */
typedef struct paint {
    float r, g, b, a;
} paint;

static paint paint_of(layoutd_color c)
{
    float a = (float)rp_color_a(c) / 255.f;
    return (paint){(float)rp_color_r(c) / 255.f * a, (float)rp_color_g(c) / 255.f * a,
                   (float)rp_color_b(c) / 255.f * a, a};
}

static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }
static double dmin(double a, double b) { return a < b ? a : b; }
static double dmax(double a, double b) { return a > b ? a : b; }

/* floor/ceil without libm, for values already clamped to a safe range (|v| < 2^62). */
static int64_t floor_i(double v)
{
    int64_t i = (int64_t)v;
    return v < (double)i ? i - 1 : i;
}
static int64_t ceil_i(double v)
{
    int64_t i = (int64_t)v;
    return v > (double)i ? i + 1 : i;
}

/* Rounds a pixel coordinate to a whole pixel (half up), after clamping it far outside the
 * canvas so that huge values convert safely; returns it as a double. */
static double snap(double v) { return (double)floor_i(clampd(v, -4e9, 4e9) + 0.5); }

static uint8_t to_byte(float v)
{
    if (!(v > 0.f)) return 0;
    if (v >= 1.f) return 255;
    return (uint8_t)(v * 255.f + 0.5f);
}

/* Composites a premultiplied source (pr, pg, pb, pa in 0..1) over the straight-alpha pixel
 * at (x, y), which the caller has clipped to the canvas. */
static void blend_premul(raster *r, int64_t x, int64_t y, float pr, float pg, float pb, float pa)
{
    if (!(pa > 0.f)) return;
    uint8_t *p = r->pixels + (size_t)y * r->stride + (size_t)x * 4;
    float k = (float)p[3] / 255.f * (1.f - pa); /* what shows through, times dst alpha */
    float oa = pa + k;
    p[0] = to_byte((pr + (float)p[0] / 255.f * k) / oa);
    p[1] = to_byte((pg + (float)p[1] / 255.f * k) / oa);
    p[2] = to_byte((pb + (float)p[2] / 255.f * k) / oa);
    p[3] = to_byte(oa);
}

static void blend_paint(raster *r, int64_t x, int64_t y, const paint *c, float coverage)
{
    blend_premul(r, x, y, c->r * coverage, c->g * coverage, c->b * coverage, c->a * coverage);
}

/* Fills [x0,x1)×[y0,y1) in pixel space, edge pixels weighted by the area they overlap. */
static void px_fill(raster *r, double x0, double y0, double x1, double y1, layoutd_color color)
{
    if (!(isfinite(x0) && isfinite(y0) && isfinite(x1) && isfinite(y1))) return;
    if (rp_color_a(color) == 0) return;
    x0 = clampd(x0, 0, r->w), x1 = clampd(x1, 0, r->w);
    y0 = clampd(y0, 0, r->h), y1 = clampd(y1, 0, r->h);
    if (!(x1 > x0 && y1 > y0)) return;
    paint c = paint_of(color);
    int64_t i0 = floor_i(x0), i1 = ceil_i(x1), j0 = floor_i(y0), j1 = ceil_i(y1);
    for (int64_t j = j0; j < j1; j++) {
        double cy = dmin(y1, (double)(j + 1)) - dmax(y0, (double)j);
        for (int64_t i = i0; i < i1; i++) {
            double cx = dmin(x1, (double)(i + 1)) - dmax(x0, (double)i);
            blend_paint(r, i, j, &c, (float)(cx * cy));
        }
    }
}

/* A rounded rect in pixel space; `rad` is at most half the smaller side. */
typedef struct rrect {
    double x0, y0, x1, y1, rad;
} rrect;

/* 1 when point (x, y) is inside the rounded rect: inside the rect, and within `rad` of the
 * rect shrunk by `rad` (which only matters in the corners). */
static int rr_inside(const rrect *q, double x, double y)
{
    if (x < q->x0 || x >= q->x1 || y < q->y0 || y >= q->y1) return 0;
    double dx = x - clampd(x, q->x0 + q->rad, q->x1 - q->rad);
    double dy = y - clampd(y, q->y0 + q->rad, q->y1 - q->rad);
    return dx * dx + dy * dy <= q->rad * q->rad;
}

/* Coverage of pixel (i, j) by the rounded rect: exact area outside the corner zones,
 * 4×4 samples inside them. */
static float rr_coverage(const rrect *q, int64_t i, int64_t j)
{
    double px0 = (double)i, py0 = (double)j, px1 = px0 + 1, py1 = py0 + 1;
    double cx = dmin(q->x1, px1) - dmax(q->x0, px0);
    double cy = dmin(q->y1, py1) - dmax(q->y0, py0);
    if (!(cx > 0 && cy > 0)) return 0.f;
    int near_x = px0 < q->x0 + q->rad || px1 > q->x1 - q->rad;
    int near_y = py0 < q->y0 + q->rad || py1 > q->y1 - q->rad;
    if (!(q->rad > 0 && near_x && near_y)) return (float)(cx * cy);
    int hits = 0;
    for (int sy = 0; sy < 4; sy++)
        for (int sx = 0; sx < 4; sx++)
            hits += rr_inside(q, px0 + (sx + 0.5) / 4, py0 + (sy + 0.5) / 4);
    return (float)hits / 16.f;
}

/* Fills `outer` minus `inner` (NULL: nothing cut out), clipped to the canvas. */
static void px_fill_rr(raster *r, const rrect *outer, const rrect *inner, layoutd_color color)
{
    if (rp_color_a(color) == 0) return;
    double x0 = clampd(outer->x0, 0, r->w), x1 = clampd(outer->x1, 0, r->w);
    double y0 = clampd(outer->y0, 0, r->h), y1 = clampd(outer->y1, 0, r->h);
    if (!(x1 > x0 && y1 > y0)) return;
    paint c = paint_of(color);
    int64_t i0 = floor_i(x0), i1 = ceil_i(x1), j0 = floor_i(y0), j1 = ceil_i(y1);
    for (int64_t j = j0; j < j1; j++) {
        for (int64_t i = i0; i < i1; i++) {
            float cov = rr_coverage(outer, i, j);
            if (inner != NULL) cov -= rr_coverage(inner, i, j);
            if (cov > 0.f) blend_paint(r, i, j, &c, cov > 1.f ? 1.f : cov);
        }
    }
}

/* Converts a rect in points to pixel space; 0 when it is not finite or empty. */
static int to_px(const raster *r, const layoutd_rect *rect, double radius, rrect *out)
{
    if (!rp_rect_ok(rect)) return 0;
    out->x0 = rect->x * r->scale, out->y0 = rect->y * r->scale;
    out->x1 = (rect->x + rect->width) * r->scale, out->y1 = (rect->y + rect->height) * r->scale;
    if (!(isfinite(out->x0) && isfinite(out->y0) && isfinite(out->x1) && isfinite(out->y1)))
        return 0;
    if (!(out->x1 > out->x0 && out->y1 > out->y0)) return 0;
    double rad = radius * r->scale;
    double max_rad = dmin(out->x1 - out->x0, out->y1 - out->y0) / 2;
    out->rad = isfinite(rad) && rad > 0 ? dmin(rad, max_rad) : 0;
    return 1;
}

static void op_fill_rect(rp_painter *p, const layoutd_rect *rect, layoutd_color color)
{
    raster *r = (raster *)p;
    rrect q;
    if (to_px(r, rect, 0, &q)) px_fill(r, q.x0, q.y0, q.x1, q.y1, color);
}

static void op_fill_rounded(rp_painter *p, const layoutd_rect *rect, double radius,
                            layoutd_color color)
{
    raster *r = (raster *)p;
    rrect q;
    if (to_px(r, rect, radius, &q)) px_fill_rr(r, &q, NULL, color);
}

/* The placeholder: the rounded box filled, then a ring one point wide (at least one pixel)
 * inside its edge in the stroke colour. */
static void op_placeholder(rp_painter *p, const layoutd_rect *rect, double radius,
                           layoutd_color fill, layoutd_color stroke, const char *title)
{
    (void)title; /* pixels cannot show it */
    raster *r = (raster *)p;
    rrect outer;
    if (!to_px(r, rect, radius, &outer)) return;
    px_fill_rr(r, &outer, NULL, fill);
    double sw = dmax(1.0, r->scale);
    rrect inner = {outer.x0 + sw, outer.y0 + sw, outer.x1 - sw, outer.y1 - sw,
                   dmax(0.0, outer.rad - sw)};
    px_fill_rr(r, &outer, inner.x1 > inner.x0 && inner.y1 > inner.y0 ? &inner : NULL, stroke);
}

/* The premultiplied colour of image pixel (x, y), clamped to the image's edge. */
static paint image_texel(const layoutd_image *im, int64_t x, int64_t y)
{
    x = x < 0 ? 0 : x >= (int64_t)im->width ? (int64_t)im->width - 1 : x;
    y = y < 0 ? 0 : y >= (int64_t)im->height ? (int64_t)im->height - 1 : y;
    const uint8_t *s = im->pixels + (size_t)y * im->stride + (size_t)x * 4;
    float a = (float)s[3] / 255.f;
    return (paint){(float)s[0] / 255.f * a, (float)s[1] / 255.f * a, (float)s[2] / 255.f * a, a};
}

/* Where the centre of pixel `pixel` falls on a side [q0, q1) that `texels` texels fill: the texel
 * before it and the fraction of the way to the next (texel centres sit at half steps). 0 when
 * the centre lies outside the side. */
static int texel_at(int64_t pixel, double q0, double q1, uint32_t texels, int64_t *t, float *f)
{
    double c = (double)pixel + 0.5;
    if (c < q0 || c >= q1) return 0;
    double u = (c - q0) * (double)texels / (q1 - q0) - 0.5;
    *t = floor_i(u);
    *f = (float)(u - (double)*t);
    return 1;
}

/* An attachment image scaled to fill the rect: every canvas pixel whose centre lies in it
 * takes the image bilinearly sampled at the matching point, in premultiplied colour (so
 * transparent texels do not darken their neighbours). Only pixels inside the canvas are
 * visited. */
static void op_image(rp_painter *p, const layoutd_rect *rect, const layoutd_image *im)
{
    raster *r = (raster *)p;
    rrect q;
    if (!to_px(r, rect, 0, &q)) return;
    int64_t i0 = floor_i(clampd(q.x0, 0, r->w)), i1 = ceil_i(clampd(q.x1, 0, r->w));
    int64_t j0 = floor_i(clampd(q.y0, 0, r->h)), j1 = ceil_i(clampd(q.y1, 0, r->h));
    for (int64_t j = j0; j < j1; j++) {
        int64_t y, x;
        float fy, fx;
        if (!texel_at(j, q.y0, q.y1, im->height, &y, &fy)) continue;
        for (int64_t i = i0; i < i1; i++) {
            if (!texel_at(i, q.x0, q.x1, im->width, &x, &fx)) continue;
            paint a = image_texel(im, x, y), b = image_texel(im, x + 1, y);
            paint c = image_texel(im, x, y + 1), d = image_texel(im, x + 1, y + 1);
            float w00 = (1 - fx) * (1 - fy), w10 = fx * (1 - fy), w01 = (1 - fx) * fy, w11 = fx * fy;
            blend_premul(r, i, j, a.r * w00 + b.r * w10 + c.r * w01 + d.r * w11,
                         a.g * w00 + b.g * w10 + c.g * w01 + d.g * w11,
                         a.b * w00 + b.b * w10 + c.b * w01 + d.b * w11,
                         a.a * w00 + b.a * w10 + c.a * w01 + d.a * w11);
        }
    }
}

/* Horizontal line, snapped: whole-pixel ends and a whole number of rows (at least one)
 * centred as near y as the grid allows. */
static void op_hline(rp_painter *p, double x0, double x1, double y, double thickness,
                     layoutd_color color)
{
    raster *r = (raster *)p;
    double s = r->scale;
    if (!(isfinite(x0 * s) && isfinite(x1 * s) && isfinite(y * s) && isfinite(thickness * s)))
        return;
    if (!(x1 > x0) || !(thickness > 0)) return;
    double rows = dmax(1.0, snap(thickness * s));
    double top = snap(y * s - rows / 2);
    double left = snap(x0 * s), right = snap(x1 * s);
    if (right <= left) right = left + 1;
    px_fill(r, left, top, right, top + rows, color);
}

/* Outline one pixel wide, inside the rect's snapped edges. */
static void op_hairline_rect(rp_painter *p, const layoutd_rect *rect, layoutd_color color)
{
    raster *r = (raster *)p;
    double s = r->scale;
    double x0 = rect->x * s, y0 = rect->y * s;
    double x1 = (rect->x + rect->width) * s, y1 = (rect->y + rect->height) * s;
    if (!(isfinite(x0) && isfinite(y0) && isfinite(x1) && isfinite(y1))) return;
    if (x1 < x0 || y1 < y0) return;
    x0 = snap(x0), y0 = snap(y0), x1 = dmax(snap(x1), x0 + 1), y1 = dmax(snap(y1), y0 + 1);
    if (x1 - x0 <= 2 || y1 - y0 <= 2) {
        px_fill(r, x0, y0, x1, y1, color);
        return;
    }
    px_fill(r, x0, y0, x1, y0 + 1, color);
    px_fill(r, x0, y1 - 1, x1, y1, color);
    px_fill(r, x0, y0 + 1, x0 + 1, y1 - 1, color);
    px_fill(r, x1 - 1, y0 + 1, x1, y1 - 1, color);
}

/* One pixel row: the one holding y. */
static void op_hairline_h(rp_painter *p, double x0, double x1, double y, layoutd_color color)
{
    raster *r = (raster *)p;
    double s = r->scale;
    if (!(isfinite(x0 * s) && isfinite(x1 * s) && isfinite(y * s)) || x1 < x0) return;
    double row = (double)floor_i(clampd(y * s, -4e9, 4e9));
    double left = snap(x0 * s), right = dmax(snap(x1 * s), left + 1);
    px_fill(r, left, row, right, row + 1, color);
}

typedef struct glyph_job {
    raster *r;
    int64_t ox, oy;  /* glyph origin, whole pixels */
    paint color;     /* the run's text colour, for coverage images */
} glyph_job;

/* Composites one glyph image at the job's origin: format 1 (coverage) tinted with the text
 * colour, format 2 (premultiplied BGRA) as is. Rows and columns outside the canvas are never
 * visited; images with a short stride or an unknown format are ignored. */
static void glyph_sink(void *context, const layoutd_glyph_image *im)
{
    glyph_job *job = context;
    raster *r = job->r;
    if (im == NULL || im->width == 0 || im->height == 0 || im->pixels == NULL) return;
    uint64_t bpp = im->format == 1 ? 1 : im->format == 2 ? 4 : 0;
    if (bpp == 0 || (uint64_t)im->stride < (uint64_t)im->width * bpp) return;
    int64_t x0 = job->ox + im->left, y0 = job->oy - im->top;
    int64_t w = im->width, h = im->height;
    int64_t c0 = x0 < 0 ? -x0 : 0, c1 = r->iw - x0 < w ? r->iw - x0 : w;
    int64_t r0 = y0 < 0 ? -y0 : 0, r1 = r->ih - y0 < h ? r->ih - y0 : h;
    for (int64_t row = r0; row < r1; row++) {
        const uint8_t *src = im->pixels + (size_t)row * im->stride;
        for (int64_t col = c0; col < c1; col++) {
            if (bpp == 1) {
                if (src[col]) blend_paint(r, x0 + col, y0 + row, &job->color, (float)src[col] / 255.f);
            } else {
                const uint8_t *s = src + col * 4; /* B G R A, premultiplied */
                uint8_t a = s[3];
                if (a == 0) continue;
                /* a colour channel above alpha is invalid premultiplied data: clamp it */
                float fa = (float)a / 255.f;
                blend_premul(r, x0 + col, y0 + row, (float)(s[2] < a ? s[2] : a) / 255.f,
                             (float)(s[1] < a ? s[1] : a) / 255.f, (float)(s[0] < a ? s[0] : a) / 255.f,
                             fa);
            }
        }
    }
}

/* A text run's glyphs: each rasterized by the host at font size × scale and placed with its
 * origin rounded to a whole pixel. Glyphs whose origin lies more than 4 em (+16 px) outside
 * the canvas are skipped without asking the host, and so is a run whose size in pixels
 * exceeds RP_MAX_GLYPH_PIXELS. */
static void op_glyphs(rp_painter *p, const layoutd_line *line, const layoutd_run *run)
{
    raster *r = (raster *)p;
    const layoutd_host *host = r->state->host;
    const layoutd_font *font = rp_run_font(line, run);
    if (font == NULL || run->glyphs == NULL || host->glyph_image == NULL) return;
    double size = font->size * r->scale;
    if (!(isfinite(size) && size > 0 && size <= RP_MAX_GLYPH_PIXELS)) return;
    double margin = 4 * size + 16;
    glyph_job job = {r, 0, 0, paint_of(run->style.color)};
    for (uint32_t i = 0; i < run->glyph_count; i++) {
        const layoutd_glyph *g = &run->glyphs[i];
        double gx = g->x * r->scale, gy = g->y * r->scale;
        if (!(isfinite(gx) && isfinite(gy))) continue;
        if (gx < -margin || gx > r->w + margin || gy < -margin || gy > r->h + margin) continue;
        if (gx < -1e9 || gx > 1e9 || gy < -1e9 || gy > 1e9) continue;
        job.ox = floor_i(gx + 0.5);
        job.oy = floor_i(gy + 0.5);
        host->glyph_image(host, font, g->id, size, glyph_sink, &job);
    }
}

int rp_draw_rgba(const rp_state *state, const layoutd_line *line, const layoutd_canvas *canvas,
                 char *error, size_t error_size)
{
    if (canvas->width == 0 || canvas->height == 0) return 0; /* nothing to draw on */
    if (canvas->pixels == NULL) {
        plugin_set_error(error, error_size, "render: RGBA canvas without pixels");
        return -1;
    }
    if ((uint64_t)canvas->stride < (uint64_t)canvas->width * 4) {
        plugin_set_error(error, error_size, "render: RGBA canvas stride %u is less than 4 × width %u",
                 (unsigned)canvas->stride, (unsigned)canvas->width);
        return -1;
    }
    if (!(isfinite(canvas->scale) && canvas->scale > 0)) {
        plugin_set_error(error, error_size, "render: RGBA canvas scale must be finite and positive");
        return -1;
    }
    raster r = {
        .base = {.fill_rect = op_fill_rect,
                 .fill_rounded = op_fill_rounded,
                 .placeholder = op_placeholder,
                 .image = op_image,
                 .hline = op_hline,
                 .glyphs = op_glyphs,
                 .hairline_rect = op_hairline_rect,
                 .hairline_h = op_hairline_h,
                 .pixel = 1.0 / canvas->scale},
        .state = state,
        .pixels = canvas->pixels,
        .stride = canvas->stride,
        .iw = canvas->width,
        .ih = canvas->height,
        .w = canvas->width,
        .h = canvas->height,
        .scale = canvas->scale,
    };
    rp_paint_line(state, line, canvas, &r.base);
    return 0;
}
