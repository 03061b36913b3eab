/*
 * images.c — declaring the configured codes' images to the host, so that rendered pictures
 * show them: with the option "imageFolder" (a folder; relative: to the configuration file's),
 * each code of the init table (the configuration's, or the default one) registers its image
 * name as the value whose picture is the PNG imageFolder/IMAGE (layoutd_host.register_image).
 * Only init does this: codes a request adds are never registered, so no request can make the
 * host open a file. Without "imageFolder", or with a host that has no register_image, nothing
 * is registered and renderers draw placeholders.
 */
#include <stdio.h>
#include <string.h>

#include "plugin_support.h"
#include "codes.h"

/* Longest imageFolder/IMAGE path registered; longer ones are skipped with a log line. */
#define SC_MAX_IMAGE_PATH 4096

int sc_register_images(const layoutd_host *host, const layoutd_value *options, const sc_table *table,
                       char *error, size_t error_size)
{
    const layoutd_value *folder = plugin_member(options, "imageFolder");
    if (folder == NULL || folder->type == LAYOUTD_VALUE_NULL) return 0;
    if (folder->type != LAYOUTD_VALUE_STRING || folder->length == 0) {
        plugin_set_error(error, error_size, "shortcodes: \"imageFolder\" must be a non-empty string (a folder)");
        return -1;
    }
    if (host == NULL || host->register_image == NULL) return 0; /* a host before images */
    char path[SC_MAX_IMAGE_PATH];
    for (size_t i = 0; i < table->count; i++) {
        const char *image = table->codes[i].image;
        if (image == NULL || image[0] == '\0') continue;
        int n = snprintf(path, sizeof path, "%s/%s", folder->string, image);
        if (n < 0 || (size_t)n >= sizeof path) {
            char message[160];
            snprintf(message, sizeof message, "image path for %.64s is over %d bytes: not registered",
                     table->codes[i].key, SC_MAX_IMAGE_PATH);
            host->log(host, 4, message);
            continue;
        }
        host->register_image(host, image, path); /* the host logs a refusal itself */
    }
    return 0;
}
