#include <png.h>

/* libpng's simplified API (png_image, libpng 1.6): its format and version macros combine
 * flags, which Swift does not import, so they are spelled out here. */
static inline unsigned int layoutd_png_format_rgba(void) { return PNG_FORMAT_RGBA; }
static inline unsigned int layoutd_png_image_version(void) { return PNG_IMAGE_VERSION; }
