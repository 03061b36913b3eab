/*
 * render.h — private declarations shared by the render plugin's files: the plugin state
 * (colours read from the config at init), option-tree helpers (options.c), line geometry
 * helpers (geometry.c), the painter interface the scene is drawn through (scene.c) and the
 * two painters (raster.c for RGBA pixels, svg.c for SVG elements), and decorate (decorate.c).
 *
 * Everything here is read-only after init or lives on one call's stack: the plugin keeps no
 * global mutable state, so any number of threads may draw or decorate at once.
 */
#ifndef RENDER_RENDER_H
#define RENDER_RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "layoutd_plugin.h"
#include "plugin_support.h"

/* Defaults for the colour options (0xRRGGBBAA). */
#define RP_DEFAULT_LINK_COLOR        0x1a73e8ffu
#define RP_DEFAULT_SELECTION_COLOR   0x3390ff55u
#define RP_DEFAULT_HIGHLIGHT_NORMAL  0x1a73e833u
#define RP_DEFAULT_HIGHLIGHT_PRESSED 0x1a73e866u
#define RP_DEFAULT_HIGHLIGHT_DISABLED 0x80808033u
#define RP_DEFAULT_PILL_COLOR        0xeeeeeeffu
#define RP_DEFAULT_DISABLED_LINK_COLOR 0x9aa0a6ffu

/* Glyphs are not rasterized above this many pixels per em (a host cannot make such bitmaps
 * anyway, and asking would only cost it time). */
#define RP_MAX_GLYPH_PIXELS 16384.0

/* Fixed colours: attachment placeholders and the debug overlay. */
#define RP_PLACEHOLDER_FILL    0xe0e0e0ffu
#define RP_PLACEHOLDER_STROKE  0x9e9e9effu
#define RP_OVERLAY_BOX         0xff000080u
#define RP_OVERLAY_BASELINE    0x0000ff80u
#define RP_OVERLAY_REGION      0x00a00080u

/* The plugin state: the host table and the colours, fixed at init. */
typedef struct rp_state {
    const layoutd_host *host;
    layoutd_color link_color;
    layoutd_color selection_color;
    layoutd_color highlight[3]; /* by layoutd_highlight.state: normal, pressed, disabled */
    layoutd_color pill_color;
    layoutd_color disabled_link_color; /* underlines of disabled links (LAYOUTD_REGION_DISABLED) */
} rp_state;


/* ---- options.c: reading the host's JSON value tree ---- */

/* 1 when `list` (an array of strings, or one string) holds `s`; `defaults` (NULL-terminated)
 * stands in when `list` is NULL or neither an array nor a string. */
int rp_list_has(const layoutd_value *list, const char *const *defaults, const char *s);

/* ---- geometry.c: line geometry shared by draw and decorate ---- */

int rp_finite(double v);
/* 1 when the rect's numbers are finite and its width and height positive. */
int rp_rect_ok(const layoutd_rect *r);
/* The run's font when its index is valid and its size finite and positive, else NULL. */
const layoutd_font *rp_run_font(const layoutd_line *line, const layoutd_run *run);
/* The em (points) a run's decorations are sized by; see geometry.c for attachments. */
double rp_run_em(const layoutd_line *line, const layoutd_run *run);
/* 1 when `region`'s kind is `kind`. */
int rp_region_is(const layoutd_region *region, const char *kind);

/* Receives one stretch [x0, x1] of a link underline and the baseline it hangs from. */
typedef void (*rp_segment_fn)(void *context, double x0, double x1, double baseline);
/* Splits one region rect into link-underline stretches (see geometry.c). */
void rp_link_segments(const layoutd_line *line, const layoutd_region *region,
                      const layoutd_rect *rect, rp_segment_fn segment, void *context);
/* The baseline under the middle of `rect` within `region`: the first text run there, else
 * the line's. */
