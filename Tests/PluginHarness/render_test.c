/*
 * render_test.c — a stand-alone harness for the render plugin (Plugins/render).
 *
 *   cc -std=c11 -Wall -Wextra -fPIC -shared -I Sources/CLayoutPlugin/include \
 *      Plugins/render/[every .c file] -o /tmp/render.so
 *   cc -I Sources/CLayoutPlugin/include Tests/PluginHarness/render_test.c -ldl -o /tmp/rt
 *   /tmp/rt /tmp/render.so
 *
 * It dlopens the plugin, gives it a fake host (glyph_image: a solid 6×10 coverage box, or an
 * 8×8 premultiplied BGRA box for glyph 99, or a 200×200 box for glyph 77; glyph_outline: a
 * 6×10 rectangle, "no outline" for glyph 99, a NaN point for glyph 66; png_base64: "AAAA"),
 * builds a line by hand (a text run of 3 glyphs and an attachment run, a link region, a
 * selection rect, a highlight) and checks the RGBA and SVG drawings, decorate, init's option
 * handling and inputs that must not crash (zero-size canvas, NaN/inf, huge counts, images
 * past the canvas edge). Prints one line per check; exits 1 when any failed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layoutd_plugin.h"

static int failures, checks;

#define CHECK(cond, ...)                                                                        \
    do {                                                                                        \
        checks++;                                                                               \
        if (cond) {                                                                             \
            printf("ok   ");                                                                    \
        } else {                                                                                \
            printf("FAIL ");                                                                    \
            failures++;                                                                         \
        }                                                                                       \
        printf(__VA_ARGS__);                                                                    \
        printf("\n");                                                                           \
    } while (0)

/* ---------------------------------------------------------------- fake host */

static int image_calls;           /* glyph_image calls */
static double last_pixel_size;    /* its last pixel_size */
static uint8_t png_first[4];      /* first pixel png_base64 got */
static uint8_t big_box[200 * 200];

static void fake_log(const layoutd_host *host, int level, const char *message)
{
    (void)host;
    printf("     [plugin log %d] %s\n", level, message);
}

static int fake_glyph_image(const layoutd_host *host, const layoutd_font *font, uint32_t glyph,
                            double pixel_size, layoutd_glyph_image_fn sink, void *context)
{
    (void)host, (void)font;
    image_calls++;
    last_pixel_size = pixel_size;
    if (glyph == 99) { /* colour glyph: 8×8 premultiplied BGRA, blue at half alpha */
        uint8_t px[8 * 8 * 4];
        for (int i = 0; i < 64; i++) px[4 * i] = 128, px[4 * i + 1] = 0, px[4 * i + 2] = 0, px[4 * i + 3] = 128;
        layoutd_glyph_image im = {8, 8, 0, 8, 32, 2, px};
        sink(context, &im);
        return 0;
    }
    if (glyph == 77) { /* huge box reaching past every canvas edge */
        memset(big_box, 255, sizeof big_box);
        layoutd_glyph_image im = {200, 200, -100, 100, 200, 1, big_box};
        sink(context, &im);
        return 0;
    }
    uint8_t px[10 * 8]; /* 6 wide, stride 8 (padding holds 0) */
    memset(px, 0, sizeof px);
    for (int y = 0; y < 10; y++)
        for (int x = 0; x < 6; x++) px[y * 8 + x] = 255;
    layoutd_glyph_image im = {6, 10, 0, 10, 8, 1, px};
    sink(context, &im);
    return 0;
}

static int fake_glyph_outline(const layoutd_host *host, const layoutd_font *font, uint32_t glyph,
                              double pixel_size, layoutd_path_fn sink, void *context)
{
    (void)host, (void)font, (void)pixel_size;
    if (glyph == 99) return 1;
    double p[2] = {0, -10};
    sink(context, 'M', p);
    p[0] = 6;
    sink(context, 'L', p);
    p[1] = glyph == 66 ? NAN : 0;
    sink(context, 'L', p);
    p[0] = 0, p[1] = 0;
    sink(context, 'L', p);
    sink(context, 'Z', NULL);
    return 0;
}

static int fake_png_base64(const layoutd_host *host, const uint8_t *rgba, uint32_t width,
                           uint32_t height, uint32_t stride, layoutd_bytes_fn sink, void *context)
{
    (void)host;
    if (width == 0 || height == 0 || stride < width * 4) return -1;
    memcpy(png_first, rgba, 4);
    sink(context, "AAAA", 4);
    return 0;
}

