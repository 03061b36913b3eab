/*
 * scene.c — what a line is drawn with and in which order, independent of the canvas: it
 * computes every shape in layout points and hands it to a painter (raster.c or svg.c).
 *
 * Order, back to front:
 *   1. run backgrounds (style.background over the run's width and the line box's height;
 *      abutting runs of the same colour merged into one rect so no seam shows), then the
 *      pills behind inline-code regions ("code": pillColor, as decorate's pills)
 *   2. highlights (rounded rects, radius 0.2 × height, colour by state)
 *   3. selection rects (selectionColor)
 *   4. runs in visual order: a text run's glyphs in its text colour; an attachment run's
 *      image (the host's, for its value) in the object's own box, or a placeholder box
 *   5. each run's underline and strikethrough
 *   6. link underlines (regions other than "attachment", "code" and "truncation"), in the
 *      disabled-link colour for a disabled link, skipping the ink of descenders (skipink.c)
 *   7. the debug overlay, when asked: line box, baseline, region rects
 */
#include <math.h>

#include "color.h"
#include "layoutd_plugin.h"
#include "render.h"

static double dmax(double a, double b) { return a > b ? a : b; }
static double dmin(double a, double b) { return a < b ? a : b; }
static double dabs(double a) { return a < 0 ? -a : a; }

/* 1. Backgrounds: one rect per stretch of abutting runs with the same background colour. */
static void paint_backgrounds(const layoutd_line *line, rp_painter *p)
{
    if (line->runs == NULL) return;
    layoutd_rect pending = {0, 0, 0, 0};
    layoutd_color pending_color = 0;
    int have = 0;
    for (uint32_t i = 0; i < line->run_count; i++) {
        const layoutd_run *run = &line->runs[i];
        layoutd_color bg = run->style.background;
        if (rp_color_a(bg) == 0 || !rp_finite(run->x) || !rp_finite(run->width)) continue;
        double end = pending.x + pending.width;
        if (have && bg == pending_color && dabs(run->x - end) < 1e-6) {
            pending.width = run->x + run->width - pending.x;
            continue;
        }
        if (have) p->fill_rect(p, &pending, pending_color);
        pending = (layoutd_rect){run->x, line->box.y, run->width, line->box.height};
        pending_color = bg;
        have = 1;
    }
    if (have) p->fill_rect(p, &pending, pending_color);
}

/* 1. Inline code: a pill behind each rect of a "code" region (Litext's inline-code look). */
static void paint_code_pills(const rp_state *state, const layoutd_line *line, rp_painter *p)
{
    if (line->regions == NULL) return;
    for (uint32_t i = 0; i < line->region_count; i++) {
        const layoutd_region *region = &line->regions[i];
        if (region->rects == NULL || !rp_region_is(region, "code")) continue;
        for (uint32_t k = 0; k < region->rect_count; k++) {
            layoutd_rect r;
            if (rp_pill_rect(line, region, &region->rects[k], &r))
                p->fill_rounded(p, &r, r.height / 2, state->pill_color);
        }
    }
}

/* 2 and 3. Highlights and selection, from the canvas. */
static void paint_highlights_and_selection(const rp_state *state, const layoutd_canvas *canvas,
                                           rp_painter *p)
{
    if (canvas->highlights != NULL) {
        for (uint32_t i = 0; i < canvas->highlight_count; i++) {
            const layoutd_highlight *h = &canvas->highlights[i];
            layoutd_color color = state->highlight[h->state <= 2 ? h->state : 0];
            if (h->rects == NULL) continue;
            for (uint32_t k = 0; k < h->rect_count; k++)
                p->fill_rounded(p, &h->rects[k], 0.2 * h->rects[k].height, color);
        }
    }
    if (canvas->selection != NULL) {
        for (uint32_t i = 0; i < canvas->selection_count; i++)
            p->fill_rect(p, &canvas->selection[i], state->selection_color);
    }
}

/* The box of an attachment run: its region's rect over the run (the object's own width,
 * ascent and descent, which the host gives attachment regions), else the run's width and the
 * line's ascent above and descent below the run's baseline, clipped to the line box. */
static int attachment_box(const layoutd_line *line, const layoutd_run *run, layoutd_rect *out)
{
    for (uint32_t i = 0; line->regions != NULL && i < line->region_count; i++) {
        const layoutd_region *region = &line->regions[i];
        if (region->rects == NULL || !rp_region_is(region, "attachment") ||
            region->start > run->start || run->start >= region->end)
            continue;
        for (uint32_t k = 0; k < region->rect_count; k++) {
            const layoutd_rect *r = &region->rects[k];
            if (rp_rect_ok(r) && r->x < run->x + run->width && run->x < r->x + r->width) {
                *out = *r;
                return 1;
            }
        }
    }
    double top = run->baseline - line->ascent, bottom = run->baseline + line->descent;
    const layoutd_rect *box = &line->box;
    if (rp_finite(box->y) && rp_finite(box->height) && box->height > 0) {
        top = dmax(top, box->y);
        bottom = dmin(bottom, box->y + box->height);
    }
    *out = (layoutd_rect){run->x, top, run->width, bottom - top};
    return rp_rect_ok(out);
}

typedef struct image_job {
    rp_painter *p;
    layoutd_rect box;
    int drawn;
} image_job;

static void attachment_image_sink(void *context, const layoutd_image *image)
{
    image_job *job = context;
    if (image == NULL || image->pixels == NULL || image->width == 0 || image->height == 0 ||
        (uint64_t)image->stride < (uint64_t)image->width * 4)
        return;
    job->p->image(job->p, &job->box, image);
    job->drawn = 1;
}

