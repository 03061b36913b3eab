/*
 * layoutd_guard.h — calls into plugins that survive the plugin crashing or hanging.
 *
 * Each function calls one plugin function on the calling thread with a guard around it:
 * a fault inside the call (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) or the call running
 * past `seconds` (a per-thread timer, CLOCK_MONOTONIC) unwinds straight back here with
 * siglongjmp and the function returns LAYOUTD_GUARD_ABORTED with the signal in
 * `*signal_out` (the timer's signal for a hang). The plugin's own state may then be
 * inconsistent (it was stopped mid-way, maybe holding its locks): the caller must never call
 * that plugin again, nor its fini. Faults outside a guarded call go to the handlers that
 * were installed before (Swift's backtracer, or the default action): real crashes of
 * layoutd still crash.
 */
#ifndef LAYOUTD_GUARD_H
#define LAYOUTD_GUARD_H

#include <layoutd_plugin.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Returned when the call was aborted (a fault or the time limit). */
#define LAYOUTD_GUARD_ABORTED (-0x7000)

/** Installs the signal handlers (once; later calls do nothing). Returns 0, or -1. */
int layoutd_guard_install(void);

/** The signal used for the time limit. */
int layoutd_guard_timeout_signal(void);

int layoutd_guard_detect(const layoutd_plugin *plugin, void *state, const layoutd_detect_request *request,
                         layoutd_link_sink emit, void *context, char *error, size_t error_size,
                         double seconds, int *signal_out);

int layoutd_guard_attachments(const layoutd_plugin *plugin, void *state, const layoutd_attachment_request *request,
                              layoutd_attachment_sink emit, void *context, char *error, size_t error_size,
                              double seconds, int *signal_out);

int layoutd_guard_decorate(const layoutd_plugin *plugin, void *state, const layoutd_line *line,
                           layoutd_decoration_sink emit, void *context, char *error, size_t error_size,
                           double seconds, int *signal_out);

int layoutd_guard_draw(const layoutd_plugin *plugin, void *state, const layoutd_line *line,
                       const layoutd_canvas *canvas, char *error, size_t error_size,
                       double seconds, int *signal_out);

#ifdef __cplusplus
}
#endif

#endif
