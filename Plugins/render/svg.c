/*
 * svg.c — the SVG painter: the line as SVG elements in layout points, collected in one
 * buffer and passed to `canvas->append` in a single call at the end (nothing on failure).
 *
 * Shapes are <rect> (backgrounds, highlights with rx, selection, underlines, attachment
 * placeholders with a <title> of the attachment's value), overlay hairlines are stroked
 * <rect>/<line> with vector-effect="non-scaling-stroke" (one device pixel at any scale).
 * Each glyph's outline becomes a <path> (absolute coordinates, at most 2 decimals, nonzero
 * fill, the text colour); a glyph without an outline (a colour bitmap) and an attachment's
 * image become an <image> whose PNG the host encodes, with `href` and `xlink:href`. One
 * element per line of output; the text is written by svgbuf.c, and an element with a
 * NaN/inf/huge number is dropped whole.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_support.h"
#include "color.h"
#include "layoutd_plugin.h"
#include "render.h"
#include "svgbuf.h"

/* Colour bitmap glyphs are rasterized at this many pixels per point, so that they stay
 * sharp when the host scales the SVG up, but at most SVG_IMAGE_MAX_PIXELS per em (emoji
 * fonts hold bitmaps of about 136 pixels: more only costs time and bytes). */
#define SVG_IMAGE_OVERSAMPLE 2.0
#define SVG_IMAGE_MAX_PIXELS 160.0
/* Colour glyph images remembered per line, so a glyph drawn again reuses its PNG. */
#define SVG_IMAGE_MEMO 64
/* Largest colour glyph image embedded, per side. */
#define SVG_IMAGE_MAX_SIDE 4096u
/* Longest attachment title kept, in bytes. */
#define SVG_TITLE_MAX 256u

/* ---- the painter ---- */

/* A colour glyph already embedded on this line: its data URI's base64 lives in `images`. */
typedef struct image_memo {
    const layoutd_font *font;
    uint32_t glyph;
    layoutd_color tint;
    size_t offset, length; /* in svg.images */
    double left, top, width, height; /* points, relative to the glyph origin */
} image_memo;

typedef struct svg {
    rp_painter base; /* first member: painter callbacks cast back to svg */
    const rp_state *state;
    double width, height; /* the canvas, points (for skipping far-away glyphs) */
    sbuf out;             /* the elements */
    sbuf images;          /* base64 of the colour glyphs embedded so far */
    image_memo memo[SVG_IMAGE_MEMO];
    int memo_count;
    /* attachment images embedded on this line (their base64 in `images`), by pixels */
    struct { const uint8_t *pixels; size_t offset, length; } attachments[SVG_IMAGE_MEMO];
    int attachment_count;
} svg;

/* Opens `<rect` with x, y, width, height; -1 when a number is not writable. */
static int rect_open(sbuf *b, const layoutd_rect *r)
{
    sb_str(b, "<rect");
    return sb_attr(b, "x", r->x) | sb_attr(b, "y", r->y) | sb_attr(b, "width", r->width) |
           sb_attr(b, "height", r->height);
}

static void op_fill_rounded(rp_painter *p, const layoutd_rect *r, double radius, layoutd_color color)
{
    sbuf *b = &((svg *)p)->out;
    if (rp_color_a(color) == 0 || !rp_rect_ok(r)) return;
    size_t mark = b->len;
    int bad = rect_open(b, r);
    double max_rad = (r->width < r->height ? r->width : r->height) / 2;
    if (isfinite(radius) && radius > 0) bad |= sb_attr(b, "rx", radius < max_rad ? radius : max_rad);
    sb_paint(b, "fill", color);
    sb_str(b, "/>\n");
    if (bad) b->len = mark;
}

static void op_fill_rect(rp_painter *p, const layoutd_rect *r, layoutd_color color)
{
    op_fill_rounded(p, r, 0, color);
}

/* The placeholder: a 1-point stroke centred half a point inside the box, so it stays within
 * the box like the raster one; the attachment value as its <title> (a tooltip). */