static layoutd_host host = {
    .struct_size = sizeof(layoutd_host),
    .abi_version = LAYOUTD_PLUGIN_ABI_VERSION,
    .log = fake_log,
    .glyph_image = fake_glyph_image,
    .glyph_outline = fake_glyph_outline,
    .png_base64 = fake_png_base64,
};

/* ---------------------------------------------------------------- value trees */

static layoutd_value str_value(const char *s)
{
    return (layoutd_value){.type = LAYOUTD_VALUE_STRING, .string = s, .length = strlen(s)};
}
static layoutd_value obj_value(const layoutd_member *m, uint32_t n)
{
    return (layoutd_value){.type = LAYOUTD_VALUE_OBJECT, .count = n, .members = m};
}
static layoutd_value arr_value(const layoutd_value *items, uint32_t n)
{
    return (layoutd_value){.type = LAYOUTD_VALUE_ARRAY, .count = n, .items = items};
}
static layoutd_member member(const char *key, layoutd_value v)
{
    return (layoutd_member){key, strlen(key), v};
}

/* ---------------------------------------------------------------- the line */

static const layoutd_value empty_object = {.type = LAYOUTD_VALUE_OBJECT};
static layoutd_font font = {.file = "/fake/font.ttf", .size = 10};
static layoutd_glyph glyphs[3] = {
    {.id = 1, .cluster = 0, .x = 2, .y = 15, .advance = 8},
    {.id = 0, .cluster = 1, .x = 10, .y = 15, .advance = 8},
    {.id = 99, .cluster = 2, .x = 18, .y = 15, .advance = 8},
};
static layoutd_run runs[2];
/* An attachment region's rect is the object's own box, as the host gives it: here 12 above
 * the baseline and 4 below, the line's ascent and descent. */
static layoutd_rect link_rect = {2, 0, 24, 20}, attachment_rect = {26, 3, 14, 16};
static layoutd_region regions[2];
static layoutd_line line;

static void build_line(void)
{
    runs[0] = (layoutd_run){
        .start = 0, .end = 3, .font = 0, .x = 2, .width = 24, .baseline = 15,
        .style = {.color = 0xff0000ffu, .background = 0xffff00ffu},
        .glyph_count = 3, .glyphs = glyphs,
    };
    runs[1] = (layoutd_run){
        .start = 3, .end = 7, .x = 26, .width = 14, .baseline = 15,
        .style = {.color = 0x000000ffu, .is_attachment = 1},
        .attachment_value = "img&<x>\".png",
    };
    regions[0] = (layoutd_region){0, 3, "link", "https://example.com", 1, 0, &link_rect};
    regions[1] = (layoutd_region){3, 7, "attachment", "img.png", 1, 0, &attachment_rect};
    line = (layoutd_line){
        .struct_size = sizeof(layoutd_line),
        .start = 0, .end = 7,
        .box = {0, 0, 60, 20},
        .baseline = 15, .ascent = 12, .descent = 4,
        .text = "abc\xef\xbf\xbc   ", .text_length = 7,
        .run_count = 2, .font_count = 1, .region_count = 2,
        .runs = runs, .fonts = &font, .regions = regions,
        .options = &empty_object,
    };
}

static layoutd_rect highlight_rect = {2, 2, 24, 16};
static layoutd_highlight highlight = {1, 1, &highlight_rect};
static layoutd_rect selection_rect = {40, 0, 15, 20};

/* ---------------------------------------------------------------- canvases */

typedef struct image {
    uint32_t w, h, stride;
    uint8_t *px;
} image;

static image new_image(uint32_t w, uint32_t h)
{
    image im = {w, h, w * 4 + 8, NULL};
    im.px = malloc((size_t)im.stride * h);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < im.stride; x++) im.px[(size_t)y * im.stride + x] = x < w * 4 ? 255 : 0xAB;
    return im;
}

static const uint8_t *at(const image *im, uint32_t x, uint32_t y) { return im->px + (size_t)y * im->stride + x * 4; }

/* 1 when pixel (x, y) is within `tol` of r, g, b, a on every channel. */
static int near(const image *im, uint32_t x, uint32_t y, int r, int g, int b, int a, int tol)
{
    const uint8_t *p = at(im, x, y);
    return abs(p[0] - r) <= tol && abs(p[1] - g) <= tol && abs(p[2] - b) <= tol && abs(p[3] - a) <= tol;
}

