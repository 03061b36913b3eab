/*
 * geometry.c — line geometry shared by draw (scene.c) and decorate (decorate.c): number and
 * rect sanity checks, a run's font and em, and where link underlines go under a region.
 */
#include <math.h>
#include <string.h>

#include "layoutd_plugin.h"
#include "render.h"

int rp_finite(double v) { return isfinite(v); }

int rp_rect_ok(const layoutd_rect *r)
{
    return r != NULL && isfinite(r->x) && isfinite(r->y) && isfinite(r->width) &&
           isfinite(r->height) && r->width > 0 && r->height > 0 && isfinite(r->x + r->width) &&
           isfinite(r->y + r->height);
}

const layoutd_font *rp_run_font(const layoutd_line *line, const layoutd_run *run)
{
    if (run->style.is_attachment || line->fonts == NULL || run->font >= line->font_count)
        return NULL;
    const layoutd_font *font = &line->fonts[run->font];
    return isfinite(font->size) && font->size > 0 ? font : NULL;
}

/* A text run's em is its font size. An attachment run has no font: it takes the first text
 * run's font size on the line, or, on a line of attachments only, (ascent + descent) / 1.2
 * (a typical line-height-to-em ratio). 0 when nothing usable is found. */
double rp_run_em(const layoutd_line *line, const layoutd_run *run)
{
    const layoutd_font *font = rp_run_font(line, run);
    if (font != NULL) return font->size;
    if (line->runs != NULL) {
        for (uint32_t i = 0; i < line->run_count; i++) {
            font = rp_run_font(line, &line->runs[i]);
            if (font != NULL) return font->size;
        }
    }
    double em = (line->ascent + line->descent) / 1.2;
    return isfinite(em) && em > 0 ? em : 0;
}

int rp_region_is(const layoutd_region *region, const char *kind)
{
    return region->kind != NULL && strcmp(region->kind, kind) == 0;
}

/* 1 when the run's bytes overlap the region's. */
static int run_in_region(const layoutd_run *run, const layoutd_region *region)
{
    return run->start < region->end && region->start < run->end;
}

/* Link underlines follow the text: for each run of the region's text under `rect`, the part
 * of the rect over that run, hanging from that run's baseline (so a superscript's part sits
 * higher). Runs that carry their own underline get none (the style's underline already
 * marks them), nor do attachment runs (a box, not text). When no run of the region lies
 * under the rect at all, the whole rect hangs from the line's baseline. */
void rp_link_segments(const layoutd_line *line, const layoutd_region *region,
                      const layoutd_rect *rect, rp_segment_fn segment, void *context)
{
    if (!rp_finite(rect->x) || !rp_finite(rect->width) || !(rect->width > 0)) return;
    double x0 = rect->x, x1 = rect->x + rect->width;
    if (!rp_finite(x1)) return;
    int any = 0;
    if (line->runs != NULL) {
        for (uint32_t i = 0; i < line->run_count; i++) {
            const layoutd_run *run = &line->runs[i];
            if (!run_in_region(run, region)) continue;
            double a = run->x > x0 ? run->x : x0;
            double b = run->x + run->width < x1 ? run->x + run->width : x1;
            if (!rp_finite(a) || !rp_finite(b) || !(b > a)) continue;
            any = 1;
            if (run->style.is_attachment || run->style.underline != 0) continue;
            if (rp_finite(run->baseline)) segment(context, a, b, run->baseline);
        }
    }
    if (!any && rp_finite(line->baseline)) segment(context, x0, x1, line->baseline);
}

double rp_rect_baseline(const layoutd_line *line, const layoutd_region *region,
                        const layoutd_rect *rect)
{
    if (line->runs != NULL) {
        double x0 = rect->x, x1 = rect->x + rect->width;
        for (uint32_t i = 0; i < line->run_count; i++) {
            const layoutd_run *run = &line->runs[i];
            if (run->style.is_attachment || !run_in_region(run, region)) continue;
            if (run->x < x1 && x0 < run->x + run->width && rp_finite(run->baseline))
                return run->baseline;
        }
    }
    return line->baseline;
}

/* A pill is the rect narrowed vertically to the line's ascent above and descent below the
 * baseline of the text under it (region rects usually span the whole line box, leading
 * included), or the rect itself when that leaves nothing. */
int rp_pill_rect(const layoutd_line *line, const layoutd_region *region, const layoutd_rect *rect,
                 layoutd_rect *out)
{
    if (!rp_rect_ok(rect)) return 0;
    layoutd_rect r = *rect;
    double baseline = rp_rect_baseline(line, region, rect);
    double top = baseline - line->ascent, bottom = baseline + line->descent;
    if (rp_finite(top) && rp_finite(bottom)) {
        if (top < r.y) top = r.y;
        if (bottom > r.y + r.height) bottom = r.y + r.height;
        if (bottom > top) r.y = top, r.height = bottom - top;
    }
    *out = r;
    return 1;
}

layoutd_color rp_link_color(const rp_state *state, const layoutd_region *region)
{
    return region->flags & LAYOUTD_REGION_DISABLED ? state->disabled_link_color : state->link_color;
}