static void op_placeholder(rp_painter *p, const layoutd_rect *r, double radius, layoutd_color fill,
                           layoutd_color stroke, const char *title)
{
    sbuf *b = &((svg *)p)->out;
    if (!rp_rect_ok(r)) return;
    double inset = r->width > 1 && r->height > 1 ? 0.5 : 0;
    layoutd_rect in = {r->x + inset, r->y + inset, r->width - 2 * inset, r->height - 2 * inset};
    size_t mark = b->len;
    int bad = rect_open(b, &in);
    double max_rad = (in.width < in.height ? in.width : in.height) / 2;
    if (isfinite(radius) && radius > 0) bad |= sb_attr(b, "rx", radius < max_rad ? radius : max_rad);
    sb_paint(b, "fill", fill);
    sb_paint(b, "stroke", stroke);
    sb_str(b, " stroke-width=\"1\"");
    if (title != NULL && title[0] != '\0') {
        sb_str(b, "><title>");
        sb_text(b, title, SVG_TITLE_MAX);
        sb_str(b, "</title></rect>\n");
    } else {
        sb_str(b, "/>\n");
    }
    if (bad) b->len = mark;
}

/* Underlines and strikethroughs: a thin filled rect centred on y. */
static void op_hline(rp_painter *p, double x0, double x1, double y, double thickness,
                     layoutd_color color)
{
    layoutd_rect r = {x0, y - thickness / 2, x1 - x0, thickness};
    op_fill_rounded(p, &r, 0, color);
}

static void op_hairline_rect(rp_painter *p, const layoutd_rect *r, layoutd_color color)
{
    sbuf *b = &((svg *)p)->out;
    if (!(rp_finite(r->x) && rp_finite(r->y) && rp_finite(r->width) && rp_finite(r->height)) ||
        r->width < 0 || r->height < 0)
        return;
    size_t mark = b->len;
    int bad = rect_open(b, r);
    sb_str(b, " fill=\"none\"");
    sb_paint(b, "stroke", color);
    sb_str(b, " stroke-width=\"1\" vector-effect=\"non-scaling-stroke\"/>\n");
    if (bad) b->len = mark;
}

static void op_hairline_h(rp_painter *p, double x0, double x1, double y, layoutd_color color)
{
    sbuf *b = &((svg *)p)->out;
    size_t mark = b->len;
    sb_str(b, "<line");
    int bad = sb_attr(b, "x1", x0) | sb_attr(b, "y1", y) | sb_attr(b, "x2", x1) | sb_attr(b, "y2", y);
    sb_paint(b, "stroke", color);
    sb_str(b, " stroke-width=\"1\" vector-effect=\"non-scaling-stroke\"/>\n");
    if (bad) b->len = mark;
}

/* An attachment's image: an <image> filling the box (preserveAspectRatio="none", as the
 * raster painter scales it), its PNG encoded by the host once per line and image. */
static void op_image(rp_painter *p, const layoutd_rect *r, const layoutd_image *im)
{
    svg *s = (svg *)p;
    const layoutd_host *host = s->state->host;
    if (!rp_rect_ok(r) || host->png_base64 == NULL) return;
    int known = -1;
    for (int i = 0; i < s->attachment_count; i++)
        if (s->attachments[i].pixels == im->pixels) known = i;
    size_t offset, length;
    if (known >= 0) {
        offset = s->attachments[known].offset, length = s->attachments[known].length;
    } else {
        sb_base64_job enc = {&s->images, 0};
        offset = s->images.len;
        int rc = host->png_base64(host, im->pixels, im->width, im->height, im->stride, sb_base64_sink, &enc);
        if (rc != 0 || enc.bad || s->images.failed || s->images.len == offset) {
            s->images.len = offset;
            return;
        }
        length = s->images.len - offset;
        if (s->attachment_count < SVG_IMAGE_MEMO)
            s->attachments[s->attachment_count].pixels = im->pixels,
            s->attachments[s->attachment_count].offset = offset,
            s->attachments[s->attachment_count++].length = length;
    }
    sbuf *b = &s->out;
    size_t mark = b->len;
    sb_str(b, "<image");
    int bad = sb_attr(b, "x", r->x) | sb_attr(b, "y", r->y) | sb_attr(b, "width", r->width) |
              sb_attr(b, "height", r->height);
    sb_str(b, " preserveAspectRatio=\"none\"");
    sb_image_href(b, s->images.data + offset, length);
    sb_str(b, "/>\n");
    if (bad) b->len = mark;
}

/* ---- glyphs ---- */