static char pixel_text[8][32];
static int pixel_slot;
static const char *show(const image *im, uint32_t x, uint32_t y)
{
    const uint8_t *p = at(im, x, y);
    char *s = pixel_text[pixel_slot++ % 8];
    snprintf(s, 32, "(%d,%d,%d,%d)", p[0], p[1], p[2], p[3]);
    return s;
}

/* 1 when the padding bytes past each row are untouched. */
static int padding_intact(const image *im)
{
    for (uint32_t y = 0; y < im->h; y++)
        for (uint32_t x = im->w * 4; x < im->stride; x++)
            if (im->px[(size_t)y * im->stride + x] != 0xAB) return 0;
    return 1;
}

static layoutd_canvas rgba_canvas(image *im, double scale, uint32_t overlay)
{
    return (layoutd_canvas){
        .struct_size = sizeof(layoutd_canvas), .format = LAYOUTD_CANVAS_RGBA,
        .width = im->w, .height = im->h, .stride = im->stride, .overlay = overlay,
        .scale = scale, .pixels = im->px,
        .highlight_count = 1, .selection_count = 1,
        .highlights = &highlight, .selection = &selection_rect,
    };
}

typedef struct text {
    char *data;
    size_t len;
    int calls;
} text;

static void append_text(void *context, const char *bytes, size_t length)
{
    text *t = context;
    t->data = realloc(t->data, t->len + length + 1);
    memcpy(t->data + t->len, bytes, length);
    t->len += length;
    t->data[t->len] = '\0';
    t->calls++;
}

static layoutd_canvas svg_canvas(text *t, uint32_t overlay)
{
    return (layoutd_canvas){
        .struct_size = sizeof(layoutd_canvas), .format = LAYOUTD_CANVAS_SVG,
        .width = 64, .height = 24, .overlay = overlay, .scale = 1,
        .append = append_text, .append_context = t,
        .highlight_count = 1, .selection_count = 1,
        .highlights = &highlight, .selection = &selection_rect,
    };
}

/* Checks tags nest: every <name ...> closed by </name> in order or self-closed "/>";
 * attribute values are quoted and no '<' appears inside a tag. */
static int svg_balanced(const char *s, int *elements)
{
    char stack[64][16];
    int depth = 0;
    *elements = 0;
    for (const char *p = s; *p; p++) {
        if (*p == '>') return 0; /* '>' outside a tag: should have been &gt; */
        if (*p != '<') continue;
        int closing = p[1] == '/';
        const char *name = p + 1 + closing;
        size_t n = strspn(name, "abcdefghijklmnopqrstuvwxyz");
        if (n == 0 || n >= 16) return 0;
        const char *q = name + n;
        int quoted = 0;
        for (; *q && (quoted || *q != '>'); q++) {
            if (*q == '"') quoted = !quoted;
            if (*q == '<') return 0;
        }
        if (*q != '>') return 0;
        int self = q[-1] == '/';
        if (closing) {
            if (depth == 0 || strncmp(stack[depth - 1], name, n) != 0 || stack[depth - 1][n]) return 0;
            depth--;
        } else {
            (*elements)++;
            if (!self) {
                if (depth == 64) return 0;
                memcpy(stack[depth], name, n);
                stack[depth][n] = '\0';
                depth++;
            }
        }
        p = q;
    }
    return depth == 0;
}

/* ---------------------------------------------------------------- decorations */

typedef struct decorations {
    layoutd_decoration d[16];
    char roles[16][16];
    int n;
} decorations;

