/*
 * decorate.c — decorations the client draws itself, per line: "pill" rounded rects behind
 * regions of the kinds in the request option "pill" (default code, mention, hashtag) and
 * "underline" lines under regions of the kinds in option "underline" (default url, link,
 * email, phone), in the link colour, or the disabled-link colour for a disabled link. Either
 * option may be an array of strings or one string; [] turns it off.
 */
#include "plugin_support.h"
#include "layoutd_plugin.h"
#include "render.h"

static const char *const default_pill[] = {"code", "mention", "hashtag", NULL};
static const char *const default_underline[] = {"url", "link", "email", "phone", NULL};

typedef struct underline_job {
    layoutd_decoration_sink emit;
    void *context;
    layoutd_color color;
} underline_job;

/* One underline stretch as a LINE decoration: 1 point thick, centred 2 points below the
 * baseline (the same place draw puts link underlines). */
static void underline_segment(void *context, double x0, double x1, double baseline)
{
    underline_job *job = context;
    double y = baseline + 2.0;
    if (!(rp_finite(x0) && rp_finite(x1) && rp_finite(y))) return;
    layoutd_decoration d = {
        .shape = LAYOUTD_DECORATION_LINE,
        .color = job->color,
        .x0 = x0, .y0 = y, .x1 = x1, .y1 = y,
        .thickness = 1.0,
        .role = "underline",
    };
    job->emit(job->context, &d);
}

/* A pill behind one region rect (rp_pill_rect), radius half its height. */
static void emit_pill(const rp_state *state, const layoutd_line *line, const layoutd_region *region,
                      const layoutd_rect *rect, layoutd_decoration_sink emit, void *context)
{
    layoutd_rect r;
    if (!rp_pill_rect(line, region, rect, &r)) return;
    layoutd_decoration d = {
        .shape = LAYOUTD_DECORATION_ROUNDED_RECT,
        .color = state->pill_color,
        .rect = r,
        .radius = r.height / 2,
        .role = "pill",
    };
    emit(context, &d);
}

int rp_decorate(const rp_state *state, const layoutd_line *line, layoutd_decoration_sink emit,
                void *context, char *error, size_t error_size)
{
    (void)error, (void)error_size; /* nothing here can fail */
    if (line->regions == NULL) return 0;
    const layoutd_value *pill = plugin_member(line->options, "pill");
    const layoutd_value *underline = plugin_member(line->options, "underline");
    underline_job job = {emit, context, state->link_color};
    for (uint32_t i = 0; i < line->region_count; i++) {
        const layoutd_region *region = &line->regions[i];
        if (region->kind == NULL || region->rects == NULL) continue;
        if (rp_list_has(pill, default_pill, region->kind))
            for (uint32_t k = 0; k < region->rect_count; k++)
                emit_pill(state, line, region, &region->rects[k], emit, context);
        job.color = rp_link_color(state, region);
        if (rp_list_has(underline, default_underline, region->kind))
            for (uint32_t k = 0; k < region->rect_count; k++)
                rp_link_segments(line, region, &region->rects[k], underline_segment, &job);
    }
    return 0;
}