typedef struct outline_job {
    sbuf *d;          /* where the path data goes */
    double ox, oy; /* glyph origin, points */
    int bad;       /* a NaN/inf point or an unknown op: drop the glyph */
} outline_job;

/* Appends one outline segment to the path data, translated to the glyph's origin. */
static void outline_sink(void *context, char op, const double *points)
{
    outline_job *job = context;
    if (job->bad) return;
    int n = op == 'M' || op == 'L' ? 1 : op == 'Q' ? 2 : op == 'C' ? 3 : op == 'Z' ? 0 : -1;
    if (n < 0 || (n > 0 && points == NULL)) {
        job->bad = 1;
        return;
    }
    sb_char(job->d, op);
    for (int k = 0; k < n; k++) {
        if (k > 0) sb_char(job->d, ' ');
        if (sb_num(job->d, job->ox + points[2 * k], 2) != 0) {
            job->bad = 1;
            return;
        }
        sb_char(job->d, ' ');
        if (sb_num(job->d, job->oy + points[2 * k + 1], 2) != 0) {
            job->bad = 1;
            return;
        }
    }
}

typedef struct image_job {
    uint8_t *rgba; /* straight RGBA, width × 4 bytes per row; malloc'd */
    uint32_t width, height;
    int32_t left, top;
    layoutd_color tint; /* for coverage images */
} image_job;

/* Copies a glyph image as straight RGBA: premultiplied BGRA is un-premultiplied, coverage
 * becomes the text colour with alpha × coverage. */
static void image_sink(void *context, const layoutd_glyph_image *im)
{
    image_job *job = context;
    if (im == NULL || im->width == 0 || im->height == 0 || im->pixels == NULL) return;
    if (im->width > SVG_IMAGE_MAX_SIDE || im->height > SVG_IMAGE_MAX_SIDE) return;
    uint32_t bpp = im->format == 1 ? 1 : im->format == 2 ? 4 : 0;
    if (bpp == 0 || (uint64_t)im->stride < (uint64_t)im->width * bpp) return;
    uint8_t *rgba = malloc((size_t)im->width * im->height * 4);
    if (rgba == NULL) return;
    for (uint32_t y = 0; y < im->height; y++) {
        const uint8_t *src = im->pixels + (size_t)y * im->stride;
        uint8_t *dst = rgba + (size_t)y * im->width * 4;
        for (uint32_t x = 0; x < im->width; x++, dst += 4) {
            if (bpp == 1) {
                dst[0] = (uint8_t)rp_color_r(job->tint);
                dst[1] = (uint8_t)rp_color_g(job->tint);
                dst[2] = (uint8_t)rp_color_b(job->tint);
                dst[3] = (uint8_t)((src[x] * rp_color_a(job->tint) + 127) / 255);
            } else {
                const uint8_t *s = src + (size_t)x * 4;
                uint32_t a = s[3];
                for (int c = 0; c < 3; c++) {
                    uint32_t v = s[2 - c]; /* B G R → R G B */
                    dst[c] = a == 0 ? 0 : (uint8_t)(v >= a ? 255 : (v * 255 + a / 2) / a);
                }
                dst[3] = (uint8_t)a;
            }
        }
    }
    free(job->rgba); /* in case the host called twice */
    job->rgba = rgba;
    job->width = im->width, job->height = im->height;
    job->left = im->left, job->top = im->top;
}

/* A glyph without an outline: an <image> of its bitmap, rasterized at the font size ×
 * SVG_IMAGE_OVERSAMPLE and drawn back at the font size. */
