/*
 * skipink.c — link underlines that skip ink, as CSS `text-decoration-skip-ink: auto` (CSS Text
 * Decoration Module Level 4, "text-decoration-skip-ink"): the underline is interrupted where a
 * glyph's ink crosses it (descenders: g, j, p, q, y), leaving a gap on each side of the ink.
 *
 * Ink is found from the glyph images the host rasterizes (glyph_image), at the painter's pixel
 * size (so gaps line up with the glyphs a raster painter draws) or at least 2 pixels a point:
 * for each glyph near the stretch, the columns of its image that have ink (coverage or alpha
 * of at least RP_INK_THRESHOLD) in the rows the underline band crosses. Each glyph gives one
 * interval, from its leftmost to its rightmost such column.
 */
#include <math.h>
#include <stdint.h>

#include "layoutd_plugin.h"
#include "render.h"

/* Room left between ink and underline, in points: beside the ink, and above and below the
 * band (a glyph that comes this close to the underline interrupts it too). */
#define RP_INK_GAP 1.0
#define RP_INK_CLEARANCE 0.5
/* Coverage (0–255) that counts as ink; fainter anti-aliased edges do not. */
#define RP_INK_THRESHOLD 64
/* Glyph intervals kept per stretch; glyphs past it do not interrupt the underline. */
#define RP_INK_MAX 256

typedef struct ink_job {
    double k;             /* pixels per point */
    double ox, oy;        /* glyph origin, whole pixels */
    double band0, band1;  /* the band's rows, pixels */
    double lo, hi;        /* ink columns found, pixels; lo > hi when none */
} ink_job;

/* Widens the job's [lo, hi] to the inked columns of the image's rows within the band. */
static void ink_sink(void *context, const layoutd_glyph_image *im)
{
    ink_job *job = context;
    if (im == NULL || im->pixels == NULL || im->width == 0 || im->height == 0) return;
    uint64_t bpp = im->format == 1 ? 1 : im->format == 2 ? 4 : 0;
    if (bpp == 0 || (uint64_t)im->stride < (uint64_t)im->width * bpp) return;
    double top = job->oy - (double)im->top;
    for (uint32_t row = 0; row < im->height; row++) {
        double y = top + (double)row;
        if (y + 1 <= job->band0 || y >= job->band1) continue;
        const uint8_t *src = im->pixels + (size_t)row * im->stride;
        for (uint32_t col = 0; col < im->width; col++) {
            uint8_t coverage = bpp == 1 ? src[col] : src[(size_t)col * 4 + 3];
            if (coverage < RP_INK_THRESHOLD) continue;
            double x = job->ox + (double)im->left + (double)col;
            if (x < job->lo) job->lo = x;
            if (x + 1 > job->hi) job->hi = x + 1;
        }
    }
}

/* Appends to `ink` (in points, widened by the gap) the ink interval of each glyph of `run`
 * near [x0, x1] that crosses the band [y0, y1]. */
static void run_ink(const layoutd_host *host, const layoutd_line *line, const layoutd_run *run,
                    double x0, double x1, double y0, double y1, double k, double (*ink)[2], int *count)
{
    const layoutd_font *font = rp_run_font(line, run);
    if (font == NULL || run->glyphs == NULL || host->glyph_image == NULL) return;
    double size = font->size * k;
    if (!(isfinite(size) && size > 0 && size <= RP_MAX_GLYPH_PIXELS)) return;
    for (uint32_t i = 0; i < run->glyph_count && *count < RP_INK_MAX; i++) {
        const layoutd_glyph *g = &run->glyphs[i];
        if (!(rp_finite(g->x) && rp_finite(g->y) && fabs(g->x) < 1e9 && fabs(g->y) < 1e9)) continue;
        if (g->x + font->size < x0 - RP_INK_GAP || g->x - font->size > x1 + RP_INK_GAP) continue;
        ink_job job = {k, floor(g->x * k + 0.5), floor(g->y * k + 0.5), y0 * k, y1 * k, INFINITY, -INFINITY};
        host->glyph_image(host, font, g->id, size, ink_sink, &job);
        if (job.lo > job.hi) continue;
        ink[*count][0] = job.lo / k - RP_INK_GAP;
        ink[*count][1] = job.hi / k + RP_INK_GAP;
        (*count)++;
    }
}

void rp_skip_ink(const rp_state *state, const layoutd_line *line, double x0, double x1,
                 double y, double thickness, double k, double baseline, rp_segment_fn segment,
                 void *context)
{
    double ink[RP_INK_MAX][2];
    int count = 0;
    double y0 = y - thickness / 2 - RP_INK_CLEARANCE, y1 = y + thickness / 2 + RP_INK_CLEARANCE;
    for (uint32_t i = 0; line->runs != NULL && i < line->run_count; i++)
        if (!line->runs[i].style.is_attachment)
            run_ink(state->host, line, &line->runs[i], x0, x1, y0, y1, k, ink, &count);
    for (int i = 1; i < count; i++) { /* insertion sort by left edge: glyphs come nearly sorted */
        double a = ink[i][0], b = ink[i][1];
        int j = i - 1;
        for (; j >= 0 && ink[j][0] > a; j--) ink[j + 1][0] = ink[j][0], ink[j + 1][1] = ink[j][1];
        ink[j + 1][0] = a, ink[j + 1][1] = b;
    }
    double at = x0;
    for (int i = 0; i < count && at < x1; i++) {
        if (ink[i][0] > at) segment(context, at, ink[i][0] < x1 ? ink[i][0] : x1, baseline);
        if (ink[i][1] > at) at = ink[i][1];
    }
    if (at < x1) segment(context, at, x1, baseline);
}
