/* Pango's answer to hit-testing, for scripts/compare-hittest.
 *
 * Reads lines "text<TAB>x,y;x,y;..." (UTF-8) and prints, for each, the caret offsets Pango
 * gives for the points (pango_layout_xy_to_index: index + trailing, as UTF-8 byte offsets),
 * space-separated. Pango is set up as ../shared/bench/reference.c sets it up: unhinted
 * metrics, unrounded positions, absolute size, PANGO_WRAP_WORD_CHAR.
 *
 * usage: pango-hittest WIDTH_PX FONT_SIZE_PX FAMILY < input
 */
#include <pango/pangocairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc < 4) { fprintf(stderr, "usage: %s WIDTH_PX FONT_SIZE_PX FAMILY\n", argv[0]); return 2; }
  double width = atof(argv[1]), size = atof(argv[2]);
  PangoFontMap *fm = pango_cairo_font_map_get_default();
  PangoContext *ctx = pango_font_map_create_context(fm);
  cairo_font_options_t *fo = cairo_font_options_create();
  cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
  cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
  pango_cairo_context_set_font_options(ctx, fo);
  pango_context_set_round_glyph_positions(ctx, FALSE);
  PangoFontDescription *desc = pango_font_description_new();
  pango_font_description_set_family(desc, argv[3]);
  pango_font_description_set_absolute_size(desc, size * PANGO_SCALE);
  PangoLayout *layout = pango_layout_new(ctx);
  pango_layout_set_font_description(layout, desc);
  pango_layout_set_width(layout, (int)(width * PANGO_SCALE));
  pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR);

  static char line[1 << 20];
  while (fgets(line, sizeof line, stdin)) {
    size_t n = strlen(line);
    if (n && line[n - 1] == '\n') line[--n] = 0;
    char *tab = strchr(line, '\t');
    if (!tab) { printf("\n"); continue; }
    *tab = 0;
    const char *text = line;
    pango_layout_set_text(layout, text, -1);
    char *points = tab + 1, *save = NULL;
    int first = 1;
    for (char *p = strtok_r(points, ";", &save); p; p = strtok_r(NULL, ";", &save)) {
      double x = 0, y = 0;
      sscanf(p, "%lf,%lf", &x, &y);
      int index = 0, trailing = 0;
      pango_layout_xy_to_index(layout, (int)(x * PANGO_SCALE), (int)(y * PANGO_SCALE), &index, &trailing);
      const char *at = g_utf8_offset_to_pointer(text + index, trailing);
      printf("%s%ld", first ? "" : " ", (long)(at - text));
      first = 0;
    }
    printf("\n");
    fflush(stdout);
  }
  return 0;
}