static void collect(void *context, const layoutd_decoration *d)
{
    decorations *ds = context;
    if (ds->n < 16) {
        ds->d[ds->n] = *d;
        snprintf(ds->roles[ds->n], 16, "%s", d->role ? d->role : "");
        ds->d[ds->n].role = ds->roles[ds->n];
    }
    ds->n++;
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s path/to/liblayoutd-plugin-render.so\n", argv[0]);
        return 2;
    }
    void *so = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (so == NULL) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 2;
    }
    void *symbol = dlsym(so, LAYOUTD_PLUGIN_ENTRY_SYMBOL);
    layoutd_plugin_entry_fn entry = NULL;
    memcpy(&entry, &symbol, sizeof entry); /* ISO C has no object-to-function pointer cast */
    if (entry == NULL) {
        fprintf(stderr, "dlsym: %s\n", dlerror());
        return 2;
    }
    char error[256];

    /* table */
    CHECK(entry(LAYOUTD_PLUGIN_ABI_VERSION + 1) == NULL, "entry refuses another ABI version");
    const layoutd_plugin *pl = entry(LAYOUTD_PLUGIN_ABI_VERSION);
    CHECK(pl != NULL, "entry returns a table");
    if (pl == NULL) return 1;
    CHECK(pl->abi_version == LAYOUTD_PLUGIN_ABI_VERSION && pl->struct_size == sizeof(layoutd_plugin),
          "table abi_version and struct_size");
    CHECK(pl->kind == LAYOUTD_KIND_LINE_RENDERER && strcmp(pl->name, "render") == 0 &&
              strcmp(pl->version, "1.0") == 0 && strcmp(pl->kinds[0], "render") == 0 && pl->kinds[1] == NULL,
          "kind line renderer, name render, version 1.0, kinds {render}");
    CHECK(pl->init && pl->fini && pl->draw && pl->decorate && !pl->detect && !pl->attachments,
          "init, fini, draw, decorate set; detect, attachments NULL");

    /* init: bad options are refused with a message */
    void *state = NULL;
    layoutd_member bad_color[] = {member("linkColor", str_value("#12345"))};
    layoutd_value bad_opts = obj_value(bad_color, 1);
    error[0] = '\0';
    CHECK(pl->init(&host, &bad_opts, &state, error, sizeof error) != 0 && strstr(error, "linkColor"),
          "init refuses linkColor \"#12345\": %s", error);
    layoutd_member bad_hl[] = {member("highlight", str_value("#123456"))};
    bad_opts = obj_value(bad_hl, 1);
    CHECK(pl->init(&host, &bad_opts, &state, error, sizeof error) != 0 && strstr(error, "highlight"),
          "init refuses a non-object highlight: %s", error);
    layoutd_member bad_nested[] = {member("pressed", str_value("blue"))};
    layoutd_member bad_hl2[] = {member("highlight", obj_value(bad_nested, 1))};
    bad_opts = obj_value(bad_hl2, 1);
    CHECK(pl->init(&host, &bad_opts, &state, error, sizeof error) != 0 && strstr(error, "highlight.pressed"),
          "init refuses highlight.pressed \"blue\": %s", error);

    /* init with custom colours, then the defaults */
    layoutd_member custom[] = {member("linkColor", str_value("#112233")),
                               member("pillColor", str_value("#ABCDEF80"))};
    layoutd_value custom_opts = obj_value(custom, 2);
    void *custom_state = NULL;
    CHECK(pl->init(&host, &custom_opts, &custom_state, error, sizeof error) == 0 && custom_state,
          "init with linkColor #112233, pillColor #ABCDEF80");
    CHECK(pl->init(&host, &empty_object, &state, error, sizeof error) == 0 && state, "init with {}");

    build_line();

    /* ---- RGBA, scale 1, no overlay ---- */
    image im = new_image(64, 24);
    layoutd_canvas cv = rgba_canvas(&im, 1, 0);
    CHECK(pl->draw(state, &line, &cv, error, sizeof error) == 0, "draw RGBA returns 0");
    CHECK(near(&im, 4, 10, 255, 0, 0, 255, 0), "glyph 1 pixels in the text colour: %s", show(&im, 4, 10));
    CHECK(near(&im, 12, 10, 255, 0, 0, 255, 0), "glyph id 0 is drawn too: %s", show(&im, 12, 10));
    CHECK(near(&im, 5, 0, 255, 255, 0, 255, 0), "run background yellow over the line box: %s", show(&im, 5, 0));
    CHECK(near(&im, 9, 10, 163, 199, 93, 255, 2), "pressed highlight #1a73e866 over the background: %s",
          show(&im, 9, 10));
    CHECK(near(&im, 20, 10, 82, 99, 174, 255, 3), "BGRA glyph composited premultiplied: %s", show(&im, 20, 10));
    CHECK(near(&im, 47, 10, 187, 218, 255, 255, 2), "selection #3390ff55 tints the white: %s", show(&im, 47, 10));
    CHECK(near(&im, 33, 11, 224, 224, 224, 255, 0), "attachment placeholder fill: %s", show(&im, 33, 11));
    CHECK(near(&im, 26, 11, 158, 158, 158, 255, 0), "attachment placeholder outline: %s", show(&im, 26, 11));
    CHECK(near(&im, 33, 2, 255, 255, 255, 255, 0) && near(&im, 33, 19, 255, 255, 255, 255, 0),
          "placeholder spans baseline-ascent..baseline+descent (rows 3..18): %s %s", show(&im, 33, 2),
          show(&im, 33, 19));
    CHECK(near(&im, 5, 17, 26, 115, 232, 255, 0) && near(&im, 25, 17, 26, 115, 232, 255, 0),
          "link underline in linkColor at baseline + 2: %s", show(&im, 5, 17));
    CHECK(!near(&im, 5, 16, 26, 115, 232, 255, 40) && !near(&im, 5, 18, 26, 115, 232, 255, 40),
          "link underline one pixel thick: %s %s", show(&im, 5, 16), show(&im, 5, 18));
    CHECK(near(&im, 33, 17, 224, 224, 224, 255, 0), "no link underline under the attachment region: %s",
          show(&im, 33, 17));
    CHECK(near(&im, 62, 22, 255, 255, 255, 255, 0) && near(&im, 1, 10, 255, 255, 255, 255, 0),
          "untouched pixels stay white");
    CHECK(padding_intact(&im), "row padding untouched");

    /* ---- underline, strikethrough; the link underline gives way ---- */
    runs[0].style.underline = 1;
    runs[0].style.strikethrough = 1;
    runs[0].style.strikethrough_color = 0x00ff00ffu;
    image im2 = new_image(64, 24);
    cv = rgba_canvas(&im2, 1, 0);
    CHECK(pl->draw(state, &line, &cv, error, sizeof error) == 0, "draw RGBA (underlined run) returns 0");
    CHECK(near(&im2, 23, 16, 255, 0, 0, 255, 0) && near(&im2, 3, 16, 255, 0, 0, 255, 0),
          "underline in the text colour at baseline + 0.1 em: %s", show(&im2, 23, 16));
    CHECK(near(&im2, 9, 12, 0, 255, 0, 255, 0), "strikethrough in its colour at baseline - 0.3 em: %s",
          show(&im2, 9, 12));
    CHECK(near(&im2, 5, 17, 163, 199, 93, 255, 2), "no link underline under an underlined run: %s",
          show(&im2, 5, 17));

    /* ---- scale 2, double underline ---- */
    runs[0].style.underline = 2;
    image im3 = new_image(128, 48);
    cv = rgba_canvas(&im3, 2, 0);
    CHECK(pl->draw(state, &line, &cv, error, sizeof error) == 0, "draw RGBA at scale 2 returns 0");
    CHECK(last_pixel_size == 20, "glyph_image asked for font size × scale = %g", last_pixel_size);
    CHECK(near(&im3, 5, 25, 255, 0, 0, 255, 0), "glyph at (2,15) pt lands at pixel (4,30)-10: %s", show(&im3, 5, 25));
    CHECK(near(&im3, 10, 0, 255, 255, 0, 255, 0) && near(&im3, 10, 39, 255, 255, 0, 255, 0) &&
              near(&im3, 10, 41, 255, 255, 255, 255, 0),
          "background covers rows 0..39 at scale 2");
    {
        int lines = 0, prev = 0;
        for (uint32_t y = 30; y < 40; y++) {
            int red = near(&im3, 46, y, 255, 0, 0, 255, 0);
            if (red && !prev) lines++;
            prev = red;
        }
        CHECK(lines == 2, "double underline: %d separate lines below the baseline", lines);
    }
    CHECK(padding_intact(&im3), "row padding untouched at scale 2");
    runs[0].style.underline = 0;
    runs[0].style.strikethrough = 0;

    /* ---- overlay ---- */
    image im4 = new_image(64, 24);
    cv = rgba_canvas(&im4, 1, 1);
    CHECK(pl->draw(state, &line, &cv, error, sizeof error) == 0, "draw RGBA with overlay returns 0");
    CHECK(near(&im4, 0, 10, 255, 127, 127, 255, 2), "overlay: line box outline translucent red: %s", show(&im4, 0, 10));
    CHECK(near(&im4, 57, 15, 127, 127, 255, 255, 2), "overlay: baseline translucent blue: %s", show(&im4, 57, 15));
    CHECK(near(&im4, 25, 1, 127, 207, 0, 255, 2), "overlay: region rect translucent green: %s", show(&im4, 25, 1));

    /* ---- SVG ---- */
    text svg = {0};
    layoutd_canvas sv = svg_canvas(&svg, 0);
    CHECK(pl->draw(state, &line, &sv, error, sizeof error) == 0 && svg.data, "draw SVG returns 0");
    const char *s = svg.data ? svg.data : "";
    printf("     SVG:\n%s", s);
    int elements = 0;
    CHECK(svg_balanced(s, &elements), "SVG tags balanced (%d elements)", elements);
    CHECK(svg.calls == 1, "SVG appended in one call");
    CHECK(strstr(s, "<rect x=\"2\" y=\"0\" width=\"24\" height=\"20\" fill=\"#ffff00\"/>") != NULL,
          "SVG background rect");
    CHECK(strstr(s, "<rect x=\"2\" y=\"2\" width=\"24\" height=\"16\" rx=\"3.2\" fill=\"#1a73e8\" fill-opacity=\"0.4\"/>") != NULL,
          "SVG highlight rect with rx");
    CHECK(strstr(s, "<rect x=\"40\" y=\"0\" width=\"15\" height=\"20\" fill=\"#3390ff\" fill-opacity=\"0.333\"/>") != NULL,
          "SVG selection rect");
    CHECK(strstr(s, "<path d=\"M2 5L8 5L8 15L2 15Z\" fill=\"#ff0000\"/>") != NULL &&
              strstr(s, "<path d=\"M10 5L16 5L16 15L10 15Z\" fill=\"#ff0000\"/>") != NULL,
          "SVG glyph outlines: one absolute <path> per glyph");
    {
        int paths = 0;
        for (const char *q = s; (q = strstr(q, "<path")) != NULL; q++) paths++;
        CHECK(paths == 2, "two outlined glyphs, two paths (%d)", paths);
    }
    CHECK(strstr(s, "<image x=\"18\" y=\"11\" width=\"4\" height=\"4\" href=\"data:image/png;base64,AAAA\" "
                    "xlink:href=\"data:image/png;base64,AAAA\"/>") != NULL,
          "SVG colour glyph as an image, with xlink:href for SVG 1.1 viewers");
    CHECK(png_first[0] == 0 && png_first[1] == 0 && png_first[2] == 255 && png_first[3] == 128,
          "PNG pixels straight RGBA: (%d,%d,%d,%d)", png_first[0], png_first[1], png_first[2], png_first[3]);
    CHECK(strstr(s, "<title>img&amp;&lt;x&gt;&quot;.png</title></rect>") != NULL, "SVG placeholder title escaped");
    CHECK(strstr(s, "<rect x=\"26.5\" y=\"3.5\" width=\"13\" height=\"15\" rx=\"2.1\" fill=\"#e0e0e0\" stroke=\"#9e9e9e\" stroke-width=\"1\">") != NULL,
          "SVG placeholder rect");
    CHECK(strstr(s, "<rect x=\"2\" y=\"16.5\" width=\"24\" height=\"1\" fill=\"#1a73e8\"/>") != NULL,
          "SVG link underline");
    CHECK(strstr(s, "vector-effect") == NULL, "no overlay unless asked");
    free(svg.data);

    text svg2 = {0};
    sv = svg_canvas(&svg2, 1);
    CHECK(pl->draw(state, &line, &sv, error, sizeof error) == 0, "draw SVG with overlay returns 0");
    s = svg2.data ? svg2.data : "";
    CHECK(svg_balanced(s, &elements) && strstr(s, "<line x1=\"0\" y1=\"15\" x2=\"60\" y2=\"15\" stroke=\"#0000ff\"") &&
              strstr(s, "<rect x=\"0\" y=\"0\" width=\"60\" height=\"20\" fill=\"none\" stroke=\"#ff0000\""),
          "SVG overlay: box rect and baseline line, balanced (%d elements)", elements);
    free(svg2.data);

    /* ---- decorate ---- */
    decorations ds = {0};
    CHECK(pl->decorate(state, &line, collect, &ds, error, sizeof error) == 0, "decorate returns 0");
    CHECK(ds.n == 1 && ds.d[0].shape == LAYOUTD_DECORATION_LINE && strcmp(ds.d[0].role, "underline") == 0 &&
              ds.d[0].color == 0x1a73e8ffu && ds.d[0].x0 == 2 && ds.d[0].x1 == 26 && ds.d[0].y0 == 17 &&
              ds.d[0].y1 == 17 && ds.d[0].thickness == 1,
          "default options: one underline LINE under the link (n=%d)", ds.n);

    layoutd_value pill_kinds[] = {str_value("link")};
    layoutd_member line_opts[] = {member("pill", arr_value(pill_kinds, 1)), member("underline", arr_value(NULL, 0))};
    layoutd_value opts = obj_value(line_opts, 2);
    line.options = &opts;
    memset(&ds, 0, sizeof ds);
    CHECK(pl->decorate(state, &line, collect, &ds, error, sizeof error) == 0 && ds.n == 1 &&
              ds.d[0].shape == LAYOUTD_DECORATION_ROUNDED_RECT && strcmp(ds.d[0].role, "pill") == 0 &&
              ds.d[0].color == 0xeeeeeeffu && ds.d[0].rect.x == 2 && ds.d[0].rect.y == 3 &&
              ds.d[0].rect.width == 24 && ds.d[0].rect.height == 16 && ds.d[0].radius == 8,
          "pill [link], underline []: one pill (2,3,24,16) r 8 (n=%d)", ds.n);

    layoutd_member line_opts2[] = {member("pill", str_value("attachment"))};
    opts = obj_value(line_opts2, 1);
    memset(&ds, 0, sizeof ds);
    CHECK(pl->decorate(custom_state, &line, collect, &ds, error, sizeof error) == 0 && ds.n == 2 &&
              ds.d[0].shape == LAYOUTD_DECORATION_LINE && ds.d[0].color == 0x112233ffu &&
              ds.d[1].shape == LAYOUTD_DECORATION_ROUNDED_RECT && ds.d[1].color == 0xabcdef80u &&
              ds.d[1].rect.x == 26 && strcmp(ds.d[1].role, "pill") == 0,
          "pill \"attachment\" as a string; custom pillColor and linkColor (n=%d)", ds.n);
    line.options = &empty_object;

    runs[0].style.underline = 1;
    memset(&ds, 0, sizeof ds);
    CHECK(pl->decorate(state, &line, collect, &ds, error, sizeof error) == 0 && ds.n == 0,
          "no underline decoration over a run that has its own underline (n=%d)", ds.n);
    runs[0].style.underline = 0;

    /* ---- inputs that must not crash ---- */
    layoutd_canvas zero = {.struct_size = sizeof(layoutd_canvas), .format = LAYOUTD_CANVAS_RGBA, .scale = 1};
    CHECK(pl->draw(state, &line, &zero, error, sizeof error) == 0, "zero-size RGBA canvas: nothing, 0");
    layoutd_canvas nopix = {.struct_size = sizeof(layoutd_canvas), .format = LAYOUTD_CANVAS_RGBA,
                            .width = 4, .height = 4, .stride = 16, .scale = 1};
    CHECK(pl->draw(state, &line, &nopix, error, sizeof error) != 0, "RGBA canvas without pixels refused: %s", error);
    cv = rgba_canvas(&im, 1, 0);
    cv.stride = 10;
    CHECK(pl->draw(state, &line, &cv, error, sizeof error) != 0, "short stride refused: %s", error);
    cv = rgba_canvas(&im, NAN, 0);
    CHECK(pl->draw(state, &line, &cv, error, sizeof error) != 0, "NaN scale refused: %s", error);
    cv = rgba_canvas(&im, 1, 0);
    cv.format = 7;
    CHECK(pl->draw(state, &line, &cv, error, sizeof error) != 0, "unknown canvas format refused: %s", error);
    cv = rgba_canvas(&im, 1, 0);
    cv.struct_size = 8;
    CHECK(pl->draw(state, &line, &cv, error, sizeof error) != 0, "small canvas struct refused: %s", error);
    line.struct_size = 8;
    cv = rgba_canvas(&im, 1, 0);
    CHECK(pl->draw(state, &line, &cv, error, sizeof error) != 0 &&
              pl->decorate(state, &line, collect, &ds, error, sizeof error) != 0,
          "small line struct refused: %s", error);
    line.struct_size = sizeof(layoutd_line);

    /* a glyph image far larger than the canvas, on a 3×2 canvas */
    layoutd_glyph big = {.id = 77, .x = 1, .y = 1};
    runs[0].glyphs = &big;
    runs[0].glyph_count = 1;
    image tiny = new_image(3, 2);
    cv = rgba_canvas(&tiny, 1, 0);
    CHECK(pl->draw(state, &line, &cv, error, sizeof error) == 0 && padding_intact(&tiny),
          "200×200 glyph image on a 3×2 canvas is clipped");
    CHECK(near(&tiny, 0, 0, 255, 0, 0, 255, 0) && near(&tiny, 2, 1, 255, 0, 0, 255, 0),
          "clipped glyph still drawn: %s %s", show(&tiny, 0, 0), show(&tiny, 2, 1));
    cv = rgba_canvas(&tiny, 1, 1);
    CHECK(pl->draw(state, &line, &cv, error, sizeof error) == 0 && padding_intact(&tiny),
          "same with the overlay: clipped");

    /* NaN, inf and huge numbers everywhere */
    layoutd_glyph odd[4] = {{.id = 1, .x = NAN, .y = 15}, {.id = 1, .x = 1e300, .y = 15},
                            {.id = 1, .x = 4, .y = -INFINITY}, {.id = 66, .x = 30, .y = 15}};
    runs[0].glyphs = odd;
    runs[0].glyph_count = 4;
    runs[0].style.underline = 3;
    runs[0].x = NAN;
    runs[1].width = INFINITY;
    layoutd_rect bad_rects[3] = {{NAN, 0, 5, 5}, {0, 0, INFINITY, 5}, {1e300, -1e300, 1e300, 1e300}};
    regions[0].rects = bad_rects;
    regions[0].rect_count = 3;
    layoutd_highlight bad_hl_canvas = {9, 3, bad_rects};
    image im5 = new_image(64, 24);
    cv = rgba_canvas(&im5, 1, 1);
    cv.highlights = &bad_hl_canvas;
    cv.selection = bad_rects;
    cv.selection_count = 3;
    image_calls = 0;
    CHECK(pl->draw(state, &line, &cv, error, sizeof error) == 0 && padding_intact(&im5),
          "NaN/inf/huge coordinates: drawn without a fault");
    CHECK(image_calls == 1, "only the one finite on-canvas glyph was rasterized (%d calls)", image_calls);
    text svg3 = {0};
    sv = svg_canvas(&svg3, 1);
    sv.highlights = &bad_hl_canvas;
    sv.selection = bad_rects;
    sv.selection_count = 3;
    CHECK(pl->draw(state, &line, &sv, error, sizeof error) == 0, "SVG with NaN/inf/huge coordinates returns 0");
    s = svg3.data ? svg3.data : "";
    printf("     SVG:\n%s", s);
    CHECK(!strstr(s, "nan") && !strstr(s, "inf") && !strstr(s, "NAN") && !strstr(s, "INF") && svg_balanced(s, &elements),
          "SVG has no nan/inf and stays balanced (%d elements)", elements);
    CHECK(strstr(s, "M30") == NULL, "an outline with a NaN point is dropped whole");
    free(svg3.data);
    memset(&ds, 0, sizeof ds);
    CHECK(pl->decorate(state, &line, collect, &ds, error, sizeof error) == 0, "decorate with NaN/inf returns 0 (n=%d)", ds.n);

    /* huge glyph counts far off the canvas: culled without asking the host */
    enum { many = 200000 };
    layoutd_glyph *far = calloc(many, sizeof *far);
    for (int i = 0; i < many; i++) far[i] = (layoutd_glyph){.id = 1, .x = 1e6 + i, .y = 15};
    runs[0].glyphs = far;
    runs[0].glyph_count = many;
    runs[0].x = 2;
    runs[1].width = 14;
    regions[0].rects = &link_rect;
    regions[0].rect_count = 1;
    image_calls = 0;
    cv = rgba_canvas(&im5, 1, 0);
    CHECK(pl->draw(state, &line, &cv, error, sizeof error) == 0 && image_calls == 0,
          "%d glyphs off the canvas: no rasterization (%d calls)", many, image_calls);
    free(far);

    /* an absurd scale: no glyph is asked for at millions of pixels per em */
    image_calls = 0;
    cv = rgba_canvas(&im5, 1e6, 0);
    CHECK(pl->draw(state, &line, &cv, error, sizeof error) == 0 && image_calls == 0,
          "scale 1e6: no rasterization at 1e7 px/em (%d calls)", image_calls);

    /* NULL arrays with counts */
    layoutd_line empty = line;
    empty.runs = NULL;
    empty.regions = NULL;
    empty.fonts = NULL;
    cv = rgba_canvas(&im5, 1, 1);
    cv.highlights = NULL;
    cv.selection = NULL;
    memset(&ds, 0, sizeof ds);
    CHECK(pl->draw(state, &empty, &cv, error, sizeof error) == 0 &&
              pl->decorate(state, &empty, collect, &ds, error, sizeof error) == 0 && ds.n == 0,
          "NULL runs/regions/fonts/highlights/selection with counts: 0");

    pl->fini(state);
    pl->fini(custom_state);
    free(im.px), free(im2.px), free(im3.px), free(im4.px), free(im5.px), free(tiny.px);
    dlclose(so);
    printf("%d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
