/*
 * render.c — the render plugin's entry point and table (a LAYOUTD_KIND_LINE_RENDERER named
 * "render"), init/fini (reading the colour options into the state) and the draw/decorate
 * entry points, which check what the host passed and hand over to raster.c, svg.c and
 * decorate.c.
 *
 * Options (the plugin's config section; every member optional, colours "#rrggbb[aa]"):
 *   linkColor       link underlines and "underline" decorations   default #1a73e8
 *   selectionColor  selection rects                                default #3390ff55
 *   highlight       {normal, pressed, disabled} highlight colours  #1a73e833 #1a73e866 #80808033
 *   pillColor       "pill" decorations and inline-code pills       default #eeeeee
 *   disabledLinkColor  underlines of disabled links                default #9aa0a6
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "plugin_support.h"
#include "color.h"
#include "layoutd_plugin.h"
#include "render.h"

/* Reads colour option `key` of `object` into *out when present; leaves *out (the default)
 * when absent or null. Returns -1 with a message when present but not a colour string. */
static int read_color(const layoutd_value *object, const char *key, const char *path,
                      layoutd_color *out, char *error, size_t error_size)
{
    const layoutd_value *v = plugin_member(object, key);
    if (v == NULL || v->type == LAYOUTD_VALUE_NULL) return 0;
    if (v->type == LAYOUTD_VALUE_STRING && rp_parse_color(v->string, v->length, out) == 0) return 0;
    plugin_set_error(error, error_size, "render: option %s must be a colour \"#rrggbb\" or \"#rrggbbaa\"",
             path);
    return -1;
}

static int render_init(const layoutd_host *host, const layoutd_value *options, void **state,
                       char *error, size_t error_size)
{
    if (state == NULL) {
        plugin_set_error(error, error_size, "render: no state pointer");
        return -1;
    }
    *state = NULL;
    if (host == NULL || host->struct_size < offsetof(layoutd_host, host_context)) {
        plugin_set_error(error, error_size, "render: host table missing or too small");
        return -1;
    }
    if (options != NULL && options->type != LAYOUTD_VALUE_OBJECT &&
        options->type != LAYOUTD_VALUE_NULL) {
        plugin_set_error(error, error_size, "render: options must be an object");
        return -1;
    }

    rp_state s = {
        .host = host,
        .link_color = RP_DEFAULT_LINK_COLOR,
        .selection_color = RP_DEFAULT_SELECTION_COLOR,
        .highlight = {RP_DEFAULT_HIGHLIGHT_NORMAL, RP_DEFAULT_HIGHLIGHT_PRESSED,
                      RP_DEFAULT_HIGHLIGHT_DISABLED},
        .pill_color = RP_DEFAULT_PILL_COLOR,
        .disabled_link_color = RP_DEFAULT_DISABLED_LINK_COLOR,
    };
    if (read_color(options, "linkColor", "linkColor", &s.link_color, error, error_size) != 0 ||
        read_color(options, "selectionColor", "selectionColor", &s.selection_color, error,
                   error_size) != 0 ||
        read_color(options, "pillColor", "pillColor", &s.pill_color, error, error_size) != 0 ||
        read_color(options, "disabledLinkColor", "disabledLinkColor", &s.disabled_link_color, error,
                   error_size) != 0)
        return -1;
    const layoutd_value *hl = plugin_member(options, "highlight");
    if (hl != NULL && hl->type != LAYOUTD_VALUE_NULL) {
        if (hl->type != LAYOUTD_VALUE_OBJECT) {
            plugin_set_error(error, error_size,
                     "render: option highlight must be an object {normal, pressed, disabled}");
            return -1;
        }
        if (read_color(hl, "normal", "highlight.normal", &s.highlight[0], error, error_size) != 0 ||
            read_color(hl, "pressed", "highlight.pressed", &s.highlight[1], error, error_size) != 0 ||
            read_color(hl, "disabled", "highlight.disabled", &s.highlight[2], error, error_size) != 0)
            return -1;
    }

    rp_state *copy = malloc(sizeof *copy);
    if (copy == NULL) {
        plugin_set_error(error, error_size, "render: out of memory");
        return -1;
    }
    *copy = s;
    *state = copy;
    return 0;
}

static void render_fini(void *state) { free(state); }

/* The line fields every call reads; a host line smaller than this is refused. */
static int line_ok(const layoutd_line *line, char *error, size_t error_size)
{
    if (line == NULL || line->struct_size < offsetof(layoutd_line, reserved)) {
        plugin_set_error(error, error_size, "render: line missing or its struct too small");
        return 0;
    }
    return 1;
}

static int render_draw(void *state, const layoutd_line *line, const layoutd_canvas *canvas,
                       char *error, size_t error_size)
{
    const rp_state *s = state;
    if (s == NULL) {
        plugin_set_error(error, error_size, "render: not initialized");
        return -1;
    }
    if (!line_ok(line, error, error_size)) return -1;
    if (canvas == NULL || canvas->struct_size < offsetof(layoutd_canvas, reserved)) {
        plugin_set_error(error, error_size, "render: canvas missing or its struct too small");
        return -1;
    }
    switch (canvas->format) {
    case LAYOUTD_CANVAS_RGBA: return rp_draw_rgba(s, line, canvas, error, error_size);
    case LAYOUTD_CANVAS_SVG: return rp_draw_svg(s, line, canvas, error, error_size);
    default:
        plugin_set_error(error, error_size, "render: unknown canvas format %u", (unsigned)canvas->format);
        return -1;
    }
}

static int render_decorate(void *state, const layoutd_line *line, layoutd_decoration_sink emit,
                           void *context, char *error, size_t error_size)
{
    const rp_state *s = state;
    if (s == NULL) {
        plugin_set_error(error, error_size, "render: not initialized");
        return -1;
    }
    if (!line_ok(line, error, error_size)) return -1;
    if (emit == NULL) {
        plugin_set_error(error, error_size, "render: no decoration sink");
        return -1;
    }
    return rp_decorate(s, line, emit, context, error, error_size);
}

static const char *const render_kinds[] = {"render", NULL};

static const layoutd_plugin render_plugin = {
    .abi_version = LAYOUTD_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(layoutd_plugin),
    .kind = LAYOUTD_KIND_LINE_RENDERER,
    .name = "render",
    .version = "1.0",
    .kinds = render_kinds,
    .init = render_init,
    .fini = render_fini,
    .decorate = render_decorate,
    .draw = render_draw,
};

LAYOUTD_PLUGIN_EXPORT const layoutd_plugin *layoutd_plugin_entry(uint32_t host_abi_version)
{
    return host_abi_version == LAYOUTD_PLUGIN_ABI_VERSION ? &render_plugin : NULL;
}