/* 4. An attachment: the image the host holds for its value, scaled to the object's box; a
 * placeholder (grey rounded box) when there is none. */
static void paint_attachment(const rp_state *state, const layoutd_line *line, const layoutd_run *run,
                             rp_painter *p)
{
    image_job job = {p, {0, 0, 0, 0}, 0};
    if (!attachment_box(line, run, &job.box)) return;
    const layoutd_host *host = state->host;
    if (run->attachment_value != NULL && host->attachment_image != NULL &&
        host->attachment_image(host, run->attachment_value, attachment_image_sink, &job) == 0 && job.drawn)
        return;
    const layoutd_rect *r = &job.box;
    double radius = dmin(4.0, 0.15 * dmin(r->width, r->height));
    p->placeholder(p, r, radius, RP_PLACEHOLDER_FILL, RP_PLACEHOLDER_STROKE, run->attachment_value);
}

/* 5. Underline (single, double, thick) and strikethrough of one run. Sizes follow the run's
 * em: the line is 0.06 em thick (at least one device pixel) and centred 0.1 em below the
 * baseline; a double underline adds a second line one gap lower, a thick one is twice as
 * thick with the same top; the strikethrough is centred 0.3 em above the baseline. */
static void paint_run_lines(const layoutd_line *line, const layoutd_run *run, rp_painter *p)
{
    if (run->style.underline == 0 && run->style.strikethrough == 0) return;
    double em = rp_run_em(line, run);
    if (!(em > 0) || !rp_finite(run->baseline)) return;
    double x0 = run->x, x1 = run->x + run->width;
    double t = dmax(0.06 * em, p->pixel);
    if (run->style.underline != 0) {
        layoutd_color c = run->style.underline_color ? run->style.underline_color : run->style.color;
        double y = run->baseline + 0.1 * em;
        if (run->style.underline == 3) {
            p->hline(p, x0, x1, y + t / 2, 2 * t, c);
        } else {
            p->hline(p, x0, x1, y, t, c);
            /* the gap stays at least ~1.5 device pixels once both lines snap to pixels */
            if (run->style.underline == 2) p->hline(p, x0, x1, y + dmax(2 * t, t + 2.5 * p->pixel), t, c);
        }
    }
    if (run->style.strikethrough != 0) {
        layoutd_color c =
            run->style.strikethrough_color ? run->style.strikethrough_color : run->style.color;
        p->hline(p, x0, x1, run->baseline - 0.3 * em, t, c);
    }
}

typedef struct link_context {
    const rp_state *state;
    const layoutd_line *line;
    rp_painter *p;
    layoutd_color color;
} link_context;

/* One piece of a link underline: 1 point thick, centred 2 points below the baseline. */
static void link_piece(void *context, double x0, double x1, double baseline)
{
    link_context *c = context;
    c->p->hline(c->p, x0, x1, baseline + 2.0, 1.0, c->color);
}

/* A link underline stretch, with gaps where glyph ink crosses it (skipink.c), ink looked for
 * at the painter's pixel size, or 2 pixels a point at least. */
static void link_segment(void *context, double x0, double x1, double baseline)
{
    link_context *c = context;
    double k = dmax(1.0 / c->p->pixel, 2.0);
    rp_skip_ink(c->state, c->line, x0, x1, baseline + 2.0, 1.0, k, baseline, link_piece, c);
}

/* 6. Link underlines under every region rect that is linked text (not an attachment, inline
 * code or the truncation token). */
static void paint_links(const rp_state *state, const layoutd_line *line, rp_painter *p)
{
    if (line->regions == NULL) return;
    link_context c = {state, line, p, state->link_color};
    for (uint32_t i = 0; i < line->region_count; i++) {
        const layoutd_region *region = &line->regions[i];
        if (region->rects == NULL || rp_region_is(region, "attachment") ||
            rp_region_is(region, "code") || rp_region_is(region, "truncation"))
            continue;
        c.color = rp_link_color(state, region);
        for (uint32_t k = 0; k < region->rect_count; k++)
            rp_link_segments(line, region, &region->rects[k], link_segment, &c);
    }
}

/* 7. Debug overlay: the line box, the baseline across it, every region rect. */
static void paint_overlay(const layoutd_line *line, rp_painter *p)
{
    p->hairline_rect(p, &line->box, RP_OVERLAY_BOX);
    p->hairline_h(p, line->box.x, line->box.x + line->box.width, line->baseline,
                  RP_OVERLAY_BASELINE);
    if (line->regions == NULL) return;
    for (uint32_t i = 0; i < line->region_count; i++) {
        const layoutd_region *region = &line->regions[i];
        if (region->rects == NULL) continue;
        for (uint32_t k = 0; k < region->rect_count; k++)
            p->hairline_rect(p, &region->rects[k], RP_OVERLAY_REGION);
    }
}

void rp_paint_line(const rp_state *state, const layoutd_line *line, const layoutd_canvas *canvas,
                   rp_painter *p)
{
    paint_backgrounds(line, p);
    paint_code_pills(state, line, p);
    paint_highlights_and_selection(state, canvas, p);
    if (line->runs != NULL) {
        for (uint32_t i = 0; i < line->run_count; i++) {
            const layoutd_run *run = &line->runs[i];
            if (run->style.is_attachment)
                paint_attachment(state, line, run, p);
            else
                p->glyphs(p, line, run);
        }
        for (uint32_t i = 0; i < line->run_count; i++) paint_run_lines(line, &line->runs[i], p);
    }
    paint_links(state, line, p);
    if (canvas->overlay) paint_overlay(line, p);
}