double rp_rect_baseline(const layoutd_line *line, const layoutd_region *region,
                        const layoutd_rect *rect);
/* ---- skipink.c: underlines that skip descenders ---- */

/* Calls `segment` (with `baseline`) for each piece of [x0, x1] that no glyph's ink on the line
 * crosses, for an underline `thickness` thick centred on `y`; ink is looked for at `k`
 * pixels per point. */
void rp_skip_ink(const rp_state *state, const layoutd_line *line, double x0, double x1,
                 double y, double thickness, double k, double baseline, rp_segment_fn segment,
                 void *context);

/* The pill behind one region rect (see geometry.c); 0 when the rect is unusable. */
int rp_pill_rect(const layoutd_line *line, const layoutd_region *region, const layoutd_rect *rect,
                 layoutd_rect *out);
/* The colour a region's link underline takes: the disabled colour for a disabled link. */
layoutd_color rp_link_color(const rp_state *state, const layoutd_region *region);

/* ---- scene.c: what a line is made of, in drawing order ---- */

/* The primitives a line is drawn with, in layout points. A painter implements each one for
 * its canvas; all must tolerate NaN/inf/huge numbers (they skip what they cannot draw). */
typedef struct rp_painter rp_painter;
struct rp_painter {
    /* A filled rectangle. */
    void (*fill_rect)(rp_painter *p, const layoutd_rect *r, layoutd_color color);
    /* A filled rectangle with round corners of `radius`. */
    void (*fill_rounded)(rp_painter *p, const layoutd_rect *r, double radius, layoutd_color color);
    /* An attachment placeholder: rounded box filled with `fill`, 1-point `stroke` inside its
     * edge; `title` (the attachment's value, may be NULL) for backends that can show it. */
    void (*placeholder)(rp_painter *p, const layoutd_rect *r, double radius, layoutd_color fill,
                        layoutd_color stroke, const char *title);
    /* An attachment's image (straight RGBA) scaled to fill `r`. */
    void (*image)(rp_painter *p, const layoutd_rect *r, const layoutd_image *image);
    /* A horizontal line from x0 to x1 centred on y, `thickness` points thick (underlines). */
    void (*hline)(rp_painter *p, double x0, double x1, double y, double thickness,
                  layoutd_color color);
    /* The glyphs of one text run, in the run's colour. */
    void (*glyphs)(rp_painter *p, const layoutd_line *line, const layoutd_run *run);
    /* Overlay: a rectangle outline one device pixel wide. */
    void (*hairline_rect)(rp_painter *p, const layoutd_rect *r, layoutd_color color);
    /* Overlay: a horizontal line one device pixel wide at y. */
    void (*hairline_h)(rp_painter *p, double x0, double x1, double y, layoutd_color color);
    /* Size of one device pixel in points (1/scale for RGBA, 1 for SVG). */
    double pixel;
};

/* Paints `line` through `painter`: backgrounds, highlights, selection, glyphs and attachment
 * placeholders, underlines and strikethroughs, link underlines, overlay. */
void rp_paint_line(const rp_state *state, const layoutd_line *line, const layoutd_canvas *canvas,
                   rp_painter *painter);

/* ---- render.c: the one exported symbol, and the painters and decorate ---- */

/* The entry point (see layoutd_plugin.h); declared here for -Wmissing-prototypes. */
LAYOUTD_PLUGIN_EXPORT const layoutd_plugin *layoutd_plugin_entry(uint32_t host_abi_version);


int rp_draw_rgba(const rp_state *state, const layoutd_line *line, const layoutd_canvas *canvas,
                 char *error, size_t error_size);
int rp_draw_svg(const rp_state *state, const layoutd_line *line, const layoutd_canvas *canvas,
                char *error, size_t error_size);
int rp_decorate(const rp_state *state, const layoutd_line *line, layoutd_decoration_sink emit,
                void *context, char *error, size_t error_size);

#endif /* RENDER_RENDER_H */