static void glyph_as_image(svg *s, const layoutd_font *font, const layoutd_glyph *g,
                           layoutd_color tint)
{
    const layoutd_host *host = s->state->host;
    if (host->glyph_image == NULL || host->png_base64 == NULL) return;
    /* Drawn before on this line: the same image again, no rasterizing or encoding. */
    const image_memo *known = NULL;
    for (int i = 0; i < s->memo_count; i++) {
        const image_memo *m = &s->memo[i];
        if (m->font == font && m->glyph == g->id && m->tint == tint) { known = m; break; }
    }
    image_memo fresh;
    if (known == NULL) {
        double pixels = font->size * SVG_IMAGE_OVERSAMPLE;
        if (pixels > SVG_IMAGE_MAX_PIXELS) pixels = SVG_IMAGE_MAX_PIXELS;
        if (!(pixels > 0) || font->size <= 0) return;
        const double k = pixels / font->size; /* pixels per point */
        image_job job = {NULL, 0, 0, 0, 0, tint};
        host->glyph_image(host, font, g->id, pixels, image_sink, &job);
        if (job.rgba == NULL) return;
        sb_base64_job enc = {&s->images, 0};
        size_t before = s->images.len;
        int rc = host->png_base64(host, job.rgba, job.width, job.height, job.width * 4, sb_base64_sink, &enc);
        free(job.rgba);
        if (rc != 0 || enc.bad || s->images.len == before || s->images.failed) {
            s->images.len = before;
            return;
        }
        fresh = (image_memo){font, g->id, tint, before, s->images.len - before,
                             job.left / k, job.top / k, job.width / k, job.height / k};
        if (s->memo_count < SVG_IMAGE_MEMO) s->memo[s->memo_count++] = fresh;
        known = &fresh;
    }
    sbuf *b = &s->out;
    size_t mark = b->len;
    sb_str(b, "<image");
    int bad = sb_attr(b, "x", g->x + known->left) | sb_attr(b, "y", g->y - known->top) |
              sb_attr(b, "width", known->width) | sb_attr(b, "height", known->height);
    sb_image_href(b, s->images.data + known->offset, known->length);
    sb_str(b, "/>\n");
    if (bad) b->len = mark;
}

/* A text run: each glyph's outline as a <path> in the text colour (outlines come at
 * pixel_size = font size: points, since SVG has no scale), an outline-less glyph as an
 * <image>. Empty outlines (spaces) emit nothing. Glyphs whose origin lies more than 4 em
 * outside the canvas are skipped. */
static void op_glyphs(rp_painter *p, const layoutd_line *line, const layoutd_run *run)
{
    svg *s = (svg *)p;
    const layoutd_host *host = s->state->host;
    const layoutd_font *font = rp_run_font(line, run);
    if (font == NULL || run->glyphs == NULL) return;
    double margin = 4 * font->size;
    int visible = rp_color_a(run->style.color) != 0;
    for (uint32_t i = 0; i < run->glyph_count; i++) {
        const layoutd_glyph *g = &run->glyphs[i];
        if (!(isfinite(g->x) && isfinite(g->y))) continue;
        if (g->x < -margin || g->x > s->width + margin || g->y < -margin ||
            g->y > s->height + margin)
            continue;
        int rc = 1;
        if (host->glyph_outline != NULL) {
            size_t mark = s->out.len;
            sb_str(&s->out, "<path d=\"");
            size_t data = s->out.len;
            outline_job job = {&s->out, g->x, g->y, 0};
            rc = host->glyph_outline(host, font, g->id, font->size, outline_sink, &job);
            if (rc == 0 && !job.bad && visible && s->out.len > data) {
                sb_char(&s->out, '"');
                sb_paint(&s->out, "fill", run->style.color);
                sb_str(&s->out, "/>\n");
            } else {
                s->out.len = mark; /* no half outline, no empty path */
            }
        }
        if (rc == 1) glyph_as_image(s, font, g, run->style.color);
    }
}

int rp_draw_svg(const rp_state *state, const layoutd_line *line, const layoutd_canvas *canvas,
                char *error, size_t error_size)
{
    if (canvas->append == NULL) {
        plugin_set_error(error, error_size, "render: SVG canvas without an append function");
        return -1;
    }
    if (canvas->width == 0 || canvas->height == 0) return 0; /* nothing visible */
    svg s = {
        .base = {.fill_rect = op_fill_rect,
                 .fill_rounded = op_fill_rounded,
                 .placeholder = op_placeholder,
                 .image = op_image,
                 .hline = op_hline,
                 .glyphs = op_glyphs,
                 .hairline_rect = op_hairline_rect,
                 .hairline_h = op_hairline_h,
                 .pixel = 1.0},
        .state = state,
        .width = canvas->width,
        .height = canvas->height,
    };
    rp_paint_line(state, line, canvas, &s.base);
    int failed = s.out.failed;
    if (!failed && s.out.len > 0) canvas->append(canvas->append_context, s.out.data, s.out.len);
    free(s.out.data);
    free(s.images.data);
    if (failed) {
        plugin_set_error(error, error_size, "render: out of memory building the SVG");
        return -1;
    }
    return 0;
}
